"""The simulation of the ideal bootstrap (Err(1), .632, .632+) at large N: the closed form of Err(1) per
drawn table costs O(N^3) multiply-adds, so past a limit the simulation draws bootstrap samples instead
(.632+ refuses and names a finite B) rather than allocating the whole (N^2/2, N + 1) grid."""

from __future__ import annotations

import numpy as np
import pytest

from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments
from momentbound.exact import tables
from momentbound.model.cells import CellModel
from momentbound.splitters import bootstrap
from momentbound.splitters.bootstrap import Bootstrap, Point632, Point632Plus


def _model():
    return CellModel.normalized((2,), [1, 3, 2, 5], 2).to_float()


def test_past_the_limit_the_simulation_draws_and_agrees(monkeypatch):
    N, R = 12, 4000
    closed = estimator_moments(_model(), N, Point632(), backend="montecarlo", draws=R, rng=3)
    exact = estimator_moments(_model(), N, Point632())
    monkeypatch.setattr(bootstrap, "MAX_TRINOMIAL_WORK", 10)  # force the drawn route
    drawn = estimator_moments(_model(), N, Point632(), backend="montecarlo", draws=R, rng=3)
    assert drawn.mean.lower <= exact.mean <= drawn.mean.upper
    assert closed.mean.lower <= exact.mean <= closed.mean.upper
    assert drawn.mean.estimate != closed.mean.estimate  # the other route did run


def test_large_N_runs_without_the_cubic_grid():
    r = estimator_moments(_model(), 3000, Bootstrap(), backend="montecarlo", draws=200, rng=1)
    assert 0.0 < r.mean.estimate < 1.0
    r = estimator_moments(_model(), 3000, Bootstrap(), backend="auto", draws=200, rng=1)
    assert r.backend == "montecarlo"


def test_632plus_refuses_past_the_limit_and_names_a_finite_B():
    with pytest.raises(InvalidArgument, match=r"Point632Plus\(B=200\)"):
        estimator_moments(_model(), 3000, Point632Plus(), backend="montecarlo", draws=200, rng=1)
