"""Splitters that re-partition the same data: repeated (stratified) k-fold and (stratified) shuffle-split.

scikit-learn's ``RepeatedKFold(n_splits=v, n_repeats=R)`` and ``RepeatedStratifiedKFold`` run
``R`` independent partitions of the same dataset; ``ShuffleSplit(n_splits=S, test_size=t)`` and
``StratifiedShuffleSplit`` draw ``S`` independent hold-out splits of it. The estimate is the mean
of the ``R`` cross-validation errors (of the ``S`` hold-out errors). With ``e`` the error of one
partition,

``Var(mean of R) = Var(e) / R + (1 - 1/R) C``,  ``C = Cov(e^(1), e^(2)) = Var(E[e | data])``,

the covariance of the errors of two independent partitions of the same data: the part of the
variance that repetition cannot remove (``R = inf``). The Monte Carlo backend draws the datasets
point by point and partitions each twice; ``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``
and ``StratifiedShuffleSplit`` also have exact terms for naive Bayes (class-count routes that take every
linear metric, a fold's recall and balanced error included), and exact joint terms with ``GE_N``
(``docs/mathematics.md``, "Stratified cross-validation" and "Accuracy against GE_N").

``StratifiedShuffleSplit`` mirrors scikit-learn's ``_approximate_mode``: the training part takes
``floor(n_k / N * n_train)`` points of class ``k`` plus one more for the classes with the largest
remainders, compared in float64 as scikit-learn does (only remainders equal as floats are broken at
random, anew for every split); the test part takes the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.exact.allocation import fold_allocation
from momentbound.splitters.basic import (
    AVERAGE_HELP,
    CLASS_COUNT_ROUTES,
    ExactParts,
    HoldOut,
    KFold,
    Split,
    SplitterDefaults,
    average_note,
    check_average,
    kfold_sizes,
)
from momentbound.splitters.stratified import (
    check_exact_engine,
    engine_arithmetic,
    engine_rule,
    engine_terms,
    stratified_ge_terms,
)

__all__ = ["RepeatedKFold", "RepeatedStratifiedKFold", "ShuffleSplit", "StratifiedShuffleSplit"]


def _check_repeats(value: object, name: str) -> float:
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise InvalidArgument(f"{name} must be a positive integer or math.inf, got {value!r}")
    return int(value)


# ----------------------------------------------------------------------------- drawing datasets
@dataclass(frozen=True)
class _Cells:
    """The flat cell probabilities and the number of classes, as the dataset samplers read them."""

    p: np.ndarray
    K: int


#: most repetitions (splits) ``score_folds`` simulates per dataset
MAX_SCORED_REPEATS = 10_000


def _finite(value: float, name: str) -> int:
    if math.isinf(value):
        raise InvalidArgument(f"scoring= simulates the scores of every fold, so {name} must be finite, got inf: "
                              f"give a number of {name} (the limit of many is the exact route of the 0-1 error)")
    if value > MAX_SCORED_REPEATS:
        raise InvalidArgument(f"scoring= simulates the scores of every fold of every one of the {name}: at most "
                              f"{MAX_SCORED_REPEATS:,} {name}, got {int(value):,}; use fewer {name}")
    return int(value)


def _with_training(test: np.ndarray, cells: np.ndarray, n_cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(test, train, full)``: the training table of every fold is the dataset without its test part."""
    r = cells.shape[0]
    full = np.bincount((np.arange(r)[:, None] * n_cells + cells).ravel(), minlength=r * n_cells).reshape(r, n_cells)
    return test, full[:, None, :] - test, full


def _rows(sim: Any, N: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """``r`` datasets of ``N`` i.i.d. points as cell indices ``(r, N)``."""
    return rng.choice(sim.p.size, size=(r, N), p=sim.p)


def fold_count_tables(cells: np.ndarray, labels: np.ndarray, v: int, n_cells: int) -> np.ndarray:
    """Fold count tables ``(r, v, cells)`` from cell indices and fold labels (both ``(r, N)``)."""
    r = cells.shape[0]
    flat = (np.arange(r)[:, None] * v + labels) * n_cells + cells
    return np.bincount(flat.ravel(), minlength=r * v * n_cells).reshape(r, v, n_cells)


def _within_class_rank(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random rank of every point among the points of its class, ``(r, N)``."""
    r, N = y.shape
    keys = y * N + rng.permuted(np.tile(np.arange(N), (r, 1)), axis=1)
    order = np.argsort(keys, axis=1)
    sorted_y = np.take_along_axis(y, order, axis=1)
    pos = np.arange(N)[None, :]
    starts = np.maximum.accumulate(np.where(np.diff(sorted_y, axis=1, prepend=-1) != 0, pos, 0), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, pos - starts, axis=1)
    return rank


def _labels_by_counts(y: np.ndarray, cum: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Fold label of every point: its within-class rank against the cumulative per-class allocation
    ``cum`` ``(r, K, v)`` (fold ``i`` takes ranks ``[cum[i-1], cum[i])`` of each class)."""
    rank = _within_class_rank(y, rng)
    per_point = np.take_along_axis(cum, y[:, :, None].repeat(cum.shape[2], axis=2), axis=1)  # (r, N, v)
    return (per_point <= rank[:, :, None]).sum(axis=2)


def _stratified_allocation(y: np.ndarray, K: int, v: int) -> np.ndarray:
    """scikit-learn's allocation for each dataset, from its labels in data order: ``(r, v, K)``."""
    r, N = y.shape
    counts = np.stack([(y == k).sum(axis=1) for k in range(K)], axis=1)
    first = np.stack([np.where((y == k).any(axis=1), (y == k).argmax(axis=1), N) for k in range(K)], axis=1)
    order = np.argsort(first, axis=1, kind="stable")  # encoding: order of first appearance
    alloc_encoded = fold_allocation(np.take_along_axis(counts, order, axis=1), v)
    alloc = np.empty_like(alloc_encoded)
    np.put_along_axis(alloc, np.broadcast_to(order[:, None, :], alloc.shape), alloc_encoded, axis=2)
    return alloc


# ----------------------------------------------------------------------------- repeated k-fold
@dataclass(frozen=True)
class RepeatedKFold(SplitterDefaults):
    """scikit-learn's ``RepeatedKFold(n_splits=v, n_repeats=R)``: the mean of ``R`` ``KFold(v)`` errors.

    ``repeats`` may be ``math.inf`` (the limit of many repetitions). Each partition's error is the mean
    of its fold error rates (``average="folds"``, what ``cross_val_score`` returns) or the pooled error
    (``average="pooled"``); they differ only when ``v`` does not divide ``N``.
    """

    v: int = field(metadata={"help": "Number of folds v (2 <= v <= N)", "flags": ('--folds',)})
    repeats: float = field(default=10, metadata={"help": "Repetitions R, an integer or inf", "flags": ('--repeats',)})
    average: str = field(default="folds", metadata={"help": AVERAGE_HELP, "flags": ('--average',)})
    name: ClassVar[str] = "repeated-cv"
    stratified: ClassVar[bool] = False

    def __post_init__(self) -> None:
        KFold(self.v)
        object.__setattr__(self, "v", int(self.v))
        object.__setattr__(self, "repeats", _check_repeats(self.repeats, "repeats"))
        check_average(self.average)

    def split(self, N: int) -> Split:
        return KFold(self.v).split(N)

    def describe(self) -> str:
        return f"{type(self).__name__}(v={self.v}, repeats={self.repeats}{average_note(self.average)})"

    def params(self) -> dict[str, Any]:
        return {"folds": self.v, "repeats": None if math.isinf(self.repeats) else self.repeats,
                "average": self.average}

    #: the class-count route weighs every linear statistic, each fold scored on its own test set
    linear_metrics: ClassVar[bool] = True
    #: it sums over the class compositions of the folds, so a fold's recall or balanced error is linear given them
    class_rates: ClassVar[bool] = True

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        """Exact moments by the class-count route (:func:`~momentbound.exact.repeated_kfold.repeated_kfold_moments`)."""
        from momentbound.exact.repeated_kfold import repeated_kfold_moments

        split = self.split(N)
        check_exact_engine(self, engine, covariance)
        r = repeated_kfold_moments(engine.model, N, self.v, self.repeats, classifier=engine.classifier,
                                   average=self.average, arithmetic=engine_arithmetic(engine, N),
                                   terms=engine_terms(engine, N), metric=engine_rule(engine))
        return ExactParts(r.mean, r.variance + r.mean * r.mean, N - N // self.v, None, self.v, split.fold_sizes,
                          r.fold_variance, r.fold_covariance, r.single_variance, r.repeat_covariance)

    def estimated_seconds(self, model: Any, N: int) -> float:
        """Estimated seconds of the exact class-count route (the work guard's estimate)."""
        from momentbound.exact.repeated_kfold import repeated_kfold_seconds

        return repeated_kfold_seconds(model, N, self.v, average=self.average, repeats=self.repeats)

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        """``(E[est GE_N], E[GE_N], E[GE_N^2])``: every repetition has the joint law of one partition."""
        from momentbound.exact.repeated_kfold import repeated_kfold_ge_joint

        check_exact_engine(self, engine, "exact")
        r = repeated_kfold_ge_joint(engine.model, N, self.v, classifier=engine.classifier, average=self.average,
                                    arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                                    metric=engine_rule(engine))
        return r.joint, r.ge_mean, r.ge_second

    def exact_progress(self, engine: Any, N: int, covariance: str) -> None:
        return None  # the class-count route reports no progress

    def _labels(self, y: np.ndarray, K: int, N: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        r = y.shape[0]
        sizes = np.array(kfold_sizes(N, self.v))
        block = np.repeat(np.arange(self.v), sizes)
        if not self.stratified:  # positions are exchangeable: one partition in blocks, one permuted
            return np.tile(block, (r, 1)), rng.permuted(np.tile(block, (r, 1)), axis=1)
        cum = np.cumsum(_stratified_allocation(y, K, self.v), axis=1).transpose(0, 2, 1)  # (r, K, v)
        return _labels_by_counts(y, cum, rng), _labels_by_counts(y, cum, rng)

    def simulate(self, sim: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        K, v, n_cells = sim.K, self.v, sim.p.size

        def sample(r: int, rng: np.random.Generator) -> np.ndarray:
            cells = _rows(sim, N, r, rng)
            first, second = self._labels(cells % K, K, N, rng)
            return np.stack([fold_count_tables(cells, first, v, n_cells), fold_count_tables(cells, second, v, n_cells)], axis=1)

        parts = sim.repeated(sizes, v, sample, self.repeats, average=self.average)
        return sim.with_iid_ge(parts) if self.stratified else parts  # GE of i.i.d. training sets, as exact

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, repeats * v, cells)``, their training tables, full tables
        ``(r, cells)``): ``repeats`` independent partitions of each dataset of ``N`` i.i.d. points (the
        stratified ones of datasets scikit-learn can split), the folds of every partition in turn."""
        R = _finite(self.repeats, "repeats")
        cells = _rows(_Cells(p, K), N, r, rng)
        y = cells % K
        if self.stratified:
            bad = ~np.stack([(y == k).sum(axis=1) >= self.v for k in range(K)], axis=1).any(axis=1)
            while bad.any():  # scikit-learn refuses a dataset where every class has fewer than v members
                cells[bad] = _rows(_Cells(p, K), N, int(bad.sum()), rng)
                y = cells % K
                bad = ~np.stack([(y == k).sum(axis=1) >= self.v for k in range(K)], axis=1).any(axis=1)
            cum = np.cumsum(_stratified_allocation(y, K, self.v), axis=1).transpose(0, 2, 1)
        block = np.repeat(np.arange(self.v), kfold_sizes(N, self.v))
        parts = []
        for _ in range(R):
            labels = (_labels_by_counts(y, cum, rng) if self.stratified
                      else rng.permuted(np.tile(block, (r, 1)), axis=1))
            parts.append(fold_count_tables(cells, labels, self.v, p.size))
        return _with_training(np.concatenate(parts, axis=1), cells, p.size)


@dataclass(frozen=True)
class RepeatedStratifiedKFold(RepeatedKFold):
    """scikit-learn's ``RepeatedStratifiedKFold(n_splits=v, n_repeats=R)``: the mean of ``R``
    ``StratifiedKFold(v, shuffle=True)`` errors on the same data."""

    name: ClassVar[str] = "repeated-stratified-cv"
    stratified: ClassVar[bool] = True
    linear_metrics: ClassVar[bool] = True
    class_rates: ClassVar[bool] = True

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        from momentbound.exact.stratified import repeated_stratified_cv_moments

        split = self.split(N)
        check_exact_engine(self, engine, covariance)
        r = repeated_stratified_cv_moments(engine.model, N, self.v, self.repeats, classifier=engine.classifier,
                                           average=self.average,
                                           arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                                           metric=engine_rule(engine))
        one = r.single
        return ExactParts(r.mean, r.variance + r.mean * r.mean, N - N // self.v, None, self.v, split.fold_sizes,
                          one.fold_variance, one.fold_covariance, one.variance, r.repeat_covariance,
                          one.prob_possible)

    def estimated_seconds(self, model: Any, N: int) -> float:
        """Estimated seconds of the exact class-count route (the work guard's estimate)."""
        from momentbound.exact.stratified import stratified_seconds

        return stratified_seconds(model, N, self.v, repeated=True)

    def estimated_memory(self, model: Any, N: int) -> float:
        """Peak memory (bytes) of the exact route on binary attributes (the memory guard's estimate)."""
        from momentbound.exact.stratified import state_memory

        return state_memory(model, N, self.v, between=True)

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        """``(E[est GE_N], E[GE_N], E[GE_N^2])``: every repetition has the joint law of one partition."""
        return stratified_ge_terms(self, engine, N)


# ----------------------------------------------------------------------------- shuffle-split
def _test_size(test_size: object) -> tuple[int | None, float | None]:
    if isinstance(test_size, (float, np.floating)) and not float(test_size).is_integer():
        HoldOut(test_fraction=float(test_size))  # validates (0, 1)
        return None, float(test_size)
    if isinstance(test_size, bool) or not isinstance(test_size, (int, np.integer, float, np.floating)):
        raise InvalidArgument(f"test_size must be a number of points or a share in (0, 1), got {test_size!r}")
    HoldOut(test_size=int(test_size))
    return int(test_size), None


@dataclass(frozen=True)
class ShuffleSplit(SplitterDefaults):
    """scikit-learn's ``ShuffleSplit(n_splits=S, test_size=t)``: the mean of ``S`` hold-out errors,
    each on an independent random split of the same data (``t`` points, or ``ceil(t N)`` for a share).

    ``splits`` may be ``math.inf``.
    """

    splits: float = field(default=10, metadata={"help": "Number of splits S, an integer or inf", "flags": ('--splits',)})
    test_size: float = field(default=0.1, metadata={"help": "Test points, or a test share in (0, 1) rounded up like scikit-learn", "flags": ('--test-size', '--test-fraction')})
    name: ClassVar[str] = "shuffle-split"
    stratified: ClassVar[bool] = False
    linear_metrics: ClassVar[bool] = True
    class_rates: ClassVar[bool] = True
    interval_kind: ClassVar[str | None] = "splits"

    def __post_init__(self) -> None:
        object.__setattr__(self, "splits", _check_repeats(self.splits, "splits"))
        _test_size(self.test_size)

    def _holdout(self) -> HoldOut:
        size, fraction = _test_size(self.test_size)
        return HoldOut(test_size=size) if size is not None else HoldOut(test_fraction=fraction)

    def split(self, N: int) -> Split:
        return self._holdout().split(N)

    def describe(self) -> str:
        return f"{type(self).__name__}(splits={self.splits}, test_size={self.test_size})"

    def params(self) -> dict[str, Any]:
        return {"splits": None if math.isinf(self.splits) else self.splits, "test_size": self.test_size}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        from momentbound.exact.shuffle_split import shuffle_split_moments

        (ns,) = self.split(N).fold_sizes
        check_exact_engine(self, engine, covariance)
        r = shuffle_split_moments(engine.model, N, ns, self.splits, classifier=engine.classifier,
                                  arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                                  stratified=self.stratified, metric=engine_rule(engine))
        return ExactParts(r.mean, r.variance + r.mean * r.mean, N - ns, ns,
                          single_variance=r.split_variance, repetition_covariance=r.split_covariance,
                          split_probability=r.prob_possible if self.stratified else None)

    def estimated_seconds(self, model: Any, N: int) -> float:
        """Estimated seconds of the exact class-count route (the work guard's estimate)."""
        from momentbound.exact.shuffle_split import shuffle_split_seconds

        (ns,) = self.split(N).fold_sizes
        return shuffle_split_seconds(model, N, ns, stratified=self.stratified)

    def estimated_memory(self, model: Any, N: int) -> float:
        """Peak memory (bytes) of the exact stratified route on binary attributes (the memory guard's
        estimate, folds of about the test size); 0 for the unstratified splits."""
        from momentbound.exact.stratified import state_memory

        (ns,) = self.split(N).fold_sizes
        return state_memory(model, N, max(2, round(N / ns)), between=True) if self.stratified else 0.0

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        """``(E[est GE_N], E[GE_N], E[GE_N^2])``: every split has the joint law of one hold-out."""
        from momentbound.exact.shuffle_split import shuffle_split_ge_joint

        (ns,) = self.split(N).fold_sizes
        check_exact_engine(self, engine, "exact")
        r = shuffle_split_ge_joint(engine.model, N, ns, classifier=engine.classifier,
                                   arithmetic=engine_arithmetic(engine, N), terms=engine_terms(engine, N),
                                   stratified=self.stratified, metric=engine_rule(engine))
        return r.joint, r.ge_mean, r.ge_second

    def split_ge_mean(self, engine: Any, N: int) -> float | None:
        """Stratified: ``E[GE_N]`` given a dataset scikit-learn can split (float arithmetic)."""
        from momentbound.exact.shuffle_split import shuffle_split_ge_joint

        if not self.stratified:
            return None
        (ns,) = self.split(N).fold_sizes
        return float(shuffle_split_ge_joint(engine.model, N, ns, classifier=engine.classifier,
                                            arithmetic="float", stratified=True, metric=engine_rule(engine)).ge_mean)

    def exact_progress(self, engine: Any, N: int, covariance: str) -> None:
        return None  # the class-count route reports no progress

    def _labels(self, y: np.ndarray, K: int, N: int, ns: int, rng: np.random.Generator) -> np.ndarray:
        r = y.shape[0]
        if not self.stratified:
            return rng.permuted(np.tile((np.arange(N) >= ns).astype(np.int64), (r, 1)), axis=1)
        counts = np.stack([(y == k).sum(axis=1) for k in range(K)], axis=1)
        train = _approximate_mode(counts, N - ns, rng)
        cum = np.stack([counts - train, counts], axis=2)  # fold 0 = test: the first n_k - train_k of class k
        return _labels_by_counts(y, cum, rng)

    def simulate(self, sim: Any, N: int) -> Any:
        (ns,) = self.split(N).fold_sizes
        K, n_cells = sim.K, sim.p.size

        def sample(r: int, rng: np.random.Generator) -> np.ndarray:
            cells = _rows(sim, N, r, rng)
            if self.stratified:
                cells = redraw_unsplittable(sim, cells, N, ns, rng)
            y = cells % K
            parts = [fold_count_tables(cells, self._labels(y, K, N, ns, rng), 2, n_cells) for _ in range(2)]
            return np.stack(parts, axis=1)

        parts = sim.repeated((ns, N - ns), 1, sample, self.splits)
        return sim.with_iid_ge(parts) if self.stratified else parts  # GE of i.i.d. training sets, as exact

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, splits, cells)``, their training tables, full tables
        ``(r, cells)``): ``splits`` independent splits of each dataset of ``N`` i.i.d. points (the
        stratified ones of datasets scikit-learn can split)."""
        S = _finite(self.splits, "splits")
        (ns,) = self.split(N).fold_sizes
        cells = _rows(_Cells(p, K), N, r, rng)
        if self.stratified:
            cells = redraw_unsplittable(_Cells(p, K), cells, N, ns, rng)
        y = cells % K
        tests = [fold_count_tables(cells, self._labels(y, K, N, ns, rng), 2, p.size)[:, :1] for _ in range(S)]
        return _with_training(np.concatenate(tests, axis=1), cells, p.size)


@dataclass(frozen=True)
class StratifiedShuffleSplit(ShuffleSplit):
    """scikit-learn's ``StratifiedShuffleSplit(n_splits=S, test_size=t)`` (see the module docstring).

    scikit-learn refuses a dataset where a class has a single member or where the training or test
    part is smaller than the number of classes present; the moments are conditional on a dataset it
    can split (the Monte Carlo backend redraws the others).
    """

    name: ClassVar[str] = "stratified-shuffle-split"
    stratified: ClassVar[bool] = True


def _approximate_mode(counts: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """scikit-learn's ``_approximate_mode`` for every row of ``counts`` ``(r, K)``, in its float64
    arithmetic: floors of ``n_k / N * n_draws`` plus one for the largest float remainders, only
    remainders equal as floats broken uniformly at random; absent classes take none
    (:func:`~momentbound.exact.allocation.approximate_mode_law` is its exact law)."""
    r, K = counts.shape
    total = counts.sum(axis=1, keepdims=True)
    continuous = counts / total * n_draws  # scikit-learn's operations, in its order
    floored = np.floor(continuous)
    need = np.rint(n_draws - floored.sum(axis=1)).astype(np.int64)
    remainder = np.where(counts > 0, continuous - floored, -1.0)
    # rank classes by remainder (descending), exact float ties in a random order
    order = np.lexsort((rng.random((r, K)), -remainder), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(K)[None, :].repeat(r, axis=0), axis=1)
    return floored.astype(np.int64) + (rank < need[:, None])


def _splittable(counts: np.ndarray, N: int, ns: int) -> np.ndarray:
    present = (counts > 0).sum(axis=1)
    return ~(counts == 1).any(axis=1) & (N - ns >= present) & (ns >= present)


def redraw_unsplittable(sim: Any, cells: np.ndarray, N: int, ns: int, rng: np.random.Generator) -> np.ndarray:
    K = sim.K
    for _ in range(10_000):
        counts = np.stack([(cells % K == k).sum(axis=1) for k in range(K)], axis=1)
        bad = ~_splittable(counts, N, ns)
        if not bad.any():
            return cells
        cells[bad] = _rows(sim, N, int(bad.sum()), rng)
    raise ImpossibleSplit(
        f"StratifiedShuffleSplit: almost no dataset of N={N} points can be split under this model (a class "
        "with a single member, or fewer train/test points than classes); use a larger N or ShuffleSplit"
    )


# KFold's recall, class error rates and balanced error: one partition of i.i.d. points has the law of
# one shuffled partition, whose class-count route conditions on every fold's class counts
CLASS_COUNT_ROUTES["kfold"] = lambda v, average: RepeatedKFold(v, 1, average=average)
