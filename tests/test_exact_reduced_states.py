"""The reduced-state cross term (momentbound.exact.reduced_states) against brute force.

Witness: tests/oracles/estimators.py enumerates every count table of ``C``, ``A'`` and ``B'`` and
computes every classifier from its list of training points; nothing of momentbound's
computation is reused. Float results are compared with the exact Fractions at 1e-12.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.errors import InvalidArgument, MemoryLimitExceeded
from momentbound.estimators import KFold, LeaveOneOut, estimator_accuracy, estimator_moments, make_engine, sweep

# the enumerations here pool the fold errors (the error rate over all N points), the statistic
# of the paper; the mean of the fold scores is tested against cross_val_score elsewhere
KFold = functools.partial(KFold, average="pooled")  # noqa: F811
from momentbound.exact import NaiveBayes
from momentbound.exact import reduced_states as rs
from momentbound.model import second_nb_model
from momentbound.probability.exact_backend import ExactBackend
from oracles.estimators import BruteForce, kfold_sizes

MODELS = {
    # one binary attribute (alpha = 1: the one-attribute fast path only serves alpha = 0)
    "1d": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    # one 3-valued attribute, two classes
    "1d3": CellModel((3,), [F(1, 10), F(1, 5), F(1, 10), F(1, 20), F(3, 10), F(1, 4)]),
    # two binary attributes, no symmetry
    "2x2": CellModel((2, 2), [F(1, 10), F(1, 20), F(3, 20), F(1, 10), F(1, 5), F(1, 20), F(1, 10), F(1, 4)]),
    # three binary attributes, no symmetry
    "2x2x2": CellModel((2, 2, 2), [F(k + 1, 136) for k in range(16)]),
    # three classes, one 3-valued attribute
    "3class": CellModel((3,), [F(1, 12), F(1, 6), F(1, 12), F(1, 9), F(1, 18), F(1, 6), F(1, 12), F(1, 12), F(1, 6)], 3),
    # three classes, two binary attributes
    "3class2": CellModel((2, 2), [F(k + 1, 78) for k in range(12)], 3),
}
CLASSIFIERS = [NaiveBayes(ties="random", alpha=0), NaiveBayes(ties="first", alpha=1),
               NaiveBayes(ties="first", alpha=0), NaiveBayes(ties="random", alpha=1)]


@functools.lru_cache(maxsize=None)
def oracle(name: str, ties: str, alpha: int) -> BruteForce:
    return BruteForce.from_model(MODELS[name], ties, alpha)


def brute_error(bf: BruteForce, model: CellModel, sizes, a, b) -> F:
    """P[both misclassified] for cells a, b (brute-force cross term)."""
    K = model.n_classes
    m = bf.cross(*sizes, a, b)
    return sum((m[i][j] for i in range(K) for j in range(K) if i != a[1] and j != b[1]), F(0))


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("clf", CLASSIFIERS[:2], ids=lambda c: f"{c.ties}-{c.alpha}")
def test_cross_error_matrix_equals_brute_force(name, clf):
    model = MODELS[name]
    bf = oracle(name, clf.ties, clf.alpha)
    cells = [(x, k) for x in model.inputs() for k in range(model.n_classes)]
    big = len(cells) > 8
    # unequal private parts both ways, an empty common part (2-fold), leave-one-out
    cases = [(1, 0, 1), (0, 1, 0)] if big else [(2, 1, 0), (0, 1, 2), (1, 0, 0)]
    for sizes in cases:
        M = rs.cross_error_matrix(model, *sizes, clf)
        assert M.shape == (len(cells), len(cells))
        pairs = list(itertools.product(range(len(cells)), repeat=2))
        # a deterministic spread of pairs (the brute force is slow), always with a diagonal one
        pairs = [(0, 0)] + pairs[1:: max(1, len(pairs) // 12)]
        for i, j in pairs:
            want = brute_error(bf, model, sizes, cells[i], cells[j])
            assert M[i, j] == pytest.approx(float(want), abs=1e-12), (sizes, cells[i], cells[j])


@pytest.mark.parametrize(
    "name, clf",
    [(n, c) for n in ("2x2", "3class") for c in CLASSIFIERS] + [("3class2", CLASSIFIERS[0]), ("3class2", CLASSIFIERS[1])],
    ids=lambda v: v if isinstance(v, str) else f"{v.ties}-{v.alpha}",
)
def test_cv_moments_equal_brute_force(name, clf, monkeypatch):
    """KFold with unequal folds (3, 2) and leave-one-out: every moment, float backend."""
    calls = []
    real = rs.cross_errors

    def spy(*args, **kwargs):
        calls.append(args[1:4])
        return real(*args, **kwargs)

    monkeypatch.setattr(rs, "cross_errors", spy)
    model = MODELS[name]
    bf = oracle(name, clf.ties, clf.alpha)
    runs = [(5, KFold(2), 2), (4, LeaveOneOut(), 4)] if name != "3class2" else [(3, LeaveOneOut(), 3)]
    for N, est, v in runs:
        res = estimator_moments(model, N, est, classifier=clf, backend=ExactBackend(arithmetic="float"))
        want = bf.cv_moments(kfold_sizes(N, v))
        assert float(res.mean) == pytest.approx(float(want.mean), abs=1e-12)
        assert float(res.variance) == pytest.approx(float(want.variance), abs=1e-12)
        assert float(res.fold_covariance) == pytest.approx(float(want.fold_covariance), abs=1e-12)
    # the cross terms came from the reduced-state kernels: folds (3, 2) and leave-one-out
    assert ((0, 2, 1) in calls and (2, 0, 0) in calls) if name != "3class2" else (1, 0, 0) in calls


def test_rational_mode_keeps_the_engine():
    model = MODELS["2x2"]
    backend = ExactBackend(arithmetic="rational")
    assert backend.cross_error_matrix(model, 1, 1, 1, NaiveBayes()) is None
    res = estimator_moments(model, 4, KFold(2), backend=backend)
    want = oracle("2x2", "random", 0).cv_moments((2, 2))
    assert (res.mean, res.variance) == (want.mean, want.variance)


def test_streamed_two_class_levels_equal_the_held_levels():
    st = rs._setup(MODELS["2x2"], NaiveBayes(ties="first", alpha=1))
    held = rs._levels_generic(st, 6, 3)
    for a, block in rs._stream_two_class(st, 6, 3):
        np.testing.assert_allclose(block, held[(a, 6 - a)], rtol=0, atol=1e-14)


def test_shared_columns_of_a_symmetric_model():
    """Every input of the paper's 2x2x2 model has the same signature law: one column of h."""
    st = rs._setup(second_nb_model(), NaiveBayes())
    assert st.XU == 1 and list(st.col) == [0, 0, 0, 0]
    assert rs._setup(MODELS["2x2"], NaiveBayes()).XU == 4


def test_work_guard_refuses_before_computing():
    backend = ExactBackend(arithmetic="float", max_work=1e6)
    with pytest.raises(InvalidArgument, match="montecarlo"):
        backend.cross_error_matrix(second_nb_model(), 160, 19, 19, NaiveBayes())
    with pytest.raises(InvalidArgument, match="montecarlo"):
        estimator_moments(second_nb_model(), 400, KFold(10))


@pytest.mark.parametrize("sizes", [(12, 3, 3), (10, 2, 4), (14, 0, 0)])
@pytest.mark.parametrize("tail", [1e-2, 1e-4])
def test_pruned_cross_term_within_its_bound(sizes, tail):
    """Skipping improbable states only lowers the entries, by at most the reported bound; the
    bound is computed from what was skipped, so it is positive once pruning bites."""
    model = MODELS["2x2"]
    full = rs.cross_errors(model, *sizes, NaiveBayes(), 0.0)
    pruned = rs.cross_errors(model, *sizes, NaiveBayes(), tail)
    assert full.dropped_mass_bound == 0.0
    gap = full.matrix - pruned.matrix
    assert gap.max() > 1e-9  # the pruning did skip something that mattered
    assert gap.min() >= -1e-13
    assert gap.max() <= pruned.dropped_mass_bound + 1e-13
    assert pruned.dropped_mass_bound <= 4 * tail


def test_tail_sums_every_state_beyond_two_classes():
    model = MODELS["3class"]
    a = rs.cross_errors(model, 3, 1, 1, NaiveBayes(), 0.0)
    b = rs.cross_errors(model, 3, 1, 1, NaiveBayes(), 1e-2)
    assert b.dropped_mass_bound == 0.0
    assert np.array_equal(a.matrix, b.matrix)


def test_tail_is_checked():
    with pytest.raises(ValueError, match="tail"):
        rs.cross_errors(MODELS["2x2"], 2, 1, 1, NaiveBayes(), 1.5)


@pytest.mark.parametrize("name,sizes", [("2x2x2 paper", (30, 4, 4)), ("2x2x2 paper", (40, 5, 3)), ("2x2", (12, 3, 3)),
                                        ("2x2x2", (10, 2, 4)), ("3class", (12, 3, 3))])
def test_memory_estimate_tracks_the_peak(name, sizes):
    """numpy's allocations are traced: the peak of one cross term against the estimate."""
    import tracemalloc

    model = second_nb_model() if name == "2x2x2 paper" else MODELS[name]
    rs.cross_errors(model, 3, 1, 1, NaiveBayes(), 1e-13)  # compiled before tracing
    tracemalloc.start()
    try:
        rs.cross_errors(model, *sizes, NaiveBayes(), 1e-13)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.4 <= peak / rs.memory_estimate(model, *sizes) <= 1.5


def test_memory_guard_refuses_before_any_work():
    model = second_nb_model()
    small = ExactBackend(arithmetic="float", max_memory=2**20)
    with pytest.raises(MemoryLimitExceeded, match="max_memory"):
        small.cross_error_matrix(model, 60, 9, 9, NaiveBayes())
    with pytest.raises(MemoryLimitExceeded, match="folds of 10 and 10 points"):
        estimator_moments(model, 100, KFold(10), backend=small, max_seconds=None)
    with pytest.raises(MemoryLimitExceeded, match="max_memory"):
        estimator_accuracy(model, 100, KFold(10), engine=make_engine(model, classifier=NaiveBayes(), backend=small))
    assert small.dropped_mass_bound == 0.0  # nothing ran
    # a limit between the two points' needs: the sweep refuses before computing the first one
    # (the packed estimates: a limit the levels do not fit in dense makes them packed)
    two, ten = (1.3 * rs.memory_estimate(model, 100 - 2 * s, s - 1, s - 1, dense_budget=0) for s in (50, 10))
    middle = ExactBackend(arithmetic="float", max_memory=(two + ten) / 2)
    calls = []
    original = rs.cross_errors
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rs, "cross_errors", lambda *a, **k: calls.append(a) or original(*a, **k))
        with pytest.raises(MemoryLimitExceeded, match="N = 100"):
            sweep(model, "folds", [2, 10], N=100, backend=middle, max_seconds=None)
    assert calls == []


def test_memory_guard_leaves_the_paper_covariance_alone():
    """covariance='paper' computes no cross terms: no refusal for their memory."""
    small = ExactBackend(arithmetic="float", max_memory=2**20)
    res = estimator_moments(second_nb_model(), 400, KFold(2), backend=small, covariance="paper", max_seconds=None)
    assert 0.4 < float(res.mean) < 0.45


def test_max_memory_is_checked():
    assert ExactBackend().max_memory > 0
    assert ExactBackend(max_memory=np.int64(2**30)).max_memory == 2**30
    assert ExactBackend(max_memory=10**400).max_memory == float("inf")
    for bad in (0, -1.0, True, "1GB", float("nan")):
        with pytest.raises(InvalidArgument, match="max_memory must be"):
            ExactBackend(max_memory=bad)
