"""Comparing two classifiers: McNemar's test on a shared hold-out set and Dietterich's 5x2cv paired
t test, for two naive Bayes classifiers on different attribute subsets of one model
(docs/estimators.md, section 'Comparing two classifiers').

Classifier ``A`` sees the attributes ``attributes_a`` only: it is naive Bayes trained on the
training table marginalised over the other attributes (:class:`SubsetNaiveBayes`); ``B`` likewise.

* McNemar: both are trained on the same ``N - Ns`` points and tested on the same ``Ns`` points.
  Given the training table ``T``, every test point is independently discordant ``A`` wrong, ``B``
  right with probability ``q01(T) = sum_{x,y} p(x,y) (1 - gA_x(y)) gB_x(y)`` and the reverse with
  ``q10(T)`` (independent tie coins), so the discordant count is ``D ~ Binomial(Ns, q01 + q10)`` and
  ``n01 | D ~ Binomial(D, q01 / (q01 + q10))``: the rejection probability given ``T`` is an exact
  double sum, averaged over training tables exactly (every table) when there are few, else by
  Monte Carlo. Variants: ``exact`` (two-sided binomial test of ``n01`` given ``D`` at ``p = 1/2``)
  and ``chi2`` (``(|n01 - n10| - 1)^2 / D`` against ``chi^2_1``, Dietterich 1998).
* 5x2cv (Dietterich, Neural Computation 1998): five replications of 2-fold cross-validation of the
  same ``N`` points; ``p_i^(j)`` the difference of the error rates on fold ``j`` of replication
  ``i``, ``s_i^2 = sum_j (p_i^(j) - mean_j p_i^(j))^2`` and ``t = p_1^(1) / sqrt(sum_i s_i^2 / 5)``,
  rejected when ``|t| > t_5`` quantile; Monte Carlo over datasets of points. A zero denominator
  rejects only when ``p_1^(1) != 0``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from momentbound import guard
from momentbound.errors import InvalidArgument
from momentbound.guard import DEFAULT_SECONDS
from momentbound.estimators.coverage import (
    EXACT_TABLE_LIMIT,
    multinomial_weights,
    proportion,
    sampled_errors,
    training_tables,
)
from momentbound.estimators.montecarlo import MIN_DRAWS
from momentbound.intervals import Interval
from momentbound.model.cells import CellModel
from momentbound.splitters.repeated import fold_count_tables

__all__ = ["COMPARISON_TESTS", "MCNEMAR_VARIANTS", "ComparisonResult", "SubsetNaiveBayes",
           "compare_classifiers", "mcnemar_rejects"]

COMPARISON_TESTS = ("mcnemar", "5x2cv")
MCNEMAR_VARIANTS = ("exact", "chi2")


@dataclass(frozen=True)
class SubsetNaiveBayes:
    """Naive Bayes on a subset of the attributes: trained on the count table marginalised over the
    other attributes (what scikit-learn's ``CategoricalNB`` fitted on those columns computes).

    Examples
    --------
    >>> from momentbound.model.cells import CellModel
    >>> m = CellModel((2, 2), ["1/8"] * 8)
    >>> SubsetNaiveBayes((1,)).predict_tables(m, np.array([[2, 0, 0, 1, 2, 0, 0, 1]])).shape
    (1, 4, 2)
    """

    attributes: tuple[int, ...]
    ties: str = "random"
    alpha: object = 0
    name: ClassVar[str] = "subset-naive-bayes"

    def _nb(self) -> Any:
        from momentbound.classifiers.naive_bayes import NaiveBayes

        return NaiveBayes(ties=self.ties, alpha=self.alpha)

    def check(self, model: CellModel, name: str = "attributes") -> None:
        """Refuse attribute indices that are not a non-empty tuple of distinct indices of ``model``."""
        d = len(model.arities)
        attrs = self.attributes
        if (not isinstance(attrs, tuple) or not attrs or len(set(attrs)) != len(attrs)
                or not all(isinstance(a, int) and 0 <= a < d for a in attrs)):
            raise InvalidArgument(
                f"{name} must be a non-empty tuple of distinct attribute indices in 0..{d - 1}, got {attrs!r}"
            )

    def marginal_model(self, model: CellModel) -> CellModel:
        """The model of ``(X_S, Y)``: cells summed over the unused attributes (exact)."""
        self.check(model)
        K, ar = model.n_classes, model.arities
        cells = np.array([Fraction(c) for c in model.cells], dtype=object).reshape(ar + (K,))
        drop = tuple(j for j in range(len(ar)) if j not in self.attributes)
        marg = cells.sum(axis=drop) if drop else cells
        order = sorted(self.attributes)
        return CellModel(tuple(ar[j] for j in order), [str(c) for c in np.ravel(marg)], K)

    def describe(self) -> str:
        return f"SubsetNaiveBayes(attributes={self.attributes}, ties={self.ties!r}, alpha={self.alpha})"

    def params(self) -> dict[str, Any]:
        return {"attributes": list(self.attributes), **self._nb().params()}

    def exact_form(self, model: CellModel) -> None:
        return None

    def predict_tables(self, model: CellModel, tables: np.ndarray) -> np.ndarray:
        """``g_x(y | T)`` at every full input ``x`` (it depends on the used attributes only)."""
        self.check(model)
        K, ar = model.n_classes, model.arities
        R = tables.shape[0]
        shaped = np.asarray(tables).reshape((R,) + ar + (K,))
        drop = tuple(1 + j for j in range(len(ar)) if j not in self.attributes)
        marg = shaped.sum(axis=drop) if drop else shaped
        sub = self.marginal_model(model)
        g = self._nb().predict_tables(sub, marg.reshape(R, -1)).reshape((R,) + sub.arities + (K,))
        keep = sorted(self.attributes)
        index = [slice(None)] + [slice(None) if j in keep else None for j in range(len(ar))] + [slice(None)]
        full = np.broadcast_to(g[tuple(index)], (R,) + ar + (K,))
        return np.ascontiguousarray(full).reshape(R, -1, K)


@dataclass(frozen=True)
class ComparisonResult:
    """Rejection rate of a test comparing two classifiers (frozen result of :func:`compare_classifiers`).

    Attributes
    ----------
    test, variant, N, test_size, level:
        The test (``mcnemar`` or ``5x2cv``), the McNemar variant, dataset size, hold-out test size
        (McNemar), nominal level of the test.
    rejection:
        Probability that the test rejects "equal errors": its actual size when ``E[GE_A] = E[GE_B]``,
        else its power. An :class:`Interval` (zero width when ``exact``).
    exact:
        Whether ``rejection`` is an exact sum over every training table.
    ge_a, ge_b:
        Expected errors of ``A`` and ``B`` trained on ``N - Ns`` points (McNemar) or ``N // 2``
        points (5x2cv): exact when ``exact``, else Monte Carlo intervals.
    draws, confidence, seconds:
        Monte Carlo draws (``None`` when exact), level of the intervals, wall-clock time.
    """

    test: str
    variant: str | None
    N: int
    test_size: int | None
    level: float
    attributes_a: tuple[int, ...]
    attributes_b: tuple[int, ...]
    rejection: Interval
    exact: bool
    ge_a: Interval
    ge_b: Interval
    draws: int | None
    confidence: float
    seconds: float


def mcnemar_rejects(ns: int, level: float, variant: str) -> np.ndarray:
    """Rejection region ``reject[D, n01]`` (boolean, ``(ns + 1, ns + 1)``) of McNemar's test.

    Examples
    --------
    >>> r = mcnemar_rejects(10, 0.05, "exact")
    >>> bool(r[6, 0]), bool(r[5, 0]), bool(r[10, 5])
    (True, False, False)
    """
    from scipy import stats  # imported on use: scipy.stats takes a second to import

    reject = np.zeros((ns + 1, ns + 1), dtype=bool)
    crit = stats.chi2.ppf(1 - level, 1)
    for D in range(1, ns + 1):
        k = np.arange(D + 1)
        if variant == "exact":
            p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, D - k), D, 0.5))
            reject[D, : D + 1] = p <= level
        else:
            reject[D, : D + 1] = (np.abs(2 * k - D) - 1.0) ** 2 / D > crit
    return reject


def _check(model: object, N: object, test: object, variant: object, attributes_a: object,
           attributes_b: object, test_size: object, level: object, draws: object, confidence: object,
           rng: object) -> None:
    if not isinstance(model, CellModel):
        raise InvalidArgument(f"model must be a CellModel, got {type(model).__name__}")
    if test not in COMPARISON_TESTS:
        raise InvalidArgument(f"test must be one of {COMPARISON_TESTS}, got {test!r}")
    if variant not in MCNEMAR_VARIANTS:
        raise InvalidArgument(f"variant must be one of {MCNEMAR_VARIANTS}, got {variant!r}")
    for name, a in (("attributes_a", attributes_a), ("attributes_b", attributes_b)):
        SubsetNaiveBayes(a).check(model, name)  # type: ignore[arg-type]
    if isinstance(N, bool) or not isinstance(N, int) or N < 4:
        raise InvalidArgument(f"N must be an integer >= 4, got {N!r}")
    if N >= 2**62:  # count tables are numpy int64
        raise InvalidArgument(f"N = {N} is beyond the 64-bit counts of the simulation; use N < 2^62 (about 4.6e18)")
    if test == "mcnemar":
        if isinstance(test_size, bool) or not isinstance(test_size, int) or not 1 <= test_size < N:
            raise InvalidArgument(f"McNemar needs test_size, an integer in 1..N-1 = 1..{N - 1}, got {test_size!r}")
    elif test_size is not None:
        raise InvalidArgument(f"test_size only applies to McNemar (5x2cv splits in halves), got {test_size!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < float(level) < 1:
        raise InvalidArgument(f"level must be a significance level in (0, 1) such as 0.05, got {level!r}")
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < MIN_DRAWS:
        raise InvalidArgument(f"draws must be an integer >= {MIN_DRAWS}, got {draws!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < float(confidence) < 1:
        raise InvalidArgument(f"confidence must be a number in (0, 1) such as 0.95, got {confidence!r}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")


def work_estimate(test: str, N: int, test_size: int | None, cells: int, rows: int) -> tuple[float, float]:
    """Estimated seconds and peak bytes of :func:`compare_classifiers` (``rows``: sampled or
    enumerated training tables).

    Measured on one core with 8 cells: McNemar with 10,000 draws and 50 or 90 test points 9.6 s and
    29 s, 2,000 draws and 200 test points 24 s (about ``3.6e-7`` s per draw and squared test
    size); 5x2cv with 10,000 draws at N = 20 and 200 1.1 s and 2.4 s, 100,000 draws at N = 20 8.9 s.
    Memory: McNemar's rejection region (``(ns + 1)^2`` booleans) and the per-draw binomial rows;
    5x2cv the per-draw datasets of ``N`` points.
    """
    R = float(rows)
    if test == "mcnemar":
        ns = float(test_size or 1)
        return 5e-7 * R * (ns + 1) ** 2 + 1e-5 * R * cells, (ns + 1) ** 2 + 8.0 * R * (3 * (ns + 1) + 4 * cells)
    return R * (1e-4 + 1e-6 * N + 1e-5 * cells), 8.0 * R * (4 * N + 4 * cells + 20)


def _mcnemar(model: CellModel, p: np.ndarray, A: SubsetNaiveBayes, B: SubsetNaiveBayes, N: int, ns: int,
             level: float, variant: str, draws: int, rng: np.random.Generator, exact: bool) -> tuple[Any, ...]:
    from scipy import stats  # imported on use: scipy.stats takes a second to import

    n_train, C = N - ns, p.size
    if exact:
        tables = training_tables(n_train, C)
        weights = multinomial_weights(tables, p)
    else:
        tables = rng.multinomial(n_train, p, size=draws)
        weights = np.full(draws, 1.0 / draws)
    ga = A.predict_tables(model, tables).reshape(tables.shape[0], C)
    gb = B.predict_tables(model, tables).reshape(tables.shape[0], C)
    q01 = ((1 - ga) * gb) @ p
    q10 = (ga * (1 - gb)) @ p
    qd = q01 + q10
    share = np.divide(q01, qd, out=np.full_like(qd, 0.5), where=qd > 0)
    reject = mcnemar_rejects(ns, level, variant)
    prob = np.zeros(tables.shape[0])
    for D in range(1, ns + 1):
        inner = stats.binom.pmf(np.arange(D + 1)[None, :], D, share[:, None]) @ reject[D, : D + 1]
        prob += stats.binom.pmf(D, ns, qd) * inner
    return prob, (1 - ga) @ p, (1 - gb) @ p, weights


def _five_by_two(model: CellModel, p: np.ndarray, A: SubsetNaiveBayes, B: SubsetNaiveBayes, N: int,
                 level: float, draws: int, rng: np.random.Generator) -> tuple[Any, ...]:
    from scipy import stats  # imported on use: scipy.stats takes a second to import

    C = p.size
    crit = stats.t.ppf(1 - level / 2, 5)
    cells = rng.choice(C, size=(draws, N), p=p)
    s0 = N - N // 2  # scikit-learn's KFold(2): the first fold takes the extra point
    sizes = (s0, N // 2)
    first = (np.arange(N) >= s0).astype(np.int64)
    diff = np.empty((draws, 5, 2))
    ge_a = np.empty(draws)
    ge_b = np.empty(draws)
    w = np.asarray(p).reshape(-1, model.n_classes)
    err = (w.sum(axis=1, keepdims=True) - w).ravel()  # P[X = x, Y != y] per cell
    for i in range(5):
        both = fold_count_tables(cells, rng.permuted(np.tile(first, (draws, 1)), axis=1), 2, C)
        for j in range(2):
            train, test = both[:, 1 - j], both[:, j]
            ga, gb = A.predict_tables(model, train), B.predict_tables(model, train)
            diff[:, i, j] = (sampled_errors(test, ga, rng) - sampled_errors(test, gb, rng)) / sizes[j]
            if i == 0 and j == 0:
                ge_a = ga.reshape(draws, C) @ err
                ge_b = gb.reshape(draws, C) @ err
    centred = diff - diff.mean(axis=2, keepdims=True)
    denom = np.sqrt((centred**2).sum(axis=2).mean(axis=1))
    num = diff[:, 0, 0]
    safe = np.where(denom > 0, denom, 1.0)
    reject = np.where(denom > 0, np.abs(num) / safe > crit, num != 0)
    return reject.astype(float), ge_a, ge_b


def compare_classifiers(
    model: CellModel,
    N: int,
    test: str,
    attributes_a: tuple[int, ...],
    attributes_b: tuple[int, ...],
    *,
    test_size: int | None = None,
    variant: str = "exact",
    level: float = 0.05,
    ties: str = "random",
    alpha: object = 0,
    draws: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    exact: bool | None = None,
    max_seconds: float | None = DEFAULT_SECONDS,
    max_memory: float | None = None,
) -> ComparisonResult:
    """Actual size or power of McNemar's test or the 5x2cv paired t test for two naive Bayes
    classifiers on the attribute subsets ``attributes_a`` and ``attributes_b``.

    Parameters
    ----------
    model:
        The data distribution.
    N:
        Dataset size (``>= 4``).
    test:
        ``"mcnemar"`` (shared hold-out set of ``test_size`` points) or ``"5x2cv"``.
    attributes_a, attributes_b:
        Attribute indices each classifier uses.
    test_size:
        McNemar only: number of test points.
    variant:
        McNemar: ``"exact"`` (binomial) or ``"chi2"`` (continuity-corrected).
    level:
        Significance level of the test.
    ties, alpha:
        Naive Bayes tie rule and smoothing of both classifiers.
    draws, confidence, rng:
        Monte Carlo draws (``>= 200``), level of the result's intervals, the generator.
    exact:
        McNemar only: sum exactly over every training table; ``None``: when there are at most
        20000 tables.
    max_seconds, max_memory:
        Refuse (``WorkLimitExceeded``, ``MemoryLimitExceeded``) before any work when the estimate of
        :func:`work_estimate` exceeds them (``max_memory`` in bytes, ``None``: 80% of this
        machine's memory); ``max_seconds=None`` lifts the time limit (:mod:`momentbound.guard`).

    Returns
    -------
    ComparisonResult

    Examples
    --------
    >>> from momentbound.model.cells import CellModel
    >>> m = CellModel((2, 2), ["0.2", "0.05", "0.1", "0.1", "0.1", "0.1", "0.05", "0.3"])
    >>> r = compare_classifiers(m, 20, "mcnemar", (0,), (1,), test_size=10, rng=np.random.default_rng(0))
    >>> r.exact, r.rejection.estimate < 0.05
    (True, True)
    """
    start = time.perf_counter()
    _check(model, N, test, variant, attributes_a, attributes_b, test_size, level, draws, confidence, rng)
    A = SubsetNaiveBayes(attributes_a, ties, alpha)
    B = SubsetNaiveBayes(attributes_b, ties, alpha)
    A._nb()  # validates ties and alpha
    p = np.array([float(c) for c in model.cells])
    p = p / p.sum()
    if test == "mcnemar" and exact is None:
        exact = math.comb(N - test_size + p.size - 1, p.size - 1) <= EXACT_TABLE_LIMIT  # type: ignore[operator]
    rows = math.comb(N - test_size + p.size - 1, p.size - 1) if test == "mcnemar" and exact else int(draws)
    seconds, memory = work_estimate(test, N, test_size, p.size, rows)
    guard.check(f"{test} at N = {N} with {rows} {'training tables' if test == 'mcnemar' and exact else 'draws'}",
                seconds=seconds, memory=memory, max_seconds=max_seconds,
                **({} if max_memory is None else {"max_memory": max_memory}),
                fix=f"use fewer {guard.option('draws')} (at least {MIN_DRAWS}), a smaller {guard.option('N')}"
                + (f" or a smaller {guard.option('test_size')}" if test == "mcnemar" else ""))
    if test == "5x2cv":
        if exact:
            raise InvalidArgument("exact=True only applies to McNemar; 5x2cv is Monte Carlo")
        reject, ga, gb = _five_by_two(model, p, A, B, N, float(level), int(draws), rng)
        return ComparisonResult(test, None, N, None, float(level), attributes_a, attributes_b,
                                proportion(reject, confidence, indicator=True), False,
                                proportion(ga, confidence, indicator=False),
                                proportion(gb, confidence, indicator=False), int(draws), float(confidence),
                                time.perf_counter() - start)
    assert test_size is not None
    prob, ga, gb, weights = _mcnemar(model, p, A, B, N, test_size, float(level), variant, int(draws), rng,
                                     bool(exact))
    if exact:
        def point(values: np.ndarray) -> Interval:
            v = float(weights @ values)
            return Interval(v, v, v)

        rejection, ia, ib = point(prob), point(ga), point(gb)
    else:
        rejection = proportion(prob, confidence, indicator=False)
        ia, ib = proportion(ga, confidence, indicator=False), proportion(gb, confidence, indicator=False)
    return ComparisonResult(test, variant, N, test_size, float(level), attributes_a, attributes_b, rejection,
                            bool(exact), ia, ib, None if exact else int(draws), float(confidence),
                            time.perf_counter() - start)
