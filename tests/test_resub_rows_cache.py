"""The rows route of resubstitution/Err(1)/.632 keeps the binomial laws and conditional matrices that
splits share within a byte budget: evicting them changes nothing, and the matrices equal scipy's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.exact import resub_states


@pytest.mark.parametrize("statistic, alpha", [("resubstitution", 1), ("632", 0)])
def test_a_tiny_cache_gives_the_same_moments(monkeypatch, statistic, alpha):
    model = CellModel((3,), ["1/12", "1/6", "1/12", "1/4", "1/6", "1/12", "1/12", "1/24", "1/24"], 3)
    clf = NaiveBayes("random", alpha)
    full = resub_states.state_moments(model, clf, 14, statistic)
    monkeypatch.setattr(resub_states, "ROW_CACHE", 3000)  # a few small matrices: evicted all the time
    small = resub_states.state_moments(model, clf, 14, statistic)
    assert (small.mean, small.second, small.joint) == (full.mean, full.second, full.joint)
    assert 0 < full.mean < 1


@pytest.mark.parametrize("n", [0, 1, 7, 60])
@pytest.mark.parametrize("rho", [0.0, 1e-12, 0.3, 0.999, 1.0])
def test_conditional_matrices_equal_scipy(n, rho):
    r = np.arange(n + 1)
    want = binom.pmf(r[None, :], (n - r)[:, None], rho)
    got = resub_states._cond_matrix(n, rho)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-300)
    assert not np.array_equal(resub_states._cond_matrix(n, 0.5), resub_states._cond_matrix(n, 0.25)) or n == 0


def test_the_memory_estimate_counts_the_cache():
    model = CellModel((3,), ["1/6"] * 6)
    assert resub_states.memory_estimate(model, 900) > resub_states.ROW_CACHE
    assert resub_states.memory_estimate(model, 10) < 2**20
