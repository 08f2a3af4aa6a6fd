"""Regression tests for the 1-D cross-term fast path (momentbound.exact.cross1d) at large N.

* ``_binomial_rows`` used to exponentiate the (huge) log-coefficients of the impossible entries
  ``k > m`` before masking them, so 1-D leave-one-out at N = 300 raised
  ``RuntimeWarning: overflow encountered in exp`` (an error under pytest's filterwarnings).
* The ``first`` rule's empty-class correction read the private sample size from the input
  (``x_e0 == x_a``), wrong when ``x_a == x_b`` and ``n_a != n_b`` (unequal folds).

Witnesses: a direct vectorised enumeration of all 4-cell count tables (two inputs, two classes)
written here from the definitions, and the generic exact-rational engine.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.special import gammaln

from momentbound import CellModel
from momentbound.estimators import HoldOut, KFold, LeaveOneOut, estimator_moments
from momentbound.exact import NaiveBayes
from momentbound.model import independent_1d_model
from momentbound.probability.exact_backend import ExactBackend

MODELS = {
    "independent": independent_1d_model("2/5"),
    "dependent": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
}


def _g0(n0, n1, class0_present, ties):
    """g_x(0) of 1-D naive Bayes with alpha = 0 from the counts (n0, n1) at x (arrays)."""
    tie_value = 0.5 if ties == "random" else np.where(class0_present, 1.0, 0.0)
    return np.where(n0 > n1, 1.0, np.where(n0 < n1, 0.0, tie_value))


def loo_witness(model, n, ties):
    """E[CE] and Var(CE) of leave-one-out by enumerating every table (c00, c01, c10, c11).

    Each test point of cell (x, y) is predicted by the classifier trained on the table minus
    that point; given the table, the errors are independent (random rule: own coin each).
    """
    p = [float(v) for v in model.cells]  # cells (0,0), (0,1), (1,0), (1,1)
    logp = np.log(p)
    c01, c10 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    m1 = m2 = 0.0
    for c00 in range(n + 1):
        c11 = n - c00 - c01 - c10
        ok = c11 >= 0
        c11s = np.where(ok, c11, 0)
        logw = (
            gammaln(n + 1) - gammaln(c00 + 1) - gammaln(c01 + 1) - gammaln(c10 + 1) - gammaln(c11s + 1)
            + c00 * logp[0] + c01 * logp[1] + c10 * logp[2] + c11s * logp[3]
        )
        w = np.where(ok, np.exp(np.where(ok, logw, -np.inf)), 0.0)
        mean_err = np.zeros_like(w)
        var_err = np.zeros_like(w)
        counts = {(0, 0): np.full_like(c01, c00), (0, 1): c01, (1, 0): c10, (1, 1): c11s}
        for (x, y), c in counts.items():
            left = {cell: v - (cell == (x, y)) for cell, v in counts.items()}  # remove the test point
            present0 = (left[(0, 0)] + left[(1, 0)]) > 0
            g0 = _g0(left[(x, 0)], left[(x, 1)], present0, ties)
            err = 1.0 - g0 if y == 0 else g0
            mean_err += np.where(c > 0, c * err, 0.0)
            var_err += np.where(c > 0, c * err * (1.0 - err), 0.0)
        m1 += float((w * mean_err).sum())
        m2 += float((w * (var_err + mean_err**2)).sum())
    mean = m1 / n
    return mean, m2 / n**2 - mean**2


def holdout_witness_random(model, n_train, n_test):
    """E[HE], Var(HE) (random rule) from E[GE], E[GE^2] at n_train by enumerating the counts at
    input 0 and, given them, the binomial split of the remaining points at input 1 (Lemma 1)."""
    p00, p01, p10, p11 = (float(v) for v in model.cells)
    n = n_train
    a0, a1 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = a0 + a1 <= n
    rest = np.where(ok, n - a0 - a1, 0)
    logw = gammaln(n + 1) - gammaln(a0 + 1) - gammaln(a1 + 1) - gammaln(rest + 1)
    logw = logw + a0 * np.log(p00) + a1 * np.log(p01) + rest * np.log(p10 + p11)
    w = np.where(ok, np.exp(np.where(ok, logw, -np.inf)), 0.0)
    g = _g0(a0, a1, None, "random")
    f0 = g * p01 + (1 - g) * p00  # GE contribution of input 0
    # h1[m] = E[f1 | m points at input 1], h2[m] = E[f1^2 | m]
    h1 = np.zeros(n + 1)
    h2 = np.zeros(n + 1)
    q = p10 / (p10 + p11)
    for m in range(n + 1):
        b0 = np.arange(m + 1)
        lw = gammaln(m + 1) - gammaln(b0 + 1) - gammaln(m - b0 + 1) + b0 * np.log(q) + (m - b0) * np.log1p(-q)
        pb = np.exp(lw)
        gb = _g0(b0, m - b0, None, "random")
        f1 = gb * p11 + (1 - gb) * p10
        h1[m], h2[m] = (pb * f1).sum(), (pb * f1**2).sum()
    e1 = float((w * (f0 + h1[rest])).sum())
    e2 = float((w * (f0**2 + 2 * f0 * h1[rest] + h2[rest])).sum())
    var = e1 / n_test + (n_test - 1) / n_test * e2 - e1**2
    return e1, var


@pytest.mark.parametrize("name, ties", [("independent", "random"), ("dependent", "first")])
def test_loo_at_n300_no_overflow_and_equals_enumeration(name, ties):
    model = MODELS[name]
    res = estimator_moments(model, 300, LeaveOneOut(), classifier=NaiveBayes(ties=ties))
    mean, var = loo_witness(model, 300, ties)
    assert res.mean == pytest.approx(mean, rel=1e-9)
    assert res.variance == pytest.approx(var, rel=1e-7)
    # E[CE] of leave-one-out is E[GE] at N - 1
    assert res.mean == pytest.approx(res.ge_mean, rel=1e-12) and res.train_size == 299


def test_holdout_at_n1000_no_warning_and_equals_enumeration():
    model = MODELS["independent"]
    res = estimator_moments(model, 1000, HoldOut(test_size=300))
    mean, var = holdout_witness_random(model, 700, 300)
    assert res.mean == pytest.approx(mean, rel=1e-9)
    assert res.variance == pytest.approx(var, rel=1e-7)


def test_binomial_rows_are_finite_probabilities_at_large_n():
    from momentbound.exact.cross1d import _binomial_rows

    with np.errstate(over="raise", invalid="raise"):
        rows = _binomial_rows(1500, 0.4)
    assert np.all(np.isfinite(rows)) and np.all(rows >= 0)
    assert np.all(np.triu(rows, 1) == 0)  # k > m impossible
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-10)


@pytest.mark.parametrize("ties", ["first", "random"])
def test_float_cross_matches_rational_engine_same_input_unequal_private_sizes(ties):
    """x_a == x_b with n_a != n_b (unequal folds): the 1-D float route equals the exact engine."""
    model, clf = MODELS["dependent"], NaiveBayes(ties=ties)
    fast, exact = ExactBackend(arithmetic="float"), ExactBackend(arithmetic="rational")
    for sizes in [(0, 1, 0), (1, 0, 1), (3, 1, 2), (2, 3, 0)]:
        for x in [(0,), (1,)]:
            for ya, yb in itertools.product(range(2), repeat=2):
                want = np.asarray(exact.cross(model, *sizes, (x, ya), (x, yb), clf), dtype=float)
                got = fast.cross(model, *sizes, (x, ya), (x, yb), clf)
                np.testing.assert_allclose(got, want, atol=1e-13, err_msg=str((sizes, x, ya, yb)))


def test_unequal_folds_float_equals_rational_first_rule():
    model, clf = MODELS["dependent"], NaiveBayes(ties="first")
    fast = estimator_moments(model, 7, KFold(3), classifier=clf, backend=ExactBackend(arithmetic="float"))
    exact = estimator_moments(model, 7, KFold(3), classifier=clf, backend=ExactBackend(arithmetic="rational"))
    assert fast.variance == pytest.approx(float(exact.variance), rel=1e-12)
    assert fast.fold_covariance == pytest.approx(float(exact.fold_covariance), rel=1e-12, abs=1e-15)
