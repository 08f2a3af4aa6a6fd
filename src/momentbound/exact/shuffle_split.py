"""Exact moments of scikit-learn's ``ShuffleSplit`` (repeated hold-out) error of naive Bayes.

``ShuffleSplit(n_splits=S, test_size=n_s)`` draws ``S`` independent uniformly random test sets
of ``n_s`` points from the same data and trains on the rest. Given the class counts ``n`` of the
dataset, the class composition ``a`` of a test set is multivariate hypergeometric, and two test
sets overlap like two folds of independent partitions (``docs/mathematics.md``, "Stratified
cross-validation", repeated CV). With ``HE`` the error of one split,

``Var(mean of S) = Var(HE)/S + (1 - 1/S) C``,  ``C = Cov(HE^(1), HE^(2)) = Var(E[HE | data])``.

``StratifiedShuffleSplit`` differs only in the law of the test composition given the class counts:
scikit-learn's ``_approximate_mode`` gives the training part ``floor(n_k n_train / N)`` points of
class ``k`` plus one for the classes with the largest remainders, compared as scikit-learn compares
them, in float64 (only remainders equal as floats are broken uniformly at random), the test part the rest; within each class the test points are a
uniformly random subset, as for ``ShuffleSplit``. Datasets scikit-learn refuses (a class with a
single member, fewer training or test points than classes present) are left out: the moments are
conditional on a split. Each split has the joint law of one hold-out with the data, so the joint
term with ``GE_N`` is that of one split (:func:`shuffle_split_ge_joint`).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.predictions import class_count_splits
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
    rule_terms,
    test_set_weights,
)
from momentbound.model.cells import CellModel
from momentbound.exact.allocation import Allocation, approximate_mode_law

__all__ = ["ShuffleSplitMoments", "shuffle_split_ge_joint", "shuffle_split_moments", "holdout_compositions",
           "stratified_holdout_compositions"]


@dataclass(frozen=True)
class ShuffleSplitMoments:
    """Exact moments of the mean hold-out error over ``n_splits`` random test sets.

    Attributes
    ----------
    N, test_size, n_splits:
        Dataset size, test-set size ``n_s`` and number of splits ``S`` (``math.inf`` for the limit).
    mean:
        ``E[HE]``.
    variance, std:
        ``Var`` of the mean over ``S`` splits, ``Var(HE)/S + (1 - 1/S) C``.
    split_variance:
        ``Var(HE)`` of one split.
    split_covariance:
        ``C = Cov(HE^(1), HE^(2))`` for two independent splits of the same data.
    exact:
        True for exact ``Fraction`` results.
    classifier:
        The naive Bayes classifier.
    seconds:
        Wall-clock time.
    """

    N: int
    test_size: int
    n_splits: float
    mean: Number
    variance: Number
    std: float
    split_variance: Number
    split_covariance: Number
    exact: bool
    classifier: NaiveBayes
    seconds: float
    prob_possible: Number = Fraction(1)


def stratified_holdout_compositions(
    counts: Sequence[int], test_size: int
) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Test compositions of scikit-learn's ``StratifiedShuffleSplit`` and their probabilities
    (empty when scikit-learn refuses the class counts).

    The training part is :func:`~momentbound.exact.allocation.approximate_mode_law` of the
    class counts (scikit-learn's float remainders: only remainders equal as floats are broken by a
    coin); the test part is the rest (scikit-learn's second ``_approximate_mode`` call, on the
    remaining counts with ``test_size`` draws, returns them unchanged when train and test sizes add
    up to ``N``).

    Examples
    --------
    >>> dict(stratified_holdout_compositions((3, 3), 3))  # remainders tie: a fair coin
    {(1, 2): Fraction(1, 2), (2, 1): Fraction(1, 2)}
    >>> dict(stratified_holdout_compositions((2, 6, 12), 4))  # 3/5 and 3/5, but not as floats
    {(0, 1, 3): Fraction(1, 1)}
    """
    N = sum(counts)
    n_train = N - test_size
    present = [k for k, c in enumerate(counts) if c]
    if any(counts[k] == 1 for k in present) or n_train < len(present) or test_size < len(present):
        return
    for train, prob in approximate_mode_law(counts, n_train):
        yield tuple(c - t for c, t in zip(counts, train)), prob


def _compositions(counts: Sequence[int], ns: int, stratified: bool) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    return stratified_holdout_compositions(counts, ns) if stratified else holdout_compositions(counts, ns)


def holdout_compositions(counts: Sequence[int], test_size: int) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Class compositions of a uniform random subset of ``test_size`` points and their probabilities.

    Examples
    --------
    >>> dict(holdout_compositions((2, 1), 2))
    {(1, 1): Fraction(2, 3), (2, 0): Fraction(1, 3)}
    """
    total = math.comb(sum(counts), test_size)
    for a in itertools.product(*(range(min(c, test_size) + 1) for c in counts)):
        if sum(a) == test_size:
            yield a, Fraction(math.prod(math.comb(c, k) for c, k in zip(counts, a)), total)


def _sums(terms: ClassCountTerms, rule: object, model: CellModel, N: int, ns: int,
          stratified: bool) -> tuple[Number, Number, Number, Number]:
    """``E[HE]``, ``E[HE^2]``, ``E[HE^(1) HE^(2)]`` (unnormalised) and the probability of a split of
    :func:`shuffle_split_moments`."""
    exact = terms.exact
    conv = (lambda f: f) if exact else float
    zero: Number = Fraction(0) if exact else 0.0
    first = second = between = p_ok = zero
    for counts, p_counts in class_count_splits(model, N, terms.mode):
        comps = [(a, conv(p)) for a, p in _compositions(counts, ns, stratified)]
        if comps:
            p_ok = p_ok + p_counts
        # one split's statistic HE = c + X, X = sum_k w_k (losses of its class-k test points)
        weights = {a: test_set_weights(rule, a, exact) for a, _ in comps}
        means = {}
        for a, pa in comps:
            (w, c) = weights[a]
            g = conditional_fold_moments(terms, counts, Allocation(Fraction(1), (a,)), lambda _: w)
            means[a] = g.first[0]
            first = first + p_counts * pa * (c + g.first[0])
            second = second + p_counts * pa * (c * c + 2 * c * g.first[0] + g.second[0])
        for a, pa in comps:
            (wa, ca) = weights[a]
            for b, pb in comps:
                (wb, cb) = weights[b]
                cross = ca * cb + ca * means[b] + cb * means[a] + between_partitions(terms, counts, a, b, wa, wb)
                between = between + p_counts * pa * pb * cross
    return first, second, between, p_ok


def shuffle_split_moments(
    model: CellModel,
    N: int,
    test_size: int,
    n_splits: float = 1,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    stratified: bool = False,
    metric: object = None,
) -> ShuffleSplitMoments:
    """Exact mean and variance of the mean error of scikit-learn's ``ShuffleSplit(n_splits, test_size)``.

    Parameters
    ----------
    model, N, classifier, arithmetic, rational_max_n, terms:
        As for :func:`~momentbound.exact.stratified.stratified_cv_moments`.
    test_size:
        Number of test points ``1 <= n_s <= N - 1`` (scikit-learn's integer ``test_size``).
    n_splits:
        ``S >= 1``, or ``math.inf`` for the part of the variance that no number of splits removes.
    stratified:
        ``StratifiedShuffleSplit`` (the moments are then conditional on a dataset scikit-learn can
        split, with probability ``prob_possible``).
    metric:
        As for :func:`~momentbound.exact.stratified.stratified_cv_moments`: each split scores its
        test set with the weights of that set's class composition (the route sums over the
        compositions, so a recall or a balanced error, which divide by the class counts of the test
        set, stay linear given them).

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> one = shuffle_split_moments(m, 5, 2, 1, classifier=NaiveBayes(ties="first"))
    >>> many = shuffle_split_moments(m, 5, 2, 10, classifier=NaiveBayes(ties="first"))
    >>> many.mean == one.mean and many.variance < one.variance
    True
    """
    start = time.perf_counter()
    _, N, clf = check_arguments(model, N, 2, classifier, arithmetic, "pooled")
    if isinstance(test_size, bool) or not isinstance(test_size, (int, np.integer)):
        raise InvalidArgument(f"test_size must be an integer number of test points, got {test_size!r}")
    if not 1 <= int(test_size) <= N - 1:
        raise ImpossibleSplit(f"test_size must be between 1 and N - 1 = {N - 1}, got {test_size}")
    ns = int(test_size)
    if isinstance(n_splits, bool) or not (
        (isinstance(n_splits, (int, np.integer)) and n_splits >= 1) or n_splits == math.inf
    ):
        raise InvalidArgument(f"n_splits must be an integer >= 1 or math.inf, got {n_splits!r}")
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    exact = terms.exact
    conv = (lambda f: f) if exact else float
    try:
        first, second, between, p_ok = _sums(terms, rule, model, N, ns, stratified)
    finally:
        overlap_needs(terms, None)
    if p_ok == 0:
        raise _impossible(N, ns)
    mean = first / p_ok
    var1 = second / p_ok - mean * mean
    cov = between / p_ok - mean * mean
    if n_splits == math.inf:
        variance = cov
    else:
        frac = conv(Fraction(1, int(n_splits)))
        variance = var1 * frac + (1 - frac) * cov
    return ShuffleSplitMoments(
        N=N,
        test_size=ns,
        n_splits=n_splits,
        mean=mean,
        variance=variance,
        std=math.sqrt(max(float(variance), 0.0)),
        split_variance=var1,
        split_covariance=cov,
        exact=terms.exact,
        classifier=clf,
        seconds=time.perf_counter() - start,
        prob_possible=p_ok,
    )


def _impossible(N: int, ns: int) -> ImpossibleSplit:
    return ImpossibleSplit(
        f"StratifiedShuffleSplit cannot split any dataset of N={N} points of this model with test_size={ns} "
        "(a class with a single member, or fewer training or test points than classes); use a larger N "
        "or ShuffleSplit"
    )


def shuffle_split_ge_joint(
    model: CellModel,
    N: int,
    test_size: int,
    *,
    classifier: NaiveBayes | None = None,
    arithmetic: str = "auto",
    rational_max_n: int = 12,
    terms: ClassCountTerms | None = None,
    stratified: bool = False,
    metric: object = None,
) -> GEJoint:
    """Exact ``E[HE GE_N]``, ``E[GE_N]`` and ``E[GE_N^2]`` for one split of (``Stratified``)``ShuffleSplit``.

    The mean of ``S`` splits has the same joint term: each split has the joint law of one hold-out
    with the data. With ``stratified`` everything is conditional on a dataset scikit-learn can split.
    The arguments are those of :func:`shuffle_split_moments` (with ``metric``, ``GE_N`` is the
    statistic's population value).

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    >>> r = shuffle_split_ge_joint(m, 5, 2, classifier=NaiveBayes(ties="first"), stratified=True)
    >>> 0 < r.prob_possible < 1
    True
    """
    _, N, clf = check_arguments(model, N, 2, classifier, arithmetic, "pooled")
    ns = int(test_size)
    rule, terms = rule_terms(model, N, clf, arithmetic, rational_max_n, terms, metric)
    exact = terms.exact
    conv = (lambda f: f) if exact else float
    zero: Number = Fraction(0) if exact else 0.0
    omega = population_weights(rule, model, exact)
    p_ok = joint = g1 = g2 = zero
    for counts, p_counts in class_count_splits(model, N, terms.mode):
        comps = [(a, conv(p)) for a, p in _compositions(counts, ns, stratified)]
        if not comps:
            continue
        p_ok = p_ok + p_counts
        ge1, ge2 = ge_given_counts(terms, counts, omega)
        g1 = g1 + p_counts * ge1
        g2 = g2 + p_counts * ge2
        for a, pa in comps:
            w, c = test_set_weights(rule, a, exact)
            joint = joint + p_counts * pa * (c * ge1 + fold_ge_joint(terms, counts, a, omega, w))
    if p_ok == 0:
        raise _impossible(N, ns)
    return GEJoint(joint / p_ok, g1 / p_ok, g2 / p_ok, p_ok)


def shuffle_split_seconds(model: CellModel, N: int, test_size: int, *, stratified: bool = False) -> float:
    """Estimated seconds of :func:`shuffle_split_moments`: a dry run of the route that counts the work of
    every term it computes (:func:`~momentbound.exact.stratified.route_seconds`)."""
    from momentbound.exact.stratified import route_seconds

    return route_seconds(model, N, lambda work: shuffle_split_moments(
        model, N, test_size, math.inf, classifier=work.clf, arithmetic=work.mode, terms=work,  # type: ignore[arg-type]
        stratified=stratified))
