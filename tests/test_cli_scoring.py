"""``estimate --scoring NAME``: scikit-learn's scorers from the command line, as one JSON document
(in this process with ``run_in_process``, fds 1 and 2 included; ``estimate`` runs as a real
subprocess in ``test_cli_subprocess.py``), equal to the API's numbers for the same seed, and
refused cleanly where they do not apply."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import PAPER_CELLS, paper_model, run_in_process

MODEL_ARGS = ["--arities", "2", "--cells", ",".join(PAPER_CELLS), "--N", "30"]


def test_scoring_json_is_one_document_equal_to_the_api():
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import StratifiedKFold, estimator_moments

    args = [*MODEL_ARGS, "--splitter", "stratified-cv", "--folds", "5", "--ties", "sklearn", "--alpha", "1", "--backend", "montecarlo",
            "--seed", "3", "--draws", "3000", "--scoring", "f1", "--json"]
    done = run_in_process(["estimate", *args])
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    doc = json.loads(done.stdout)
    assert doc["scoring"] == "f1" and doc["draws"] == 3000 and doc["kind"] == "estimate"
    for name in ("mean", "variance", "ge_full_mean", "bias", "rms", "covariance_with_ge", "undefined"):
        assert isinstance(doc[name], float) and doc[f"{name}_lower"] <= doc[name] <= doc[f"{name}_upper"]
    api = estimator_moments(paper_model(), 30, StratifiedKFold(5), classifier=NaiveBayes("sklearn", 1),
                            backend="montecarlo", scoring="f1", rng=3, draws=3000)
    assert doc["mean"] == pytest.approx(float(api.mean.estimate), abs=1e-12)
    assert doc["rms"] == pytest.approx(float(api.rms.estimate), abs=1e-12)
    assert np.isclose(doc["ge_full_mean"], float(api.ge_full_mean.estimate))


@pytest.mark.parametrize(("extra", "message"), [
    (["--scoring", "f1"], "add --backend montecarlo"),
    (["--scoring", "bogus", "--backend", "montecarlo"], "balanced_accuracy"),
    (["--scoring", "f1", "--backend", "montecarlo", "--progress"], "--scoring takes --draws and --seed"),
])
def test_scoring_refusals_name_the_fix(extra, message):
    done = run_in_process(["estimate", *MODEL_ARGS, "--splitter", "cv", "--folds", "5", *extra])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
