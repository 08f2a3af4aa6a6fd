"""``ExactBackend.overlap`` (the printed Lemma 2's pair term) and ``covariance="paper"`` for v > 2.

Witness: tests/oracles/estimators.py and tests/oracles/naive_bayes.py, which enumerate every
count table of the three independent samples C, A, B and evaluate the classifier directly
from its list of training points. Nothing of momentbound's computation is reused.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.errors import InvalidArgument
from momentbound.estimators import KFold, LeaveOneOut, estimator_moments

# the enumerations here pool the fold errors (the error rate over all N points), the statistic
# of the paper; the mean of the fold scores is tested against cross_val_score elsewhere
KFold = functools.partial(KFold, average="pooled")  # noqa: F811
from momentbound.exact import NaiveBayes
from momentbound.model import independent_1d_model
from momentbound.probability.exact_backend import ExactBackend
from oracles.estimators import BruteForce, kfold_sizes

MODELS = {
    # 1-D, class-dependent input, unequal priors
    "1d": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    # two binary attributes, two classes, no symmetry
    "2x2": CellModel((2, 2), [F(1, 8), F(1, 16), F(1, 16), F(3, 16), F(1, 4), F(1, 16), F(1, 8), F(1, 8)]),
    # one input with two values, three classes
    "3class": CellModel((2,), [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)], 3),
}

RULES = [("random", 0), ("random", 1), ("first", 0), ("first", 1)]


@functools.lru_cache(maxsize=None)
def oracle(name: str, ties: str, alpha: int) -> BruteForce:
    return BruteForce.from_model(MODELS[name], ties, alpha)


def brute_overlap(bf: BruteForce, n_common, n_a, n_b, x_a, x_b):
    """E[g_{x_a}(a | C + B) g_{x_b}(b | C + A)] by enumerating the tables of C, A and B.

    For each C the sum over (A, B) of ``pa pb g_a g_b`` is summed as ``(sum_B pb g_a) (sum_A pa g_b)``:
    the summand is a product of a factor of A and one of B, so the two sums are the triple sum."""
    k = bf.n_classes
    out = [[F(0)] * k for _ in range(k)]
    for c, pc in bf.tables(n_common):
        e_b = [F(0)] * k  # sum over A of pa g_{x_b}(. | C + A)
        for ta, pa in bf.tables(n_a):
            g_b = bf.g([u + v for u, v in zip(c, ta)], x_b)
            for b in range(k):
                e_b[b] += pa * g_b[b]
        e_a = [F(0)] * k  # sum over B of pb g_{x_a}(. | C + B)
        for tb, pb in bf.tables(n_b):
            g_a = bf.g([u + v for u, v in zip(c, tb)], x_a)
            for a in range(k):
                e_a[a] += pb * g_a[a]
        for a in range(k):
            for b in range(k):
                out[a][b] += pc * e_a[a] * e_b[b]
    return out


def as_fraction_rows(arr):
    assert all(isinstance(v, F) for v in np.asarray(arr).ravel())
    return [list(row) for row in np.asarray(arr)]


SIZES_1D = [(2, 2, 2), (3, 1, 2), (0, 2, 1), (0, 0, 2), (4, 0, 0), (1, 2, 3)]


@pytest.mark.parametrize("ties, alpha", RULES)
@pytest.mark.parametrize("sizes", SIZES_1D)
def test_overlap_1d_equals_enumeration(ties, alpha, sizes):
    model, bf = MODELS["1d"], oracle("1d", ties, alpha)
    clf = NaiveBayes(ties=ties, alpha=alpha)
    rational, floating = ExactBackend(arithmetic="rational"), ExactBackend(arithmetic="float")
    for x_a, x_b in itertools.product(model.inputs(), repeat=2):
        want = brute_overlap(bf, *sizes, x_a, x_b)
        got = rational.overlap(model, *sizes, x_a, x_b, clf)
        assert as_fraction_rows(got) == want, (sizes, x_a, x_b)
        # the float route (the 1-D walk fast path when alpha = 0) agrees to rounding
        approx = floating.overlap(model, *sizes, x_a, x_b, clf)
        np.testing.assert_allclose(np.asarray(approx, dtype=float), np.array(want, dtype=float), atol=1e-13)


@pytest.mark.parametrize("ties, alpha", RULES)
@pytest.mark.parametrize("name, sizes", [("2x2", (2, 1, 1)), ("2x2", (0, 1, 2)), ("3class", (2, 1, 2)), ("3class", (1, 0, 3))])
def test_overlap_multiattribute_and_three_classes_equal_enumeration(ties, alpha, name, sizes):
    model, bf = MODELS[name], oracle(name, ties, alpha)
    clf = NaiveBayes(ties=ties, alpha=alpha)
    inputs = list(model.inputs())
    pairs = [(inputs[0], inputs[0]), (inputs[0], inputs[-1]), (inputs[-1], inputs[1])]
    backend = ExactBackend()  # auto: rational for these small exact models
    for x_a, x_b in pairs:
        got = backend.overlap(model, *sizes, x_a, x_b, clf)
        assert as_fraction_rows(got) == brute_overlap(bf, *sizes, x_a, x_b), (sizes, x_a, x_b)


@pytest.mark.parametrize("ties", ["random", "first"])
def test_overlap_float_fast_path_matches_rational_engine_at_moderate_n(ties):
    """The 1-D walk route (floats) against the generic engine in exact rationals, N = 24."""
    model, clf = MODELS["1d"], NaiveBayes(ties=ties)
    fast = ExactBackend(arithmetic="float")
    exact = ExactBackend(arithmetic="rational")
    for x_a, x_b in [((0,), (1,)), ((1,), (1,))]:
        want = np.asarray(exact.overlap(model, 14, 4, 6, x_a, x_b, clf), dtype=float)
        got = fast.overlap(model, 14, 4, 6, x_a, x_b, clf)
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert got.sum() == pytest.approx(1.0, abs=1e-12)


def test_overlap_marginals_are_single_predictions():
    """Summing out one classifier leaves E[g_x(. | C + B)] of a training set of n_c + n_b points."""
    model, clf = MODELS["3class"], NaiveBayes(ties="random", alpha=1)
    b = ExactBackend()
    got = b.overlap(model, 2, 3, 1, (0,), (1,), clf)
    assert list(got.sum(axis=1)) == list(b.single(model, 3, (0,), clf))
    assert list(got.sum(axis=0)) == list(b.single(model, 5, (1,), clf))


def test_overlap_bad_arguments():
    b, model = ExactBackend(), MODELS["1d"]
    with pytest.raises(InvalidArgument, match="n_common must be an integer >= 0"):
        b.overlap(model, -1, 1, 1, (0,), (1,))
    with pytest.raises(InvalidArgument, match="n_b must be an integer >= 0"):
        b.overlap(model, 1, 1, 1.5, (0,), (1,))
    with pytest.raises(InvalidArgument, match="x_b"):
        b.overlap(model, 1, 1, 1, (0,), (5,))
    with pytest.raises(InvalidArgument, match="classifier must be a NaiveBayes"):
        b.overlap(model, 1, 1, 1, (0,), (1,), "nb")


# ---------------------------------------------------------------- covariance="paper", v > 2
def paper_cv_witness(bf: BruteForce, n: int, v: int):
    """Var(CE) and the mean fold covariance under the printed Lemma 2, by enumeration:
    within-fold terms from ``cv_moments``, pair terms from ``paper_pair_second``."""
    sizes = kfold_sizes(n, v)
    cv = bf.cv_moments(sizes)
    second = sum((F(s * s, n * n) * q for s, q in zip(sizes, cv.fold_second)), F(0))
    cov = F(0)
    for i, j in itertools.permutations(range(v), 2):
        joint = bf.paper_pair_second(n - sizes[i] - sizes[j], sizes[i], sizes[j])
        second += F(sizes[i] * sizes[j], n * n) * joint
        cov += joint - cv.fold_means[i] * cv.fold_means[j]
    return cv.mean, second - cv.mean**2, cov / (v * (v - 1)), cv.fold_variance


@pytest.mark.parametrize("ties, alpha", RULES)
@pytest.mark.parametrize("name, n, v", [("1d", 6, 3), ("1d", 7, 3), ("1d", 4, 4), ("3class", 6, 3)])
def test_paper_covariance_for_more_than_two_folds_equals_enumeration(ties, alpha, name, n, v):
    model, bf = MODELS[name], oracle(name, ties, alpha)
    estimator = LeaveOneOut() if v == n else KFold(v)
    res = estimator_moments(model, n, estimator, classifier=NaiveBayes(ties=ties, alpha=alpha), covariance="paper")
    mean, variance, fold_cov, fold_var = paper_cv_witness(bf, n, v)
    assert res.covariance == "paper" and res.backend == "exact"
    assert isinstance(res.variance, F)
    assert (res.mean, res.fold_variance) == (mean, fold_var)
    assert res.variance == variance
    assert res.fold_covariance == fold_cov


def test_paper_covariance_differs_from_exact_for_three_folds():
    """The printed Lemma 2 misses the dependence through the test points (docs/mathematics.md, section 'Cross-validation')."""
    model, clf = MODELS["1d"], NaiveBayes()
    exact = estimator_moments(model, 6, KFold(3), classifier=clf)
    paper = estimator_moments(model, 6, KFold(3), classifier=clf, covariance="paper")
    assert exact.mean == paper.mean and exact.fold_variance == paper.fold_variance
    assert exact.fold_covariance != paper.fold_covariance


def test_paper_covariance_float_route_at_large_n():
    """Float route (N = 120, 1-D walk fast path): finite, and the pair term's consistency:
    with the fixed points removed the overlap matrix has the single predictions as marginals."""
    model = independent_1d_model("2/5")
    res = estimator_moments(model, 120, KFold(5), covariance="paper")
    assert isinstance(res.variance, float) and math.isfinite(res.variance) and res.variance > 0
    b = ExactBackend()
    ov = b.overlap(model, 72, 24, 24, (0,), (1,))
    np.testing.assert_allclose(ov.sum(axis=1), b.single(model, 96, (0,)), atol=1e-12)
    np.testing.assert_allclose(ov.sum(axis=0), b.single(model, 96, (1,)), atol=1e-12)
