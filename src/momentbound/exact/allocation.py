"""scikit-learn's ``StratifiedKFold`` described by the class composition of its folds (the law
the exact engine and the Monte Carlo sampler of :class:`~momentbound.splitters.StratifiedKFold` use).

scikit-learn (``sklearn.model_selection.StratifiedKFold._make_test_folds``) encodes the classes
in order of first appearance in ``y``, sorts the encoded labels and deals them round-robin to
the ``v`` folds: fold ``i`` receives ``allocation[i, k] = bincount(sort(y_encoded)[i::v])[k]``
points of class ``k``. The points of each class then receive their fold labels in data order
(shuffled within the class when ``shuffle=True``).

For i.i.d. data this means (``docs/mathematics.md``, "Stratified cross-validation"):

* given the class counts and the order in which the classes first appear, the class
  composition of every test fold is fixed, and which points of a class go to which fold is
  independent of their attributes; so ``shuffle=True`` and ``shuffle=False`` have the same law;
* with three or more classes the compositions depend on the order of first appearance, which
  is random: given the counts ``n_k`` it follows the Plackett-Luce law with weights ``n_k``
  (:func:`first_appearance_orders`).

The round-robin gives class ``k`` (``c_k`` points before it in sorted order) ``n_k // v``
points in every fold plus one more in each fold ``i`` with ``(i - c_k) mod v < n_k mod v``: the
remainders are laid around the ring of folds in order of first appearance.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument

__all__ = [
    "Allocation",
    "AllocationLaw",
    "approximate_mode_law",
    "first_appearance_orders",
    "fold_allocation",
    "size_biased_order",
    "stratified_fold_allocation",
]


def _check_counts(class_counts: object) -> tuple[int, ...]:
    try:
        counts = tuple(class_counts)  # type: ignore[arg-type]
    except TypeError as exc:
        raise InvalidArgument(
            f"class_counts must be a sequence of non-negative integers, got {class_counts!r}"
        ) from exc
    out = []
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or int(c) < 0:
            raise InvalidArgument(
                f"class_counts must be non-negative integers, got {class_counts!r}"
            )
        out.append(int(c))
    if not out or sum(out) == 0:
        raise InvalidArgument(f"class_counts must contain at least one point, got {class_counts!r}")
    return tuple(out)


def _check_splits(v: object, *, name: str = "n_splits") -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer number of folds, got {v!r}")
    if int(v) < 2:
        raise ImpossibleSplit(f"{name} must be at least 2 (scikit-learn's minimum), got {v!r}")
    return int(v)


def _impossible_message(v: int, counts: Sequence[int]) -> str:
    present = [c for c in counts if c]
    return (
        f"StratifiedKFold(n_splits={v}) cannot split class counts {tuple(counts)}: n_splits is "
        f"greater than the number of members in each class (largest class: {max(present)}); "
        f"scikit-learn raises ValueError here. Use n_splits <= {max(present)}"
    )


def stratified_fold_allocation(class_counts: Sequence[int], v: int) -> np.ndarray:
    """scikit-learn's number of points of each class in each test fold.

    Parameters
    ----------
    class_counts:
        ``n_k`` for each class **in order of first appearance** in ``y`` (scikit-learn's
        encoding). A zero entry is a class absent from the data; its column is zero.
    v:
        ``n_splits``.

    Returns
    -------
    numpy.ndarray
        Integer array of shape ``(v, len(class_counts))``: ``allocation[i, k]`` points of class
        ``k`` go to test fold ``i``. Equal to scikit-learn's
        ``[bincount(sort(y_encoded)[i::v]) for i in range(v)]``.

    Raises
    ------
    ImpossibleSplit
        When ``v`` exceeds every class count (scikit-learn raises ``ValueError``). A class with
        fewer than ``v`` members is allowed (scikit-learn only warns): some folds get none of it.

    Examples
    --------
    >>> stratified_fold_allocation([3, 1], 2).tolist()
    [[2, 0], [1, 1]]
    """
    counts = _check_counts(class_counts)
    v = _check_splits(v)
    if all(c < v for c in counts):
        raise ImpossibleSplit(_impossible_message(v, counts))
    out = np.zeros((v, len(counts)), dtype=np.int64)
    i = np.arange(v)
    lo = 0
    for k, n_k in enumerate(counts):
        hi = lo + n_k
        # number of sorted positions j in [lo, hi) with j = i (mod v)
        out[:, k] = (hi - 1 - i) // v - (lo - 1 - i) // v
        lo = hi
    return out


def first_appearance_orders(class_counts: Sequence[int]) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every order of first appearance of the present classes and its probability.

    The labels of ``N`` i.i.d. points with class counts ``n_k`` are a uniformly random
    arrangement of the multiset; the classes then first appear in the order ``sigma`` with the
    Plackett-Luce probability ``prod_j n_{sigma_j} / (n_{sigma_j} + ... + n_{sigma_last})``
    (the first arrival of class ``k`` is the minimum of ``n_k`` i.i.d. exponential clocks).

    Examples
    --------
    >>> dict(first_appearance_orders([3, 1]))
    {(0, 1): Fraction(3, 4), (1, 0): Fraction(1, 4)}
    """
    counts = _check_counts(class_counts)
    present = [k for k, c in enumerate(counts) if c]
    for order in itertools.permutations(present):
        prob = Fraction(1)
        left = sum(counts[k] for k in order)
        for k in order:
            prob *= Fraction(counts[k], left)
            left -= counts[k]
        yield order, prob


@dataclass(frozen=True)
class Allocation:
    """One possible class composition of the test folds and its probability.

    Attributes
    ----------
    probability:
        Probability of this composition given the class counts (exact).
    test:
        ``test[i][k]``: points of class ``k`` (model class index) in test fold ``i`` (scikit-learn's
        fold order).
    """

    probability: Fraction
    test: tuple[tuple[int, ...], ...]

    @property
    def fold_sizes(self) -> tuple[int, ...]:
        return tuple(sum(row) for row in self.test)

    @functools.cached_property
    def groups(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """``((composition, folds), ...)``: the distinct test compositions, each with the folds
        that have it (in order of first fold)."""
        out: dict[tuple[int, ...], list[int]] = {}
        for i, row in enumerate(self.test):
            out.setdefault(row, []).append(i)
        return tuple((row, tuple(folds)) for row, folds in out.items())


@dataclass(frozen=True)
class AllocationLaw:
    """The fold compositions of scikit-learn's ``StratifiedKFold(n_splits)`` given class counts.

    Parameters
    ----------
    n_splits:
        Number of folds ``v >= 2``.

    Examples
    --------
    >>> s = AllocationLaw(2)
    >>> [(a.probability, a.test) for a in s.allocations((3, 1))]
    [(Fraction(3, 4), ((2, 0), (1, 1))), (Fraction(1, 4), ((1, 1), (2, 0)))]
    """

    n_splits: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_splits", _check_splits(self.n_splits))

    def describe(self) -> str:
        return f"StratifiedKFold(n_splits={self.n_splits})"

    def possible(self, class_counts: Sequence[int]) -> bool:
        """False where scikit-learn raises: ``n_splits`` exceeds every class count."""
        return any(c >= self.n_splits for c in _check_counts(class_counts))

    def warns(self, class_counts: Sequence[int]) -> bool:
        """True where scikit-learn warns: a present class has fewer than ``n_splits`` members."""
        counts = _check_counts(class_counts)
        return self.possible(counts) and min(c for c in counts if c) < self.n_splits

    def allocations(self, class_counts: Sequence[int]) -> tuple[Allocation, ...]:
        """Law of the test folds' class compositions given the class counts (model class order).

        Only the classes whose count is not a multiple of ``n_splits`` shift the round-robin,
        so only their relative order of first appearance is enumerated (the induced order on a
        subset of Plackett-Luce is Plackett-Luce with the same weights). Orders that give the
        same compositions are merged.

        Raises
        ------
        ImpossibleSplit
            When ``n_splits`` exceeds every class count.
        """
        counts = _check_counts(class_counts)
        if not self.possible(counts):
            raise ImpossibleSplit(_impossible_message(self.n_splits, counts))
        return _allocations(counts, self.n_splits)


@functools.lru_cache(maxsize=4096)
def _allocations(counts: tuple[int, ...], v: int) -> tuple[Allocation, ...]:
    """:meth:`AllocationLaw.allocations` for validated counts (cached: sweeps and repeated CV ask again)."""
    shifting = [k for k, c in enumerate(counts) if c % v]
    rest = [k for k, c in enumerate(counts) if c and not c % v]
    merged: dict[tuple[tuple[int, ...], ...], Fraction] = {}
    sub = [counts[k] for k in shifting]
    orders = first_appearance_orders(sub) if sub else iter([((), Fraction(1))])
    for rel, prob in orders:
        order = [shifting[j] for j in rel] + rest
        enc = fold_allocation(np.array([counts[k] for k in order], dtype=np.int64), v)
        test = np.zeros((v, len(counts)), dtype=np.int64)
        test[:, order] = enc
        key = tuple(map(tuple, test.tolist()))
        merged[key] = merged.get(key, Fraction(0)) + prob
    return tuple(Allocation(p, t) for t, p in merged.items())


def fold_allocation(class_counts: np.ndarray, v: int) -> np.ndarray:
    """:func:`stratified_fold_allocation`, vectorised: counts in encoded order ``(..., K)`` to the
    allocation ``(..., v, K)``.

    Class ``k`` occupies positions ``[S_k, S_k + n_k)`` of the sorted labels (``S_k`` the counts of
    the classes encoded before it); fold ``i`` gets those positions ``j`` with ``j = i mod v``.

    Examples
    --------
    >>> fold_allocation(np.array([3, 2]), 2).tolist()
    [[2, 1], [1, 1]]
    """
    n = np.asarray(class_counts, dtype=np.int64)
    starts = np.cumsum(n, axis=-1) - n
    ends = starts + n
    i = np.arange(v).reshape((1,) * (n.ndim - 1) + (v, 1))

    def up(a: np.ndarray) -> np.ndarray:  # ceil(a / v) for integers
        return -((-a) // v)

    return up(ends[..., None, :] - i) - up(starts[..., None, :] - i)


def size_biased_order(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random order of first appearance of the classes of i.i.d. data with class ``counts`` ``(r, K)``
    (the Plackett-Luce law of :func:`first_appearance_orders`): ``order[r, e]`` is the class encoded
    ``e``-th, absent classes last. Exponential clocks ``E_k / n_k`` sorted ascending."""
    clocks = rng.exponential(size=counts.shape)
    keys = np.where(counts > 0, clocks / np.maximum(counts, 1), np.inf)
    return np.argsort(keys, axis=1, kind="stable")


def approximate_mode_law(class_counts: Sequence[int], n_draws: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The law of scikit-learn's ``_approximate_mode(class_counts, n_draws, rng)``, float arithmetic included.

    scikit-learn computes ``continuous = class_counts / class_counts.sum() * n_draws`` in float64,
    floors it and gives one more to the classes with the largest float remainders; only the classes
    whose remainders are *equal as floats* are a tie, broken by ``rng.choice`` (a uniform subset).
    Remainders that are equal as rationals may differ in the last bit, and then the same class wins
    every time: class counts ``(2, 6, 12)`` and ``n_draws = 16`` give the first and last class the
    remainders 3/5 in exact arithmetic but ``0x1.3333333333334p-1 > 0x1.3333333333330p-1`` in
    float64, so the first class always wins (``docs/mathematics.md``,
    "Stratified cross-validation"). Classes with a zero count take no draw (scikit-learn only sees
    the classes present).

    Returns ``((draws per class, probability), ...)`` with exact probabilities.

    Examples
    --------
    >>> approximate_mode_law((2, 6, 12), 16)
    (((2, 5, 9), Fraction(1, 1)),)
    >>> approximate_mode_law((3, 3), 3)
    (((2, 1), Fraction(1, 2)), ((1, 2), Fraction(1, 2)))
    """
    counts = np.asarray(_check_counts(class_counts), dtype=np.int64)
    present = np.flatnonzero(counts)
    sub = counts[present]
    continuous = sub / sub.sum() * int(n_draws)  # the operations of scikit-learn, in the same order
    floored = np.floor(continuous)
    need = int(int(n_draws) - floored.sum())
    base = floored.astype(np.int64)
    chosen: list[int] = []
    if need > 0:
        remainder = continuous - floored
        for value in np.sort(np.unique(remainder))[::-1]:
            (group,) = np.where(remainder == value)
            if len(group) <= need:
                chosen += group.tolist()
                need -= len(group)
                if need == 0:
                    break
                continue
            prob = Fraction(1, math.comb(len(group), need))
            out = []
            for extra in itertools.combinations(group.tolist(), need):
                draw = base.copy()
                draw[chosen + list(extra)] += 1
                full = np.zeros_like(counts)
                full[present] = draw
                out.append((tuple(int(x) for x in full), prob))
            return tuple(out)
    draw = base.copy()
    draw[chosen] += 1
    full = np.zeros_like(counts)
    full[present] = draw
    return ((tuple(int(x) for x in full), Fraction(1)),)
