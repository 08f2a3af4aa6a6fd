"""Every command with ``--json``: clean channels and one type per field.

In-process runners (click's CliRunner, pytest's capsys) do not see what a C library writes to
file descriptors 1 and 2, so every command runs at least once as ``python -m momentbound`` for
real (:data:`SUBPROCESS`: one run per command, and the ``bound`` run of the model form that calls
every method and so every solver in one process; advise and learning-curve run for real in
``test_data_plan.py``), and its stdout and stderr are read. The other cases run in this
process with click's CliRunner, file descriptors 1 and 2 redirected to files around each run so
that a solver writing to them is still seen. A successful run prints exactly one JSON document on
stdout and at most one-line warnings on stderr; a failed run prints nothing on stdout and one
``Error:`` line on stderr. No solver banner may reach either channel. The subprocesses start
together on a thread pool (each spends most of its second importing numpy, numba and the
solvers) while the in-process runs go one after the other.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import momentbound
from momentbound.bounds.registry import METHODS

SRC = Path(momentbound.__file__).resolve().parents[1]
CELLS = "0.2,0.3,0.2,0.3"
MODEL = ["--arities", "2", "--cells", CELLS]
MOMENTS_FORM = ["--moments", "1,3,11,45", "--support", "grid:0:6", "--event", "ge:5"]
MODEL_FORM = [*MODEL, "--N", "6", "--at", "0", "--order", "3"]
GE = [*MODEL, "--estimator", "ge"]
BANNED = re.compile(r"HiGHS|Clarabel|SCS|OSQP|Copyright|licen[cs]e|Traceback|Running", re.IGNORECASE)
WARNING_LINE = re.compile(r"^\w*Warning: \S")
METHOD_NAMES = tuple(METHODS)
# methods that need more than moments (a law or a sampler): refused in the moments form
NEEDS_A_MODEL = ("exact", "sampling")
# methods for problems with a shape or a moment box only (their own runs below)
NEEDS_STRUCTURE = ("sos", "shape-closed-form", "shape-grid")
PLAIN = tuple(m for m in METHOD_NAMES if m not in NEEDS_A_MODEL + NEEDS_STRUCTURE)

# id -> arguments; "{tmp}" is replaced by a fresh folder. Expected to succeed.
SUCCEEDS: dict[str, list[str]] = {
    "moments": ["moments", *MODEL, "--N", "6", "--at", "0", "--order", "3", "--json"],
    "moments-exact": ["moments", *MODEL, "--N", "6", "--at", "0", "--order", "3", "--exact", "--json"],
    "moments-N20": ["moments", *MODEL, "--N", "20", "--at", "1", "--order", "4", "--central", "--json"],
    "bound-moments-all": ["bound", *MOMENTS_FORM, "--json"],
    "bound-model-all": ["bound", *MODEL_FORM, "--json"],
    **{f"bound-moments-{m}": ["bound", *MOMENTS_FORM, "--method", m, "--json"]
       for m in PLAIN},
    **{f"bound-model-{m}": ["bound", *MODEL_FORM, "--method", m, "--json"] for m in PLAIN},
    "bound-unimodal-sos": ["bound", "--moments", "1,0,1", "--support", "real", "--event", "dev:0:2", "--mode", "0",
                           "--method", "sos", "--json"],
    "bound-unimodal-closed-form": ["bound", "--moments", "1,0,1", "--support", "real", "--event", "dev:0:2",
                                   "--mode", "0", "--method", "shape-closed-form", "--json"],
    "bound-unimodal-grid": ["bound", "--moments", "1,0,1", "--support", "grid:-2:2", "--event", "dev:0:2", "--mode",
                            "0", "--method", "shape-grid", "--json"],
    "bound-halfline": ["bound", "--moments", "1,1,4", "--support", "halfline:0", "--event", "ge:2", "--json"],
    "bound-box": ["bound", "--moments-lo", "1,0.9,3.5", "--moments-hi", "1,1.1,4.5", "--support", "grid:0:10",
                  "--event", "ge:5", "--json"],
    "band": ["band", "--truth", "binomial:10:3/10", "--order", "3", "--support", "grid:0:10", "--json"],
    "mvbound": ["mvbound", "--mean", "0,0", "--cov", "1,0,0,1", "--ellipsoid", "0,0:2", "--json"],
    "estimate-exact-N7": ["estimate", *MODEL, "--N", "7", "--estimator", "cv", "--folds", "2", "--json"],
    "estimate-exact-N20": ["estimate", *MODEL, "--N", "20", "--estimator", "cv", "--folds", "2", "--json"],
    "estimate-holdout": ["estimate", *MODEL, "--N", "6", "--estimator", "holdout", "--test-size", "2",
                         "--alpha", "1/2", "--json"],
    "estimate-sampling": ["estimate", *GE, "--N", "6", "--backend", "sampling", "--seed", "1", "--json"],
    "estimate-series": ["estimate", *GE, "--N", "6", "--backend", "series", "--json"],
    "estimate-montecarlo": ["estimate", *GE, "--N", "6", "--backend", "montecarlo", "--draws", "2000",
                            "--seed", "1", "--json"],
    **{f"estimate-bound-{m}": ["estimate", *GE, "--N", "6", "--backend", f"bound:{m}", "--json"]
       for m in PLAIN},
    "estimate-stratified": ["estimate", *MODEL, "--N", "8", "--estimator", "stratified-cv", "--folds", "2", "--json"],
    "accuracy-632-against-ge-full": ["estimate", *MODEL, "--N", "8", "--estimator", "632", "--against", "ge-full",
                                   "--json"],
    "estimate-sklearn": ["estimate", *MODEL, "--N", "8", "--estimator", "shuffle-split", "--splits", "2",
                         "--test-size", "2", "--classifier", "sklearn:sklearn.tree.DecisionTreeClassifier",
                         "--param", "random_state=0", "--backend", "montecarlo", "--draws", "200", "--seed", "1",
                         "--json"],
    "estimate-sklearn-dask": ["estimate", *MODEL, "--N", "8", "--estimator", "shuffle-split", "--splits", "2",
                              "--test-size", "2", "--classifier", "sklearn:sklearn.tree.DecisionTreeClassifier",
                              "--param", "random_state=0", "--backend", "montecarlo", "--draws", "200", "--seed",
                              "1", "--scheduler", "threads", "--workers", "2", "--json"],
    "coverage": ["coverage", "--cells", "0.3,0.2,0.15,0.35", "--N", "10", "--method", "clopper-pearson",
                 "--test-size", "5", "--target", "ge-train", "--json"],
    "compare-classifiers": ["compare-classifiers", "--arities", "2,2", "--cells", "0.1,0.15,0.15,0.1,0.05,0.2,0.15,0.1",
                            "--N", "10", "--test", "mcnemar", "--attributes-a", "0", "--attributes-b", "1",
                            "--test-size", "5", "--json"],
    "sweep-exact": ["sweep", *MODEL, "--N", "6", "--over", "folds", "--values", "2-3,loo", "--json"],
    "sweep-sklearn-dask": ["sweep", *MODEL, "--N", "8", "--over", "folds", "--values", "2,4", "--classifier",
                           "sklearn:sklearn.tree.DecisionTreeClassifier", "--param", "random_state=0", "--backend",
                           "montecarlo", "--draws", "200", "--seed", "3", "--scheduler", "threads", "--json"],
    "sweep-bound-lp": ["sweep", *MODEL, "--over", "N", "--values", "4,5", "--backend", "bound:lp", "--json"],
    "bound-series-warning": ["bound", "--moments", "1,0,1,1,2", "--support", "real", "--event", "ge:1",
                             "--method", "series", "--json"],
    "compare": ["compare", "--N", "4", "--order", "3", "--draws", "200", "--json"],
    "bird-2": ["bird", "--a", "2", "--json"],
    "bird-3": ["bird", "--a", "3", "--check", "--json"],
    "reproduce-tables": ["reproduce", "tables", "--quick", "--out", "{tmp}", "--json"],
    "demo": ["demo", "--N", "4", "--cdf-N", "2", "--order", "2", "--out", "{tmp}", "--json"],
    "advise": ["advise", "--data", str(Path(__file__).parent / "data" / "small.csv"), "--target", "y", "--N", "6",
               "--candidates", "kfold-2,loo,resubstitution", "--json"],
    "learning-curve": ["learning-curve", "--data", str(Path(__file__).parent / "data" / "small.csv"), "--target", "y",
                       "--N", "4", "--estimator", "kfold-2", "--json"],
}

# Bad arguments: exit 2, nothing on stdout, one line on stderr.
USAGE_ERRORS: dict[str, list[str]] = {
    "moments-bad-N": ["moments", *MODEL, "--N", "x", "--at", "0", "--json"],
    "bound-no-moments": ["bound", "--support", "grid:0:6", "--method", "lp", "--json"],
    "bound-unknown-option": ["bound", *MOMENTS_FORM, "--nope", "--json"],
    "estimate-no-folds": ["estimate", *MODEL, "--N", "5", "--estimator", "cv", "--json"],
    "estimate-scheduler-exact": ["estimate", *MODEL, "--N", "5", "--estimator", "cv", "--folds", "2",
                                 "--scheduler", "threads", "--json"],
    "sweep-no-N": ["sweep", *MODEL, "--over", "folds", "--values", "2", "--json"],
    "sweep-workers-exact": ["sweep", *MODEL, "--N", "6", "--over", "folds", "--values", "2", "--workers", "3",
                            "--json"],
    "compare-N0": ["compare", "--N", "0", "--json"],
    "bird-not-an-int": ["bird", "--a", "x", "--json"],
    "reproduce-unknown": ["reproduce", "nosuch", "--out", "{tmp}", "--json"],
    "demo-bad-order": ["demo", "--order", "x", "--json"],
    "unknown-command": ["nosuch", "--json"],
}

# Runs that fail for a reason other than parsing (the library refuses the input): a non-zero
# exit, nothing on stdout, one line on stderr.
REFUSED: dict[str, list[str]] = {
    **{f"bound-moments-{m}": ["bound", *MOMENTS_FORM, "--method", m, "--json"] for m in NEEDS_A_MODEL},
    "bound-infeasible": ["bound", "--moments", "1,3,8", "--support", "grid:0:6", "--json"],
    "estimate-bad-cells": ["estimate", "--cells", "0.2,0.3,0.2", "--N", "4", "--estimator", "ge", "--json"],
}

# The model form runs exact and sampling like every method (the paper's Tables 4-6).
SUCCEEDS.update({f"bound-model-{m}": ["bound", *MODEL_FORM, "--method", m, "--json"] for m in NEEDS_A_MODEL})
# An estimator backend needs prediction probabilities: bound:exact and bound:sampling explain the choice.
REFUSED.update({f"estimate-bound-{m}": ["estimate", *GE, "--N", "6", "--backend", f"bound:{m}", "--json"]
                for m in NEEDS_A_MODEL})
EITHER: dict[str, list[str]] = {}

# Without --json: the table only (its title first, no banner above it), stderr empty.
TABLES: dict[str, list[str]] = {
    "table-bound-model-all": ["bound", *MODEL_FORM],
    "table-estimate-bound-sqp": ["estimate", *GE, "--N", "6", "--backend", "bound:sqp"],
}
TITLES = {"table-bound-model-all": "P(X in gt:0) from 3 moments", "table-estimate-bound-sqp": "GE at N=6"}


# The runs made as real subprocesses: at least one per command (checked below), the bound run
# that calls every method (every solver's banner would show), a warning, a table, a usage error
# and a refusal. Everything else runs in-process, the scikit-learn and Dask runs of estimate and sweep
# included (their real processes are in test_regressions_plugins.py; the ones here are the exact
# backend, which imports neither).
SUBPROCESS = frozenset({
    "moments", "bound-model-all", "bound-series-warning", "band", "mvbound",
    "estimate-exact-N7", "coverage", "compare-classifiers", "sweep-exact", "compare", "bird-3",
    "reproduce-tables", "demo", "table-estimate-bound-sqp", "unknown-command", "bound-infeasible",
})
# commands whose real process runs in another file (with --json, its channels checked there)
REAL_ELSEWHERE = {"advise": "test_data_plan.py", "learning-curve": "test_data_plan.py"}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # the subprocess imports the same momentbound as this test process
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    env.pop("COLUMNS", None)
    return env


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, cli_in_process) -> dict[str, subprocess.CompletedProcess[str]]:
    jobs = {**SUCCEEDS, **USAGE_ERRORS, **REFUSED, **EITHER, **TABLES}
    env = _env()
    # the folders are made here, one after the other: pytest's mktemp is not thread-safe
    # (two threads creating the base folder at once raise FileExistsError)
    folders = {key: tmp_path_factory.mktemp(key) for key in jobs}

    def args(key: str) -> list[str]:
        return [a.replace("{tmp}", str(folders[key] / "out")) for a in jobs[key]]

    def run(key: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "momentbound", *args(key)], capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL, timeout=300)

    real = sorted(SUBPROCESS)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        started = pool.map(run, real)
        done = {key: cli_in_process(args(key)) for key in jobs if key not in SUBPROCESS}
        done.update(zip(real, started))
    return done


def _describe(res: subprocess.CompletedProcess[str]) -> str:
    return f"exit {res.returncode}\n--- stdout\n{res.stdout[:2000]}\n--- stderr\n{res.stderr[:2000]}"


def _assert_clean_success(res: subprocess.CompletedProcess[str]) -> Any:
    assert res.returncode == 0, _describe(res)
    doc = json.loads(res.stdout)  # exactly one JSON document, nothing around it
    assert isinstance(doc, dict)
    for line in res.stderr.splitlines():
        assert WARNING_LINE.match(line) and not BANNED.search(line), _describe(res)
    return doc


def _assert_clean_failure(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode != 0, _describe(res)
    assert res.stdout == "", _describe(res)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), _describe(res)
    assert not BANNED.search(lines[0]), _describe(res)
    return lines[0]


EXPECTED = {**dict.fromkeys(SUCCEEDS, "success"), **dict.fromkeys(USAGE_ERRORS, "usage error"),
            **dict.fromkeys(REFUSED, "refused"), **dict.fromkeys(EITHER, "either")}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_channels_are_clean(runs, key):
    """One JSON document or one error line; usage errors exit 2; never a banner."""
    res, expected = runs[key], EXPECTED[key]
    if expected == "success" or (expected == "either" and res.returncode == 0):
        _assert_clean_success(res)
        return
    _assert_clean_failure(res)
    if expected == "usage error":
        assert res.returncode == 2, _describe(res)


@pytest.mark.parametrize("key", sorted(TABLES))
def test_tables_alone_on_stdout(runs, key):
    res = runs[key]
    assert res.returncode == 0, _describe(res)
    assert res.stderr == "", _describe(res)
    assert res.stdout.lstrip().startswith(TITLES[key]), _describe(res)
    assert not BANNED.search(res.stdout), _describe(res)


def test_every_bound_method_and_backend_is_exercised():
    for m in METHOD_NAMES:
        if m in NEEDS_STRUCTURE:  # only problems with a shape or a moment box: not the model form
            assert any(args[0] == "bound" and m in args for args in SUCCEEDS.values()), m
            continue
        assert {f"bound-model-{m}", f"estimate-bound-{m}"} <= set(SUCCEEDS) | set(REFUSED)
        assert f"bound-moments-{m}" in set(SUCCEEDS) | set(REFUSED)
    commands = {args[0] for args in SUCCEEDS.values()}
    from momentbound.cli import main

    assert commands == set(main.commands)
    # every command once as a real subprocess, among the successful runs (here or in the file named)
    assert {SUCCEEDS[k][0] for k in SUBPROCESS if k in SUCCEEDS} | set(REAL_ELSEWHERE) == commands
    for command, name in REAL_ELSEWHERE.items():
        text = (Path(__file__).parent / name).read_text()
        assert f'("{command}", "--data"' in text and '"-m", "momentbound"' in text, (command, name)
    assert SUBPROCESS <= set(SUCCEEDS) | set(USAGE_ERRORS) | set(REFUSED) | set(TABLES)


# --- one type per field -------------------------------------------------------------------

def _types(doc: Any, path: str = "$", out: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Path -> JSON types seen there (list items share the path ``path[]``)."""
    out = {} if out is None else out
    if isinstance(doc, dict):
        out.setdefault(path, set()).add("object")
        for k, v in doc.items():
            _types(v, f"{path}.{k}", out)
    elif isinstance(doc, list):
        out.setdefault(path, set()).add("array")
        for v in doc:
            _types(v, f"{path}[]", out)
    else:
        name = {type(None): "null", bool: "bool", int: "int", float: "float", str: "string"}[type(doc)]
        out.setdefault(path, set()).add(name)
    return out


def _mixed(*docs: Any) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for d in docs:
        for path, kinds in _types(d).items():
            seen.setdefault(path, set()).update(kinds)
    return {p: k for p, k in seen.items() if len(k - {"null"}) > 1}


GROUPS = {
    "moments": ("moments", "moments-exact", "moments-N20"),
    "bound": tuple(k for k in SUCCEEDS if k.startswith("bound-")),
    "estimate": tuple(k for k in SUCCEEDS if k.startswith("estimate-")),
    "sweep": ("sweep-exact", "sweep-bound-lp"),
    "compare": ("compare",),
    "bird": ("bird-2", "bird-3"),
    "reproduce": ("reproduce-tables",),
    "demo": ("demo",),
    "advise": ("advise",),
    "learning-curve": ("learning-curve",),
}


@pytest.mark.parametrize("command", sorted(GROUPS))
def test_each_field_has_one_type(runs, command):
    docs = [_assert_clean_success(runs[k]) for k in GROUPS[command]]
    assert _mixed(*docs) == {}
    if command in ("estimate", "moments", "bird"):  # every field in every document
        assert len({frozenset(d) for d in docs}) == 1


def test_estimate_numbers_are_floats_and_rationals_strings(runs):
    small = _assert_clean_success(runs["estimate-exact-N7"])
    large = _assert_clean_success(runs["estimate-exact-N20"])
    for doc in (small, large):
        for name in ("mean", "variance", "fold_covariance", "ge_mean"):
            assert isinstance(doc[name], float)
            assert doc[f"{name}_lower"] == doc[name] == doc[f"{name}_upper"]
    from fractions import Fraction

    assert isinstance(small["mean_exact"], str) and float(Fraction(small["mean_exact"])) == small["mean"]
    interval = _assert_clean_success(runs["estimate-bound-lp"])
    assert interval["mean"] is None and interval["mean_lower"] < interval["mean_upper"]
    mc = _assert_clean_success(runs["estimate-montecarlo"])
    assert mc["mean_lower"] <= mc["mean"] <= mc["mean_upper"] and mc["draws"] == 2000
    assert mc["mean_exact"] is None and small["draws"] is None


def test_sklearn_draws_on_dask_give_the_same_numbers(runs):
    """`--scheduler threads --workers 2` fits the tree's draws on dask; the seed fixes the tables."""
    plain = _assert_clean_success(runs["estimate-sklearn"])
    dask = _assert_clean_success(runs["estimate-sklearn-dask"])
    keys = [k for k in plain if k.startswith(("mean", "variance", "ge_")) and k != "seconds"]
    assert keys and {k: dask[k] for k in keys} == {k: plain[k] for k in keys}
    rows = _assert_clean_success(runs["sweep-sklearn-dask"])["rows"]
    assert [r["draws"] for r in rows] == [200, 200] and all(r["mean_lower"] <= r["mean"] <= r["mean_upper"]
                                                            for r in rows)


def test_a_warning_is_one_line_on_stderr(runs):
    res = runs["bound-series-warning"]
    _assert_clean_success(res)
    (line,) = res.stderr.splitlines()  # the message only: no file name, no echoed source line
    assert line.startswith("SeriesWarning: edgeworth density is negative on ["), line
    assert ".py" not in line
