"""Exact moments of scikit-learn's stratified cross-validation error of naive Bayes.

Conditioning on the class counts ``n = (n_1..n_K) ~ Multinomial(N, pi)`` and on the order in
which the classes first appear fixes the class composition ``a_i`` of every test fold of
``StratifiedKFold(v)`` (:mod:`momentbound.splitters.stratified`); the training set of fold
``i`` has composition ``n - a_i``. Within each class the attributes are i.i.d. from the
class-conditional law, so with ``E_i`` the number of misclassified test points of fold ``i``
(``docs/mathematics.md``, "Stratified cross-validation"):

* ``E[E_i | n] = sum_k a_ik e_k(n - a_i)``,
* ``E[E_i^2 | n] = E[E_i | n] + sum_{k,l} a_ik (a_il - [k = l]) f_kl(n - a_i)``,
* ``E[E_i E_j | n] = sum_{k,l} a_ik a_jl h_kl(n - a_i - a_j, a_i, a_j)`` for ``i != j``,

with the one-point, same-fold pair and cross-fold pair terms ``e``, ``f``, ``h`` of
:class:`~momentbound.exact.class_terms.ClassCountTerms`. ``HE_i = E_i / s_i`` and
``CE = sum_i w_i HE_i`` with ``w_i = s_i / N`` (``average="pooled"``: misclassified test points
over ``N``, as for ``KFold``) or ``w_i = 1 / v`` (``average="folds"``: the mean of the fold
errors, ``1 - mean(cross_val_score(...))``). The moments are then averaged over the class counts.

Where scikit-learn cannot split (``v`` exceeds every class count; it raises ``ValueError``) the
dataset is excluded: the moments are conditional on the split being possible, and the result
reports that probability (``prob_possible``) and the probability that scikit-learn warns
because a class has fewer than ``v`` members (``prob_warning``). When no dataset of size ``N``
can be split, :class:`~momentbound.errors.ImpossibleSplit` is raised.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument, InvalidModel
from momentbound.exact.binary_states import BinaryStates, GridCache, applies as binary_applies, grid_bytes
from momentbound.exact.class_terms import ClassCountTerms, as_loss
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.predictions import class_count_splits
from momentbound.model.cells import CellModel
from momentbound.exact.allocation import Allocation, AllocationLaw

__all__ = [
    "AVERAGES",
    "FoldErrorMoments",
    "GEJoint",
    "RepeatedStratifiedCVMoments",
    "StratifiedCVMoments",
    "between_partitions",
    "conditional_fold_moments",
    "repeated_stratified_cv_moments",
    "stratified_cv_moments",
    "stratified_ge_joint",
]

Number = Union[Fraction, float]
AVERAGES = ("folds", "pooled")
ARITHMETICS = ("auto", "rational", "float")


@dataclass(frozen=True)
class StratifiedCVMoments:
    """Exact moments of the stratified cross-validation error (result of :func:`stratified_cv_moments`).

    Attributes
    ----------
    splitter:
        The :class:`~momentbound.exact.allocation.AllocationLaw` (or a StratifiedKFold) analysed.
    N:
        Dataset size.
    mean, variance, std:
        ``E[CE]``, ``Var(CE)`` and its square root, conditional on scikit-learn being able to
        split the dataset.
    fold_means:
        ``E[HE_i]`` for every fold ``i`` in scikit-learn's fold order.
    fold_variance:
        Mean over folds of ``Var(HE_i)``.
    fold_covariance:
        Mean over ordered pairs ``i != j`` of ``Cov(HE_i, HE_j)``.
    prob_possible:
        Probability that scikit-learn can split a dataset of ``N`` i.i.d. points (some class
        has at least ``v`` members); the moments are conditional on this event.
    prob_warning:
        Probability that scikit-learn warns (a present class has fewer than ``v`` members and
        the split is possible).
    average:
        ``"pooled"`` (misclassified test points over ``N``) or ``"folds"`` (mean of fold errors).
    exact:
        True for exact ``Fraction`` results.
    classifier:
        The naive Bayes classifier.
    seconds:
        Wall-clock time of the computation.
    dropped_mass_bound:
        Total probability of the class counts left out of the float sums (at most
        ``tail * prob_possible``; 0 when every class count was summed, always 0 in exact
        arithmetic). ``mean``, the second moment and the fold moments (averages of values in
        ``[0, 1]``) are each within ``2 * dropped_mass_bound / prob_possible`` of the full sums.
    """

    splitter: AllocationLaw
    N: int
    mean: Number
    variance: Number
    std: float
    fold_means: tuple[Number, ...]
    fold_variance: Number
    fold_covariance: Number
    prob_possible: Number
    prob_warning: Number
    average: str
    exact: bool
    classifier: NaiveBayes
    seconds: float
    dropped_mass_bound: float = 0.0


@dataclass(frozen=True)
class FoldErrorMoments:
    """Moments of the fold error counts ``E_i`` given the class counts and the test compositions.

    Attributes
    ----------
    sizes:
        Test fold sizes ``s_i`` (scikit-learn's fold order).
    first, second:
        ``E[E_i]`` and ``E[E_i^2]`` per fold.
    pairs:
        ``((i_folds, j_folds, value), ...)``: ``E[E_i E_j] = value`` for every ``i`` in ``i_folds``
        and ``j != i`` in ``j_folds`` (folds grouped by composition; a group paired with itself
        once, with ``i_folds is j_folds``).
    """

    sizes: tuple[int, ...]
    first: tuple[Number, ...]
    second: tuple[Number, ...]
    pairs: tuple[tuple[tuple[int, ...], tuple[int, ...], Number], ...]

    def pair_sum(self, weights: Sequence[Number]) -> Number:
        """``sum_{i != j} weights[i] weights[j] E[E_i E_j]``."""
        total: Number = 0
        for I, J, value in self.pairs:
            wi = sum(weights[i] for i in I)
            wj = sum(weights[j] for j in J)
            if I is J:  # ordered pairs of distinct folds within one group
                wj_same = sum(weights[i] * weights[i] for i in I)
                total = total + (wi * wj - wj_same) * value
            else:
                total = total + 2 * wi * wj * value
        return total


@dataclass(frozen=True)
class _GroupMoments:
    """Fold moments by group of folds with one class composition (see :func:`group_moments`)."""

    folds: tuple[tuple[int, ...], ...]
    sizes: tuple[int, ...]
    first: tuple[Number, ...]
    second: tuple[Number, ...]
    pairs: tuple[tuple[int, int, Number], ...]
    compositions: tuple[tuple[int, ...], ...] = ()

    def pair_sum(self, x: Sequence[Number]) -> Number:
        """``sum_{i != j} x_i x_j E[E_i E_j]`` for a weight ``x`` per group (equal within a group)."""
        total: Number = 0
        for g, h, value in self.pairs:
            if g == h:
                c = len(self.folds[g])
                total = total + (c * c - c) * x[g] * x[g] * value
            else:
                total = total + 2 * len(self.folds[g]) * len(self.folds[h]) * x[g] * x[h] * value
        return total


    def scaled(self, ratios: Sequence[Number]) -> _GroupMoments:
        """The moments with every fold of group ``g`` weighed ``ratios[g]`` times more."""
        return _GroupMoments(self.folds, self.sizes, tuple(r * f for r, f in zip(ratios, self.first)),
                             tuple(r * r * s2 for r, s2 in zip(ratios, self.second)),
                             tuple((g, h, ratios[g] * ratios[h] * v) for g, h, v in self.pairs), self.compositions)


def _ratio(target: Sequence[Number], base: Sequence[Number]) -> Number | None:
    """``r`` with ``target = r * base`` entry by entry, or ``None`` when there is none."""
    r = next((t / b for t, b in zip(target, base) if b), None)
    if r is None or any(abs(t - r * b) > 1e-14 * abs(t) for t, b in zip(target, base)):  # exact for Fractions
        return None
    return r


#: per class coefficient of a test set of a given class composition (``None``: 1 for every class)
Coefficients = Union[Callable[[tuple[int, ...]], Sequence[Number]], None]


def group_moments(terms: ClassCountTerms, counts: Sequence[int], allocation: Allocation,
                  coef: Coefficients = None) -> _GroupMoments:
    """The moments of :func:`conditional_fold_moments` once per group of folds with one composition.

    With ``coef``, a fold of composition ``a`` counts ``X_i = sum_k coef(a)[k] sum_{t of class k} L_t``
    (``L_t`` the loss of test point ``t`` under ``terms.loss``; one point with itself takes the
    squared loss, :meth:`~momentbound.exact.class_terms.ClassCountTerms.squared`)."""
    K = terms.K
    n = tuple(int(c) for c in counts)
    zero: Number = Fraction(0) if terms.exact else 0.0
    groups = dict(allocation.groups)
    keys = list(groups)
    weights = {a: None if coef is None else tuple(coef(a)) for a in keys}
    first: list[Number] = []
    second: list[Number] = []
    for a in keys:
        m = tuple(n[c] - a[c] for c in range(K))
        e1 = terms.err1(m)
        w = weights[a]
        if w is None:
            mu = sum((a[k] * e1[k] for k in range(K) if a[k]), zero)
            sec = mu
        else:
            mu = sum((a[k] * w[k] * e1[k] for k in range(K) if a[k] and w[k]), zero)
            sq = terms.squared().err1(m)
            sec = sum((a[k] * w[k] * w[k] * sq[k] for k in range(K) if a[k] and w[k]), zero)
        if sum(a) > 1:
            e2 = terms.err2(m)
            for k in range(K):
                for l in range(K):
                    cnt = a[k] * (a[l] - (k == l))
                    if cnt and w is not None:
                        cnt = cnt * w[k] * w[l]
                    if cnt:
                        sec = sec + cnt * e2[k, l]
        first.append(mu)
        second.append(sec)
    pairs = []
    for x, ai in enumerate(keys):
        for y in range(x, len(keys)):
            aj = keys[y]
            if x == y and len(groups[ai]) < 2:
                continue
            wi, wj = weights[ai], weights[aj]
            if wi is not None and not (any(wi) and any(wj)):  # type: ignore[arg-type]
                pairs.append((x, y, zero))
                continue
            common = tuple(n[c] - ai[c] - aj[c] for c in range(K))
            h = terms.cross(common, ai, aj)
            val = zero
            for k in range(K):
                for l in range(K):
                    cnt = ai[k] * aj[l]
                    if cnt and wi is not None:
                        cnt = cnt * wi[k] * wj[l]  # type: ignore[index]
                    if cnt:
                        val = val + cnt * h[k, l]
            pairs.append((x, y, val))
    return _GroupMoments(tuple(groups[a] for a in keys), tuple(sum(a) for a in keys), tuple(first), tuple(second),
                         tuple(pairs), tuple(keys))


class PointLoss:
    """The count rule of a loss per test point as a share of the test points (``loss=None``: the 0-1
    error): what the class-count routes compute without a metric that divides by class counts.

    A rule (this or a :class:`~momentbound.estimators.metrics.LinearMetric`) has ``base_matrix(K)``,
    the loss ``B`` of one test point; ``test_set_weights(counts)``, ``(w, c)`` with the statistic of a
    test set ``c + sum_k w_k sum_{t of class k} B[k, prediction_t]``; and ``population_weights(priors)``,
    ``omega`` with the population value ``sum_l omega_l E[B[l, g(X)] | Y = l]``.
    """

    def __init__(self, loss: Sequence[Sequence[object]] | None = None) -> None:
        self.loss = loss

    def base_matrix(self, K: int) -> Sequence[Sequence[object]] | None:
        return self.loss

    def test_set_weights(self, counts: Sequence[int]) -> tuple[tuple[Fraction, ...], Fraction]:
        total = sum(int(c) for c in counts)
        return tuple(Fraction(1, total) for _ in counts), Fraction(0)

    def population_weights(self, priors: Sequence[Number]) -> tuple[Number, ...]:
        return tuple(priors)


def test_set_weights(rule: object, counts: Sequence[int], exact: bool) -> tuple[tuple[Number, ...], Number]:
    """``rule.test_set_weights(counts)`` in the arithmetic of the terms."""
    w, c = rule.test_set_weights(tuple(int(x) for x in counts))  # type: ignore[attr-defined]
    if exact:
        return tuple(w), c
    return tuple(float(x) for x in w), float(c)


def rule_terms(model: CellModel, N: int, clf: NaiveBayes, arithmetic: str, rational_max_n: int,
               terms: ClassCountTerms | None, metric: object) -> tuple[object, ClassCountTerms]:
    """The count rule of ``metric`` (``None``: the 0-1 error) and the term cache of its loss."""
    rule = PointLoss() if metric is None else metric
    loss = rule.base_matrix(model.n_classes)  # type: ignore[attr-defined]
    return rule, term_cache(model, N, clf, arithmetic, rational_max_n, terms, loss)


def conditional_fold_moments(terms: ClassCountTerms, counts: Sequence[int], allocation: Allocation,
                             coef: Coefficients = None) -> FoldErrorMoments:
    """First and second moments of the fold error counts given the class counts and test compositions.

    Folds with the same class composition share every term, so the work grows with the number
    of distinct compositions (at most a few), not with ``v^2``.

    Parameters
    ----------
    terms:
        The :class:`~momentbound.exact.class_terms.ClassCountTerms` of the model and classifier.
    counts:
        Class counts ``n`` of the dataset (model class order).
    allocation:
        The test folds' class compositions (an :class:`~momentbound.splitters.Allocation`).
    coef:
        Per-class coefficients of a fold of a given composition (:func:`group_moments`).
    """
    g = group_moments(terms, counts, allocation, coef)
    v = len(allocation.test)
    zero: Number = Fraction(0) if terms.exact else 0.0
    first: list[Number] = [zero] * v
    second: list[Number] = [zero] * v
    for I, mu, sec in zip(g.folds, g.first, g.second):
        for i in I:
            first[i], second[i] = mu, sec
    pairs = tuple((g.folds[x], g.folds[x] if x == y else g.folds[y], val) for x, y, val in g.pairs)
    return FoldErrorMoments(allocation.fold_sizes, tuple(first), tuple(second), pairs)


def check_arguments(model: object, N: object, folds: object, classifier: object, arithmetic: object,
                    average: object) -> tuple[AllocationLaw, int, NaiveBayes]:
    """Validate the common arguments of the exact splitter moments (raises before any work)."""
    if not isinstance(model, CellModel):
        raise InvalidModel(
            f"model must be a momentbound.CellModel, got {type(model).__name__}; build one with "
            "CellModel(arities, cells)"
        )
    if isinstance(N, bool) or not hasattr(N, "__index__") or int(N) < 2:  # type: ignore[call-overload]
        raise InvalidArgument(f"N must be an integer number of data points >= 2, got {N!r}")
    splitter = folds if isinstance(folds, AllocationLaw) else AllocationLaw(getattr(folds, "v", folds))  # type: ignore[arg-type]
    clf = NaiveBayes() if classifier is None else classifier
    if not isinstance(clf, NaiveBayes):
        raise InvalidArgument(
            f"classifier must be a momentbound NaiveBayes(ties=..., alpha=...), got {classifier!r}"
        )
    if arithmetic not in ARITHMETICS:
        raise InvalidArgument(f"arithmetic must be one of {ARITHMETICS}, got {arithmetic!r}")
    if arithmetic == "rational" and not model.is_exact:
        raise InvalidArgument("arithmetic='rational' needs an exact model (Fraction cells); use 'float'")
    if average not in AVERAGES:
        raise InvalidArgument(f"average must be one of {AVERAGES}, got {average!r}")
    law_bytes = cached_law_bytes(model, int(N))  # type: ignore[call-overload]
    if law_bytes > MAX_LAW_BYTES:
        raise InvalidArgument(
            f"the exact class-count terms at N={int(N)} with d={model.d} would cache about "  # type: ignore[call-overload]
            f"{law_bytes / 2**30:.3g} GiB of per-class agreement laws or state grids (limit "
            f"{MAX_LAW_BYTES / 2**30:g} GiB); use backend='montecarlo' or a smaller N"
        )
    return splitter, int(N), clf  # type: ignore[call-overload]


#: limit on the per-class agreement laws the exact class-count terms keep (bytes)
MAX_LAW_BYTES = 2 * 2**30


def cached_law_bytes(model: CellModel, N: int) -> float:
    """Memory the exact class-count terms hold at ``N`` points: on binary attributes the state grids
    (:func:`~momentbound.exact.binary_states.grid_bytes`), otherwise :func:`agreement_law_bytes`."""
    if binary_applies(model.arities):
        return grid_bytes(model.n_classes, model.d, N)
    return agreement_law_bytes(model, N)


def agreement_law_bytes(model: CellModel, N: int) -> float:
    """Memory of the per-class agreement laws at two inputs for every class size up to ``N``
    (float64: ``sum_{n <= N} (n + 1)^(2d)`` cells per class and pair of inputs)."""
    d = model.d
    pairs = model.n_inputs * (model.n_inputs + 1) / 2
    cells = (N + 2.0) ** (2 * d + 1) / (2 * d + 1)
    return 8.0 * cells * model.n_classes * pairs


def term_cache(
    model: CellModel, N: int, clf: NaiveBayes, arithmetic: str, rational_max_n: int, terms: ClassCountTerms | None,
    loss: Sequence[Sequence[object]] | None = None,
) -> ClassCountTerms:
    """The term cache for the arithmetic (``auto``: rational for exact models up to ``rational_max_n``)
    and the loss matrix (``None``: the 0-1 error)."""
    mode = auto_arithmetic(model, N, rational_max_n) if arithmetic == "auto" else arithmetic
    if terms is None:
        return ClassCountTerms(model, clf, mode, loss)
    if terms.model != model or terms.clf != clf or terms.mode != mode:
        raise InvalidArgument("terms were built for another model, classifier or arithmetic; pass terms=None")
    if getattr(terms, "loss", None) != as_loss(loss, model.n_classes):
        raise InvalidArgument("terms were built for another loss matrix; pass terms=None")
    return terms


def _impossible(splitter: AllocationLaw, N: int) -> ImpossibleSplit:
    v = splitter.n_splits
    return ImpossibleSplit(
        f"{splitter.describe()} cannot split any dataset of N={N} points of this model: "
        f"every class count is below n_splits={v}; choose n_splits <= {N} with a class that "
        "can reach it"
    )


#: width of the strips of the first class count in :func:`local_key`
LOCAL_STRIP = 3
#: the state route computes its terms in :func:`local_key` order first when its cache of averaged grids
#: holds fewer sides of the cross-fold term than this (:func:`local_sides`); with more, the usual
#: order reuses them as well (dry runs of StratifiedKFold(5) and (10) at N = 24-30, three classes)
LOCAL_SIDES = 40


def local_sides(model: CellModel, N: int, v: int) -> float:
    """How many sides of the cross-fold term of ``v``-fold CV at ``N`` points, every class count
    ``N / K``, the state route's cache holds (:func:`~momentbound.exact.binary_states.side_bytes`)."""
    from momentbound.exact.binary_states import side_bytes

    return BinaryStates.SIDE_BYTES / side_bytes(model.n_classes, model.d, N, v)


def local_key(counts: Sequence[int]) -> tuple:
    """Sort key of class-count vectors in strips of :data:`LOCAL_STRIP` values of the first count, the
    middle counts within a strip, then the first: vectors that differ by moving one point between two
    classes (whose folds share training compositions) stay a few places apart."""
    n = tuple(int(c) for c in counts)
    return (n[0] // LOCAL_STRIP,) + n[1:-1] + (n[0],)


#: worker processes that compute the terms of the local order when the class-count work (the sum over the
#: class-count vectors ``n`` of ``prod_c (n_c + 1)^(2 d)``) reaches :data:`PARALLEL_WORK`
WORKERS = 2
#: memory of one worker: half the cache of sides, its own caches of grids and scratch (StratifiedKFold(10)
#: at N = 30: 2.6-2.9 GiB peak each, the parent 0.9 GiB, against 4.4 GiB for one process); the workers
#: run only when the memory limit in force (:func:`momentbound.guard.memory_limit`, by default 80% of the
#: machine's memory) holds :data:`WORKERS` of them
WORKER_BYTES = 3 * 2**30
#: class-count work from which :data:`WORKERS` processes compute the terms (StratifiedKFold(10), three
#: classes and two binary attributes: 8.5e11 at N = 20, a few seconds; 1.5e13 at N = 24, about a minute;
#: 2.9e14 at N = 30); below it, one process
PARALLEL_WORK = 1e13


#: resident memory of the interpreter with numpy, scipy and the compiled kernels loaded (bytes)
BASE_BYTES = 0.25 * 2**30


def vector_work(counts: Sequence[int], d: int) -> float:
    """The class-count work of one class-count vector: ``prod_c (n_c + 1)^(2 d)``."""
    return math.prod((c + 1.0) ** (2 * d) for c in counts)


def _class_count_work(K: int, d: int, N: int) -> float:
    """The class-count work of :func:`local_parts`: :func:`vector_work` summed over the class-count
    vectors of ``N`` points (every vector; more than the route's likely ones)."""
    if (N + 1.0) ** (K - 1) > 1e6:  # too many to count: past any threshold
        return math.inf
    heads = (n for n in itertools.product(range(N + 1), repeat=K - 1) if sum(n) <= N)
    return float(sum(vector_work(n + (N - sum(n),), d) for n in heads))


def forks(work: float, exact: bool) -> bool:
    """Whether :func:`local_parts` hands the local order to :data:`WORKERS` processes: at least
    :data:`PARALLEL_WORK` of class-count work, float arithmetic, processes that can be forked, and a
    memory limit in force that holds :data:`WORKERS` times :data:`WORKER_BYTES`."""
    import multiprocessing

    from momentbound import guard

    memory = guard.memory_limit()
    return (WORKERS >= 2 and work >= PARALLEL_WORK and not exact and "fork" in multiprocessing.get_all_start_methods()
            and (memory is None or memory >= WORKERS * WORKER_BYTES))


def state_memory(model: CellModel, N: int, v: int, *, between: bool = False) -> float:
    """Peak resident memory (bytes, all processes together) of the exact stratified routes on binary
    attributes at ``N`` points, folds of about ``N / v`` points (``between``: the between-partition
    terms of RepeatedStratifiedKFold and StratifiedShuffleSplit, with their chains of averaged grids).

    Per process: :data:`BASE_BYTES`, the working grids (:func:`~momentbound.exact.binary_states.grid_bytes`),
    the caches of grids and reflected grids, each up to its limit
    (:attr:`~momentbound.exact.binary_states.BinaryStates.CACHE_BYTES`, ``ORIENTED_BYTES``) and at most
    the working grids once per class-count vector, the sides of
    the cross-fold term one per class-count vector (:func:`~momentbound.exact.binary_states.side_bytes`)
    up to ``SIDE_BYTES``, and with ``between`` the chains of the largest training composition
    (:func:`~momentbound.exact.binary_states.chain_bytes`) up to one and a half times ``CHAIN_BYTES``.
    When :func:`local_parts` forks :data:`WORKERS` processes, the parent holds the first two and each
    worker all of them with its share of the sides. 0 when the state route does not apply."""
    from momentbound.exact.binary_states import chain_bytes, down_set, side_bytes

    K, d = model.n_classes, model.d
    if not binary_applies(model.arities):
        return 0.0
    grids = grid_bytes(K, d, N)
    vectors = math.comb(N + K - 1, K - 1)
    sides = min(float(BinaryStates.SIDE_BYTES), vectors * side_bytes(K, d, N, v))
    chains = 0.0
    if between:
        m = tuple(round((N - N / v) / K) for _ in range(K))
        chains = min(1.5 * BinaryStates.CHAIN_BYTES, chain_bytes(K, d, {m: down_set([m])}))
    fill = vectors * grids  # what the caches of grids can fill: each vector's grids at most the largest
    caches = min(float(BinaryStates.CACHE_BYTES), fill) + min(float(BinaryStates.ORIENTED_BYTES), fill) + chains
    one = BASE_BYTES + grids + caches + sides
    if between or local_sides(model, N, v) >= LOCAL_SIDES or not forks(_class_count_work(K, d, N), False):
        return one
    return BASE_BYTES + grids + WORKERS * (BASE_BYTES + grids + caches + sides / WORKERS)


def local_terms(terms: ClassCountTerms, splitter: AllocationLaw, rule: object, counts: tuple[int, ...]) -> None:
    """Compute (into ``terms``' caches) every term the moments of the class-count vector ``counts`` read."""
    for alloc in splitter.allocations(counts):
        weights = {tuple(int(x) for x in a): test_set_weights(rule, a, terms.exact) for a, _ in alloc.groups}
        group_moments(terms, counts, alloc, lambda a: weights[a][0])


def local_parts(order: list[int], sizes: Sequence[float], total: float, exact: bool) -> list[list[int]]:
    """The local order cut into :data:`WORKERS` runs of about equal class-count work (one run below
    :data:`PARALLEL_WORK`, in rational arithmetic, where processes cannot be forked, or when the memory
    limit does not hold :data:`WORKERS` times :data:`WORKER_BYTES`)."""
    if not forks(total, exact):
        return [order]
    parts: list[list[int]] = [[] for _ in range(WORKERS)]
    done = 0.0
    for i in order:
        parts[min(WORKERS - 1, int(WORKERS * done / total))].append(i)
        done += sizes[i]
    return [part for part in parts if part]


#: what the forked workers of :func:`terms_in_workers` read (the parent's objects, copied on write)
_WORKER_STATE: list = []


def _worker_terms(part: int) -> list[dict]:
    terms, splitter, rule, parts, done = _WORKER_STATE
    if terms.states is not None:  # the parent's cache of sides, split between the workers
        terms.states._sides.limit = terms.states._sides.limit / len(parts)
    for counts in parts[part]:
        local_terms(terms, splitter, rule, counts)
        with done.get_lock():  # the class-count work of this vector, read by the parent's progress
            done.value += vector_work(counts, terms.model.d)
    return [{name: getattr(t, name) for name in ("_err1", "_err2", "_cross")}
            for t in (terms, getattr(terms, "_squared", None)) if t is not None]


#: seconds between two progress reports of the parent while the workers of :func:`terms_in_workers` run
WORKER_POLL = 0.5


def terms_in_workers(terms: ClassCountTerms, splitter: AllocationLaw, rule: object,
                     parts: list[list[tuple[int, ...]]],
                     on_progress: Callable[[float], None] | None = None, total: float = 1.0) -> None:
    """Compute the terms of each part of the class-count vectors in its own forked process (each with its
    own caches, the cache of sides split between them) and merge them into ``terms``' caches. A term is
    the same number whichever process computes it, so the moments summed from the merged caches are
    bitwise those of one process. The workers add the class-count work of each vector they finish to a
    shared counter; while they run, the parent reports it (``on_progress(done / total)``) every
    :data:`WORKER_POLL` seconds."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    done = ctx.Value("d", 0.0)
    _WORKER_STATE[:] = [terms, splitter, rule, parts, done]
    try:
        with ctx.Pool(len(parts)) as pool:
            pending = pool.map_async(_worker_terms, range(len(parts)), chunksize=1)
            while not pending.ready():
                pending.wait(WORKER_POLL)
                if on_progress is not None:
                    on_progress(min(1.0, done.value / total))
            results = pending.get()
    finally:
        _WORKER_STATE[:] = []
    for caches in results:
        for t, cache in zip((terms, terms.squared()), caches):
            for name, values in cache.items():
                getattr(t, name).update(values)


def stratified_cv_moments(
    model: CellModel,
    N: int,
    folds: int | AllocationLaw,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    average: str = "folds",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    tail: float = 1e-13,
    on_progress: Callable[[float], None] | None = None,
    metric: object = None,
) -> StratifiedCVMoments:
    """Exact mean and variance of scikit-learn's ``StratifiedKFold`` CV error of naive Bayes.

    Parameters
    ----------
    model:
        The data distribution (a :class:`~momentbound.CellModel`, any number of classes and
        attributes; the work grows like ``prod_c (n_c + 1)^(2 d)`` per term, so two attributes
        are for small ``N``, except binary ones: their per-class states,
        :mod:`momentbound.exact.binary_states`, take three classes and two attributes to ``N = 30``).
    N:
        Dataset size.
    folds:
        ``v`` or a :class:`~momentbound.exact.allocation.AllocationLaw` (or a StratifiedKFold).
    classifier:
        :class:`~momentbound.exact.NaiveBayes` (default: tie rule ``"random"``, ``alpha = 0``;
        scikit-learn's ``CategoricalNB`` is ``ties="first"``).
    arithmetic:
        ``"rational"`` (exact ``Fraction``), ``"float"`` (the same sums in floating point), or
        ``"auto"`` (rational for exact models with ``N <= rational_max_n``).
    average:
        ``"folds"`` (default): the mean of the fold error rates, ``1 - mean(cross_val_score(...))``;
        ``"pooled"``: ``CE`` = misclassified test points / ``N``.
        They differ only when the fold sizes differ.
    terms:
        A :class:`~momentbound.exact.class_terms.ClassCountTerms` to share cached terms across
        calls (sweeps over ``v``); it must match ``model``, ``classifier`` and the arithmetic.
    tail:
        Float arithmetic only: the least probable class-count vectors, of total probability at
        most ``tail`` times the probability that the split is possible, are left out of the sums
        (reported as ``dropped_mass_bound``; the moments move by at most ``2 * tail``); ``0`` sums
        every one. Exact arithmetic always sums every one.
    on_progress:
        Called with the fraction of the work done after each class-count vector (the work of a
        vector ``n`` counted as ``prod_c (n_c + 1)^(2 d)``, the size of its agreement grids).
    metric:
        ``None`` (the 0-1 error) or a count rule (:class:`PointLoss`, or a
        :class:`~momentbound.estimators.metrics.LinearMetric`): a fold scores ``c + sum_k w_k``
        (losses of its class-``k`` test points) with the weights of its class composition, e.g. its
        recall or balanced error; given the class counts the compositions are fixed, so every such
        statistic is linear in the fold's losses (``docs/mathematics.md``, "Stratified
        cross-validation"). ``average="pooled"`` scores the pooled predictions with the weights of
        the dataset's class counts.

    Returns
    -------
    StratifiedCVMoments

    Raises
    ------
    ImpossibleSplit
        When no dataset of ``N`` points can be split (``v > N``, or the model's classes make
        every class count smaller than ``v``).

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> r = stratified_cv_moments(m, 6, 2, classifier=NaiveBayes(ties="first", alpha=1))
    >>> round(float(r.mean), 4), r.prob_possible
    (0.3476, Fraction(1, 1))
    """
    start = time.perf_counter()
    splitter, N, clf = check_arguments(model, N, folds, classifier, arithmetic, average)
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    mode = terms.mode
    v = splitter.n_splits
    exact = terms.exact
    zero: Number = Fraction(0) if exact else 0.0
    inv_v: Number = Fraction(1, v) if exact else 1.0 / v
    p_ok = p_warn = zero
    mean = second = zero
    fold_first = np.zeros(v, dtype=object if exact else float)
    fold_second = np.zeros(v, dtype=object if exact else float)
    if exact:
        fold_first[:] = zero
        fold_second[:] = zero
    pair_total = zero  # sum over i != j of E[HE_i HE_j]
    splits, dropped = likely_class_counts(model, N, mode, tail, splitter.possible)
    sizes = [vector_work(counts, model.d) for counts, _ in splits]
    work = np.cumsum(sizes)
    if getattr(terms, "local_order", False) and local_sides(model, N, v) < LOCAL_SIDES:
        # the terms first, in an order that keeps neighbouring class counts close (they share averaged
        # grids kept in a bounded cache); the sums below, in the usual order, then find them cached
        order = sorted(range(len(splits)), key=lambda i: local_key(splits[i][0]))
        parts = local_parts(order, sizes, float(work[-1]), exact)
        if len(parts) > 1 and hasattr(terms, "start_part"):  # a dry run: the parts one after the other
            for part in parts:
                terms.start_part(len(parts))
                for i in part:
                    local_terms(terms, splitter, rule, splits[i][0])
        elif len(parts) > 1:
            if on_progress is not None:
                on_progress(0.0)
            terms_in_workers(terms, splitter, rule, [[splits[i][0] for i in part] for part in parts],
                             on_progress, float(work[-1]))
        else:
            done = 0.0
            for i in order:
                if on_progress is not None:
                    on_progress(done / float(work[-1]))
                done += sizes[i]
                local_terms(terms, splitter, rule, splits[i][0])
        on_progress = None
    for at, (counts, p_counts) in enumerate(splits):
        if on_progress is not None:
            on_progress(float(work[at - 1] / work[-1]) if at else 0.0)
        if not splitter.possible(counts):
            continue
        p_ok = p_ok + p_counts
        if splitter.warns(counts):
            p_warn = p_warn + p_counts
        pooled = test_set_weights(rule, counts, exact)  # the statistic of all N points at once
        for alloc in splitter.allocations(counts):
            p = p_counts * (alloc.probability if exact else float(alloc.probability))
            # a fold's statistic HE_i = c_i + X_i, X_i = sum_k w_ik (losses of its class-k points)
            weights = {tuple(int(x) for x in a): test_set_weights(rule, a, exact) for a, _ in alloc.groups}
            g = group_moments(terms, counts, alloc, lambda a: weights[a][0])
            const = [weights[a][1] for a in g.compositions]
            sizes = [len(I) for I in g.folds]
            he1 = [c + f for c, f in zip(const, g.first)]
            he2 = [c * c + 2 * c * f + s2 for c, f, s2 in zip(const, g.first, g.second)]
            for x, I in enumerate(g.folds):
                idx = list(I)
                fold_first[idx] += p * he1[x]
                fold_second[idx] += p * he2[x]
            # sum_{i != j} E[HE_i HE_j]: the constants' cross terms and the pair terms
            c_sum = sum((n_x * c for n_x, c in zip(sizes, const)), zero)
            f_sum = sum((n_x * f for n_x, f in zip(sizes, g.first)), zero)
            cc = sum((n_x * c * c for n_x, c in zip(sizes, const)), zero)
            cf = sum((n_x * c * f for n_x, c, f in zip(sizes, const, g.first)), zero)
            pairs = c_sum * c_sum - cc + 2 * (c_sum * f_sum - cf) + g.pair_sum([1] * len(sizes))
            pair_total = pair_total + p * pairs
            if average == "folds":  # CE = mean of the fold statistics
                ce1 = inv_v * sum((n_x * h for n_x, h in zip(sizes, he1)), zero)
                ce2 = inv_v * inv_v * (sum((n_x * h for n_x, h in zip(sizes, he2)), zero) + pairs)
            else:  # CE = the statistic of the pooled predictions: c(n) + sum_i X_i with the weights of n
                (w_n, c_n) = pooled
                ratios = [_ratio(w_n, weights[a][0]) for a in g.compositions]
                b = (g.scaled(ratios) if all(r is not None for r in ratios)  # type: ignore[arg-type]
                     else group_moments(terms, counts, alloc, lambda a: w_n))
                x1 = sum((n_x * f for n_x, f in zip(sizes, b.first)), zero)
                x2 = sum((n_x * s2 for n_x, s2 in zip(sizes, b.second)), zero) + b.pair_sum([1] * len(sizes))
                ce1 = c_n + x1
                ce2 = c_n * c_n + 2 * c_n * x1 + x2
            mean = mean + p * ce1
            second = second + p * ce2
    if on_progress is not None:
        on_progress(1.0)
    if p_ok == 0:
        raise _impossible(splitter, N)
    mean, second = mean / p_ok, second / p_ok
    fold_first = [f / p_ok for f in fold_first.tolist()]
    fold_second = fold_second.tolist()
    fold_var = sum((fold_second[i] / p_ok - fold_first[i] ** 2 for i in range(v)), zero) / v
    sum_first = sum(fold_first, zero)
    cross_means = sum_first * sum_first - sum((f * f for f in fold_first), zero)
    cov = (pair_total / p_ok - cross_means) / (v * (v - 1))
    variance = second - mean * mean
    return StratifiedCVMoments(
        splitter=splitter,
        N=N,
        mean=mean,
        variance=variance,
        std=math.sqrt(max(float(variance), 0.0)),
        fold_means=tuple(fold_first),
        fold_variance=fold_var,
        fold_covariance=cov,
        prob_possible=p_ok + dropped if dropped else p_ok,
        prob_warning=p_warn,
        average=average,
        exact=terms.exact,
        classifier=clf,
        seconds=time.perf_counter() - start,
        dropped_mass_bound=dropped,
    )


def likely_class_counts(
    model: CellModel, N: int, mode: str, tail: float, possible: Callable[[tuple[int, ...]], bool]
) -> tuple[list[tuple[tuple[int, ...], Number]], float]:
    """The class-count vectors of ``N`` points that the splitter can split (``possible``), with their
    probabilities, without the least probable ones of total probability at most
    ``tail * P[possible]`` (float mode; exact mode keeps all). Returns the kept vectors in their
    usual order and the probability left out (relative to ``P[possible]`` it is at most ``tail``,
    so the conditional moments move by at most ``2 * tail``)."""
    if isinstance(tail, bool) or not (isinstance(tail, (int, float)) and 0 <= tail < 1):
        raise InvalidArgument(f"tail must be a number in [0, 1), got {tail!r}")
    splits = [(c, p) for c, p in class_count_splits(model, N, mode) if possible(c)]
    if mode == "rational" or tail == 0:
        return splits, 0.0
    budget = tail * sum(float(p) for _, p in splits)
    order = sorted(range(len(splits)), key=lambda i: float(splits[i][1]))
    dropped, cut = 0.0, set()
    for i in order:
        p = float(splits[i][1])
        if dropped + p > budget:
            break
        dropped += p
        cut.add(i)
    return [split for i, split in enumerate(splits) if i not in cut], dropped


# ----------------------------------------------------------------------------- joint with GE_N
@dataclass(frozen=True)
class GEJoint:
    """The terms of the accuracy of stratified CV against ``GE_N`` (result of :func:`stratified_ge_joint`).

    All three are conditional on scikit-learn being able to split the dataset (``prob_possible``),
    like the moments of :func:`stratified_cv_moments`.

    Attributes
    ----------
    joint:
        ``E[CE GE_N]``.
    ge_mean, ge_second:
        ``E[GE_N]`` and ``E[GE_N^2]``.
    prob_possible:
        Probability that scikit-learn can split a dataset of ``N`` i.i.d. points.
    """

    joint: Number | None
    ge_mean: Number
    ge_second: Number | None
    prob_possible: Number


def population_weights(rule: object, model: CellModel, exact: bool) -> tuple[Number, ...]:
    """``rule.population_weights`` of the model's class priors, in the arithmetic of the terms."""
    prior = [model.prior(k) if exact else float(model.prior(k)) for k in range(model.n_classes)]
    omega = rule.population_weights(prior)  # type: ignore[attr-defined]
    return tuple(omega) if exact else tuple(float(x) for x in omega)


def ge_given_counts(terms: ClassCountTerms, counts: Sequence[int], prior: Sequence[Number],
                    *, second: bool = True) -> tuple[Number, Number | None]:
    """``(E[GE_N | n], E[GE_N^2 | n])``: ``GE(T) = sum_l pi_l P[a fresh class-l point is misclassified | T]``,
    so ``GE_N`` is a one-point term and ``GE_N^2`` a two-point term of the full training set
    (``None`` without ``second``)."""
    K = terms.K
    n = tuple(int(c) for c in counts)
    zero: Number = Fraction(0) if terms.exact else 0.0
    e1 = terms.err1(n)
    first = sum((prior[l] * e1[l] for l in range(K) if prior[l]), zero)
    if not second:
        return first, None
    e2 = terms.err2(n)
    two = sum((prior[k] * prior[l] * e2[k, l] for k in range(K) for l in range(K) if prior[k] and prior[l]), zero)
    return first, two


def fold_ge_joint(terms: ClassCountTerms, counts: Sequence[int], a: Sequence[int], prior: Sequence[Number],
                  coef: Sequence[Number] | None = None) -> Number:
    """``E[E_i GE_N | n]`` for a test fold of class composition ``a``: a test point ``t`` of the fold is
    judged by the training set ``C`` (composition ``n - a``) and a fresh point ``u`` by ``C`` plus the
    fold, which holds ``t`` (:meth:`~momentbound.exact.class_terms.ClassCountTerms.two_sets`). With
    ``coef`` the fold's class-``k`` losses count ``coef[k]`` each; ``prior`` weighs the classes of
    ``GE_N`` (the population weights of the statistic)."""
    if coef is not None and not any(coef):
        return Fraction(0) if terms.exact else 0.0
    K = terms.K
    n = tuple(int(c) for c in counts)
    zero: Number = Fraction(0) if terms.exact else 0.0
    common = tuple(n[c] - a[c] for c in range(K))
    h = terms.two_sets(common, (0,) * K, tuple(int(x) for x in a), u_in_1=False, t_in_2=True)
    w = [1] * K if coef is None else coef
    return sum((a[k] * w[k] * prior[l] * h[k, l] for k in range(K) if a[k] and w[k] for l in range(K) if prior[l]),
               zero)


def stratified_ge_joint(
    model: CellModel,
    N: int,
    folds: int | AllocationLaw,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    average: str = "folds",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    joint_too: bool = True,
    metric: object = None,
) -> GEJoint:
    """Exact ``E[CE GE_N]``, ``E[GE_N]`` and ``E[GE_N^2]`` for scikit-learn's ``StratifiedKFold``.

    ``GE_N`` is the error of the classifier trained on all ``N`` points, the training set of a fold
    plus its test fold; given the class counts and the fold compositions every term is a sum over
    the per-class agreement grids (``docs/mathematics.md``, "Accuracy against GE_N"). The same joint
    term serves ``RepeatedStratifiedKFold``: each repetition has the law of one partition.

    Parameters
    ----------
    model, N, folds, classifier, arithmetic, average, rational_max_n, terms:
        As for :func:`stratified_cv_moments`.
    joint_too:
        ``False``: only ``E[GE_N]`` and ``prob_possible`` (the one-point terms; ``joint`` and
        ``ge_second`` are then ``None``).
    metric:
        As for :func:`stratified_cv_moments`; ``GE_N`` is then the statistic's population value
        (e.g. the population recall) of the classifier trained on all ``N`` points.

    Returns
    -------
    GEJoint

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> r = stratified_ge_joint(m, 5, 2, classifier=NaiveBayes(ties="first"))
    >>> r.prob_possible, 0 < r.ge_mean < 1, r.ge_second > r.ge_mean**2
    (Fraction(1, 1), True, True)
    """
    splitter, N, clf = check_arguments(model, N, folds, classifier, arithmetic, average)
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    v = splitter.n_splits
    exact = terms.exact
    zero: Number = Fraction(0) if exact else 0.0
    inv_v: Number = Fraction(1, v) if exact else 1.0 / v
    omega = population_weights(rule, model, exact)
    p_ok = joint = g1 = g2 = zero
    for counts, p_counts in class_count_splits(model, N, terms.mode):
        if not splitter.possible(counts):
            continue
        p_ok = p_ok + p_counts
        ge1, ge2 = ge_given_counts(terms, counts, omega, second=joint_too)
        g1 = g1 + p_counts * ge1
        if not joint_too:
            continue
        g2 = g2 + p_counts * ge2
        w_n, c_n = test_set_weights(rule, counts, exact)
        for alloc in splitter.allocations(counts):
            p = p_counts * (alloc.probability if exact else float(alloc.probability))
            cache: dict[tuple[int, ...], tuple[Number, Number]] = {}
            total = c_n * ge1 if average == "pooled" else zero
            for row in alloc.test:
                a = tuple(int(x) for x in row)
                if a not in cache:  # (constant, E[X_i GE_N | n]) of a fold of composition a
                    w, c = test_set_weights(rule, a, exact)
                    if average == "pooled":
                        cache[a] = (zero, fold_ge_joint(terms, counts, a, omega, w_n))
                    else:
                        cache[a] = (inv_v * c * ge1, inv_v * fold_ge_joint(terms, counts, a, omega, w))
                total = total + cache[a][0] + cache[a][1]
            joint = joint + p * total
    if p_ok == 0:
        raise _impossible(splitter, N)
    if not joint_too:
        return GEJoint(None, g1 / p_ok, None, p_ok)
    return GEJoint(joint / p_ok, g1 / p_ok, g2 / p_ok, p_ok)


# ----------------------------------------------------------------------------- repeated
@dataclass(frozen=True)
class RepeatedStratifiedCVMoments:
    """Exact moments of the mean CV error over ``R`` independent stratified partitions.

    scikit-learn's ``RepeatedStratifiedKFold(n_splits=v, n_repeats=R)`` reshuffles the points of
    each class independently ``R`` times; the class compositions of the folds are the same in
    every repetition (they depend only on the labels).

    Attributes
    ----------
    single:
        The moments of one repetition (:class:`StratifiedCVMoments`).
    repeats:
        ``R`` (an integer, or ``math.inf`` for the limit).
    mean, variance, std:
        ``E`` and ``Var`` of the mean over ``R`` repetitions:
        ``Var(CE)/R + (1 - 1/R) C`` (conditional on the split being possible).
    repeat_covariance:
        ``C = Cov(CE^(1), CE^(2)) = Var(E[CE | data])`` for two independent partitions of the same
        data: the part of the variance that no number of repetitions removes.
    seconds:
        Wall-clock time of the computation.
    """

    single: StratifiedCVMoments
    repeats: float
    mean: Number
    variance: Number
    std: float
    repeat_covariance: Number
    seconds: float


def _hypergeometric(n: int, a: int, b: int, o: int) -> Fraction:
    """``P[|A cap B| = o]`` for independent uniform subsets of sizes ``a`` and ``b`` of ``n`` items."""
    return Fraction(math.comb(a, o) * math.comb(n - a, b - o), math.comb(n, b))


def overlap_needs(terms: ClassCountTerms, counts: Sequence[int] | None,
                  pairs: Iterable[tuple[Sequence[int], Sequence[int]]] = ()) -> None:
    """Tell the term cache which averaged grids :func:`between_partitions` reads for the class counts
    ``counts`` and the test compositions ``pairs``: fold ``i``'s training set ``n - a_i`` with the private
    parts ``a_j - o`` and fold ``j``'s ``n - a_j`` with ``a_i - o``, ``o`` the overlaps (the largest parts
    are those of the smallest overlap). ``None`` ends it. A cache without the hook ignores it."""
    hook = getattr(terms, "overlap_needs", None)
    if hook is None:
        return
    if counts is None:
        hook(None)
        return
    n = tuple(int(c) for c in counts)
    needs: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for a_i, a_j in pairs:
        low = [max(0, a_i[c] + a_j[c] - n[c]) for c in range(len(n))]
        for a, b in ((a_i, a_j), (a_j, a_i)):
            m = tuple(n[c] - int(a[c]) for c in range(len(n)))
            needs.setdefault(m, set()).add(tuple(int(b[c]) - low[c] for c in range(len(n))))
    hook(needs)


def between_partitions(terms: ClassCountTerms, counts: Sequence[int], a_i: Sequence[int], a_j: Sequence[int],
                       coef_i: Sequence[Number] | None = None, coef_j: Sequence[Number] | None = None) -> Number:
    """``E[E_i^(1) E_j^(2)]``: error counts of fold ``i`` of one partition and fold ``j`` of another.

    Within each class the two folds are independent uniform subsets (sizes ``a_ic``, ``a_jc``),
    so their overlap ``o_c`` is hypergeometric. Given the overlaps, the data split into
    ``O = F_i cap F_j``, ``P = F_i - F_j``, ``Q = F_j - F_i`` and the rest ``R``; fold ``i``'s
    classifier is trained on ``Q + R`` and fold ``j``'s on ``P + R``. A test point in ``O`` is
    in neither training set, one in ``P`` trains the second classifier, one in ``Q`` the first;
    a point of ``O`` may be judged by both (``docs/mathematics.md``, "Stratified cross-validation").
    With ``coef_i`` and ``coef_j`` a class-``k`` loss of fold ``i`` (of ``j``) counts ``coef_i[k]``
    (``coef_j[k]``) each.
    """
    K = terms.K
    n = tuple(int(c) for c in counts)
    zero: Number = Fraction(0) if terms.exact else 0.0
    total = zero
    wi = [1] * K if coef_i is None else coef_i
    wj = [1] * K if coef_j is None else coef_j
    if not (any(wi) and any(wj)):
        return zero
    ranges = [range(max(0, a_i[c] + a_j[c] - n[c]), min(a_i[c], a_j[c]) + 1) for c in range(K)]
    overlap_needs(terms, n, [(a_i, a_j)])
    dry = getattr(terms, "dry_run", False)  # a dry run counts the terms asked for, not their values
    for o in itertools.product(*ranges):
        r = tuple(n[c] - a_i[c] - a_j[c] + o[c] for c in range(K))
        q = tuple(a_j[c] - o[c] for c in range(K))
        p = tuple(a_i[c] - o[c] for c in range(K))
        val = zero
        if any(o):
            same = terms.two_sets(r, q, p, u_in_1=False, t_in_2=False, same_point=True)
            if not dry:
                val = val + sum((o[k] * wi[k] * wj[k] * same[k, k] for k in range(K) if o[k] and wi[k] and wj[k]),
                                zero)
        parts = [
            (o, o, False, False),  # t, u in O (distinct points)
            (o, q, True, False),  # t in O, u in Q (trains fold i's classifier)
            (p, o, False, True),  # t in P (trains fold j's classifier), u in O
            (p, q, True, True),  # t in P, u in Q
        ]
        for src_t, src_u, u_in_1, t_in_2 in parts:
            pairs = [
                (k, l, src_t[k] * (src_u[l] - (src_t is src_u and k == l)))
                for k in range(K) if wi[k]
                for l in range(K) if wj[l]
            ]
            pairs = [(k, l, cnt) for k, l, cnt in pairs if cnt]
            if not pairs:
                continue
            g = terms.two_sets(r, q, p, u_in_1=u_in_1, t_in_2=t_in_2)
            if not dry:
                val = val + sum((cnt * wi[k] * wj[l] * g[k, l] for k, l, cnt in pairs), zero)
        if not dry:
            prob = math.prod((_hypergeometric(n[c], a_i[c], a_j[c], o[c]) for c in range(K)), start=Fraction(1))
            total = total + (prob if terms.exact else float(prob)) * val
    return total


def _repeated_between(terms: ClassCountTerms, rule: object, model: CellModel, N: int, splitter: AllocationLaw,
                      average: str) -> Number:
    """``sum_n P(n) E[CE^(1) CE^(2) | n]`` of :func:`repeated_stratified_cv_moments` (over the splittable ``n``)."""
    exact = terms.exact
    v = splitter.n_splits
    zero: Number = Fraction(0) if exact else 0.0
    inv_v: Number = Fraction(1, v) if exact else 1.0 / v
    between = zero
    for counts, p_counts in class_count_splits(model, N, terms.mode):
        if not splitter.possible(counts):
            continue
        w_n, c_n = test_set_weights(rule, counts, exact)
        for alloc in splitter.allocations(counts):
            p = p_counts * (alloc.probability if exact else float(alloc.probability))
            # CE = C + sum_i X_i (the same fold compositions in both partitions): per composition its
            # number of folds and its per-class weights
            groups: dict[tuple[int, ...], int] = {}
            for row in alloc.test:
                groups[tuple(int(x) for x in row)] = groups.get(tuple(int(x) for x in row), 0) + 1
            coef: dict[tuple[int, ...], tuple[Number, ...]] = {}
            C = c_n if average == "pooled" else zero
            for a, count in groups.items():
                w, c = test_set_weights(rule, a, exact)
                coef[a] = w_n if average == "pooled" else tuple(inv_v * x for x in w)
                if average == "folds":
                    C = C + count * inv_v * c
            x1 = zero  # E[sum_i X_i | n, compositions]
            for a, count in groups.items():
                e1 = terms.err1(tuple(n - x for n, x in zip(counts, a)))
                x1 = x1 + count * sum((a[k] * coef[a][k] * e1[k] for k in range(len(a)) if a[k] and coef[a][k]), zero)
            acc = C * C + 2 * C * x1
            for a_i, ni in groups.items():
                for a_j, nj in groups.items():
                    acc = acc + ni * nj * between_partitions(terms, counts, a_i, a_j, coef[a_i], coef[a_j])
            between = between + p * acc
    return between


def repeated_stratified_cv_moments(
    model: CellModel,
    N: int,
    folds: int | AllocationLaw,
    repeats: float,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    average: str = "folds",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    metric: object = None,
) -> RepeatedStratifiedCVMoments:
    """Exact moments of scikit-learn's ``RepeatedStratifiedKFold(v, R)`` mean CV error of naive Bayes.

    ``Var(mean of R) = Var(CE)/R + (1 - 1/R) C`` with ``C = Cov(CE^(1), CE^(2))`` for two
    independent stratified partitions of the same data; ``repeats=math.inf`` gives the limit
    ``C``. The other arguments (``metric`` too) are those of :func:`stratified_cv_moments`.

    Examples
    --------
    >>> import math
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> r = repeated_stratified_cv_moments(m, 5, 2, math.inf, classifier=NaiveBayes(ties="first"))
    >>> 0 < r.repeat_covariance < r.single.variance
    True
    """
    start = time.perf_counter()
    splitter, N, clf = check_arguments(model, N, folds, classifier, arithmetic, average)
    if isinstance(repeats, bool) or not (
        (isinstance(repeats, (int, np.integer)) and repeats >= 1) or repeats == math.inf
    ):
        raise InvalidArgument(f"repeats must be an integer >= 1 or math.inf, got {repeats!r}")
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    mode = terms.mode
    single = stratified_cv_moments(
        model, N, splitter, classifier=clf, arithmetic=mode, average=average, terms=terms, metric=metric
    )
    try:
        between = _repeated_between(terms, rule, model, N, splitter, average)
    finally:
        overlap_needs(terms, None)
    cov = between / single.prob_possible - single.mean * single.mean
    if repeats == math.inf:
        variance = cov
    else:
        R = int(repeats)
        frac = Fraction(1, R) if terms.exact else 1.0 / R
        variance = single.variance * frac + (1 - frac) * cov
    return RepeatedStratifiedCVMoments(
        single=single,
        repeats=repeats,
        mean=single.mean,
        variance=variance,
        std=math.sqrt(max(float(variance), 0.0)),
        repeat_covariance=cov,
        seconds=time.perf_counter() - start,
    )


# ----------------------------------------------------------------------------- work count
class WorkLimitReached(Exception):
    """Raised inside a dry run once its count passes the limit (the estimate is then at least the limit)."""


class TermWork:
    """Stands in for :class:`~momentbound.exact.class_terms.ClassCountTerms` in a dry run of a route:
    it records each distinct term the route asks for (the real run's cache misses) and the work it
    costs, and returns zeros, so the route's own loops run as they do for real.

    A term is a loop over inputs or pairs of inputs, each step a few numpy operations on arrays the
    size of the agreement grids, so its work is counted in two units: ``ops``, the numpy operations
    (each costs a fixed overhead), and ``cells``, the array entries they touch. With ``G_c = (n_c +
    1)^d`` the agreement grid of ``n_c`` class-``c`` points, ``P = prod_c G_c``, ``S = sum_c G_c``,
    ``I`` inputs and ``K`` classes:

    * the decisions of a training composition ``m`` (once per ``m``): ``I`` steps of ``d K P(m)`` cells;
    * ``err1(m)``: ``I`` steps of ``K`` operations and ``K P(m)`` cells;
    * ``err2(m)``: ``I (I + 1) / 2`` input pairs of ``K + 4`` operations and ``K P(m) (S(m) + K)`` cells;
    * ``two_sets`` (a shared part ``c``, training sets ``m_1``, ``m_2``): ``I^2`` input pairs (``I``
      for one shared point) of ``K^2 + 2 K`` operations and ``K^2 P(c) (S(c) + 1)`` cells, and the
      averages over the private parts, ``2 K I 2^d`` of ``K + 1`` operations and
      ``K (P(m_1) + P(m_2)) S(c)`` cells;
    * the laws of agreement pairs, per class built once up to the largest count used: ``I^2`` pairs,
      ``n`` steps of ``min(I, 4^d)`` operations and ``sum_{j <= n} (j + 1)^(2 d)`` cells each;
    * ``calls``: every call of a term (cached or not), the route's own bookkeeping.
    """

    KINDS = ("ops", "cells", "calls")
    #: the terms are zeros: a route may skip the arithmetic on them (:func:`between_partitions`)
    dry_run = True
    #: the dry run counts the 0-1 error's route (a loss matrix costs the same terms)
    loss = None

    def __init__(self, model: CellModel, clf: NaiveBayes, mode: str, limit: float = math.inf,
                 per_unit: dict[str, float] | None = None) -> None:
        self.model, self.clf, self.mode = model, clf, mode
        self.exact = mode == "rational"
        self.K, self.d, self.n_in = model.n_classes, model.d, model.n_inputs
        self.units = dict.fromkeys(self.KINDS, 0.0)
        self._per_unit = per_unit
        self._limit = limit
        self._spent = 0.0
        self._seen: set = set()
        self.cells_by_term: dict[str, float] = {}
        self._grids: dict[tuple[int, ...], tuple[float, float]] = {}
        self._pair_n = [-1] * self.K
        self._zero = Fraction(0) if self.exact else 0.0
        self._zero_table = np.full((self.K, self.K), self._zero, dtype=object if self.exact else float)
        self._zero_table.flags.writeable = False  # the route only reads the terms

    def all_units(self) -> dict[str, float]:
        """The units counted so far, with those of the pair laws."""
        units = dict(self.units)
        sig = min(self.n_in, 4**self.d)
        for n in self._pair_n:
            units["ops"] += self.n_in**2 * (n + 1) * sig
            units["cells"] += self.n_in**2 * sig * sum((j + 1.0) ** (2 * self.d) for j in range(n + 1))
        return units

    def distinct(self) -> dict[str, int]:
        """How many distinct terms of each kind the route computed (the real cache's entries)."""
        kinds = {"decide": 0, "err1": 0, "err2": 0, "two_sets": 0}
        for key in self._seen:
            kinds[key[0] if isinstance(key[0], str) else "two_sets"] += 1
        return kinds

    def seconds(self, per_unit: dict[str, float]) -> float:
        """The units counted, priced with ``per_unit`` (seconds per unit of each of :attr:`KINDS`)."""
        units = self.all_units()
        return sum(units[k] * per_unit[k] for k in self.KINDS)

    def _grid(self, m: tuple[int, ...]) -> tuple[float, float]:
        """``(P(m), S(m))``: the product and the sum of the agreement grid sizes of composition ``m``."""
        if m not in self._grids:
            sides = [(c + 1.0) ** self.d for c in m]
            self._grids[m] = (math.prod(sides), sum(sides))
        return self._grids[m]

    def _add(self, ops: float, cells: float, term: str) -> None:
        self.cells_by_term[term] = self.cells_by_term.get(term, 0.0) + cells
        self.units["ops"] += ops
        self.units["cells"] += cells
        if self._per_unit is not None:
            self._spent += ops * self._per_unit["ops"] + cells * self._per_unit["cells"]
            if self._spent > self._limit:
                raise WorkLimitReached

    def _call(self) -> None:
        self.units["calls"] += 1
        if self._per_unit is not None:
            self._spent += self._per_unit["calls"]

    def _new(self, key: tuple) -> bool:
        self._call()
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _new_pair(self, key: tuple) -> bool:
        """A call of ``two_sets``; True when neither it nor its mirror image was computed before."""
        if (key[0], key[2], key[1], key[4], key[3], key[5]) in self._seen:
            self._call()
            return False
        return self._new(key)

    def _decide(self, m: tuple[int, ...]) -> None:
        if ("decide", m) not in self._seen:
            self._seen.add(("decide", m))
            self._add(self.n_in * 4, self.n_in * self.d * self.K * self._grid(m)[0], "decide")

    def squared(self) -> TermWork:
        return self

    def err1(self, m: Sequence[int]) -> tuple:
        m = tuple(int(c) for c in m)
        if self._new(("err1", m)):
            self._decide(m)
            self._add(self.n_in * self.K, self.n_in * self.K * self._grid(m)[0], "err1")
        return (self._zero,) * self.K

    def err2(self, m: Sequence[int]) -> np.ndarray:
        m = tuple(int(c) for c in m)
        if self._new(("err2", m)):
            self._decide(m)
            self._pair_n = [max(a, b) for a, b in zip(self._pair_n, m)]
            prod, side = self._grid(m)
            pairs = self.n_in * (self.n_in + 1) / 2
            self._add(pairs * (self.K + 4), pairs * self.K * prod * (side + self.K), "err2")
        return self._zero_table

    def cross(self, common: Sequence[int], fold_i: Sequence[int], fold_j: Sequence[int]) -> np.ndarray:
        return self.two_sets(common, fold_j, fold_i, u_in_1=True, t_in_2=True)

    def two_sets(self, common: Sequence[int], base1: Sequence[int], base2: Sequence[int], *, u_in_1: bool,
                 t_in_2: bool, same_point: bool = False) -> np.ndarray:
        key = (tuple(common), tuple(base1), tuple(base2), u_in_1, t_in_2, same_point)
        if self._new_pair(key):
            cc, b1, b2 = key[:3]
            m1 = tuple(c + b for c, b in zip(cc, b1))
            m2 = tuple(c + b for c, b in zip(cc, b2))
            self._decide(m1)
            self._decide(m2)
            self._pair_n = [max(a, b) for a, b in zip(self._pair_n, cc)]
            prod, side = self._grid(cc)
            K, pairs = self.K, (self.n_in if same_point else self.n_in**2)
            averages = 2 * K * self.n_in * 2**self.d
            self._add(pairs * (K * K + 2 * K), pairs * K * K * prod * (side + 1), "two_sets")
            self._add(averages * (K + 1), averages / 2 * K * (self._grid(m1)[0] + self._grid(m2)[0]) * side, "averages")
        return self._zero_table


class StateWork(TermWork):
    """:class:`TermWork` for the terms on per-class states of binary attributes
    (:mod:`momentbound.exact.binary_states`). With ``P(m) = prod_c (m_c + 1)^d`` the state grid of
    composition ``m``, ``I = 2^d`` inputs and ``K`` classes, the units are ``cells`` (numpy entries),
    ``kernel`` (entries of the compiled correlations and shifted sums; numpy entries of object arrays
    in rational arithmetic), ``ops`` and ``calls``:

    * per training composition ``m`` (once): the decisions, ``d K P(m)`` cells, and ``V``, ``I K P(m)``;
    * ``err1(m)``: ``K P(m)`` cells; ``err2(m)``: ``K (K + 1) P(m)``;
    * an average over private parts (a correlation, once per grid, inputs and private part): per
      class ``c`` with ``e_c`` private points, the output grid times ``(e_c + 1)^d`` kernel entries, ``K``
      components;
    * ``two_sets`` with both test points in the other training set: the two sides (once per training
      composition and private part), ``I |k| I |l| P(C)`` kernel entries (half as many when both
      sides are one); one test point there: ``3 I K |l|
      P(C)`` cells; none: ``K (K + 1) P(C)``; one shared point: ``3 I K P(C)``.
    """

    KINDS = ("ops", "cells", "kernel", "calls")
    #: a side's correlation entries at this share of the kernel price: the last pass writes into a pool of
    #: buffers already mapped, with no reflected copy (StratifiedKFold(10) at N = 24, one process: the
    #: sides 33 s of CPU against 47 s when each was copied reflected into pages mapped afresh)
    SIDE_KERNEL = 0.7
    #: the real state route computes its terms in :func:`local_key` order first
    local_order = True

    def __init__(self, model: CellModel, clf: NaiveBayes, mode: str, limit: float = math.inf,
                 per_unit: dict[str, float] | None = None) -> None:
        super().__init__(model, clf, mode, limit, per_unit)
        self.units = dict.fromkeys(self.KINDS, 0.0)
        self._sides = GridCache(BinaryStates.SIDE_BYTES, False)
        self._needs: dict[tuple[int, ...], set[tuple[int, ...]]] | None = None
        self._overlapping = False
        self._chains: dict[tuple[int, ...], tuple[set, float]] = {}  # insertion order: least recent first

    def start_part(self, parts: int) -> None:
        """The next part of the local order runs in a worker process of its own (:func:`terms_in_workers`):
        a cache of sides of its own, ``1 / parts`` of the whole."""
        self._sides = GridCache(BinaryStates.SIDE_BYTES // parts, False)

    def all_units(self) -> dict[str, float]:
        return dict(self.units)

    def _states(self, m: tuple[int, ...]) -> float:
        return math.prod((c + 1.0) ** self.d for c in m)

    def _kernel(self, kernel: float, term: str) -> None:
        self.cells_by_term[term] = self.cells_by_term.get(term, 0.0) + kernel
        self.units["kernel"] += kernel
        if self._per_unit is not None:
            self._spent += kernel * self._per_unit["kernel"]
            if self._spent > self._limit:
                raise WorkLimitReached

    def _decide(self, m: tuple[int, ...]) -> None:
        if ("decide", m) not in self._seen:
            self._seen.add(("decide", m))
            P = self._states(m)
            self._add(30 + self.n_in, (self.d + self.n_in) * self.K * P + P, "decide")

    def _average(self, key: tuple, m: tuple[int, ...], extra: Sequence[int]) -> tuple[float, float]:
        """One correlation of a ``K``-component grid of ``m`` with ``extra`` private points (once per key);
        returns the cells and kernel entries it counted."""
        if key in self._seen:
            return 0.0, 0.0
        self._seen.add(key)
        self._decide(m)
        sides = [c + 1.0 for c in m]
        kernel = ops = 0.0
        for c, e in enumerate(extra):
            if e:
                sides[c] -= e
                kernel += self.K * math.prod(x**self.d for x in sides) * (e + 1.0) ** self.d
                ops += 4
        cells = self.K * math.prod(x**self.d for x in sides)
        self._add(ops, cells, "averages")
        self._kernel(kernel, "averages")
        return cells, kernel

    def _side_cached(self, m: tuple[int, ...], b: tuple[int, ...], classes: Sequence[int]) -> bool:
        """Whether the real run still holds this side: its cache of sides
        (:attr:`~momentbound.exact.binary_states.BinaryStates.SIDE_BYTES`, a ring of buffers in one
        pool) drops the sides whose buffers a new one overwrites, and a dropped side is computed again.
        The replay runs the real cache on buffers it never writes (the pool is not touched)."""
        made = []

        def make() -> list[np.ndarray]:
            made.append(True)
            cc = [x - y for x, y in zip(m, b)]
            n = self.n_in * sum(self.K * math.prod((cc[x] + 1 + (x == c)) ** self.d for x in range(self.K))
                                for c in classes)
            return [self._sides.buffer(n) if 8 * n <= self._sides.limit else np.empty(0)]

        self._sides.get((m, b), make)
        return not made

    def _side(self, m: tuple[int, ...], b: tuple[int, ...], classes: Sequence[int]) -> None:
        """One side of the cross-fold term (:meth:`~momentbound.exact.binary_states.BinaryStates.side`):
        per input, the correlation with ``b - 1`` (clipped at 0) and then, for each class ``c`` of
        ``classes``, one point of every other class with private points, passes shared by a prefix."""
        K, I = self.K, self.n_in
        common = tuple(max(x - 1, 0) for x in b)
        self._decide(m)
        one = self._average(("side-common", m, b, len(self._seen)), m, common)  # the same units for every input
        base = [c + 1.0 - e for c, e in zip(m, common)]
        kernel = cells = 0.0
        done = set()
        for c in classes:
            extra = [int(x != c and b[x] >= 1) for x in range(K)]
            sides = list(base)
            for x in range(K):
                sides[x] -= extra[x]
                if extra[x] and tuple(extra[:x + 1]) not in done:
                    done.add(tuple(extra[:x + 1]))
                    kernel += K * math.prod(v**self.d for v in sides) * 2.0**self.d
            cells += K * math.prod(v**self.d for v in sides)
        self._add(0, (I - 1) * one[0] + I * cells, "averages")
        self._kernel(self.SIDE_KERNEL * ((I - 1) * one[1] + I * kernel), "averages")

    def overlap_needs(self, needs: dict | None) -> None:
        """:meth:`~momentbound.exact.binary_states.BinaryStates.overlap_needs`: the chains of averaged grids
        of the between-partition terms, counted as the real run makes them (the same cache of chains)."""
        from momentbound.exact.binary_states import BinaryStates, chain_bytes, down_set

        if needs is None or self.exact:
            self._needs = None
            self._overlapping = needs is not None
            return
        if not self._overlapping:
            self._sides = GridCache(self._sides.limit, False)  # as the real run: a fresh cache of sides
            self._overlapping = True
        full = {tuple(m): down_set(bs) for m, bs in needs.items()}
        self._needs = full if chain_bytes(self.K, self.d, full) <= BinaryStates.CHAIN_BYTES else None

    def _chain(self, m: tuple[int, ...], b: tuple[int, ...]) -> bool:
        """Whether the real run reads ``(m, b)`` from a chain; counts the passes of a chain made or grown."""
        from momentbound.exact.binary_states import BinaryStates

        if self._needs is None or b not in self._needs.get(m, ()):
            return False
        need = self._needs[m]
        have, _ = self._chains.pop(m, (set(), 0.0))
        new = need - have
        if new:
            K, I = self.K, self.n_in
            kernel = sum(I * K * self._states(tuple(x - y for x, y in zip(m, part))) * 2.0**self.d
                         for part in new if any(part))
            self._decide(m)
            self._add(0, I * K * self._states(m) if (0,) * K in new else 0.0, "chains")
            self._kernel(kernel, "chains")
            have = have | new
        self._chains[m] = (have, 8.0 * _chain_entries(self, m, have))
        held = sum(x[1] for x in self._chains.values())
        for old in [k for k in self._chains if k not in self._needs]:
            if held <= BinaryStates.CHAIN_BYTES:
                break
            held -= self._chains.pop(old)[1]
        return True

    def err1(self, m: Sequence[int]) -> tuple:
        m = tuple(int(c) for c in m)
        if self._new(("err1", m)):
            self._decide(m)
            self._add(4, self.K * self._states(m), "err1")
        return (self._zero,) * self.K

    def err2(self, m: Sequence[int]) -> np.ndarray:
        m = tuple(int(c) for c in m)
        if self._new(("err2", m)):
            self._decide(m)
            self._add(6, self.K * (self.K + 1) * self._states(m), "err2")
        return self._zero_table

    def two_sets(self, common: Sequence[int], base1: Sequence[int], base2: Sequence[int], *, u_in_1: bool,
                 t_in_2: bool, same_point: bool = False) -> np.ndarray:
        key = (tuple(common), tuple(base1), tuple(base2), u_in_1, t_in_2, same_point)
        if not self._new_pair(key):
            return self._zero_table
        K, I = self.K, self.n_in
        cc, b1, b2 = key[:3]
        m1 = tuple(c + b for c, b in zip(cc, b1))
        m2 = tuple(c + b for c, b in zip(cc, b2))
        P = self._states(cc)
        if ("P", cc) not in self._seen:
            self._seen.add(("P", cc))
            self._add(K, P, "two_sets")
        less = lambda b, c: tuple(x - (i == c) for i, x in enumerate(b))  # noqa: E731
        if same_point:
            for ix in range(I):
                for m, b in ((m1, b1), (m2, b2)):
                    if not self._chain(m, b):
                        self._average(("avg", m, ix, b), m, b)
            self._add(3 * I, 3 * I * K * P, "two_sets")
        elif not (u_in_1 or t_in_2):
            for m, b in ((m1, b1), (m2, b2)):
                if not self._chain(m, b):
                    self._average(("sum", m, b), m, b)
            self._add(4, K * (K + 1) * P, "two_sets")
        elif u_in_1 != t_in_2:
            (ma, ba), (mb, bb) = ((m1, b1), (m2, b2)) if u_in_1 else ((m2, b2), (m1, b1))
            ls = [c for c in range(K) if ba[c]]
            for c in ls:
                if not self._chain(ma, less(ba, c)):
                    self._average(("sum", ma, less(ba, c)), ma, less(ba, c))
            for ix in range(I):
                if not self._chain(mb, bb):
                    self._average(("avg", mb, ix, bb), mb, bb)
            self._add(6 * I * len(ls), 3 * I * K * len(ls) * P, "two_sets")
        else:
            ks, ls = [c for c in range(K) if b2[c]], [c for c in range(K) if b1[c]]
            for m, b, classes in ((m1, b1, ls), (m2, b2, ks)):
                if self._chain(m, b) or self._side_cached(m, b, classes):
                    continue
                self._seen.add(("side", m, b))
                self._side(m, b, classes)
            self._add(10, 0, "two_sets")
            n1, n2 = I * len(ls), I * len(ks)  # one side for both: each mirror pair once
            self._kernel((n1 * (n1 + 1) / 2 if (m1, b1) == (m2, b2) else n1 * n2) * P, "two_sets")
        return self._zero_table

    def distinct(self) -> dict[str, int]:
        kinds = {"decide": 0, "err1": 0, "err2": 0, "two_sets": 0}
        for key in self._seen:
            if key[0] in kinds:
                kinds[key[0]] += 1
            elif not isinstance(key[0], str):
                kinds["two_sets"] += 1
        return kinds


def _chain_entries(work: StateWork, m: tuple[int, ...], parts: set) -> float:
    """Entries of a chain of ``m`` with the private parts ``parts``: ``I K`` grids of ``m - b`` each."""
    return work.n_in * work.K * sum(work._states(tuple(x - y for x, y in zip(m, b))) for b in parts)


def term_work(model: CellModel, clf: NaiveBayes, mode: str, limit: float = math.inf,
              per_unit: dict[str, float] | None = None) -> TermWork:
    """The dry-run stand-in of the term cache the exact backend builds for ``model``."""
    cls = StateWork if binary_applies(model.arities) else TermWork
    return cls(model, clf, mode, limit, per_unit)


def unit_prices(model: CellModel, mode: str) -> dict[str, float]:
    """Seconds per unit of :func:`term_work`'s units for ``model`` in arithmetic ``mode``."""
    if binary_applies(model.arities):
        table = PER_UNIT_STATES
        rational = mode == "rational"
        return {"ops": table["ops"], "calls": table["calls"],
                "cells": table["cells_rational" if rational else "cells"],
                "kernel": table["cells_rational" if rational else "kernel"]}
    return {"ops": PER_UNIT["ops"], "calls": PER_UNIT["calls"],
            "cells": PER_UNIT["cells_rational" if mode == "rational" else "cells"]}


# ----------------------------------------------------------------------------- work estimate
#: seconds per work unit of :class:`TermWork` (process CPU time, one BLAS thread, float arithmetic;
#: ``cells_rational`` replaces ``cells`` in rational arithmetic), measured on StratifiedKFold,
#: RepeatedStratifiedKFold, ShuffleSplit and StratifiedShuffleSplit with two and three classes, one
#: and two attributes, N = 12-40 (benchmarks/bench_stratified_work.py, table in benchmarks/RESULTS.md):
#: the least-squares costs of 16 runs, scaled by 1.28 to centre measured / estimated (0.54-1.87)
PER_UNIT = {"ops": 7.8e-6, "cells": 8.6e-11, "cells_rational": 1.75e-8, "calls": 1.38e-5}
#: the same for :class:`StateWork` (binary attributes): the nonnegative least-squares costs of 15 runs
#: (11 of ``bench_stratified_work.py --states``: two and three classes, one to three binary attributes,
#: N = 10-40; and the four runs of ``bench_stratified_multiattr.py``, StratifiedKFold(5) and (10) at
#: N = 30, the repeated and shuffled splitters at N = 20, weighed three times), measured under load 7-8
#: (table in benchmarks/RESULTS.md); the numpy entries get no price of their own there, the kernel
#: entries carry them. The kernel price is that fit times 0.8: the benchmark runs had included the
#: GE terms of the generic engine (now on the states, a fifth of their time), and at load 2.2-2.4 the
#: float runs measured 0.57-0.72 of the fitted estimate against about 1 at load 7-8
PER_UNIT_STATES = {"ops": 3.29e-6, "cells": 0.0, "kernel": 2.06e-9, "cells_rational": 7.03e-8, "calls": 3.45e-5}
#: the dry run stops once the work it has counted passes this many seconds (or the guard's own
#: limit, :func:`dry_run_budget`): the estimate is then a lower bound (:class:`AtLeast`), enough to
#: refuse; the dry run itself costs about the route's bookkeeping (``calls``), a few percent of the
#: estimate
DRY_RUN_LIMIT = 300.0


def auto_arithmetic(model: CellModel, N: int, rational_max_n: int = 12) -> str:
    """The arithmetic of ``arithmetic="auto"``: rational for exact models up to ``rational_max_n`` points."""
    return "rational" if model.is_exact and N <= rational_max_n else "float"


class AtLeast(float):
    """An estimate from a dry run stopped at its budget: the work is more than this many seconds."""


_BUDGET: ContextVar[float] = ContextVar("momentbound_dry_run_budget", default=DRY_RUN_LIMIT)


@contextmanager
def dry_run_budget(seconds: float | None) -> Iterator[None]:
    """Inside the block, the dry runs of :func:`route_seconds` stop once they have counted more than
    ``seconds`` of work (a guard's limit: past it the run is refused whatever the rest adds), and
    return :class:`AtLeast`; ``None`` keeps :data:`DRY_RUN_LIMIT`."""
    token = _BUDGET.set(DRY_RUN_LIMIT if seconds is None else min(float(seconds), DRY_RUN_LIMIT))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def route_seconds(model: CellModel, N: int, route: Callable[[TermWork], object]) -> float:
    """Estimated CPU seconds of an exact class-count route: ``route(work)`` runs it with a
    :class:`TermWork` in place of the term cache (a dry run: the route's loops, no term computed),
    and the units counted are priced with :data:`PER_UNIT`. 0 when no dataset can be split; an
    :class:`AtLeast` when the dry run passed its budget (:func:`dry_run_budget`)."""
    mode = auto_arithmetic(model, N)
    per_unit = unit_prices(model, mode)
    work = term_work(model, NaiveBayes(), mode, _BUDGET.get(), per_unit)
    try:
        route(work)
    except WorkLimitReached:
        return AtLeast(work.seconds(per_unit))
    except ImpossibleSplit:
        return 0.0
    return work.seconds(per_unit)


def stratified_seconds(model: CellModel, N: int, v: int, *, repeated: bool = False) -> float:
    """Estimated seconds of :func:`stratified_cv_moments` (``repeated``: :func:`repeated_stratified_cv_moments`)."""

    def route(work: TermWork) -> object:
        if repeated:
            return repeated_stratified_cv_moments(model, N, v, math.inf, classifier=work.clf, arithmetic=work.mode,
                                                  terms=work)  # type: ignore[arg-type]
        return stratified_cv_moments(model, N, v, classifier=work.clf, arithmetic=work.mode,
                                     terms=work)  # type: ignore[arg-type]

    return route_seconds(model, N, route)
