"""Exact moments of scikit-learn's ``RepeatedKFold`` (shuffled k-fold, repeated) of naive Bayes.

``RepeatedKFold(n_splits=v, n_repeats=R)`` partitions the same dataset ``R`` times, each time into
scikit-learn's ``KFold`` fold sizes after an independent uniform shuffle, and averages the ``R``
cross-validation statistics. On i.i.d. data one shuffled partition has the law of ``KFold(v)``, so
the mean is ``KFold``'s; the variance is

``Var(mean of R) = Var(CE)/R + (1 - 1/R) C``,  ``C = Cov(CE^(1), CE^(2))``,

``C`` the covariance of the statistics of two independent partitions of the same data
(``docs/mathematics.md``, "Stratified cross-validation", repeated k-fold).

Given the class counts ``n`` of the data, a fold of ``s`` points of a shuffled partition is a
uniform subset: its class composition ``a`` is multivariate hypergeometric, and given ``a`` its
points are uniform within each class. So, with the one-point, same-fold, cross-fold and
between-partition terms of :class:`~momentbound.exact.class_terms.ClassCountTerms`:

* one fold: the law of ``a`` given ``n`` (:func:`~momentbound.exact.shuffle_split.holdout_compositions`);
* two folds of one partition: disjoint uniform subsets, ``P[a, b | n] = P[a | n] P[b | n - a]``;
* a fold of one partition and a fold of another: independent uniform subsets, whose overlap within
  each class is hypergeometric (:func:`~momentbound.exact.stratified.between_partitions`).

A fold's statistic is scored as scikit-learn scores its test set (a rule's ``test_set_weights`` of its
composition), so a recall or a balanced error, which divide by the class counts of the test set, are
linear given the compositions and exact (``average="folds"``, the mean of the fold scores); pooled,
they divide by the class counts of the data.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.exact.allocation import Allocation
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.predictions import class_count_splits
from momentbound.exact.shuffle_split import holdout_compositions
from momentbound.exact.stratified import (
    GEJoint,
    Number,
    between_partitions,
    check_arguments,
    conditional_fold_moments,
    fold_ge_joint,
    ge_given_counts,
    overlap_needs,
    population_weights,
    route_seconds,
    rule_terms,
    test_set_weights,
)
from momentbound.model.cells import CellModel

__all__ = ["RepeatedKFoldMoments", "repeated_kfold_ge_joint", "repeated_kfold_moments", "repeated_kfold_seconds"]

#: ``(per-class weights, constant)`` of a fold's share of the statistic, by its class composition
FoldWeights = Callable[[tuple[int, ...]], tuple[Sequence[Number], Number]]


@dataclass(frozen=True)
class RepeatedKFoldMoments:
    """Exact moments of the mean over ``repeats`` shuffled ``KFold(v)`` partitions of the same data.

    Attributes
    ----------
    N, v, repeats, average:
        Dataset size, folds, repetitions (``math.inf``: the limit) and the statistic of a partition.
    mean:
        ``E[CE]`` (``KFold``'s).
    variance, std:
        ``Var(CE)/R + (1 - 1/R) C``.
    single_variance:
        ``Var(CE)`` of one partition (``KFold``'s).
    repeat_covariance:
        ``C = Cov(CE^(1), CE^(2))`` of two independent partitions of the same data; ``None`` for
        ``R = 1`` (its terms are not computed).
    fold_sizes, fold_variance, fold_covariance:
        scikit-learn's fold sizes, the mean over folds of ``Var(HE_i)`` and over ordered pairs ``i != j``
        of one partition of ``Cov(HE_i, HE_j)`` (``HE_i`` a fold's statistic on its test set).
    exact:
        True for exact ``Fraction`` results.
    seconds:
        Wall-clock time.
    """

    N: int
    v: int
    repeats: float
    average: str
    mean: Number
    variance: Number
    std: float
    single_variance: Number
    repeat_covariance: Number | None
    fold_sizes: tuple[int, ...]
    fold_variance: Number
    fold_covariance: Number
    exact: bool
    classifier: NaiveBayes
    seconds: float


def _sizes(N: int, v: int) -> dict[int, int]:
    """scikit-learn's ``KFold`` fold sizes and how many folds have each."""
    q, r = divmod(N, v)
    out = {q + 1: r, q: v - r}
    return {s: c for s, c in out.items() if c}


def _fold_sums(terms: ClassCountTerms, counts: tuple[int, ...], sizes: dict[int, int], weights: FoldWeights,
               between: bool) -> tuple[dict, dict, dict, dict]:
    """Given the class counts, with ``Y`` a fold's share ``c + X`` of a statistic (``X`` its points' losses
    weighed by class, ``weights``): ``E[Y_s]``, ``E[Y_s^2]`` for a fold of ``s`` points, ``E[Y_s Y_t]`` for two
    folds of one partition and (``between``) for folds of two independent partitions."""
    exact = terms.exact
    conv = (lambda f: f) if exact else float
    comps = {s: [(a, conv(p)) for a, p in holdout_compositions(counts, s)] for s in sizes}
    wc = {a: weights(a) for s in sizes for a, _ in comps[s]}
    m1: dict[int, Number] = {}
    m2: dict[int, Number] = {}
    mu: dict[tuple[int, ...], Number] = {}
    zero: Number = Fraction(0) if exact else 0.0
    for s in sizes:
        m1[s] = m2[s] = zero
        for a, pa in comps[s]:
            w, c = wc[a]
            g = conditional_fold_moments(terms, counts, Allocation(Fraction(1), (a,)), lambda _, w=w: w)
            mu[a] = g.first[0]
            m1[s] = m1[s] + pa * (c + g.first[0])
            m2[s] = m2[s] + pa * (c * c + 2 * c * g.first[0] + g.second[0])
    pair: dict[tuple[int, int], Number] = {}
    cross: dict[tuple[int, int], Number] = {}
    for s in sizes:
        for t in sizes:
            if s == t and sizes[s] < 2:
                continue
            acc = zero
            for a, pa in comps[s]:
                (wa, ca) = wc[a]
                rest = tuple(n - x for n, x in zip(counts, a))
                for b, pb in holdout_compositions(rest, t):
                    (wb, cb) = wc[b]  # b is a composition of t points of the data too
                    g = conditional_fold_moments(terms, counts, Allocation(Fraction(1), (a, b)),
                                                 lambda comp: (wa if comp == a else wb))
                    acc = acc + pa * conv(pb) * (ca * cb + ca * mu[b] + cb * mu[a] + g.pairs[0][2])
            pair[s, t] = acc
    if between:
        for s in sizes:
            for t in sizes:
                acc = zero
                for a, pa in comps[s]:
                    (wa, ca) = wc[a]
                    for b, pb in comps[t]:
                        (wb, cb) = wc[b]
                        val = ca * cb + ca * mu[b] + cb * mu[a] + between_partitions(terms, counts, a, b, wa, wb)
                        acc = acc + pa * pb * val
                cross[s, t] = acc
    return m1, m2, pair, cross


def _statistic_weights(rule: object, counts: tuple[int, ...], v: int, average: str, exact: bool,
                       fold: bool) -> FoldWeights:
    """A fold's share of the statistic: its own test-set score (``fold``), ``1/v`` of it (the mean of the
    fold scores), or its points weighed by the data's class counts (pooled)."""
    inv_v: Number = Fraction(1, v) if exact else 1.0 / v
    if fold:
        return lambda a: test_set_weights(rule, a, exact)
    if average == "folds":
        def share(a: tuple[int, ...]) -> tuple[Sequence[Number], Number]:
            w, c = test_set_weights(rule, a, exact)
            return tuple(inv_v * x for x in w), inv_v * c
        return share
    w_n, c_n = test_set_weights(rule, counts, exact)
    return lambda a: (w_n, inv_v * c_n)


def _check(model: CellModel, N: int, v: int, repeats: float, classifier: NaiveBayes | None, arithmetic: str,
           average: str) -> tuple[int, int, NaiveBayes]:
    _, N, clf = check_arguments(model, N, v, classifier, arithmetic, average)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 2 <= int(v) <= N:
        raise InvalidArgument(f"v must be an integer number of folds between 2 and N = {N}, got {v!r}")
    if isinstance(repeats, bool) or not (
        (isinstance(repeats, (int, np.integer)) and repeats >= 1) or repeats == math.inf
    ):
        raise InvalidArgument(f"repeats must be an integer >= 1 or math.inf, got {repeats!r}")
    return N, int(v), clf


def repeated_kfold_moments(
    model: CellModel,
    N: int,
    v: int,
    repeats: float,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    average: str = "folds",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    metric: object = None,
) -> RepeatedKFoldMoments:
    """Exact moments of scikit-learn's ``RepeatedKFold(n_splits=v, n_repeats=repeats)`` statistic of naive Bayes.

    Parameters
    ----------
    model, N, classifier, arithmetic, rational_max_n, terms, metric:
        As for :func:`~momentbound.exact.stratified.stratified_cv_moments` (``metric``: a count rule,
        ``None`` for the 0-1 error).
    v:
        Folds, ``2 <= v <= N``.
    repeats:
        ``R >= 1`` partitions, or ``math.inf`` for the part of the variance no repetition removes.
    average:
        ``"folds"`` (the mean of the fold scores, ``cross_val_score``) or ``"pooled"``.

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> r = repeated_kfold_moments(m, 5, 2, math.inf, classifier=NaiveBayes(ties="first"))
    >>> 0 < r.repeat_covariance < r.single_variance
    True
    """
    start = time.perf_counter()
    N, v, clf = _check(model, N, v, repeats, classifier, arithmetic, average)
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    exact = terms.exact
    sizes = _sizes(N, v)
    zero: Number = Fraction(0) if exact else 0.0
    first = second = between = zero
    f1 = {s: zero for s in sizes}
    f2 = {s: zero for s in sizes}
    fp: dict[tuple[int, int], Number] = {}
    try:
        for counts, p_counts in class_count_splits(model, N, terms.mode):
            counts = tuple(int(c) for c in counts)
            m1, m2, pair, cross = _fold_sums(terms, counts, sizes,
                                             _statistic_weights(rule, counts, v, average, exact, False), repeats != 1)
            e1 = sum((c * m1[s] for s, c in sizes.items()), zero)
            e2 = sum((c * m2[s] for s, c in sizes.items()), zero)
            e2 = e2 + sum((sizes[s] * (sizes[t] - (s == t)) * val for (s, t), val in pair.items()), zero)
            ec = sum((sizes[s] * sizes[t] * val for (s, t), val in cross.items()), zero)
            first, second, between = first + p_counts * e1, second + p_counts * e2, between + p_counts * ec
            if average == "folds":  # a fold's score is v times its share
                h1, h2, hp = m1, m2, pair
                scale = [v, v * v]
            else:
                h1, h2, hp, _ = _fold_sums(terms, counts, sizes,
                                           _statistic_weights(rule, counts, v, average, exact, True), False)
                scale = [1, 1]
            for s in sizes:
                f1[s] = f1[s] + p_counts * scale[0] * h1[s]
                f2[s] = f2[s] + p_counts * scale[1] * h2[s]
            for key, val in hp.items():
                fp[key] = fp.get(key, zero) + p_counts * scale[1] * val
    finally:
        overlap_needs(terms, None)  # the chains of the between-partition terms
    mean = first
    var1 = second - mean * mean
    cov = None if repeats == 1 else between - mean * mean  # one partition: no second one to covary with
    if repeats == 1:
        variance = var1
    elif repeats == math.inf:
        variance = cov
    else:
        frac: Number = Fraction(1, int(repeats)) if exact else 1.0 / int(repeats)
        variance = var1 * frac + (1 - frac) * cov
    fold_var = sum((c * (f2[s] - f1[s] * f1[s]) for s, c in sizes.items()), zero) / v
    fold_cov = sum((sizes[s] * (sizes[t] - (s == t)) * (val - f1[s] * f1[t]) for (s, t), val in fp.items()),
                   zero) / (v * (v - 1))
    q, r = divmod(N, v)
    return RepeatedKFoldMoments(
        N=N, v=v, repeats=repeats, average=average, mean=mean, variance=variance,
        std=math.sqrt(max(float(variance), 0.0)), single_variance=var1, repeat_covariance=cov,
        fold_sizes=tuple([q + 1] * r + [q] * (v - r)), fold_variance=fold_var, fold_covariance=fold_cov,
        exact=exact, classifier=clf, seconds=time.perf_counter() - start,
    )


def repeated_kfold_ge_joint(
    model: CellModel,
    N: int,
    v: int,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    average: str = "folds",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    metric: object = None,
) -> GEJoint:
    """Exact ``E[CE GE_N]``, ``E[GE_N]`` and ``E[GE_N^2]`` for one shuffled partition (the mean of ``R``
    has the same joint term: every partition has the joint law of one with the data); with ``metric``,
    ``GE_N`` is the statistic's population value. The arguments are those of :func:`repeated_kfold_moments`."""
    N, v, clf = _check(model, N, v, 1, classifier, arithmetic, average)
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    exact = terms.exact
    conv = (lambda f: f) if exact else float
    sizes = _sizes(N, v)
    zero: Number = Fraction(0) if exact else 0.0
    omega = population_weights(rule, model, exact)
    joint = g1 = g2 = zero
    for counts, p_counts in class_count_splits(model, N, terms.mode):
        counts = tuple(int(c) for c in counts)
        ge1, ge2 = ge_given_counts(terms, counts, omega)
        g1, g2 = g1 + p_counts * ge1, g2 + p_counts * ge2
        weights = _statistic_weights(rule, counts, v, average, exact, False)
        for s, count in sizes.items():
            for a, pa in holdout_compositions(counts, s):
                w, c = weights(a)
                joint = joint + p_counts * count * conv(pa) * (c * ge1 + fold_ge_joint(terms, counts, a, omega, w))
    one: Number = Fraction(1) if exact else 1.0
    return GEJoint(joint, g1, g2, one)


def repeated_kfold_seconds(model: CellModel, N: int, v: int, *, average: str = "folds",
                           repeats: float = math.inf) -> float:
    """Estimated seconds of :func:`repeated_kfold_moments`: a dry run of the route that counts the work of
    every term it computes (:func:`~momentbound.exact.stratified.route_seconds`); one repetition skips the
    terms between partitions."""
    return route_seconds(model, N, lambda work: repeated_kfold_moments(
        model, N, v, 1 if repeats == 1 else math.inf, classifier=work.clf, arithmetic=work.mode,
        terms=work, average=average))  # type: ignore[arg-type]
