"""Unit tests of the estimator layer against a tiny brute-force prediction backend.

The backend below enumerates count tables and evaluates a scalar naive Bayes directly, so it is
independent of ``momentbound.exact`` / ``momentbound.probability``. The estimator moments it feeds
are compared with a direct enumeration of whole datasets split into folds (exact Fractions).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound import CellModel, ImpossibleSplit, InvalidArgument, InvalidModel, UnknownMethod
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import (
    GE,
    EstimatorMoments,
    HoldOut,
    Interval,
    KFold,
    LeaveOneOut,
    estimator_moments,
    make_engine,
    sweep,
)
from momentbound.probability import ProbabilityInterval

# ------------------------------------------------------------------ brute-force backend


def Clf(ties: str = "random", alpha: int = 0) -> NaiveBayes:
    """The classifier the brute-force backend below evaluates with its own scalar code."""
    return NaiveBayes(ties, alpha)


def tables(n_cells: int, n: int):
    if n_cells == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in tables(n_cells - 1, n - first):
            yield (first,) + rest


def pmf(cells, table):
    out = Fraction(math.factorial(sum(table)))
    for p, c in zip(cells, table):
        out = out * Fraction(p) ** c / math.factorial(c)
    return out


def predict(model: CellModel, counts, x, clf: NaiveBayes) -> list[Fraction]:
    """g_x(. | counts): scalar naive Bayes, exact scores, both tie rules."""
    K, ar = model.n_classes, model.arities
    inputs = list(model.inputs())
    n = sum(counts)
    nk = [sum(counts[i * K + k] for i in range(len(inputs))) for k in range(K)]
    scores = []
    for k in range(K):
        if n == 0 or (nk[k] == 0 and clf.alpha == 0):
            scores.append(Fraction(0))
            continue
        s = Fraction(nk[k], n)
        for j, a in enumerate(ar):
            njv = sum(counts[i * K + k] for i, z in enumerate(inputs) if z[j] == x[j])
            s *= Fraction(njv + clf.alpha, nk[k] + clf.alpha * a)
        scores.append(s)
    if clf.ties == "first":
        cands = [k for k in range(K) if nk[k] > 0]
        if not cands:
            return [Fraction(int(k == 0)) for k in range(K)]
        best = max(scores[k] for k in cands)
        win = min(k for k in cands if scores[k] == best)
        return [Fraction(int(k == win)) for k in range(K)]
    best = max(scores)
    top = [k for k in range(K) if scores[k] == best]
    return [Fraction(1, len(top)) if k in top else Fraction(0) for k in range(K)]


def add(*ts):
    return tuple(sum(v) for v in zip(*ts))


def unit(model, point):
    x, y = point
    t = [0] * model.n_cells
    t[model.index(x, y)] = 1
    return tuple(t)


class BruteBackend:
    name = "brute"
    kind = "exact"

    def single(self, model, n, x, clf):
        out = [Fraction(0)] * model.n_classes
        for t in tables(model.n_cells, n):
            w = pmf(model.cells, t)
            out = [o + w * g for o, g in zip(out, predict(model, t, x, clf))]
        return out

    def _outer(self, g1, g2):
        return [[a * b for b in g2] for a in g1]

    def pair(self, model, n, x, x2, clf):
        K = model.n_classes
        out = [[Fraction(0)] * K for _ in range(K)]
        for t in tables(model.n_cells, n):
            w = pmf(model.cells, t)
            o = self._outer(predict(model, t, x, clf), predict(model, t, x2, clf))
            out = [[out[a][b] + w * o[a][b] for b in range(K)] for a in range(K)]
        return out

    def _two(self, model, n_common, n_a, n_b, x_a, x_b, extra_a, extra_b, clf):
        K, C = model.n_classes, model.n_cells
        out = [[Fraction(0)] * K for _ in range(K)]
        for tc in tables(C, n_common):
            wc = pmf(model.cells, tc)
            for ta in tables(C, n_a):
                wa = pmf(model.cells, ta)
                g_b = predict(model, add(tc, ta, extra_b), x_b, clf)
                for tb in tables(C, n_b):
                    w = wc * wa * pmf(model.cells, tb)
                    g_a = predict(model, add(tc, tb, extra_a), x_a, clf)
                    out = [[out[a][b] + w * g_a[a] * g_b[b] for b in range(K)] for a in range(K)]
        return out

    def cross(self, model, n_common, n_a, n_b, point_a, point_b, clf):
        # T_A = C + B' + point_b predicts at x_a; T_B = C + A' + point_a predicts at x_b
        return self._two(
            model, n_common, n_a, n_b, point_a[0], point_b[0], unit(model, point_b), unit(model, point_a), clf
        )

    def overlap(self, model, n_common, n_a, n_b, x_a, x_b, clf):
        zero = (0,) * model.n_cells
        return self._two(model, n_common, n_a, n_b, x_a, x_b, zero, zero, clf)


class NoOverlapBackend(BruteBackend):
    name = "brute-no-overlap"
    overlap = None  # type: ignore[assignment]


# ------------------------------------------------------------------ direct witness over datasets


def direct_moments(model, N, fold_sizes, clf):
    """E and E[.^2] of GE (fold_sizes == ()), hold-out (one fold) or CE, by enumerating the fold
    count tables and the classifiers' predictions; ties' coins are independent per prediction."""
    K = model.n_classes
    inputs = list(model.inputs())
    cells = [(x, y) for x in inputs for y in range(K)]
    m1 = m2 = Fraction(0)
    if not fold_sizes:
        for t in tables(model.n_cells, N):
            ge = sum(
                predict(model, t, x, clf)[y] * sum(model.p(x, k) for k in range(K) if k != y)
                for x in inputs
                for y in range(K)
            )
            w = pmf(model.cells, t)
            m1 += w * ge
            m2 += w * ge * ge
        return m1, m2
    holdout = len(fold_sizes) == 1
    parts = list(fold_sizes) + ([N - fold_sizes[0]] if holdout else [])
    n_test = fold_sizes[0] if holdout else N
    for combo in itertools.product(*(list(tables(model.n_cells, s)) for s in parts)):
        w = Fraction(1)
        for t in combo:
            w *= pmf(model.cells, t)
        mean_err = var_err = Fraction(0)
        for i in range(len(fold_sizes)):
            train = add(*(t for j, t in enumerate(combo) if j != i))
            for c, (x, y), cnt in zip(range(len(cells)), cells, combo[i]):
                if cnt:
                    e = 1 - predict(model, train, x, clf)[y]
                    mean_err += cnt * e
                    var_err += cnt * e * (1 - e)
        ce = mean_err / n_test
        m1 += w * ce
        m2 += w * (ce * ce + var_err / (n_test * n_test))
    return m1, m2


ONE_D = CellModel((2,), ["1/5", "3/10", "1/10", "2/5"])
TWO_D = CellModel((2, 2), ["1/10", "3/20"] * 4)
THREE_CLASS = CellModel((2,), ["1/6", "1/12", "1/4", "1/6", "1/4", "1/12"], 3)


@pytest.mark.parametrize(
    "model, N, estimator, clf",
    [
        (ONE_D, 4, GE(), Clf()),
        (ONE_D, 5, HoldOut(test_size=2), Clf("first", 1)),
        (ONE_D, 4, KFold(2), Clf()),
        (ONE_D, 5, KFold(2, average="pooled"), Clf("first", 0)),  # the oracle pools the errors over N
        (ONE_D, 5, KFold(3, average="pooled"), Clf("random", 1)),
        (ONE_D, 4, LeaveOneOut(), Clf("random", 0)),
        (THREE_CLASS, 4, KFold(2), Clf("random", 0)),
        (THREE_CLASS, 4, HoldOut(test_fraction=0.5), Clf("first", 1)),
        (TWO_D, 3, KFold(3), Clf("random", 0)),
        (TWO_D, 4, GE(), Clf("first", 1)),
    ],
)
def test_exact_moments_equal_direct_enumeration(model, N, estimator, clf):
    r = estimator_moments(model, N, estimator, classifier=clf, backend=BruteBackend())
    sizes = estimator.split(N).fold_sizes
    m1, m2 = direct_moments(model, N, sizes, clf)
    assert isinstance(r.mean, Fraction) and isinstance(r.variance, Fraction)
    assert r.mean == m1
    assert r.variance == m2 - m1 * m1
    assert r.std == pytest.approx(math.sqrt(m2 - m1 * m1))
    assert r.mean_plus_std == pytest.approx(float(m1) + math.sqrt(m2 - m1 * m1))
    assert r.kind == "exact" and r.backend == "brute" and r.covariance == "exact"


def test_fields_per_estimator():
    b = BruteBackend()
    ge = estimator_moments(ONE_D, 4, GE(), classifier=Clf(), backend=b)
    assert (ge.train_size, ge.test_size, ge.folds, ge.fold_variance, ge.fold_covariance) == (4, None, None, None, None)
    assert ge.ge_mean == ge.mean and ge.ge_variance == ge.variance
    ho = estimator_moments(ONE_D, 5, HoldOut(test_size=2), classifier=Clf(), backend=b)
    assert (ho.train_size, ho.test_size, ho.folds) == (3, 2, None)
    assert ho.ge_mean == ho.mean
    assert ho.ge_mean == estimator_moments(ONE_D, 3, GE(), classifier=Clf(), backend=b).mean
    cv = estimator_moments(ONE_D, 5, KFold(3), classifier=Clf(), backend=b)
    assert (cv.train_size, cv.folds, cv.fold_sizes) == (4, 3, (2, 2, 1))
    assert cv.test_size is None and cv.fold_variance is not None and cv.fold_covariance is not None
    assert isinstance(cv, EstimatorMoments) and cv.seconds >= 0
    row = cv.as_row()
    assert row["folds"] == 3 and row["estimator"] == "cv" and row["mean"] == float(cv.mean)


def test_fold_variance_and_covariance_equal_direct_pairs():
    """Var(HE_1) and Cov(HE_1, HE_2) of 2-fold CV at N = 4 by enumerating both folds."""
    clf, model = Clf(), ONE_D
    r = estimator_moments(model, 4, KFold(2), classifier=clf, backend=BruteBackend())
    K = model.n_classes
    cells = [(x, y) for x in model.inputs() for y in range(K)]
    e1 = e11 = e12 = Fraction(0)
    for t1, t2 in itertools.product(tables(model.n_cells, 2), repeat=2):
        w = pmf(model.cells, t1) * pmf(model.cells, t2)
        # errors of fold 1 (classifier on fold 2) and fold 2 (classifier on fold 1)
        err1 = [1 - predict(model, t2, x, clf)[y] for x, y in cells]
        err2 = [1 - predict(model, t1, x, clf)[y] for x, y in cells]
        he1 = sum(c * e for c, e in zip(t1, err1)) / 2
        he2 = sum(c * e for c, e in zip(t2, err2)) / 2
        var_coin = sum(c * e * (1 - e) for c, e in zip(t1, err1)) / 4
        e1 += w * he1
        e11 += w * (he1 * he1 + var_coin)
        e12 += w * he1 * he2
    assert r.fold_variance == e11 - e1 * e1
    assert r.fold_covariance == e12 - e1 * e1
    assert r.fold_covariance > 0


def test_paper_lemma2_gives_zero_covariance_for_two_folds():
    b = BruteBackend()
    exact = estimator_moments(ONE_D, 4, KFold(2), classifier=Clf(), backend=b)
    paper = estimator_moments(ONE_D, 4, KFold(2), classifier=Clf(), backend=b, covariance="paper")
    assert paper.fold_covariance == 0
    assert exact.fold_covariance > 0
    assert paper.mean == exact.mean and paper.fold_variance == exact.fold_variance
    assert paper.variance < exact.variance
    assert paper.covariance == "paper"


def test_paper_lemma2_with_shared_training_points():
    """v = 3: the printed formula is E[GE(C + B) GE(C + A)]; checked by enumerating C, A, B."""
    model, clf = ONE_D, Clf()
    r = estimator_moments(model, 3, KFold(3), classifier=clf, backend=BruteBackend(), covariance="paper")
    K = model.n_classes
    inputs = list(model.inputs())

    def ge(t):
        return sum(
            predict(model, t, x, clf)[y] * sum(model.p(x, k) for k in range(K) if k != y)
            for x in inputs
            for y in range(K)
        )

    m = sum(pmf(model.cells, t) * ge(t) for t in tables(model.n_cells, 2))
    joint = Fraction(0)
    for tc, ta, tb in itertools.product(tables(model.n_cells, 1), repeat=3):
        w = pmf(model.cells, tc) * pmf(model.cells, ta) * pmf(model.cells, tb)
        joint += w * ge(add(tc, tb)) * ge(add(tc, ta))
    assert r.fold_covariance == joint - m * m
    exact = estimator_moments(model, 3, KFold(3), classifier=clf, backend=BruteBackend())
    assert exact.fold_covariance != r.fold_covariance


def test_paper_needs_overlap_term_for_more_than_two_folds():
    with pytest.raises(InvalidArgument, match="does not provide.*overlap"):
        estimator_moments(ONE_D, 3, KFold(3), classifier=Clf(), backend=NoOverlapBackend(), covariance="paper")
    # two folds need no overlap term
    r = estimator_moments(ONE_D, 4, KFold(2), classifier=Clf(), backend=NoOverlapBackend(), covariance="paper")
    assert r.fold_covariance == 0


# ------------------------------------------------------------------ intervals


class WidenedBackend(BruteBackend):
    """Interval backend: the exact values widened by eps (clipped to [0, 1])."""

    name = "widened"
    kind = "bound"

    def __init__(self, eps):
        self.eps = eps

    def _widen(self, arr):
        import numpy as np

        a = np.array(arr, dtype=float)
        return ProbabilityInterval(np.clip(a - self.eps, 0, 1), np.clip(a + self.eps, 0, 1), a)

    def single(self, *args):
        return self._widen(super().single(*args))

    def pair(self, *args):
        return self._widen(super().pair(*args))

    def cross(self, *args):
        return self._widen(super().cross(*args))

    overlap = None  # type: ignore[assignment]


@pytest.mark.parametrize("estimator", [GE(), HoldOut(test_size=2), KFold(2), KFold(3), LeaveOneOut()])
@pytest.mark.parametrize("eps", [0.0, 0.02])
def test_interval_backend_encloses_exact(estimator, eps):
    exact = estimator_moments(ONE_D, 5, estimator, classifier=Clf(), backend=BruteBackend())
    iv = estimator_moments(ONE_D, 5, estimator, classifier=Clf(), backend=WidenedBackend(eps))
    assert iv.is_interval and iv.kind == "bound"
    for name in ("mean", "variance", "ge_mean", "ge_variance", "fold_variance", "fold_covariance"):
        value, box = getattr(exact, name), getattr(iv, name)
        if value is None:
            assert box is None
            continue
        assert isinstance(box, Interval)
        assert box.lower - 1e-12 <= float(value) <= box.upper + 1e-12, name
        # the point estimates (here: the exact values) propagate through the same formulas
        assert box.estimate == pytest.approx(float(value), abs=1e-12), name
        if eps == 0:
            assert box.width == pytest.approx(0, abs=1e-12)
    assert iv.std.lower - 1e-9 <= exact.std <= iv.std.upper + 1e-9
    if eps > 0:
        assert iv.variance.width > 0


class DuckIntervalBackend(WidenedBackend):
    """Returns an object with lower/upper that is not a ProbabilityInterval."""

    def _widen(self, arr):
        import types

        return types.SimpleNamespace(lower=arr, upper=arr, estimate=None)


def test_backend_output_must_be_an_array_or_a_probability_interval():
    with pytest.raises(InvalidArgument, match="ProbabilityInterval, got SimpleNamespace"):
        estimator_moments(ONE_D, 5, GE(), classifier=Clf(), backend=DuckIntervalBackend(0.0))


def test_interval_arithmetic():
    a, b = Interval(-1, 2), Interval(3, 4)
    assert (a * b) == Interval(-4, 8)
    assert (a - b) == Interval(-5, -1)
    assert (1 - a) == Interval(-1, 2)
    assert (2 * b + 1) == Interval(7, 9)
    root = Interval(-1, 4).sqrt()
    assert root.lower == 0.0 and 2.0 <= root.upper <= 2.0 + 1e-15  # float ends rounded outward
    third = Interval(0.1, 0.1) + Interval(0.2, 0.2)
    exact_sum = Fraction(0.1) + Fraction(0.2)  # the real sum of the two floats
    assert Fraction(third.lower) <= exact_sum <= Fraction(third.upper)
    assert 3 in b and 5 not in b
    with pytest.raises(InvalidArgument, match="lower <= upper"):
        Interval(2, 1)


# ------------------------------------------------------------------ sweep and engine reuse


def test_sweep_rows_equal_single_calls():
    b = BruteBackend()
    res = sweep(ONE_D, "folds", [2, 3, 5], N=5, classifier=Clf(), backend=b)
    assert [r.folds for r in res.rows] == [2, 3, 5]
    for r in res.rows:
        single = estimator_moments(ONE_D, 5, KFold(r.folds), classifier=Clf(), backend=b)
        assert (r.mean, r.variance, r.fold_covariance) == (single.mean, single.variance, single.fold_covariance)
    frame = res.to_frame()
    assert list(frame["folds"]) == [2, 3, 5] and "fold_covariance" in frame.columns
    ho = sweep(ONE_D, "holdout", [1, 2, 0.5], N=4, classifier=Clf(), backend=b)
    assert [r.test_size for r in ho.rows] == [1, 2, 2]
    ns = sweep(ONE_D, "N", [2, 3], estimator=LeaveOneOut(), classifier=Clf(), backend=b)
    assert [r.folds for r in ns.rows] == [2, 3]
    seen = []
    sweep(ONE_D, "N", [2, 3, 4], classifier=Clf(), backend=b, progress=lambda i, n: seen.append((i, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_engine_reuse_checks_model():
    eng = make_engine(ONE_D, classifier=Clf(), backend=BruteBackend())
    r = estimator_moments(ONE_D, 4, GE(), engine=eng, backend="brute")
    assert r.mean == estimator_moments(ONE_D, 4, GE(), classifier=Clf(), backend=BruteBackend()).mean
    assert estimator_moments(ONE_D, 4, GE(), engine=eng, backend=eng.backend).mean == r.mean
    with pytest.raises(InvalidArgument, match="different model"):
        estimator_moments(TWO_D, 4, GE(), engine=eng, backend="brute")
    with pytest.raises(InvalidArgument, match="different classifier"):
        estimator_moments(ONE_D, 4, GE(), engine=eng, backend="brute", classifier=Clf("first"))
    with pytest.raises(InvalidArgument, match="engine was built for backend 'brute' but backend='exact'"):
        estimator_moments(ONE_D, 4, GE(), engine=eng)


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "make, N, exc, match",
    [
        (lambda: HoldOut(test_size=5), 5, ImpossibleSplit, "leaves no training point.*test_size <= 4"),
        (lambda: HoldOut(test_size=0), 5, ImpossibleSplit, "at least 1 test point"),
        (lambda: HoldOut(test_fraction=1.0), 5, ImpossibleSplit, "strictly between 0 and 1"),
        (lambda: HoldOut(test_fraction=0.0), 5, ImpossibleSplit, "strictly between 0 and 1"),
        (lambda: HoldOut(test_fraction=0.9), 5, ImpossibleSplit, "test size 5 leaves no training"),
        (lambda: HoldOut(), 5, InvalidArgument, "exactly one of test_size"),
        (lambda: HoldOut(test_size=2, test_fraction=0.5), 5, InvalidArgument, "exactly one of"),
        (lambda: HoldOut(test_size=1.5), 5, InvalidArgument, "test_size must be an integer"),
        (lambda: HoldOut(test_fraction="a"), 5, InvalidArgument, "test_fraction must be a number"),
        (lambda: HoldOut(test_size=1), 1, ImpossibleSplit, "hold-out needs N >= 2"),
        (lambda: KFold(6), 5, ImpossibleSplit, r"more folds \(v=6\) than points \(N=5\)"),
        (lambda: KFold(1), 5, ImpossibleSplit, "at least 2 folds"),
        (lambda: KFold(2.0), 5, InvalidArgument, "integer number of folds"),
        (lambda: KFold(2), 1, ImpossibleSplit, "needs N >= 2"),
        (lambda: LeaveOneOut(), 1, ImpossibleSplit, "leave-one-out needs N >= 2"),
        (lambda: GE(), 0, InvalidArgument, "N must be at least 1"),
        (lambda: GE(), 2.5, InvalidArgument, "N must be an integer"),
        (lambda: GE(), True, InvalidArgument, "N must be an integer"),
    ],
)
def test_invalid_splits(make, N, exc, match):
    with pytest.raises(exc, match=match):
        estimator_moments(ONE_D, N, make(), classifier=Clf(), backend=BruteBackend())


def test_fold_sizes_like_sklearn():
    from sklearn.model_selection import KFold as SkKFold

    import numpy as np

    for N, v in [(10, 3), (7, 7), (100, 7), (9, 4)]:
        sk = tuple(len(test) for _, test in SkKFold(v).split(np.zeros(N)))
        assert KFold(v).split(N).fold_sizes == sk
    assert LeaveOneOut().split(4).fold_sizes == (1, 1, 1, 1)


def test_holdout_fraction_like_sklearn():
    from sklearn.model_selection import ShuffleSplit

    import numpy as np

    for N, f in [(10, 0.3), (100, 0.07), (7, 0.5), (3, 0.34)]:
        _, test = next(ShuffleSplit(1, test_size=f, random_state=0).split(np.zeros(N)))
        assert HoldOut(test_fraction=f).split(N).fold_sizes == (len(test),)


def test_invalid_arguments():
    b = BruteBackend()
    with pytest.raises(InvalidModel, match="model must be a momentbound.CellModel"):
        estimator_moments([0.25] * 4, 4, GE(), classifier=Clf(), backend=b)
    with pytest.raises(InvalidArgument, match="estimator must be a momentbound splitter"):
        estimator_moments(ONE_D, 4, "cv", classifier=Clf(), backend=b)
    with pytest.raises(UnknownMethod, match="covariance must be one of 'exact', 'paper'"):
        estimator_moments(ONE_D, 4, KFold(2), classifier=Clf(), backend=b, covariance="lemma")
    with pytest.raises(InvalidArgument, match="covariance='paper'.*only concerns cross-validation"):
        estimator_moments(ONE_D, 4, HoldOut(test_size=1), classifier=Clf(), backend=b, covariance="paper")
    with pytest.raises(InvalidArgument, match="has no attribute 'single'"):
        estimator_moments(ONE_D, 4, GE(), classifier=Clf(), backend=object())
    with pytest.raises(InvalidArgument, match="over must be one of"):
        sweep(ONE_D, "depth", [1], N=4, classifier=Clf(), backend=b)
    with pytest.raises(InvalidArgument, match="needs N"):
        sweep(ONE_D, "folds", [2], classifier=Clf(), backend=b)
    with pytest.raises(InvalidArgument, match="values must not be empty"):
        sweep(ONE_D, "folds", [], N=4, classifier=Clf(), backend=b)
    with pytest.raises(ImpossibleSplit, match="more folds"):
        sweep(ONE_D, "folds", [2, 9], N=4, classifier=Clf(), backend=b)


# ------------------------------------------------------------------ model symmetries


def test_input_symmetries():
    from momentbound.estimators.symmetry import input_symmetries

    assert input_symmetries(ONE_D) == [(0, 1)]
    assert len(input_symmetries(TWO_D)) == 8  # all cells of a class equal: the square's symmetries
    lopsided = CellModel((2, 2), ["1/10", "1/10", "1/10", "1/10", "1/5", "1/5", "1/10", "1/10"])
    # (x1, x2) -> (1 - x2, 1 - x1) fixes p; nothing else does
    assert input_symmetries(lopsided) == [(0, 1, 2, 3), (3, 1, 2, 0)]
    assert input_symmetries(TWO_D, cap=4) == [(0, 1, 2, 3)]


class CountingBackend(BruteBackend):
    def __init__(self):
        self.calls = {"single": 0, "pair": 0, "cross": 0}

    def pair(self, *args):
        self.calls["pair"] += 1
        return super().pair(*args)

    def cross(self, *args):
        self.calls["cross"] += 1
        return super().cross(*args)


@pytest.mark.parametrize("clf", [Clf(), Clf("first", 1)])
def test_symmetry_reduction_changes_nothing_but_the_work(clf, paper):
    """Orbit representatives give exactly the values of the full sums (symmetric models)."""
    symmetric = paper
    for model, N, est in ((symmetric, 5, KFold(2)), (TWO_D, 3, KFold(3)), (TWO_D, 3, GE())):
        fast_backend, slow_backend = CountingBackend(), CountingBackend()
        fast = make_engine(model, classifier=clf, backend=fast_backend)
        slow = make_engine(model, classifier=clf, backend=slow_backend)
        slow._maps = [tuple(range(model.n_inputs))]
        a = estimator_moments(model, N, est, engine=fast, backend=fast_backend)
        b = estimator_moments(model, N, est, engine=slow, backend=slow_backend)
        assert (a.mean, a.variance, a.fold_covariance) == (b.mean, b.variance, b.fold_covariance)
        assert fast_backend.calls["pair"] < slow_backend.calls["pair"]
        if est.name == "cv":
            assert fast_backend.calls["cross"] < slow_backend.calls["cross"]


def test_docstring_examples_run():
    import doctest
    import importlib

    for name in ("splitters.basic", "splitters.stratified", "splitters.registry", "exact.allocation",
                 "intervals", "estimators.symmetry", "estimators.from_predictions", "estimators.sweep",
                 "classifiers.naive_bayes", "classifiers.histogram"):
        # the package re-exports a function named `sweep`: import the modules by name
        module = importlib.import_module(f"momentbound.{name}")
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, name


def test_partition_dot_is_the_lp_range():
    """Interval dot products use sum = 1: compare with scipy's LP over the same box."""
    import numpy as np
    from scipy.optimize import linprog

    from momentbound.intervals import partition_dot as _dot

    rng = np.random.default_rng(5)
    for _ in range(30):
        k = int(rng.integers(2, 6))
        truth = rng.dirichlet(np.ones(k))
        lo = np.clip(truth - rng.uniform(0, 0.2, k), 0, 1)
        hi = np.clip(truth + rng.uniform(0, 0.2, k), 0, 1)
        w = rng.uniform(0, 1, k)
        box = _dot([Interval(a, b, t) for a, b, t in zip(lo, hi, truth)], list(w))
        bounds = list(zip(lo, hi))
        lp_min = linprog(w, A_eq=[np.ones(k)], b_eq=[1], bounds=bounds).fun
        lp_max = -linprog(-w, A_eq=[np.ones(k)], b_eq=[1], bounds=bounds).fun
        assert box.lower == pytest.approx(lp_min, abs=1e-9) and box.upper == pytest.approx(lp_max, abs=1e-9)
        assert box.estimate == pytest.approx(float(truth @ w))
        naive = sum(float(a) * c for a, c in zip(lo, w)), sum(float(b) * c for b, c in zip(hi, w))
        assert naive[0] <= box.lower + 1e-12 and box.upper <= naive[1] + 1e-12
    assert _dot([Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 2), 0]) == Fraction(1, 6)


def test_inconsistent_intervals_are_refused():
    from momentbound.errors import SolverFailed
    from momentbound.intervals import partition_dot as _dot

    with pytest.raises(SolverFailed, match="cannot contain probabilities summing to 1"):
        _dot([Interval(0.1, 0.2), Interval(0.1, 0.3)], [1, 1])
    with pytest.raises(SolverFailed, match="upper ends to"):
        _dot([Interval(0.6, 0.7), Interval(0.5, 0.6)], [1, 1])


# ------------------------------------------------------------------ property: exact backend == brute force


@st.composite
def small_cases(draw):
    k = draw(st.sampled_from([2, 3]))
    arity = draw(st.sampled_from([2, 3])) if k == 2 else 2
    weights = draw(st.lists(st.integers(0, 4), min_size=arity * k, max_size=arity * k).filter(lambda w: sum(w) > 0))
    model = CellModel.normalized((arity,), weights, k)
    N = draw(st.integers(2, 5))
    estimator = draw(
        st.sampled_from(
            [GE(), HoldOut(test_size=1), KFold(2), LeaveOneOut()] + ([KFold(3)] if N >= 3 else [])
        )
    )
    ties = draw(st.sampled_from(["random", "first"]))
    alpha = draw(st.sampled_from([0, 1]))
    return model, N, estimator, ties, alpha


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(small_cases())
def test_exact_backend_through_the_engine_equals_brute_force(case):
    from momentbound.classifiers.naive_bayes import NaiveBayes

    model, N, estimator, ties, alpha = case
    exact = estimator_moments(model, N, estimator, classifier=NaiveBayes(ties=ties, alpha=alpha))
    brute = estimator_moments(model, N, estimator, classifier=Clf(ties, alpha), backend=BruteBackend())
    assert isinstance(exact.mean, Fraction)
    assert (exact.mean, exact.variance) == (brute.mean, brute.variance)
    assert (exact.fold_variance, exact.fold_covariance) == (brute.fold_variance, brute.fold_covariance)
