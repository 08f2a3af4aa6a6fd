"""scikit-learn's stratified splitters: ``StratifiedKFold`` and ``StratifiedShuffleSplit``.

``StratifiedKFold(v)`` (scikit-learn ``StratifiedKFold._make_test_folds``): the classes present in
the data are encoded in order of first appearance; with ``y_order`` the sorted encoded labels,
test fold ``i`` receives ``allocation[i, k] = #{j : j = i mod v, y_order[j] = k}`` points of class
``k``, and the points of each class are assigned to folds in data order (shuffled within the class
when ``shuffle=True``). For i.i.d. data:

* the fold sizes are those of ``KFold`` (position ``j`` of ``y_order`` goes to fold ``j mod v``);
* given the class counts and the order of first appearance, the fold compositions are fixed and the
  assignment within a class is uniformly random, so ``shuffle=True`` and ``shuffle=False`` have the
  same law;
* the order of first appearance is random: it is the size-biased order of the classes (the first
  class is ``k`` with probability ``n_k / N``, the next among the others in proportion to their
  counts, and so on). With two classes it does not change the multiset of fold compositions; with
  three or more it can.

scikit-learn raises when ``v`` exceeds the count of every class: the moments are those
conditional on a dataset it can split (the Monte Carlo backend redraws the others).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.estimators.estimators import ExactParts, KFold, Split, check_size, kfold_sizes

__all__ = [
    "StratifiedKFold",
    "fold_allocation",
    "size_biased_order",
    "stratified_fold_tables",
]

def fold_allocation(class_counts: np.ndarray, v: int) -> np.ndarray:
    """scikit-learn's test-fold class allocation, vectorised: counts in encoded order ``(..., K)``
    to ``allocation`` of shape ``(..., v, K)``.

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
    """Random order of first appearance of the classes of i.i.d. data with class ``counts`` ``(r, K)``:
    ``order[r, e]`` is the class encoded ``e``-th (absent classes last). Exponential clocks
    ``E_k / n_k`` sorted ascending give the size-biased order."""
    clocks = rng.exponential(size=counts.shape)
    with np.errstate(divide="ignore"):
        keys = np.where(counts > 0, clocks / np.maximum(counts, 1), np.inf)
    return np.argsort(keys, axis=1, kind="stable")


def stratified_fold_tables(
    p: np.ndarray, K: int, N: int, v: int, r: int, rng: np.random.Generator
) -> np.ndarray:
    """``r`` draws of the fold count tables of ``StratifiedKFold(v)`` on ``N`` i.i.d. points:
    ``(r, v, cells)`` (cell order: input major, class fastest; ``p`` the flat cell probabilities)."""
    cells = p.reshape(-1, K)  # (inputs, K)
    prior = cells.sum(axis=0)
    cond = np.where(prior > 0, cells / np.where(prior > 0, prior, 1), 1.0 / cells.shape[0]).T  # (K, inputs)
    counts = _possible_class_counts(prior, N, v, r, rng)
    order = size_biased_order(counts, rng)
    encoded = np.take_along_axis(counts, order, axis=1)
    alloc_encoded = fold_allocation(encoded, v)  # (r, v, K) in encoded order
    alloc = np.empty_like(alloc_encoded)
    np.put_along_axis(alloc, np.broadcast_to(order[:, None, :], alloc.shape), alloc_encoded, axis=2)
    tables = rng.multinomial(alloc, cond)  # (r, v, K, inputs)
    return np.ascontiguousarray(tables.transpose(0, 1, 3, 2)).reshape(r, v, -1)


def _possible_class_counts(prior: np.ndarray, N: int, v: int, r: int, rng: np.random.Generator) -> np.ndarray:
    counts = rng.multinomial(N, prior, size=r)
    bad = ~(counts >= v).any(axis=1)
    while bad.any():  # conditional on a split scikit-learn can make (rare: see IMPOSSIBLE_TOLERANCE)
        counts[bad] = rng.multinomial(N, prior, size=int(bad.sum()))
        bad = ~(counts >= v).any(axis=1)
    return counts


@dataclass(frozen=True)
class StratifiedKFold:
    """scikit-learn's ``StratifiedKFold(n_splits=v)`` (shuffled or not: the same law for i.i.d. data).

    ``cv=k`` in ``cross_val_score`` of a classifier means this splitter. ``CE`` is the total error
    count over ``N``, as for :class:`~momentbound.estimators.KFold` (the mean of the fold scores
    when ``v`` divides ``N``).

    Examples
    --------
    >>> StratifiedKFold(3).split(10).fold_sizes
    (4, 3, 3)
    """

    v: int
    name: ClassVar[str] = "stratified-cv"

    def __post_init__(self) -> None:
        KFold(self.v)  # the same checks on v
        object.__setattr__(self, "v", int(self.v))

    def split(self, N: int) -> Split:
        return Split(KFold(self.v).split(N).N, kfold_sizes(check_size(N), self.v))

    def describe(self) -> str:
        return f"StratifiedKFold(v={self.v})"

    def params(self) -> dict[str, Any]:
        return {"folds": self.v}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        from momentbound.exact.stratified import stratified_parts

        self.split(N)
        return stratified_parts(engine, N, self, covariance)

    def simulate(self, sim: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        p, K, v = sim.p, sim.K, self.v
        return sim.folds(sizes, lambda r, rng: stratified_fold_tables(p, K, N, v, r, rng))
