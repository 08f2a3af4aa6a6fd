"""The cross term holds the levels of ``h`` dense when they fit (``holds_dense``) and packed
otherwise: the same sums in the same order, so bitwise the same matrix and dropped-mass bound;
the memory estimate follows the form chosen, and a memory limit the dense form does not fit in
makes the term packed instead of refused."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact import reduced_states as rs
from momentbound.model import second_nb_model
from momentbound.probability.exact_backend import ExactBackend

ASYM = CellModel((2, 2), ["0.12", "0.08", "0.05", "0.15", "0.2", "0.1", "0.07", "0.23"])


@pytest.mark.parametrize(("model", "sizes", "clf"), [
    (second_nb_model(), (24, 3, 3), NaiveBayes(ties="first", alpha=1)),
    (ASYM, (24, 3, 3), NaiveBayes(ties="random", alpha=0)),
    (ASYM, (14, 2, 3), NaiveBayes(ties="first", alpha=1)),
])
def test_dense_levels_equal_packed_levels_bitwise(model, sizes, clf) -> None:
    assert rs.holds_dense(model, *sizes)
    assert not rs.holds_dense(model, *sizes, budget=0)
    dense = rs.cross_errors(model, *sizes, clf, tail=1e-13)
    packed = rs.cross_errors(model, *sizes, clf, tail=1e-13, dense_budget=0)
    assert np.array_equal(dense.matrix, packed.matrix)
    assert dense.dropped_mass_bound == packed.dropped_mass_bound > 0


def test_dense_costs_more_memory_and_less_time_in_the_estimates() -> None:
    model, sizes = second_nb_model(), (80, 9, 9)  # 10-fold CV at N = 100
    assert rs.memory_estimate(model, *sizes) > rs.memory_estimate(model, *sizes, dense_budget=0)
    assert rs.ns_per_op(model, *sizes) < rs.ns_per_op(model, *sizes, dense_budget=0)
    assert not rs.holds_dense(model, 160, 19, 19)  # N = 200: packed by default
    assert not rs.holds_dense(model, *sizes, budget=0)
    assert rs.holds_dense(model, 24, 3, 3, budget=1.0)  # small slices: dense needs less than packed


@pytest.mark.parametrize("budget", [rs.DENSE_BYTES, 0])
def test_peak_follows_the_estimate_of_the_form_chosen(budget) -> None:
    model, sizes = second_nb_model(), (48, 5, 5)
    rs.cross_errors(model, 3, 1, 1, NaiveBayes(), 1e-13, dense_budget=budget)  # compiled before tracing
    tracemalloc.start()
    try:
        rs.cross_errors(model, *sizes, NaiveBayes(), 1e-13, dense_budget=budget)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.6 <= peak / rs.memory_estimate(model, *sizes, dense_budget=budget) <= 1.5


def test_a_limit_between_the_two_forms_runs_packed(monkeypatch) -> None:
    # small bands make the packed form the smaller one at a size that runs in a fraction of a second
    monkeypatch.setattr(rs, "BAND_BYTES", 2**16)
    model, sizes = second_nb_model(), (32, 3, 3)
    dense, packed = rs.memory_estimate(model, *sizes), rs.memory_estimate(model, *sizes, dense_budget=0)
    assert packed < dense
    limit = 1.3 * (packed + dense) / 2  # the guard's margin is 1.3
    calls = []
    original = rs.cross_errors
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rs, "cross_errors", lambda *a, **k: calls.append(k["dense_budget"]) or original(*a, **k))
        tight = ExactBackend(arithmetic="float", max_memory=limit).cross_error_matrix(model, *sizes, NaiveBayes())
        free = ExactBackend(arithmetic="float").cross_error_matrix(model, *sizes, NaiveBayes())
    assert np.array_equal(tight, free)
    assert calls[0] == pytest.approx(limit / 1.3) and not rs.holds_dense(model, *sizes, calls[0])
    assert rs.holds_dense(model, *sizes, calls[1])
