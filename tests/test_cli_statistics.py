"""``--metric`` and ``--scoring`` on ``sweep``, ``coverage`` and ``advise``: each run in this process
(``run_in_process``, file descriptors 1 and 2 included; these commands run as real subprocesses in
``test_cli_subprocess.py``) printing one JSON document equal to the API's numbers for the same seed,
and the refusals naming the fix."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_in_process

CELLS = ["1/2", "1/20", "3/10", "3/20"]
MODEL_ARGS = ["--arities", "2", "--cells", ",".join(CELLS)]
DATA = str(Path(__file__).parent / "data" / "small.csv")


def _model():
    from momentbound import CellModel

    return CellModel((2,), CELLS)


def _run(args: list[str]) -> dict:
    done = run_in_process(args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


def _sweep_scoring():
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import sweep

    doc = _run(["sweep", *MODEL_ARGS, "--N", "20", "--over", "folds", "--values", "2,loo", "--scoring", "f1",
                "--backend", "montecarlo", "--draws", "400", "--seed", "4", "--ties", "sklearn", "--alpha", "1", "--json"])
    api = sweep(_model(), "folds", [2, "loo"], N=20, classifier=NaiveBayes("sklearn", 1), backend="montecarlo",
                scoring="f1", seed=4, draws=400)
    assert doc["scoring"] == "f1" and [r["folds"] for r in doc["rows"]] == [2, 20]
    for row, r in zip(doc["rows"], api.rows):
        for name in ("mean", "variance", "ge_full_mean", "rms", "undefined"):
            assert row[name] == pytest.approx(float(getattr(r, name).estimate), abs=1e-12), name


def _sweep_metric():
    from momentbound.estimators import sweep
    from momentbound.estimators.metrics import LinearMetric

    doc = _run(["sweep", *MODEL_ARGS, "--N", "12", "--over", "folds", "--values", "2,3", "--metric", "confusion:1:0",
                "--json"])
    api = sweep(_model(), "folds", [2, 3], N=12, metric=LinearMetric.confusion_entry(1, 0))
    assert doc["metric"] == "confusion[1,0]" and all(row["metric"] == "confusion[1,0]" for row in doc["rows"])
    for row, r in zip(doc["rows"], api.rows):
        assert row["mean_exact"] == str(r.mean) and row["variance_exact"] == str(r.variance)


def _coverage(flag: list[str], kwargs: dict):
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators.coverage import interval_coverage
    from momentbound.splitters import KFold

    doc = _run(["coverage", *MODEL_ARGS, "--N", "20", "--method", "naive-cv", "--folds", "4", "--alpha", "1",
                "--draws", "500", "--seed", "2", *flag, "--json"])
    api = interval_coverage(_model(), 20, "naive-cv", KFold(4), classifier=NaiveBayes(alpha=1), draws=500,
                            rng=np.random.default_rng(2), **kwargs)
    assert doc["statistic"] == api.statistic
    assert doc["coverage"] == pytest.approx(api.coverage.estimate, abs=1e-12)
    assert doc["mean_width"] == pytest.approx(api.mean_width, abs=1e-12)


def _coverage_scoring():
    _coverage(["--scoring", "balanced_accuracy"], {"scoring": "balanced_accuracy"})


def _coverage_metric():
    from momentbound.estimators.metrics import LinearMetric

    _coverage(["--metric", "class_error:1"], {"metric": LinearMetric.class_error(1)})


def _advise(flag: list[str], kwargs: dict, kind: str):
    from momentbound.data.plan import advise

    doc = _run(["advise", "--data", DATA, "--target", "y", "--N", "20", "--candidates", "kfold-5,loo,632",
                "--no-coverage", "--precision", "0.2", *flag, "--json"])
    api = advise(DATA, 20, target="y", candidates=["kfold-5", "loo", "632"], coverage=False, precision=0.2, **kwargs)
    assert doc["statistic"] == api.statistic and [r["kind"] for r in doc["rows"]] == [kind] * len(doc["rows"])
    assert [(r["key"], r["rms"]) for r in doc["rows"]] == [(r.key, pytest.approx(r.rms, abs=1e-12)) for r in api.rows]
    assert [s["key"] for s in doc["skipped"]] == ["632"]


def _advise_scoring():
    _advise(["--scoring", "precision"], {"scoring": "precision"}, "montecarlo")


def _advise_metric():
    from momentbound.estimators.metrics import LinearMetric

    _advise(["--metric", "class_error:0"], {"metric": LinearMetric.class_error(0)}, "exact")


@pytest.mark.parametrize("case", [_sweep_scoring, _sweep_metric, _coverage_scoring, _coverage_metric, _advise_scoring,
                                  _advise_metric], ids=lambda f: f.__name__.strip("_"))
def test_json_equals_the_api(case):
    case()


SWEEP = ["sweep", *MODEL_ARGS, "--N", "20", "--over", "folds", "--values", "2,loo"]
COVERAGE = ["coverage", *MODEL_ARGS, "--N", "20", "--alpha", "1"]
ADVISE = ["advise", "--data", DATA, "--target", "y", "--N", "20"]


@pytest.mark.parametrize(("args", "message"), [
    ([*SWEEP, "--scoring", "f1"], "add --backend montecarlo"),
    ([*SWEEP, "--scoring", "f1", "--metric", "error", "--backend", "montecarlo"], "not both"),
    ([*SWEEP, "--scoring", "roc_auc", "--backend", "montecarlo", "--alpha", "1"], "--scoring roc_auc_pooled"),
    ([*SWEEP, "--scoring", "f1", "--backend", "montecarlo", "--dask"], "--scoring takes --draws and --seed"),
    ([*SWEEP, "--metric", "recall:1"], "not linear in the confusion counts"),
    ([*SWEEP, "--metric", "error", "--backend", "montecarlo"], "drop --backend montecarlo"),
    ([*SWEEP, "--scoring", "auc", "--backend", "montecarlo"], "roc_auc_pooled"),
    ([*COVERAGE, "--method", "wald", "--test-size", "5", "--scoring", "f1"], "--method naive-cv"),
    ([*COVERAGE, "--method", "naive-cv", "--folds", "4", "--target", "expected-ge-full", "--metric", "error"],
     "--target ge-full"),
    ([*COVERAGE, "--method", "nadeau-bengio", "--splits", "4", "--test-size", "5", "--scoring", "roc_auc_pooled"],
     "not a partition"),
    ([*ADVISE, "--scoring", "f1", "--metric", "error"], "not both"),
    ([*ADVISE, "--scoring", "roc_auc", "--candidates", "loo,632"], "no candidate can be ranked"),
])
def test_refusals_name_the_fix(args, message):
    done = run_in_process(args)
    assert done.returncode in (1, 2), (done.stdout, done.stderr)
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
