"""Moments conditional on scikit-learn being able to split come with a warning once that event is
not almost sure (probability below ``CONDITIONING_WARNING``), in Python and on the command line,
where ``--json`` keeps stdout one JSON document."""

from __future__ import annotations

import json
import warnings

import pytest

from conftest import paper_model, run_in_process


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if "cannot split" in str(w.message)]


def test_small_conditioning_event_warns_with_its_probability() -> None:
    from momentbound.estimators import estimator_moments
    from momentbound.estimators.from_predictions import CONDITIONING_WARNING
    from momentbound.splitters import StratifiedShuffleSplit

    r, caught = _caught(lambda: estimator_moments(paper_model(), 6, StratifiedShuffleSplit(3, 3)))
    p = float(r.split_probability)
    assert p < CONDITIONING_WARNING
    assert len(caught) == 1 and caught[0].category is UserWarning
    text = str(caught[0].message)
    assert f"split_probability {p:.4g}" in text and f"cannot split {1 - p:.3g} of the datasets" in text


def test_almost_sure_split_is_silent() -> None:
    from momentbound.estimators import estimator_moments
    from momentbound.splitters import StratifiedKFold

    r, caught = _caught(lambda: estimator_moments(paper_model(), 20, StratifiedKFold(2)))
    assert float(r.split_probability) >= 0.95
    assert caught == []


def test_command_line_warns_on_stderr_and_keeps_json_clean() -> None:
    args = ["estimate", "--arities", "2", "--cells", "1/5,3/10,1/5,3/10", "--N", "6",
            "--splitter", "stratified-shuffle-split", "--splits", "3", "--test-size", "3", "--json"]
    r = run_in_process(args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["split_probability"] < 0.95
    assert "UserWarning" in r.stderr and "cannot split" in r.stderr
    assert f"split_probability {doc['split_probability']:.4g}" in r.stderr


@pytest.mark.parametrize("N", [4, 5])
def test_stratified_kfold_warns_where_folds_exceed_most_class_counts(N) -> None:
    from momentbound.estimators import estimator_moments
    from momentbound.splitters import StratifiedKFold

    r, caught = _caught(lambda: estimator_moments(paper_model(), N, StratifiedKFold(3)))
    assert (float(r.split_probability) < 0.95) == bool(caught)
