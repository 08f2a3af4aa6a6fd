"""backend="auto": exact where the exact route accepts the work, Monte Carlo otherwise, and the result says which."""

from __future__ import annotations

import numpy as np
import pytest

from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_accuracy, estimator_moments
from momentbound.intervals import Interval
from momentbound.model import second_nb_model
from momentbound.model.cells import CellModel
from momentbound.splitters.bootstrap import Bootstrap, Resubstitution


def _model():
    return CellModel.normalized((2, 3), [1, 3, 2, 5, 4, 2, 3, 1, 6, 2, 1, 4], 2).to_float()


def test_auto_is_exact_where_the_exact_route_accepts():
    auto = estimator_moments(_model(), 8, Resubstitution(), backend="auto")
    exact = estimator_moments(_model(), 8, Resubstitution(), backend="exact")
    assert auto.backend == "exact" and auto.auto_reason is None
    assert auto.mean == exact.mean and auto.variance == exact.variance
    acc = estimator_accuracy(_model(), 8, Resubstitution(), backend="auto", rng=np.random.default_rng(0))
    assert acc.backend == "exact" and acc.auto_reason is None
    assert acc.rms == estimator_accuracy(_model(), 8, Resubstitution()).rms


def test_auto_simulates_past_the_limits_and_says_why():
    r = estimator_moments(second_nb_model(), 400, Resubstitution(), backend="auto", draws=400, rng=1)
    assert r.backend == "montecarlo" and isinstance(r.mean, Interval)
    assert "would take about" in r.auto_reason and r.as_row()["auto_reason"] == r.auto_reason
    acc = estimator_accuracy(second_nb_model(), 400, Resubstitution(), backend="auto", draws=400,
                             rng=np.random.default_rng(1))
    assert acc.backend == "montecarlo" and "would take about" in acc.auto_reason


def test_auto_keeps_the_errors_of_bad_input():
    with pytest.raises(InvalidArgument, match="rng"):
        estimator_accuracy(_model(), 8, Resubstitution(), backend="auto")
    with pytest.raises(InvalidArgument, match="N >= 2"):
        estimator_moments(_model(), 1, Bootstrap(), backend="auto")
