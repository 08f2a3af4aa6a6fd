"""Absurd sizes meet a work or memory guard before any work, and the CLI can lift the limits.

Each input below once ran for minutes, raised ``ArrayMemoryError`` or was killed at several
gigabytes. Every one runs here with ``--json`` in a real process under a 4 GiB address-space
limit (so a missing guard fails instead of exhausting the machine); one process runs them all
in turn with click's CliRunner, file descriptors 1 and 2 included (``run_in_one_process``). Each
must exit 2 with nothing on stdout and one line on stderr that names the limit, the estimate and
a cheaper route in command-line options, never a traceback and never a Python keyword such as
``max_seconds=None``.
The estimates themselves are checked against measured or counted work in the Python tests at
the end.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import run_in_one_process, run_in_process

import momentbound
from momentbound.errors import InvalidArgument, MemoryLimitExceeded, WorkLimitExceeded

SRC = Path(momentbound.__file__).resolve().parents[1]
CELLS = ["--arities", "2", "--cells", "0.2,0.3,0.2,0.3"]
CELLS8 = ["--arities", "2,2", "--cells", "0.1,0.15,0.1,0.15,0.1,0.15,0.1,0.15"]
MODEL_FORM = [*CELLS, "--N", "6", "--at", "0"]
TIME = r"WorkLimitExceeded: .* would take about \S+ s \(limit \S+ s, --max-seconds \S+\); .*--max-seconds none"
MEMORY = r"MemoryLimitExceeded: .* would hold about [\d.]+ [KMGTPE]iB \(limit .*\); .*--max-memory SIZE"

#: id -> (arguments, regular expressions the one error line must match)
REFUSED: dict[str, tuple[list[str], str]] = {
    "coverage-splits-1e5": (["coverage", *CELLS, "--N", "20", "--method", "nadeau-bengio", "--splits", "100000",
                             "--test-size", "4"], TIME + "|" + MEMORY),
    "coverage-draws-1e8": (["coverage", *CELLS, "--N", "20", "--method", "wald", "--test-size", "4",
                            "--draws", "100000000"], MEMORY),
    "compare-classifiers-N-1e8": (["compare-classifiers", *CELLS8, "--N", "100000000", "--test", "mcnemar",
                                   "--test-size", "50000000", "--attributes-a", "0", "--attributes-b", "1"],
                                  [MEMORY, r"PiB"]),
    "compare-classifiers-draws-3e9": (["compare-classifiers", *CELLS8, "--N", "20", "--test", "5x2cv",
                                       "--draws", "3000000000", "--attributes-a", "0", "--attributes-b", "1"], MEMORY),
    "estimate-oob-1e9-exact": (["estimate", *CELLS, "--N", "20", "--estimator", "oob", "--bootstraps",
                                "1000000000"], r"is simulated: use --backend montecarlo"),
    "estimate-oob-1e9-montecarlo": (["estimate", *CELLS, "--N", "20", "--estimator", "oob", "--bootstraps",
                                     "1000000000", "--backend", "montecarlo"], [TIME, r"--bootstraps"]),
    "estimate-bootstrap-1e6-montecarlo": (["estimate", *CELLS, "--N", "20", "--estimator", "bootstrap",
                                           "--bootstraps", "1000000", "--backend", "montecarlo"], TIME),
    "estimate-shuffle-N-1e9-montecarlo": (["estimate", *CELLS, "--N", "1000000000", "--estimator", "shuffle-split",
                                           "--backend", "montecarlo", "--draws", "300"], TIME + "|" + MEMORY),
    "band-points-1e5": (["band", "--moments", "1,5,55/2", "--support", "grid:0:10", "--points", "100000"], TIME),
    "band-points-1e9": (["band", "--moments", "1,5,55/2", "--support", "grid:0:10", "--points", "1000000000"],
                        MEMORY),
    "band-binomial-1e5": (["band", "--truth", "binomial:100000:0.5", "--order", "3", "--support", "grid:0:100000"],
                          [TIME, r"binomial"]),
    "compare-N-5000": (["compare", "--N", "5000", "--order", "4", "--methods", "closed-form", "--max-seconds", "30"],
                       TIME),
    "bound-order-40": (["bound", *MODEL_FORM, "--order", "40"], [TIME, r"--order"]),
    "bound-sampling-1e8": (["bound", *MODEL_FORM, "--order", "3", "--method", "sampling", "--draws", "100000000",
                            "--max-seconds", "30"], [TIME, r"--draws"]),
    "bound-SCS": (["bound", *MODEL_FORM, "--solver", "SCS", "--max-seconds", "5"], [TIME, r"--solver"]),
    "demo-N-1e23": (["demo", "--N", "99999999999999999999999"], [TIME, r"--N"]),
    "estimate-cv10-N200": (["estimate", *CELLS8, "--N", "200", "--estimator", "cv", "--folds", "10"],
                           [TIME, r"--backend montecarlo"]),
    "estimate-max-memory": (["estimate", *CELLS, "--N", "20", "--estimator", "cv", "--folds", "2", "--backend",
                             "montecarlo", "--max-memory", "1M"], r"MemoryLimitExceeded: .*would hold about .*limit 1 MiB"
                                                                  r".*--max-memory SIZE"),
    "bad-max-seconds": (["moments", *MODEL_FORM, "--max-seconds", "soon"], r"--max-seconds must be a positive"),
    "bad-max-memory": (["moments", *MODEL_FORM, "--max-memory", "-2G"], r"--max-memory must be a size"),
    "confidence-without-sample": (["bound", "--moments", "1,0,1", "--support", "real", "--event", "ge:1",
                                   "--confidence", "0.9"], r"--confidence only applies to bounds from a sample: add --sample FILE"),
}

#: inputs that once failed and now succeed quickly
SUCCEEDS: dict[str, list[str]] = {
    "moments-N-1e10": ["moments", *CELLS, "--N", "10000000000", "--at", "0", "--order", "3"],
    "moments-N-1e10-exact": ["moments", *CELLS8, "--N", "10000000000", "--at", "0,0", "--order", "8", "--exact"],
    "estimate-cv10-N200-lifted-check": ["estimate", *CELLS, "--N", "30", "--estimator", "cv", "--folds", "3",
                                        "--max-seconds", "none", "--max-memory", "none"],
}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))


#: inputs of the single tests below, run in the same process as the others
OTHERS: dict[str, list[str]] = {
    # the target that needs the exact E[GE_N] (ge-full, the default, only reports it, as null here)
    "coverage-N-1e8-expected": ["coverage", *CELLS, "--N", "100000000", "--method", "wald", "--test-size", "4",
                                "--target", "expected-ge-full"],
    "band-plot-into-a-directory": ["band", "--moments", "1,5,55/2", "--support", "grid:0:10", "--points", "100000",
                                   "--plot", "{folder}/band.png"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    # one real process under the address-space limit runs every input in turn (imports paid once)
    folder = tmp_path_factory.mktemp("plots")
    (folder / "band.png").mkdir()
    jobs = {k: [a.replace("{folder}", str(folder)) for a in [*args, "--json"]]
            for k, args in {**{k: v[0] for k, v in REFUSED.items()}, **SUCCEEDS, **OTHERS}.items()}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    return run_in_one_process(jobs, env=env, preexec_fn=_limited)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_absurd_sizes_are_refused_before_any_work(runs: dict[str, Any], case: str) -> None:
    proc = runs[case]
    patterns = REFUSED[case][1]
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (case, proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == "", (case, proc.stdout[:500])
    assert len(lines) == 1 and lines[0].startswith("Error: "), (case, proc.stderr)
    for pattern in [patterns] if isinstance(patterns, str) else patterns:
        assert re.search(pattern, lines[0]), (case, pattern, lines[0])
    assert "Traceback" not in proc.stderr and "max_seconds=" not in lines[0] and "backend='" not in lines[0]


@pytest.mark.parametrize("case", sorted(SUCCEEDS))
def test_inputs_that_once_failed_now_succeed(runs: dict[str, Any], case: str) -> None:
    proc = runs[case]
    assert proc.returncode == 0, (case, proc.stderr[-2000:])
    doc = json.loads(proc.stdout)
    assert isinstance(doc, dict) and proc.stderr.strip() == ""


def test_coverage_at_a_huge_N_names_only_its_own_options(runs: dict[str, Any]) -> None:
    proc = runs["coverage-N-1e8-expected"]
    assert proc.returncode == 2 and proc.stdout == ""
    line = proc.stderr.strip()
    assert "--N" in line and "--backend" not in line and "backend=" not in line and "max_work" not in line, line


def test_sweep_draws_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    # in this process: click's runner gives the command a stderr that is not a terminal, as a pipe does
    args = ["sweep", *CELLS, "--N", "6", "--over", "folds", "--values", "2-3"]
    quiet, forced = run_in_process(args), run_in_process([*args, "--progress"])
    assert quiet.returncode == 0 and forced.returncode == 0, (quiet.stderr, forced.stderr)
    assert "sweep over" not in quiet.stderr and quiet.stderr.strip() == ""
    assert "sweep over folds" in forced.stderr and "2/2" in forced.stderr


def test_plot_into_a_directory_is_refused_before_any_work(runs: dict[str, Any]) -> None:
    proc = runs["band-plot-into-a-directory"]
    # the path is refused first: the work guard (which would refuse the points too) never speaks
    assert proc.returncode == 2 and "is a directory" in proc.stderr and "WorkLimit" not in proc.stderr


# ----------------------------------------------------------------------------- the library
def test_python_messages_name_keyword_arguments() -> None:
    from momentbound.bounds import cdf_band
    from momentbound.estimators.coverage import interval_coverage
    from momentbound.model.cells import CellModel
    from momentbound.splitters import HoldOut

    model = CellModel((2,), ["0.2", "0.3", "0.2", "0.3"])
    with pytest.raises(MemoryLimitExceeded, match=r"max_memory=\.\.\. \(bytes\)"):
        interval_coverage(model, 20, "wald", HoldOut(test_size=4), draws=10**8, rng=np.random.default_rng(0),
                          max_memory=2**30)
    with pytest.raises(WorkLimitExceeded, match=r"use fewer points.*max_seconds=None"):
        cdf_band((1, 5, "55/2"), "grid:0:10", points=100_000)
    with pytest.raises(WorkLimitExceeded, match=r"limit 5 s, max_seconds=5"):
        cdf_band((1, 5, "55/2"), "grid:0:10", points=1000, max_seconds=5)


def test_limits_block_replaces_every_limit_that_was_not_lifted() -> None:
    from momentbound import guard

    assert guard.seconds_limit(120.0) == 120.0 and guard.seconds_limit(None) is None
    with guard.limits(7.0, 2**20):
        assert guard.seconds_limit(120.0) == 7.0 and guard.seconds_limit(None) is None
        assert guard.memory_limit() == 2**20 and guard.memory_limit(None) is None
        with pytest.raises(MemoryLimitExceeded, match=r"1 MiB"):
            guard.check("x", memory=2**21)
    with guard.limits(None, None):
        guard.check("x", seconds=1e30, memory=1e30)  # both lifted
    with pytest.raises(InvalidArgument, match="max_seconds must be a positive number"):
        with guard.limits(-1):
            pass
    assert guard.parse_size("2G") == 2 * 2**30 and guard.parse_size("500MB") == 5e8 and guard.parse_size("none") is None


def test_order_refusal_names_the_largest_order_within_the_limit_without_counting_down() -> None:
    from momentbound.model.cells import CellModel
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import estimated_seconds, raw_moments

    model = CellModel((2,), ["0.2", "0.3", "0.2", "0.3"])
    z = naive_bayes_statistic(model, (0,))
    with pytest.raises(WorkLimitExceeded) as info:
        raw_moments(z, model, 6, 10**9, max_seconds=10.0)
    best = int(re.search(r"at most (\d+)", str(info.value)).group(1))
    # the largest order within the limit, by the estimate itself (a witness independent of the bisection)
    assert estimated_seconds(z, best) <= 10.0 < estimated_seconds(z, best + 1)


def test_work_estimates_cover_measured_counts() -> None:
    """The estimates grow with the work the code does: McNemar's region holds (ns + 1)^2 booleans,
    Nadeau-Bengio draws (draws, N) datasets, a band holds one point per t."""
    from momentbound.bounds.band import band_work
    from momentbound.bounds.problem import MomentProblem, Support, Event
    from momentbound.estimators.comparison import mcnemar_rejects, work_estimate as mcnemar_work
    from momentbound.estimators.coverage import work_estimate as coverage_work
    from momentbound.splitters import ShuffleSplit

    region = mcnemar_rejects(40, 0.05, "exact")
    assert mcnemar_work("mcnemar", 100, 40, 8, 1)[1] >= region.nbytes
    seconds, memory = coverage_work(ShuffleSplit, 50, 1, 7, 8, 1000)
    assert memory >= 8 * 1000 * 50 * 2  # the datasets and the labels of one split
    p = MomentProblem((1, 5, 30), Support.grid(0, 10), Event.le(3))
    assert band_work(p, 5)[2] == 5 and band_work(p, None)[2] == 11


def test_force_removes_the_files_of_an_interrupted_or_earlier_run_and_keeps_the_users(tmp_path: Path) -> None:
    from momentbound.output import JOURNAL_NAME, MANIFEST_NAME, claim_folder, verify_manifest

    out = tmp_path / "run"
    first = claim_folder(out)
    first.write_text("a.txt", "a")
    first.write_text("sub.csv", "x,y\n")
    first.release()  # interrupted: no manifest, only the journal knows a.txt and sub.csv
    (out / "mine.txt").write_text("the user's")
    assert sorted(p.name for p in out.iterdir()) == sorted([JOURNAL_NAME, "a.txt", "mine.txt", "sub.csv"])
    with claim_folder(out, force=True) as second:
        assert not (out / "a.txt").exists() and not (out / "sub.csv").exists()
        second.write_text("c.txt", "c")
        second.write_manifest(command="test")
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST_NAME, "c.txt", "mine.txt"])
    with claim_folder(out, force=True) as third:  # a complete earlier run: its manifest's files go
        third.write_text("d.txt", "d")
        third.write_manifest(command="test")
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST_NAME, "d.txt", "mine.txt"])
    assert [f["path"] for f in verify_manifest(out)["files"]] == ["d.txt"]
