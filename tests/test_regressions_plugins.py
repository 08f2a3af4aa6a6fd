"""Plug-ins load safely; plug-in and Dask errors are one line.

Every hostile or careless input runs as ``momentbound ... --json`` with click's CliRunner, file
descriptors 1 and 2 included: the Dask cases, one code execution attempt and the seeded forest
(:data:`SUBPROCESS`) in one real Python process apart from this one, the others in this process. Refused inputs exit 2 (a failed fit exits 1) with nothing on stdout and one ``Error:``
line on stderr. The code-execution attempts write into a fresh folder and the test checks that no file
appeared (and that a file ``os.remove`` was pointed at is still there). The witnesses are
scikit-learn itself (the message a failing fit raises, ``is_classifier``), a run with the
reported ``random_state`` given by hand, and plain sockets on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import run_in_one_process

import momentbound
from momentbound.classifiers import SklearnClassifier, as_classifier, make_classifier
from momentbound.classifiers.params import parse_param, parse_value
from momentbound.classifiers.sklearn import load_estimator, resolve_class
from momentbound.errors import ClassifierFailed, InvalidArgument, SolverFailed

SRC = Path(momentbound.__file__).resolve().parents[1]
MODEL = ["--cells", "1/5,3/10,1/5,3/10"]
MC = ["--backend", "montecarlo", "--draws", "200"]
FOREST = ["--arities", "2,2", "--cells", "1/10,3/20,1/20,1/5,1/10,3/20,1/20,1/5", "--N", "12", "--estimator",
          "cv", "--folds", "2", *MC, "--seed", "1", "--classifier", "sklearn:sklearn.ensemble.RandomForestClassifier",
          "--param", "n_estimators=3"]
LDA = ["--classifier", "sklearn:sklearn.discriminant_analysis.LinearDiscriminantAnalysis", "--param", "n_components=5"]


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _attacks(folder: Path, victim: Path) -> dict[str, list[str]]:
    """Inputs that ran code before: each would create ``folder/<name>`` (or delete ``victim``)."""
    touch = lambda name: str(folder / name)  # noqa: E731
    est = ["estimate", *MODEL, "--N", "10", "--estimator", "ge", "--json"]
    return {
        "os.system": [*est, "--classifier", "sklearn:os.system", "--param", f"command='touch {touch('system')}'"],
        "os.system-montecarlo": [*est, *MC, "--classifier", "sklearn:os.system",
                                 "--param", f"command='touch {touch('system-mc')}'"],
        "os.system-sweep": ["sweep", *MODEL, "--N", "6", "--over", "folds", "--values", "2", "--classifier",
                            "sklearn:os.system", "--param", f"command='touch {touch('sweep')}'", "--json"],
        "subprocess.Popen": [*est, "--classifier", "sklearn:subprocess.Popen",
                             "--param", f"args=('touch', '{touch('popen')}')"],
        "builtins.eval": [*est, "--classifier", "sklearn:builtins.eval",
                          "--param", f"source='__import__(\"os\").system(\"touch {touch('eval')}\")'"],
        "os.remove": [*est, "--classifier", "sklearn:os.remove", "--param", f"path='{victim}'"],
        "param-code": [*est, "--param", f"alpha=__import__('os').system('touch {touch('param')}')"],
        "param-code-sklearn": [*est, *MC, "--classifier", "sklearn:sklearn.tree.DecisionTreeClassifier",
                               "--param", f"max_depth=__import__('os').system('touch {touch('param-sk')}')"],
    }


# Run in a real process apart from this one (all in the same one, one after the other, with
# conftest.run_in_one_process): a network client that could hang or leave threads behind, one code
# execution attempt, and the seeded forest (its numbers are compared with this process's run).
SUBPROCESS = frozenset({"attack-os.system", "fold-fails-dask", "forest-1", "scheduler-unused-port",
                        "scheduler-silent", "sweep-unused-port"})


def _jobs(folder: Path, victim: Path, silent_port: int) -> dict[str, list[str]]:
    est = ["estimate", *MODEL, "--N", "10", "--json"]
    sk_tree = ["--classifier", "sklearn:sklearn.tree.DecisionTreeClassifier"]
    unused = f"tcp://127.0.0.1:{_unused_port()}"
    return {
        **{f"attack-{k}": v for k, v in _attacks(folder, victim).items()},
        "linear-regression": [*est, "--estimator", "cv", "--folds", "2", *MC, "--seed", "1",
                              "--classifier", "sklearn:sklearn.linear_model.LinearRegression"],
        "dotdot": [*est, "--estimator", "ge", "--classifier", "sklearn:..x"],
        "this": [*est, "--estimator", "ge", "--classifier", "sklearn:this.s"],
        "fold-fails": [*est, "--estimator", "cv", "--folds", "5", *MC, "--seed", "1", *LDA],
        "fold-fails-dask": [*est, "--estimator", "cv", "--folds", "5", *MC, "--seed", "1", *LDA,
                            "--scheduler", "threads", "--workers", "2"],
        "forest-1": ["estimate", *FOREST, "--json"],
        "forest-2": ["estimate", *FOREST, "--json"],
        "alpha-twice": [*est, "--estimator", "ge", "--alpha", "1/2", "--param", "alpha=1"],
        "ties-twice": [*est, "--estimator", "ge", "--ties", "first", "--param", "ties=random"],
        "scheduler-unused-port": [*est, "--estimator", "ge", *MC, *sk_tree, "--scheduler", unused],
        "scheduler-silent": [*est, "--estimator", "ge", *MC, *sk_tree, "--scheduler",
                             f"tcp://127.0.0.1:{silent_port}", "--timeout", "1"],
        "scheduler-bad-port": [*est, "--estimator", "ge", *MC, *sk_tree, "--scheduler", "tcp://127.0.0.1:x"],
        "sweep-unused-port": ["sweep", *MODEL, "--N", "6", "--over", "folds", "--values", "2", "--scheduler",
                              unused, "--json"],
        "workers-alone": [*est, "--estimator", "ge", *MC, *sk_tree, "--workers", "3"],
        "workers-address": [*est, "--estimator", "ge", *MC, *sk_tree, "--scheduler", unused, "--workers", "3"],
        "timeout-alone": [*est, "--estimator", "ge", *MC, *sk_tree, "--timeout", "2"],
        "sweep-workers-alone": ["sweep", *MODEL, "--N", "6", "--over", "folds", "--values", "2", *MC, "--workers",
                                "3", "--json"],
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, cli_in_process) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("attacks")
    victim = tmp_path_factory.mktemp("victim") / "keep.txt"
    victim.write_text("keep")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    # a peer that accepts TCP connections and never speaks Dask's protocol (it hung distributed.Client)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    jobs = _jobs(folder, victim, int(silent.getsockname()[1]))

    assert SUBPROCESS <= set(jobs)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:  # the other process runs while this one works
            apart = pool.submit(run_in_one_process, {k: jobs[k] for k in sorted(SUBPROCESS)}, env=env, cwd=folder,
                                timeout=300)
            done = {key: cli_in_process(jobs[key], cwd=folder) for key in jobs if key not in SUBPROCESS}
            done.update(apart.result())
    finally:
        silent.close()
    return {"runs": done, "folder": folder, "victim": victim}


def _describe(res: subprocess.CompletedProcess[str]) -> str:
    return f"exit {res.returncode}\n--- stdout\n{res.stdout[:2000]}\n--- stderr\n{res.stderr[:2000]}"


def _one_line_error(res: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert res.returncode == code, _describe(res)
    assert res.stdout == "", _describe(res)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), _describe(res)
    assert "Traceback" not in res.stderr
    return lines[0]


# ----------------------------------------------------------------------------- code from the command line
def test_no_attack_runs_code(runs: dict[str, Any]) -> None:
    attacks = [k for k in runs["runs"] if k.startswith("attack-")]
    assert len(attacks) == 8
    for key in attacks:
        _one_line_error(runs["runs"][key])
    assert sorted(p.name for p in runs["folder"].iterdir()) == []  # nothing touched
    assert runs["victim"].read_text() == "keep"  # nothing removed


def test_attack_messages_name_the_rule(runs: dict[str, Any]) -> None:
    r = runs["runs"]
    for key in ("attack-os.system", "attack-os.system-montecarlo", "attack-os.system-sweep",
                "attack-subprocess.Popen", "attack-builtins.eval", "attack-os.remove"):
        assert "is not in the scikit-learn package" in _one_line_error(r[key]), key
    for key in ("attack-param-code", "attack-param-code-sklearn"):
        assert "is not a literal value" in _one_line_error(r[key]), key


def test_regressor_refused(runs: dict[str, Any]) -> None:
    from sklearn.base import is_classifier
    from sklearn.linear_model import LinearRegression

    assert not is_classifier(LinearRegression())  # scikit-learn's own verdict
    line = _one_line_error(runs["runs"]["linear-regression"])
    assert "LinearRegression is not a scikit-learn classifier" in line


def test_bad_paths_one_line_and_clean_stdout(runs: dict[str, Any]) -> None:
    assert "dotted Python names" in _one_line_error(runs["runs"]["dotdot"])
    this = runs["runs"]["this"]
    assert "not in the scikit-learn package" in _one_line_error(this)
    assert "Beautiful is better" not in this.stdout + this.stderr  # the module `this` never ran


def test_failing_fold_is_one_line(runs: dict[str, Any]) -> None:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    with pytest.raises(ValueError) as original:  # what scikit-learn itself says on such a fit
        LinearDiscriminantAnalysis(n_components=5).fit(X, np.array([0, 0, 1, 1]))
    reason = " ".join(str(original.value).split())
    for key in ("fold-fails", "fold-fails-dask"):
        line = _one_line_error(runs["runs"][key], code=1)
        assert "ClassifierFailed" in line and "LinearDiscriminantAnalysis(n_components=5)" in line, line
        assert "in fold 1 of 5, on a training set of 8 points" in line, line
        assert line.endswith(f"ValueError: {reason}"), line


def test_seed_reproduces_random_state(runs: dict[str, Any], cli_in_process) -> None:
    r = runs["runs"]
    docs = []
    for key in ("forest-1", "forest-2"):
        assert r[key].returncode == 0, _describe(r[key])
        docs.append(json.loads(r[key].stdout))
    state = docs[0]["classifier"]["params"]["param.random_state"]
    assert isinstance(state, int)
    keys = ("mean", "variance", "fold_variance", "fold_covariance", "ge_mean", "ge_variance")
    assert [docs[1][k] for k in keys] == [docs[0][k] for k in keys]
    # the same numbers as the random_state given by hand (the run's tables are not disturbed); in
    # this process, against forest-1's real one
    by_hand = cli_in_process(["estimate", *FOREST, "--param", f"random_state={state}", "--json"])
    assert by_hand.returncode == 0, _describe(by_hand)
    assert [json.loads(by_hand.stdout)[k] for k in keys] == [docs[0][k] for k in keys]


def test_option_and_param_conflict(runs: dict[str, Any]) -> None:
    assert "--alpha 1/2 and --param alpha=1 both set alpha" in _one_line_error(runs["runs"]["alpha-twice"])
    assert "--ties first and --param ties=random both set ties" in _one_line_error(runs["runs"]["ties-twice"])


# ----------------------------------------------------------------------------- Dask
def test_unreachable_scheduler(runs: dict[str, Any]) -> None:
    r = runs["runs"]
    for key in ("scheduler-unused-port", "sweep-unused-port"):
        assert "connection refused: nothing listens there" in _one_line_error(r[key]), key
    assert "did not answer within 1 s" in _one_line_error(r["scheduler-silent"])
    assert "integer port" in _one_line_error(r["scheduler-bad-port"])


def test_ignored_dask_options_refused(runs: dict[str, Any]) -> None:
    r = runs["runs"]
    assert "not without --scheduler" in _one_line_error(r["workers-alone"])
    assert "its own workers" in _one_line_error(r["workers-address"])
    assert "--timeout applies to --scheduler ADDRESS" in _one_line_error(r["timeout-alone"])
    assert "not without --scheduler" in _one_line_error(r["sweep-workers-alone"])


# ----------------------------------------------------------------------------- the library
@pytest.mark.parametrize("text, value", [
    ("2", 2), ("-3", -3), ("0.5", 0.5), ("1e-3", 1e-3), ("true", True), ("False", False), ("none", None),
    ("gini", "gini"), ("log_loss", "log_loss"), ("1/2", "1/2"), ("'a b'", "a b"), ('"x"', "x"),
    ("(10, 5)", (10, 5)), ("[1, 'a']", [1, "a"]),
])
def test_literal_values(text: str, value: Any) -> None:
    assert parse_value(text) == value and type(parse_value(text)) is type(value)


@pytest.mark.parametrize("text", [
    "__import__('os').system('x')", "os.system('x')", "print(1)", "lambda: 0", "{'a': 1}", "[1, [2]]",
    "(1, (2,))", "a b", "x; y", "'unterminated", "{1}", "b'x'",
])
def test_non_literals_refused(text: str) -> None:
    with pytest.raises(InvalidArgument, match="not a literal value"):
        parse_value(text, "--param x")


def test_param_names_are_identifiers() -> None:
    assert parse_param(" max_depth = 2 ") == ("max_depth", 2)
    for item in ("=2", "x", "a.b=1", "__class__.x=1"):
        with pytest.raises(InvalidArgument):
            parse_param(item)


@pytest.mark.parametrize("path, match", [
    ("os.system", "not in the scikit-learn package"), ("builtins.eval", "not in the scikit-learn package"),
    ("subprocess.Popen", "not in the scikit-learn package"), ("this.s", "not in the scikit-learn package"),
    ("antigravity.x", "not in the scikit-learn package"), ("..x", "dotted Python names"),
    ("sklearn", "dotted Python names"), ("sklearn.tree.class", "dotted Python names"),
    ("sklearn.utils.tests.X", "private or test part"), ("sklearn.tree._X", "private or test part"),
    ("sklearn.__check_build.X", "private or test part"), ("sklearn.nope.X", "cannot import 'sklearn.nope'"),
    ("sklearn.tree.Nope", "has no class 'Nope'"), ("sklearn.base.clone", "is a function, not a class"),
    ("sklearn.tree", "is a module, not a class"),
    ("sklearn.linear_model.LinearRegression", "not a scikit-learn classifier"),
    ("sklearn.preprocessing.StandardScaler", "not a scikit-learn classifier"),
])
def test_resolve_class_refuses(path: str, match: str) -> None:
    top = path.split(".")[0]
    fresh = top not in sys.modules
    with pytest.raises(InvalidArgument, match=match):
        resolve_class(path)
    if top != "sklearn" and fresh:
        assert top not in sys.modules  # refused before importing it (`this` prints, `antigravity` opens a browser)


def test_resolve_class_accepts_classifiers() -> None:
    from sklearn.base import is_classifier

    for path in ("sklearn.tree.DecisionTreeClassifier", "sklearn.tree._classes.DecisionTreeClassifier",
                 "sklearn.neighbors.KNeighborsClassifier", "sklearn.naive_bayes.CategoricalNB"):
        cls = resolve_class(path)
        assert is_classifier(cls())  # scikit-learn agrees on the instance


def test_nothing_is_instantiated_before_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    from sklearn.tree import DecisionTreeClassifier

    calls: list[Any] = []
    original = DecisionTreeClassifier.__init__

    @functools.wraps(original)
    def spy(self: Any, *args: Any, **kwargs: Any) -> None:
        calls.append(kwargs)
        original(self, *args, **kwargs)

    monkeypatch.setattr(DecisionTreeClassifier, "__init__", spy)
    path = "sklearn.tree.DecisionTreeClassifier"
    with pytest.raises(InvalidArgument, match="must be a number"):
        load_estimator(path, {"max_depth": print})
    with pytest.raises(InvalidArgument, match="has no parameter"):
        load_estimator(path, {"command": "touch x"})
    assert calls == []
    with pytest.raises(InvalidArgument, match="'criterion' parameter"):  # scikit-learn's check, before any fit
        load_estimator(path, {"criterion": "foo"})
    assert load_estimator(path, {"max_depth": 2}).max_depth == 2


def test_api_refuses_non_classifiers() -> None:
    from sklearn.linear_model import LinearRegression
    from sklearn.tree import DecisionTreeClassifier

    for obj in (LinearRegression(), DecisionTreeClassifier):
        with pytest.raises(InvalidArgument):
            as_classifier(obj)
    with pytest.raises(InvalidArgument, match="not in the scikit-learn package"):
        make_classifier("sklearn:os.system", {"command": "true"})
    with pytest.raises(InvalidArgument, match="must be a number"):
        make_classifier("sklearn:sklearn.tree.DecisionTreeClassifier", {"max_depth": object()})


def test_seeded_only_fills_an_unset_random_state() -> None:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(5)
    unset = SklearnClassifier(RandomForestClassifier(n_estimators=2))
    a, b = unset.seeded(np.random.default_rng(5)), unset.seeded(np.random.default_rng(5))
    assert a.estimator.random_state == b.estimator.random_state is not None
    assert unset.estimator.random_state is None  # the original is not changed
    fixed = SklearnClassifier(RandomForestClassifier(n_estimators=2, random_state=3))
    assert fixed.seeded(rng) is fixed
    knn = SklearnClassifier(KNeighborsClassifier())
    assert knn.seeded(rng) is knn
    assert rng.random() == np.random.default_rng(5).random()  # rng's own stream untouched


def test_classifier_failed_survives_pickling() -> None:
    exc = ClassifierFailed("sklearn:X()", "in fold 2 of 5", "ValueError: bad")
    back = pickle.loads(pickle.dumps(exc))
    assert isinstance(back, SolverFailed) and str(back) == str(exc) == \
        "classifier sklearn:X() failed in fold 2 of 5: ValueError: bad"
    assert (back.classifier, back.where, back.reason) == (exc.classifier, exc.where, exc.reason)


def test_dask_client_refused_port_in_process() -> None:
    from momentbound.parallel import dask_client

    with pytest.raises(InvalidArgument, match="connection refused"):
        with dask_client(f"tcp://127.0.0.1:{_unused_port()}", timeout=3):
            pass
    for bad in (0, -1, float("inf"), True):
        with pytest.raises(InvalidArgument, match="timeout"):
            with dask_client("tcp://127.0.0.1:1", timeout=bad):
                pass


def test_predict_tables_at_an_address_is_bounded() -> None:
    from momentbound.model.cells import CellModel

    clf = make_classifier("sklearn:sklearn.tree.DecisionTreeClassifier", {"random_state": 0})
    model = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
    with pytest.raises(InvalidArgument, match="connection refused"):
        clf.predict_tables(model, np.array([[1, 2, 3, 4]]), scheduler=f"tcp://127.0.0.1:{_unused_port()}")
