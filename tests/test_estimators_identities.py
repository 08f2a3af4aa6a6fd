"""Identities and closed forms the estimator moments must satisfy (exact backend).

Witnesses: closed forms (all-equal cells: GE is exactly 1/2, so hold-out errors are binomial),
symmetries (relabelling input values or classes), the paper's decompositions (Lemma 1, Theorem 3)
recomputed from separately reported quantities, and rational vs floating-point arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import functools

import pytest

from momentbound import CellModel
from momentbound.estimators import GE, HoldOut, KFold, LeaveOneOut, estimator_moments, sweep

# the enumerations here pool the fold errors (the error rate over all N points), the statistic
# of the paper; the mean of the fold scores is tested against cross_val_score elsewhere
KFold = functools.partial(KFold, average="pooled")  # noqa: F811
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model import equal_cells_model, independent_1d_model
from momentbound.probability.exact_backend import ExactBackend

ONE_D = CellModel((2,), ["1/5", "3/10", "1/10", "2/5"])
THREE_VALUES = CellModel((3,), ["1/10", "1/5", "1/5", "1/10", "1/4", "3/20"])
RANDOM = NaiveBayes(ties="random")
FIRST = NaiveBayes(ties="first")


def test_equal_cells_closed_form():
    """All cells equal, random ties: GE = 1/2 for every training set, so E = 1/2, Var(GE) = 0 and a
    hold-out error with Ns test points is Binomial(Ns, 1/2)/Ns: Var = 1/(4 Ns)."""
    model = equal_cells_model((2, 2))
    ge = estimator_moments(model, 6, GE(), classifier=RANDOM)
    assert ge.mean == Fraction(1, 2) and ge.variance == 0
    for ns in (1, 2, 4):
        ho = estimator_moments(model, 7, HoldOut(test_size=ns), classifier=RANDOM)
        assert ho.mean == Fraction(1, 2)
        assert ho.variance == Fraction(1, 4 * ns)
    cv = estimator_moments(model, 6, KFold(3), classifier=RANDOM)
    assert cv.mean == Fraction(1, 2)
    assert cv.fold_variance == Fraction(1, 8)  # Var(HE_i) = 1/(4 * 2)


def test_holdout_is_lemma1_of_ge_moments():
    """Var(HE) = E[GE]/Ns + (Ns-1)/Ns E[GE^2] - E[GE]^2 with the GE moments at Nt (Theorem 2)."""
    for clf in (RANDOM, NaiveBayes(ties="first", alpha=1)):
        ge = estimator_moments(THREE_VALUES, 7, GE(), classifier=clf)
        e1, e2 = ge.mean, ge.variance + ge.mean**2
        for ns in (1, 3, 5):
            ho = estimator_moments(THREE_VALUES, 7 + ns, HoldOut(test_size=ns), classifier=clf)
            assert ho.mean == e1 and ho.ge_mean == e1 and ho.ge_variance == ge.variance
            assert ho.variance == e1 / ns + Fraction(ns - 1, ns) * e2 - e1 * e1


@pytest.mark.parametrize("clf", [RANDOM, NaiveBayes(ties="first", alpha=1)])
@pytest.mark.parametrize("N, v", [(8, 2), (9, 3), (6, 6)])
def test_cv_decomposition_equal_folds(clf, N, v):
    """E[CE] = E[GE at N - N/v] and Var(CE) = Var(HE_i)/v + (v-1)/v Cov(HE_i, HE_j) (Theorem 3)."""
    cv = estimator_moments(ONE_D, N, KFold(v), classifier=clf)
    ge = estimator_moments(ONE_D, N - N // v, GE(), classifier=clf)
    assert isinstance(cv.mean, Fraction)
    assert cv.mean == ge.mean
    assert cv.variance == cv.fold_variance / v + Fraction(v - 1, v) * cv.fold_covariance
    # Var(HE_i) is the hold-out variance with N/v test points
    ho = estimator_moments(ONE_D, N, HoldOut(test_size=N // v), classifier=clf)
    assert cv.fold_variance == ho.variance


def test_unequal_folds_mean_is_weighted():
    """N = 7, v = 3: folds 3, 2, 2: E[CE] = 3/7 E[GE_4] + 4/7 E[GE_5]."""
    cv = estimator_moments(ONE_D, 7, KFold(3), classifier=RANDOM)
    g4 = estimator_moments(ONE_D, 4, GE(), classifier=RANDOM).mean
    g5 = estimator_moments(ONE_D, 5, GE(), classifier=RANDOM).mean
    assert cv.fold_sizes == (3, 2, 2)
    assert cv.mean == Fraction(3, 7) * g4 + Fraction(4, 7) * g5
    h3 = estimator_moments(ONE_D, 7, HoldOut(test_size=3), classifier=RANDOM).variance
    h2 = estimator_moments(ONE_D, 7, HoldOut(test_size=2), classifier=RANDOM).variance
    assert cv.fold_variance == (h3 + 2 * h2) / 3


def test_loo_is_kfold_n():
    a = estimator_moments(ONE_D, 6, LeaveOneOut(), classifier=FIRST)
    b = estimator_moments(ONE_D, 6, KFold(6), classifier=FIRST)
    assert (a.mean, a.variance, a.fold_covariance) == (b.mean, b.variance, b.fold_covariance)
    # a test point of LOO errs with probability E[GE_{N-1}]: Var(HE_i) = m (1 - m)
    assert a.fold_variance == a.mean * (1 - a.mean)


def _relabel_inputs(model: CellModel, perm: list[int]) -> CellModel:
    K = model.n_classes
    cells = [None] * model.n_cells
    for x in model.inputs():
        for k in range(K):
            cells[model.index((perm[x[0]],), k)] = model.p(x, k)
    return CellModel(model.arities, cells, K)


def _swap_classes(model: CellModel) -> CellModel:
    return CellModel(
        model.arities, [model.p(x, 1 - k) for x in model.inputs() for k in range(2)], 2
    )


@pytest.mark.parametrize("estimator", [KFold(2), HoldOut(test_size=3), LeaveOneOut()])
def test_symmetries(estimator):
    """Relabelling input values never matters; swapping the classes does not matter for the
    symmetric `random` rule (it does for `first`, which favours class 0)."""
    base = estimator_moments(THREE_VALUES, 6, estimator, classifier=FIRST)
    perm = estimator_moments(_relabel_inputs(THREE_VALUES, [2, 0, 1]), 6, estimator, classifier=FIRST)
    assert (base.mean, base.variance) == (perm.mean, perm.variance)
    r = estimator_moments(ONE_D, 6, estimator, classifier=RANDOM)
    s = estimator_moments(_swap_classes(ONE_D), 6, estimator, classifier=RANDOM)
    assert (r.mean, r.variance, r.fold_covariance) == (s.mean, s.variance, s.fold_covariance)
    f = estimator_moments(ONE_D, 6, estimator, classifier=FIRST)
    g = estimator_moments(_swap_classes(ONE_D), 6, estimator, classifier=FIRST)
    assert f.mean != g.mean


def test_rational_and_float_arithmetic_agree():
    rational = ExactBackend(arithmetic="rational")
    floating = ExactBackend(arithmetic="float")
    for est in (GE(), HoldOut(test_size=3), KFold(3), LeaveOneOut()):
        a = estimator_moments(ONE_D, 8, est, classifier=RANDOM, backend=rational)
        b = estimator_moments(ONE_D, 8, est, classifier=RANDOM, backend=floating)
        assert isinstance(a.mean, Fraction) and isinstance(b.mean, float)
        for name in ("mean", "variance", "fold_variance", "fold_covariance", "ge_variance"):
            x, y = getattr(a, name), getattr(b, name)
            assert (x is None and y is None) or float(x) == pytest.approx(y, rel=1e-12, abs=1e-15)


def test_paper_lemma2_two_folds_zero_covariance_exact_positive():
    model = independent_1d_model("2/5")
    exact = estimator_moments(model, 10, KFold(2))
    paper = estimator_moments(model, 10, KFold(2), covariance="paper")
    assert paper.fold_covariance == 0
    assert exact.fold_covariance > Fraction(1, 100)
    assert paper.variance == paper.fold_variance / 2
    assert exact.variance > paper.variance


def test_float_sweep_identity_at_paper_scale():
    """The paper's 1-D model at N = 60 in floats: E[CE] = E[GE at N - N/v] for every divisor v."""
    model = independent_1d_model("2/5")
    res = sweep(model, "folds", [2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60], N=60)
    for r in res.rows:
        v = r.folds
        assert r.mean == pytest.approx(float(estimator_moments(model, 60 - 60 // v, GE()).mean), rel=1e-12)
        decomposition = r.fold_variance / v + (v - 1) / v * r.fold_covariance
        assert r.variance == pytest.approx(decomposition, rel=1e-9, abs=1e-15)
        assert r.kind.name == "EXACT"


# ------------------------------------------------------------------ other backends


def test_sampling_backend_intervals_contain_exact():
    import numpy as np

    from momentbound.probability.sampling_backend import SamplingBackend

    exact = estimator_moments(ONE_D, 20, KFold(4))
    backend = SamplingBackend(draws=4000, rng=np.random.default_rng(7))
    est = estimator_moments(ONE_D, 20, KFold(4), backend=backend)
    assert est.kind.name == "ESTIMATE" and est.backend == "sampling"
    for name in ("mean", "variance", "fold_variance", "fold_covariance"):
        box = getattr(est, name)
        assert float(box.lower) <= float(getattr(exact, name)) <= float(box.upper), name
        assert box.lower <= box.estimate <= box.upper
    assert abs(est.mean.estimate - float(exact.mean)) < 0.01


def test_bound_backend_intervals_contain_exact():
    for estimator in (GE(), HoldOut(test_size=5)):
        exact = estimator_moments(ONE_D, 20, estimator)
        box = estimator_moments(ONE_D, 20, estimator, backend="bound:lp")
        assert box.kind.name == "BOUND" and box.backend == "bound:lp"
        assert box.mean.lower <= exact.mean <= box.mean.upper
        assert box.variance.lower <= exact.variance <= box.variance.upper
        assert box.variance.lower >= 0 and box.mean.estimate is None
        assert box.std.lower <= exact.std <= box.std.upper


def test_backends_without_cross_term_refuse_cv():
    from momentbound.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="cannot bound the cross-validation cross term"):
        estimator_moments(ONE_D, 20, KFold(4), backend="bound:lp")
