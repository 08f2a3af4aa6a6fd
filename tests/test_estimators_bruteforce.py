"""estimator_moments (exact backend) equals brute-force enumeration, as exact Fractions.

Witness: tests/oracles/estimators.py, which enumerates every count table of every fold
(folds are independent multinomial tables because the points are iid) and computes every
classifier directly from its list of training points (tests/oracles/naive_bayes.py).
Nothing of momentbound's computation is reused: only CellModel's data and the public API.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import LeaveOneOut as SkLeaveOneOut
from sklearn.model_selection import ShuffleSplit

from momentbound import CellModel
from momentbound.model import second_nb_model
from oracles.estimators import BruteForce, kfold_sizes


def api():
    """The contract API (imported here so a missing module fails the tests, never skips)."""
    from momentbound.estimators import GE, HoldOut, KFold, LeaveOneOut, estimator_moments
    from momentbound.exact import NaiveBayes

    # the enumeration pools the fold errors (the error rate over all N points)
    return GE, HoldOut, functools.partial(KFold, average="pooled"), LeaveOneOut, estimator_moments, NaiveBayes


MODELS = {
    # 1-D, class-dependent input, unequal priors (no accidental symmetry)
    "1d": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    # the paper's second 2x2x2 model (Figs. 17-25)
    "2x2x2": second_nb_model(),
    # one input with two values, three classes
    "3class": CellModel((2,), [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)], 3),
}


@functools.lru_cache(maxsize=None)
def oracle(name: str, ties: str, alpha: int) -> BruteForce:
    return BruteForce.from_model(MODELS[name], ties, alpha)


def check(name, n, estimator, ties, alpha, *, covariance="exact"):
    """Compare every moment of one estimator with the enumeration; return the result."""
    GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes = api()
    model = MODELS[name]
    bf = oracle(name, ties, alpha)
    res = estimator_moments(
        model, n, estimator, classifier=NaiveBayes(ties=ties, alpha=alpha), covariance=covariance
    )
    assert res.N == n and res.covariance == covariance
    assert res.backend == "exact" and res.kind.name == "EXACT"
    assert isinstance(res.mean, F) and isinstance(res.variance, F)
    if isinstance(estimator, GE):
        want = bf.ge_moments(n)
        assert (res.mean, res.variance) == (want.mean, want.variance)
        assert res.train_size == n and res.test_size is None and res.folds is None
        assert (res.ge_mean, res.ge_variance) == (want.mean, want.variance)
    elif isinstance(estimator, HoldOut):
        n_test = sklearn_holdout_test_size(n, estimator)
        want = bf.holdout_moments(n - n_test, n_test)
        assert (res.mean, res.variance) == (want.mean, want.variance)
        assert (res.train_size, res.test_size, res.folds) == (n - n_test, n_test, None)
        ge = bf.ge_moments(n - n_test)
        assert (res.ge_mean, res.ge_variance) == (ge.mean, ge.variance)
        # Lemma 1: E[HE^2] = E[GE]/Ns + (Ns - 1)/Ns E[GE^2], with the result's own GE moments
        ge2 = res.ge_variance + res.ge_mean**2
        lemma1 = res.ge_mean / n_test + F(n_test - 1, n_test) * ge2 - res.ge_mean**2
        assert res.variance == lemma1
    else:
        v = n if isinstance(estimator, LeaveOneOut) else estimator.v
        sizes = sklearn_fold_sizes(n, v)
        want = bf.cv_moments(sizes)
        assert res.folds == v and res.test_size is None
        assert (res.mean, res.fold_variance) == (want.mean, want.fold_variance)
        if covariance == "exact":
            assert res.variance == want.variance
            assert res.fold_covariance == want.fold_covariance
        ge = bf.ge_moments(n - min(sizes))
        assert res.train_size == n - min(sizes)
        assert (res.ge_mean, res.ge_variance) == (ge.mean, ge.variance)
        if len(set(sizes)) == 1:
            # E[CE] = E[GE at N - N/v] and Var(CE) = Var(HE_i)/v + (v-1)/v Cov(HE_i, HE_j)
            assert res.mean == ge.mean
            assert res.variance == res.fold_variance / v + F(v - 1, v) * res.fold_covariance
    assert math.isclose(res.std, math.sqrt(res.variance), rel_tol=1e-12)
    assert math.isclose(res.mean_plus_std, float(res.mean) + res.std, rel_tol=1e-12)
    return res


def sklearn_holdout_test_size(n, estimator) -> int:
    """Test size of scikit-learn's ShuffleSplit with the same test_size / test_fraction."""
    test = estimator.test_size if estimator.test_size is not None else estimator.test_fraction
    _, test_idx = next(ShuffleSplit(n_splits=1, test_size=test, random_state=0).split(np.zeros(n)))
    return len(test_idx)


def sklearn_fold_sizes(n, v) -> tuple[int, ...]:
    splitter = SkLeaveOneOut() if v == n else SkKFold(n_splits=v)
    sizes = tuple(len(test) for _, test in splitter.split(np.zeros(n)))
    assert sizes == kfold_sizes(n, v)
    return sizes


RULES = [("random", 0), ("random", 1), ("first", 0), ("first", 1)]


@pytest.mark.parametrize("ties, alpha", RULES)
def test_one_dimensional_n8_all_estimators(ties, alpha):
    GE, HoldOut, KFold, LeaveOneOut, *_ = api()
    n = 8
    check("1d", n, GE(), ties, alpha)
    for est in (HoldOut(test_size=1), HoldOut(test_size=3), HoldOut(test_fraction=0.5),
                HoldOut(test_fraction=0.3)):
        check("1d", n, est, ties, alpha)
    check("1d", n, KFold(2), ties, alpha)  # equal folds 4 + 4
    check("1d", n, KFold(3), ties, alpha)  # unequal folds 3 + 3 + 2
    kn = check("1d", n, KFold(n), ties, alpha)
    loo = check("1d", n, LeaveOneOut(), ties, alpha)
    assert (kn.mean, kn.variance, kn.fold_covariance) == (loo.mean, loo.variance, loo.fold_covariance)


@pytest.mark.parametrize("ties, alpha", RULES)
def test_2x2x2_model(ties, alpha):
    GE, HoldOut, KFold, LeaveOneOut, *_ = api()
    check("2x2x2", 5, GE(), ties, alpha)
    check("2x2x2", 5, HoldOut(test_size=2), ties, alpha)
    check("2x2x2", 5, KFold(2), ties, alpha)  # unequal folds 3 + 2


@pytest.mark.slow
@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1)])
def test_2x2x2_model_more_splits(ties, alpha):
    GE, HoldOut, KFold, LeaveOneOut, *_ = api()
    check("2x2x2", 6, KFold(3), ties, alpha)  # equal folds 2 + 2 + 2
    check("2x2x2", 5, LeaveOneOut(), ties, alpha)
    check("2x2x2", 6, HoldOut(test_fraction=0.5), ties, alpha)


@pytest.mark.parametrize("ties, alpha", RULES)
def test_three_class_model(ties, alpha):
    GE, HoldOut, KFold, LeaveOneOut, *_ = api()
    check("3class", 5, GE(), ties, alpha)
    check("3class", 5, HoldOut(test_size=2), ties, alpha)
    check("3class", 5, KFold(2), ties, alpha)  # unequal folds 3 + 2
    check("3class", 5, LeaveOneOut(), ties, alpha)


@pytest.mark.slow
@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1)])
def test_three_class_unequal_folds(ties, alpha):
    _, _, KFold, *_ = api()
    check("3class", 5, KFold(3), ties, alpha)  # folds 2 + 2 + 1


@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1)])
def test_paper_lemma2_variant_two_folds(ties, alpha):
    """covariance="paper" for 2-fold CV: the printed Lemma 2 makes the folds' classifiers
    (trained on the two independent halves) look independent, so Cov = 0 exactly, while the
    enumeration of the real procedure gives a positive covariance."""
    _, _, KFold, *_ = api()
    n = 8
    paper = check("1d", n, KFold(2), ties, alpha, covariance="paper")
    exact = check("1d", n, KFold(2), ties, alpha)
    bf = oracle("1d", ties, alpha)
    want_pair = bf.paper_pair_second(0, 4, 4)
    cv = bf.kfold_moments(n, 2)
    want_cov = want_pair - cv.fold_means[0] * cv.fold_means[1]
    assert want_cov == 0 and paper.fold_covariance == want_cov
    assert paper.variance == cv.fold_variance / 2
    assert exact.fold_covariance == cv.fold_covariance > F(1, 100)
    assert exact.variance > paper.variance


def test_float_model_matches_exact_enumeration():
    """A float model gives floats equal to the exact rational answer to rounding."""
    GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes = api()
    model = MODELS["1d"].to_float()
    bf = oracle("1d", "random", 0)
    for est, want in [(HoldOut(test_size=3), bf.holdout_moments(5, 3)), (KFold(3), bf.kfold_moments(8, 3))]:
        res = estimator_moments(model, 8, est, classifier=NaiveBayes(ties="random", alpha=0))
        assert isinstance(res.mean, float) and isinstance(res.variance, float)
        assert math.isclose(res.mean, want.mean, rel_tol=1e-9)
        assert math.isclose(res.variance, want.variance, rel_tol=1e-9)


@st.composite
def small_problems(draw):
    """Random exact models (zero cells allowed), sizes, estimators, tie rules and alpha."""
    arities, k_cls = draw(st.sampled_from([((2,), 2), ((3,), 2), ((2,), 3)]))
    n_cells = arities[0] * k_cls
    weights = draw(st.lists(st.integers(0, 4), min_size=n_cells, max_size=n_cells))
    if sum(weights) == 0:
        weights[0] = 1
    cells = [F(w, sum(weights)) for w in weights]
    n = draw(st.integers(2, 5))
    kind = draw(st.sampled_from(["ge", "holdout", "kfold", "loo"]))
    arg = draw(st.integers(1, n - 1)) if kind == "holdout" else draw(st.integers(2, n))
    ties = draw(st.sampled_from(["random", "first"]))
    alpha = draw(st.sampled_from([0, 1]))
    return arities, k_cls, cells, n, kind, arg, ties, alpha


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_problems())
def test_random_small_models_equal_enumeration(problem):
    arities, k_cls, cells, n, kind, arg, ties, alpha = problem
    GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes = api()
    model = CellModel(arities, cells, k_cls)
    bf = BruteForce.from_model(model, ties, alpha)
    clf = NaiveBayes(ties=ties, alpha=alpha)
    if kind == "ge":
        res, want = estimator_moments(model, n, GE(), classifier=clf), bf.ge_moments(n)
    elif kind == "holdout":
        res = estimator_moments(model, n, HoldOut(test_size=arg), classifier=clf)
        want = bf.holdout_moments(n - arg, arg)
    else:
        est = KFold(arg) if kind == "kfold" else LeaveOneOut()
        res = estimator_moments(model, n, est, classifier=clf)
        want = bf.kfold_moments(n, arg if kind == "kfold" else n)
        assert (res.fold_variance, res.fold_covariance) == (want.fold_variance, want.fold_covariance)
    assert (res.mean, res.variance) == (want.mean, want.variance)


@pytest.mark.parametrize("name", ["1d", "2x2x2", "3class"])
@pytest.mark.parametrize("ties, alpha", RULES)
def test_exact_backend_prediction_probabilities(name, ties, alpha):
    """The exact backend's single / pair / cross terms equal the enumeration (Fractions)."""
    from momentbound.probability import get_backend

    *_, NaiveBayes = api()
    model = MODELS[name]
    clf = NaiveBayes(ties=ties, alpha=alpha)
    bf = oracle(name, ties, alpha)
    backend = get_backend("exact")
    inputs = list(model.inputs())
    x, x2 = inputs[0], inputs[-1]
    n = 6 if name == "1d" else 5
    single = list(backend.single(model, n, x, clf))
    assert all(isinstance(v, F) for v in single)
    assert single == bf.single(n, x)
    for a, b in [(x, x2), (x, x)]:
        got = backend.pair(model, n, a, b, clf)
        assert [list(row) for row in got] == bf.pair(n, a, b)
    k = model.n_classes
    point_a, point_b = (x, 0), (x2, k - 1)
    sizes = (1, 1, 2) if name == "2x2x2" else (2, 1, 2)
    got = backend.cross(model, *sizes, point_a, point_b, clf)
    assert [list(row) for row in got] == bf.cross(*sizes, point_a, point_b)
    got = backend.cross(model, *sizes, point_a, point_a, clf)
    assert [list(row) for row in got] == bf.cross(*sizes, point_a, point_a)


@pytest.mark.parametrize("method", ["lp", "sdp"])
@pytest.mark.parametrize("name, n", [("1d", 8), ("2x2x2", 6)])
@pytest.mark.parametrize("ties", ["random", "first"])
def test_bound_backends_contain_enumeration(method, name, n, ties):
    """Guaranteed intervals (``bound:<method>``, two classes, alpha = 0) contain the exact
    enumerated moments of GE and hold-out."""
    GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes = api()
    model = MODELS[name]
    bf = oracle(name, ties, 0)
    clf = NaiveBayes(ties=ties, alpha=0)
    for est, want in [(GE(), bf.ge_moments(n)), (HoldOut(test_size=3), bf.holdout_moments(n - 3, 3))]:
        res = estimator_moments(model, n, est, classifier=clf, backend=f"bound:{method}")
        assert res.is_interval and res.kind.name == "BOUND"
        assert res.mean.lower <= want.mean <= res.mean.upper, (est, res.mean, float(want.mean))
        assert res.variance.lower <= want.variance <= res.variance.upper, (est, res.variance)
        assert res.ge_mean.lower <= bf.ge_moments(res.train_size).mean <= res.ge_mean.upper
