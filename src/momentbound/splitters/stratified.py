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
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.exact.allocation import AllocationLaw, fold_allocation, size_biased_order
from momentbound.splitters.basic import (
    AVERAGE_HELP,
    ExactParts,
    KFold,
    ProgressPlan,
    Split,
    SplitterDefaults,
    average_note,
    check_average,
    check_size,
    folds_and_training,
    kfold_sizes,
)

#: the units of the exact backend's progress bar over the class-count vectors of a stratified split
STRATIFIED_UNITS = 1000

__all__ = ["StratifiedKFold", "stratified_fold_tables"]

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


def check_exact_engine(splitter: Any, engine: Any, covariance: str) -> None:
    """The class-structured exact terms exist for the ``exact`` backend and the exact covariance."""
    if getattr(engine.backend, "name", None) != "exact":
        raise InvalidArgument(
            f"{splitter.describe()} has exact terms for backend='exact' (and Monte Carlo: backend='montecarlo'), "
            f"not for backend {getattr(engine.backend, 'name', engine.backend)!r}"
        )
    if covariance != "exact":
        raise InvalidArgument(
            f"covariance={covariance!r} (the printed Lemma 2) is offered for KFold only; {splitter.describe()} "
            "uses the exact covariance"
        )


def engine_arithmetic(engine: Any, N: int) -> str:
    """``"rational"`` or ``"float"`` as the engine's exact backend would choose for ``N`` points."""
    return str(engine.backend.mode(engine.model, N))


def engine_rule(engine: Any) -> Any:
    """The count rule of the engine's statistic for the class-count routes: its metric (a
    :class:`~momentbound.estimators.metrics.LinearMetric`, which may divide by the class counts of a
    test set), else its loss matrix per test point (``None``: the 0-1 error)."""
    from momentbound.exact.stratified import PointLoss

    metric = getattr(engine, "metric", None)
    if metric is not None and not metric.is_error:
        return metric
    return PointLoss(getattr(engine, "loss", None))


def engine_terms(engine: Any, N: int) -> Any:
    """The :class:`~momentbound.exact.class_terms.ClassCountTerms` of an exact engine for ``N`` points
    and its statistic's loss, kept on the engine so that a splitter's moments and its joint term with
    ``GE_N`` share them."""
    from momentbound.exact.class_terms import ClassCountTerms, as_loss

    mode = engine_arithmetic(engine, N)
    loss = as_loss(engine_rule(engine).base_matrix(engine.model.n_classes), engine.model.n_classes)
    cache = engine.__dict__.setdefault("_class_count_terms", {})
    if (mode, loss) not in cache:
        cache[mode, loss] = ClassCountTerms(engine.model, engine.classifier, mode, loss)
    return cache[mode, loss]


def stratified_ge_terms(splitter: Any, engine: Any, N: int) -> tuple[Any, Any, Any]:
    """The exact joint terms with ``GE_N`` of a stratified k-fold splitter (one partition's law)."""
    from momentbound.exact.stratified import stratified_ge_joint

    check_exact_engine(splitter, engine, "exact")
    r = stratified_ge_joint(engine.model, N, splitter.v, classifier=engine.classifier,
                            arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                            average=splitter.average, metric=engine_rule(engine))
    return r.joint, r.ge_mean, r.ge_second


@dataclass(frozen=True)
class StratifiedKFold(SplitterDefaults):
    """scikit-learn's ``StratifiedKFold(n_splits=v)`` (shuffled or not: the same law for i.i.d. data).

    ``cv=k`` in ``cross_val_score`` of a classifier means this splitter. ``average="folds"`` (the
    default) is the mean of the fold error rates, ``1 - cross_val_score(...).mean()``;
    ``average="pooled"`` the total error count over ``N``. They differ only when ``v`` does not
    divide ``N``.

    Examples
    --------
    >>> StratifiedKFold(3).split(10).fold_sizes
    (4, 3, 3)
    """

    v: int = field(metadata={"help": "Number of folds v (2 <= v <= N)", "flags": ('--folds',)})
    average: str = field(default="folds", metadata={"help": AVERAGE_HELP, "flags": ('--average',)})
    name: ClassVar[str] = "stratified-cv"
    stratified: ClassVar[bool] = True
    linear_metrics: ClassVar[bool] = True
    class_rates: ClassVar[bool] = True
    interval_kind: ClassVar[str | None] = "folds"

    def __post_init__(self) -> None:
        KFold(self.v)  # the same checks on v
        object.__setattr__(self, "v", int(self.v))
        check_average(self.average)

    @property
    def law(self) -> AllocationLaw:
        """The law of the fold class compositions given the class counts (exact engine)."""
        return AllocationLaw(self.v)

    def split(self, N: int) -> Split:
        return Split(KFold(self.v).split(N).N, kfold_sizes(check_size(N), self.v))

    def describe(self) -> str:
        return f"StratifiedKFold(v={self.v}{average_note(self.average)})"

    def params(self) -> dict[str, Any]:
        return {"folds": self.v, "average": self.average}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        from momentbound.exact.stratified import stratified_cv_moments

        split = self.split(N)
        check_exact_engine(self, engine, covariance)
        r = stratified_cv_moments(engine.model, N, self.v, classifier=engine.classifier, average=self.average,
                                  arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                                  on_progress=engine.progress_hook(("stratified", N, self.v)),
                                  metric=engine_rule(engine))
        return ExactParts(r.mean, r.variance + r.mean * r.mean, N - N // self.v, None, self.v, split.fold_sizes,
                          r.fold_variance, r.fold_covariance, split_probability=r.prob_possible)

    def estimated_seconds(self, model: Any, N: int) -> float:
        """Estimated seconds of the exact class-count route (the work guard's estimate)."""
        from momentbound.exact.stratified import stratified_seconds

        return stratified_seconds(model, N, self.v)

    def estimated_memory(self, model: Any, N: int) -> float:
        """Peak memory (bytes, the worker processes included) of the exact route on binary attributes
        (the memory guard's estimate)."""
        from momentbound.exact.stratified import state_memory

        return state_memory(model, N, self.v)

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        """``(E[CE GE_N], E[GE_N], E[GE_N^2])`` conditional on a dataset scikit-learn can split."""
        return stratified_ge_terms(self, engine, N)

    def split_ge_mean(self, engine: Any, N: int) -> float:
        """``E[GE_N]`` given a dataset scikit-learn can split (float arithmetic)."""
        from momentbound.exact.stratified import stratified_ge_joint

        return float(stratified_ge_joint(engine.model, N, self.v, classifier=engine.classifier,
                                         arithmetic="float", joint_too=False, metric=engine_rule(engine)).ge_mean)

    def exact_progress(self, engine: Any, N: int, covariance: str) -> ProgressPlan:
        """The class-count terms have no time estimate: the bar counts :data:`STRATIFIED_UNITS` over
        the class-count vectors (it times its first steps, as Monte Carlo does)."""
        from momentbound.exact.stratified import cached_law_bytes

        return ProgressPlan({("stratified", N, self.v): float(STRATIFIED_UNITS)}, "class-count work units",
                            self.estimated_memory(engine.model, N) or cached_law_bytes(engine.model, N))

    def simulate(self, sim: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        p, K, v = sim.p, sim.K, self.v
        parts = sim.folds(sizes, lambda r, rng: stratified_fold_tables(p, K, N, v, r, rng), average=self.average)
        return sim.with_iid_ge(parts)  # GE of i.i.d. training sets, as the exact backend reports

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, v, cells)``, training tables ``(r, v, cells)``, full
        tables ``(r, cells)``) of ``N`` i.i.d. points that scikit-learn can split."""
        return folds_and_training(stratified_fold_tables(p, K, N, self.v, r, rng))
