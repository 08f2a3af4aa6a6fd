"""The ``exact`` backend: prediction probabilities by summing over sufficient counts."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from momentbound.errors import InvalidArgument, MemoryLimitExceeded
from momentbound.guard import physical_memory  # noqa: F401  (re-exported: defined with the other limits)
from momentbound.exact import binary_states, cross1d, predictions, reduced_states, two_class_predictions
from momentbound.classifiers.naive_bayes import KEY_TIE_RULES, NaiveBayes
from momentbound.model.cells import CellModel
from momentbound.probability.base import PredictionBackend, check_classifier, check_count, check_model

__all__ = ["ExactBackend", "ARITHMETICS", "WorkItem", "make_exact_backend"]

ARITHMETICS = ("auto", "rational", "float")
#: memory limit of the dense matrices of the one-attribute cross terms (bytes)
CROSS_MEMORY_BYTES = 2 * 2**30


#: measured peaks of the multi-attribute cross terms reach this multiple of their estimate
MEMORY_MARGIN = 1.3


@dataclass(frozen=True)
class WorkItem:
    """One costly term of an estimator's exact moments (:meth:`ExactBackend.work_plan`).

    ``key`` names the term as the moment engine computes it: ``("pair", n)`` for the pair terms
    of ``E[GE_n^2]``, ``("cross", n_common, s, t)`` (``s >= t``) for the cross-validation cross
    term of two folds of sizes ``s`` and ``t``. ``seconds`` is its estimated time on one core,
    ``memory`` its estimated peak memory (bytes). Both are rough (within a few times).
    """

    key: tuple[object, ...]
    seconds: float
    memory: float


#: the largest sample size of the estimator call in progress (:func:`call_sample_size`): ``"auto"``
#: chooses one arithmetic for all of a call's terms, from its largest sample size
_CALL_SIZE: ContextVar[int] = ContextVar("momentbound_call_size", default=0)


@contextmanager
def call_sample_size(N: int) -> Iterator[None]:
    """Within the block, ``arithmetic="auto"`` decides on ``max(n, N)`` for a term at sample size
    ``n``: the terms of one call at ``N`` points (its training sets of ``n < N`` points included) all
    take the arithmetic of ``N``, as the class-count routes of the call do."""
    token = _CALL_SIZE.set(max(int(N), _CALL_SIZE.get()))
    try:
        yield
    finally:
        _CALL_SIZE.reset(token)


class ExactBackend(PredictionBackend):
    """Exact prediction probabilities (docs/mathematics.md, sections 'Generalization error' to
    'The decision statistic Z').

    Parameters
    ----------
    arithmetic:
        ``"rational"``: exact ``Fraction`` results (needs an exact model); ``"float"``:
        floating point sums (comparisons of scores stay exact); ``"auto"``: rational when the
        model is exact and every sample size is at most ``rational_max_n``.
    rational_max_n:
        Size limit of ``"auto"`` for rational arithmetic.
    max_work:
        The generic engine (more than two classes, or a cross term with several attributes)
        refuses (``InvalidArgument``) calls whose estimated number of state combinations exceeds
        this, instead of running for hours; use ``backend="sampling"`` there.
    tail:
        Float arithmetic only: class-count splits outside a window whose Hoeffding tail bound
        is at most ``tail`` are not summed, and large class laws are read on DFT windows that hold
        all but ``tail`` of their mass (two-class fast paths); the resulting error bound of every
        float result (the largest so far is kept in :attr:`dropped_mass_bound`) is of order
        ``tail``, plus rounding (~1e-12). Rational results are always exact.
    max_memory:
        Bytes the cross terms of several attributes may hold: a term whose estimated peak
        (:func:`momentbound.exact.reduced_states.memory_estimate`; measured peaks are 0.5-1.3
        times it), times 1.3, exceeds this is refused (``MemoryLimitExceeded``, an
        ``InvalidArgument``) before anything is computed. ``None``: 80% of the memory this
        process may use (:func:`physical_memory`; the cgroup limit in a container).

    Examples
    --------
    >>> from momentbound.model import independent_1d_model
    >>> ExactBackend().single(independent_1d_model("2/5"), 2, (0,))
    array([Fraction(17, 40), Fraction(23, 40)], dtype=object)
    """

    name: ClassVar[str] = "exact"
    kind_name: ClassVar[str] = "EXACT"

    def __init__(
        self, arithmetic: str = "auto", rational_max_n: int = 12, tail: float = 1e-13, max_work: float = 2e9,
        max_memory: float | None = None,
    ) -> None:
        if arithmetic not in ARITHMETICS:
            raise InvalidArgument(f"arithmetic must be one of {ARITHMETICS}, got {arithmetic!r}")
        if isinstance(rational_max_n, bool) or not isinstance(rational_max_n, int) or rational_max_n < 0:
            raise InvalidArgument(f"rational_max_n must be an integer >= 0, got {rational_max_n!r}")
        if isinstance(tail, bool) or not isinstance(tail, (int, float)) or not 0 <= tail < 1:
            raise InvalidArgument(f"tail must be a number in [0, 1), got {tail!r}")
        self.arithmetic = arithmetic
        self.rational_max_n = rational_max_n
        self.tail = float(tail)
        if isinstance(max_work, bool) or not isinstance(max_work, (int, float)) or not max_work > 0:
            raise InvalidArgument(f"max_work must be a positive number, got {max_work!r}")
        self.max_work = float(max_work)
        if max_memory is None:
            max_memory = 0.8 * physical_memory()
        elif isinstance(max_memory, bool) or not isinstance(max_memory, numbers.Real) or not max_memory > 0:
            raise InvalidArgument(f"max_memory must be a positive number of bytes or None, got {max_memory!r}")
        try:
            self.max_memory = float(max_memory)
        except OverflowError:
            self.max_memory = math.inf
        self.dropped_mass_bound = 0.0
        self._tables: dict[tuple[object, ...], two_class_predictions.TwoClassTables] = {}
        #: binary attributes, float: the pair probabilities by model, classifier and training size
        self._states: dict[tuple[object, ...], np.ndarray] = {}

    def _check_work(self, model: CellModel, kind: str, sizes: tuple[int, ...], inputs: tuple[tuple[int, ...], ...]) -> None:
        work = predictions.work_estimate(model, kind, sizes, inputs)
        if work > self.max_work:
            raise InvalidArgument(
                f"the exact {kind} term for this model (d = {model.d}, K = {model.n_classes}, sizes {sizes}) "
                f"would visit about {work:.2g} state combinations (max_work = {self.max_work:.2g}); "
                "use backend='montecarlo' (estimator moments by conditional Monte Carlo), "
                "backend='sampling', a smaller N, or raise max_work"
            )

    def _two_class_tables(
        self, model: CellModel, inputs: tuple[tuple[int, ...], ...], n: int, clf: NaiveBayes
    ) -> two_class_predictions.TwoClassTables:
        space = predictions.ComponentSpace(model.arities, inputs)
        key = (model, space.comps, space.implicit, clf.alpha_exact)
        cached = self._tables.get(key)
        if cached is not None and cached.n_max >= n and (cached.laws is None) == (n > two_class_predictions.TwoClassTables.RECURSION_MAX):
            cached_inputs = cached.inputs
            if all(x in cached_inputs for x in inputs):
                return cached
        n_build = n
        if cached is not None and n <= two_class_predictions.TwoClassTables.RECURSION_MAX and cached.laws is not None:
            if n > cached.n_max:
                # growing sizes (sweeps): build ahead so the tables are not rebuilt for every n
                n_build = min(two_class_predictions.TwoClassTables.RECURSION_MAX, max(n, 2 * cached.n_max))
            else:  # new inputs at a size the cache covers: the same size, for the inputs of both
                n_build = cached.n_max
            union = tuple(dict.fromkeys(cached.inputs + tuple(inputs)))
            whole = predictions.ComponentSpace(model.arities, union)
            if (whole.comps, whole.implicit) == (space.comps, space.implicit):
                inputs = union
        tables = two_class_predictions.TwoClassTables(model, inputs, n_build, clf, tail=self.tail)
        if len(self._tables) >= 8:
            self._tables.pop(next(iter(self._tables)))
        self._tables[key] = tables
        return tables

    def _fast(self, model: CellModel, n: int, clf: NaiveBayes, mode: str) -> bool:
        return (mode == "float" and model.n_classes == 2 and clf.ties in KEY_TIE_RULES
                and two_class_predictions.fits_int64(model, n, clf))

    def mode(self, model: CellModel, n: int) -> str:
        """``"rational"`` or ``"float"`` for a computation with total sample size ``n``."""
        if self.arithmetic == "rational":
            if not model.is_exact:
                raise InvalidArgument(
                    "arithmetic='rational' needs an exact model (Fraction cells); pass exact "
                    "probabilities like '1/8' or use arithmetic='float'"
                )
            return "rational"
        if self.arithmetic == "float":
            return "float"
        return "rational" if model.is_exact and max(n, _CALL_SIZE.get()) <= self.rational_max_n else "float"

    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> np.ndarray:
        mode = self.mode(model, n)
        if (mode == "float" and model.n_classes == 2 and clf.alpha_exact == 0 and clf.ties in KEY_TIE_RULES
                and n > two_class_predictions.TwoClassTables.RECURSION_MAX):
            return self._single_from_z(model, n, x, clf)
        if self._fast(model, n, clf, mode):
            tables = self._two_class_tables(model, (x,), n, clf)
            out = two_class_predictions.single_two_class(model, n, x, clf, tables, tail=self.tail)
            self._note_tail(model, n, tables)
            return out
        if mode == "float" and binary_states.applies(model.arities):
            ix = self._input_index(model, x)
            return self._state_pairs(model, n, clf)[ix, :, ix, :].sum(axis=1)
        self._check_work(model, "single", (n,), (x,))
        return predictions.single_probabilities(model, n, x, clf, mode)

    def estimated_seconds(self, model: CellModel, n: int, clf: NaiveBayes) -> float:
        """A rough estimate of the wall-clock seconds of the pair terms at training size ``n``.

        Covers the two-class fast path, the per-class states of binary attributes in float arithmetic
        (:meth:`state_seconds`) and the generic engine (:meth:`generic_seconds`, also guarded by ``max_work``).
        Calibrated on one core: the dense class laws have ``size^D`` states (``D`` the
        number of component counts of an input pair, ``size`` the DFT window), combined
        for each of the ``n + 1`` class splits and each pair of inputs (measured, CPU seconds of
        ``GE``: the 2x2x2 model of two binary attributes 1.3 s at n = 200 and 4.3 s at n = 400;
        three binary attributes 13.3 s at n = 40 and 47.4 s at n = 60; one attribute at n = 1e6
        about 85 s).
        """
        import math

        from momentbound.exact.dft_laws import dft_window_size

        mode = self.mode(model, n)
        if not self._fast(model, n, clf, mode):
            if mode == "float" and binary_states.applies(model.arities):
                return self.state_seconds(model, n)
            return self.generic_seconds(model, n, mode)
        x0, x1 = (0,) * model.d, (1,) * model.d
        D = predictions.ComponentSpace(model.arities, (x0, x1)).dim
        n_pairs = model.n_inputs * (model.n_inputs + 1) / 2
        if D == 1:
            return 1e-3 * n_pairs * n**0.75
        size = n + 1
        if n > two_class_predictions.TwoClassTables.RECURSION_MAX:
            size = dft_window_size(n, D, self.tail)
        return 5.2e-8 * 3.0 ** (D - 2) * n_pairs * (n + 1) * float(size) ** D

    #: CPU seconds per state combination of the generic engine's single and pair terms
    #: (:func:`~momentbound.exact.predictions.work_estimate` summed over the inputs and the pairs of
    #: inputs), one BLAS thread, three classes and two binary attributes: rational 17.5 us (GE terms
    #: 10.3 s at n = 8, 39.8 s at n = 10), float 35 ns where it matters (27.3 s at n = 24; 2.0 s at
    #: n = 16, 0.24 s at n = 10, 43 and 100 ns per state)
    GENERIC_PER_STATE: ClassVar[dict[str, float]] = {"rational": 1.75e-5, "float": 3.5e-8}

    def generic_seconds(self, model: CellModel, n: int, mode: str) -> float:
        """Estimated CPU seconds of the generic engine's ``E[GE_n]`` and ``E[GE_n^2]`` in arithmetic ``mode``."""
        xs = list(model.inputs())
        states = sum(predictions.work_estimate(model, "single", (n,), (x,)) for x in xs)
        states += sum(predictions.work_estimate(model, "pair", (n,), (x, y)) for i, x in enumerate(xs) for y in xs[i:])
        return self.GENERIC_PER_STATE[mode] * float(states)

    #: CPU seconds per state and prediction row (input and class) of the pair terms on the per-class
    #: states (binary attributes, float): three classes and two binary attributes, 4.8 s at n = 24 and
    #: 10.4 s at n = 27 (6.7e8 and 1.6e9 units; the generic engine took 24.4 s at n = 24)
    STATES_PER_UNIT: ClassVar[float] = 7e-9

    @staticmethod
    def state_units(model: CellModel, n: int) -> float:
        """``I K sum_m prod_c (m_c + 1)^d`` over the class-count vectors ``m`` of ``n`` points: the
        entries of the prediction grids the pair terms on the per-class states read."""
        K, rows = model.n_classes, model.n_inputs * model.n_classes
        if n > 5000:  # far past any limit: the number of vectors times the largest grid, an upper bound
            log_units = (math.log(rows) + math.lgamma(n + K) - math.lgamma(n + 1) - math.lgamma(K)
                         + model.d * K * math.log(n / K + 1.0))
            return math.exp(log_units) if log_units < 700 else math.inf
        per_class = (np.arange(n + 1, dtype=float) + 1.0) ** model.d
        total = np.ones(1)  # coefficients of the product of the classes' series, up to z^n
        for _ in range(K):
            total = np.convolve(total, per_class)[:n + 1]
        return rows * float(total[n])

    def state_seconds(self, model: CellModel, n: int) -> float:
        """Estimated CPU seconds of ``E[GE_n]`` and ``E[GE_n^2]`` on the per-class states (binary attributes)."""
        return self.STATES_PER_UNIT * self.state_units(model, n)

    def _note_tail(self, model: CellModel, n: int, tables: two_class_predictions.TwoClassTables) -> None:
        """Error bound: dropped class splits, plus (DFT windows) twice the outside mass of
        each of the two class laws."""
        from momentbound.exact.dft_laws import hoeffding_window

        bound = hoeffding_window(n, float(model.prior(0)), self.tail)[2] + 4.0 * tables.max_outside
        self.dropped_mass_bound = max(self.dropped_mass_bound, bound)

    def _single_from_z(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> np.ndarray:
        """Two classes, ``alpha = 0``: ``g(0)`` from the law of ``Z_x`` plus the exact empty-class
        correction (see :mod:`momentbound.probability.moment_backends`)."""
        from momentbound.exact.zlaw import prob_z_positive
        from momentbound.probability.moment_backends import empty_class_corrections

        r = prob_z_positive(model, n, x, arithmetic="float", tail=self.tail, max_seconds=None)
        self.dropped_mass_bound = max(self.dropped_mass_bound, r.dropped_mass_bound)
        c = float(empty_class_corrections(model, n, x, clf.ties))
        g0 = (r.positive + r.zero + c) if clf.ties == "first" else (r.positive + r.zero / 2 + c)
        g0 = min(1.0, max(0.0, g0))
        return np.array([g0, 1.0 - g0])

    def _pair(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> np.ndarray:
        mode = self.mode(model, n)
        if self._fast(model, n, clf, mode):
            tables = self._two_class_tables(model, (x, x2), n, clf)
            out = two_class_predictions.pair_two_class(model, n, x, x2, clf, tables, tail=self.tail)
            self._note_tail(model, n, tables)
            return out
        if mode == "float" and binary_states.applies(model.arities):
            pairs = self._state_pairs(model, n, clf)
            return pairs[self._input_index(model, x), :, self._input_index(model, x2), :].copy()
        self._check_work(model, "pair", (n,), (x, x2))
        return predictions.pair_probabilities(model, n, x, x2, clf, mode)

    @staticmethod
    def _input_index(model: CellModel, x: tuple[int, ...]) -> int:
        return list(model.inputs()).index(tuple(x))

    def _state_pairs(self, model: CellModel, n: int, clf: NaiveBayes) -> np.ndarray:
        """``E[g_x(y | T) g_x'(y' | T)]`` for every pair of inputs at once, ``(I, K, I, K)``, float: binary
        attributes, on the per-class states (:meth:`~momentbound.exact.binary_states.BinaryStates.input_pairs`),
        summed over every class-count vector of ``n`` points. Only the result is kept (the decision
        grids and state laws behind it, up to a few hundred MB, are released)."""
        from momentbound.exact.class_terms import ClassCountTerms

        key = (model, clf, n)
        if key not in self._states:
            units = self.state_units(model, n)
            if units > self.REDUCED_OPS_PER_WORK * self.max_work:
                raise InvalidArgument(
                    f"the exact pair terms for this model (d = {model.d}, K = {model.n_classes}, training size {n}) "
                    f"would read about {units:.2g} grid entries (max_work = {self.max_work:.2g} buys "
                    f"{self.REDUCED_OPS_PER_WORK * self.max_work:.2g}); use backend='montecarlo' (estimator moments "
                    "by conditional Monte Carlo), backend='sampling', a smaller N, or raise max_work"
                )
            I, K = model.n_inputs, model.n_classes
            states = ClassCountTerms(model, clf, "float").states
            total = np.zeros((I, K, I, K))
            for split, p_split in predictions.class_count_splits(model, n, "float"):
                total += p_split * states.input_pairs(split)
            if len(self._states) >= 16:
                self._states.pop(next(iter(self._states)))
            self._states[key] = total
        return self._states[key]

    def _cross(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        point_a: tuple[tuple[int, ...], int],
        point_b: tuple[tuple[int, ...], int],
        clf: NaiveBayes,
    ) -> np.ndarray:
        mode = self.mode(model, n_common + n_a + n_b + 2)
        if mode == "float" and cross1d.applies(model, clf):
            return cross1d.cross_1d_alpha0(model, n_common, n_a, n_b, point_a, point_b, clf)
        self._check_work(model, "cross", (n_common, n_a, n_b), (point_a[0], point_b[0]))
        return predictions.cross_probabilities(model, n_common, n_a, n_b, point_a, point_b, clf, mode)

    #: one unit of ``max_work`` buys this many multiply-adds of the compiled reduced-state kernels
    REDUCED_OPS_PER_WORK: ClassVar[float] = 25.0

    def cross_error_matrix(
        self, model: CellModel, n_common: int, n_a: int, n_b: int, classifier: NaiveBayes = NaiveBayes(),
        on_progress: Callable[[float], None] | None = None,
    ) -> np.ndarray | None:
        """``M[a, b] = P[err_a(C + B' + b) and err_b(C + A' + a)]`` for every pair of cells at once
        (:func:`momentbound.exact.reduced_states.cross_errors`, skipping states that hold at most
        about ``tail``; the bound is kept in :attr:`dropped_mass_bound`), or ``None`` where the per-pair
        :meth:`cross` is the better route (rational arithmetic, the one-attribute fast path, score
        keys beyond int64).

        Raises ``InvalidArgument`` (suggesting ``backend='montecarlo'``) when the estimated work
        exceeds ``max_work`` (:data:`REDUCED_OPS_PER_WORK` multiply-adds per unit).
        ``on_progress(fraction)`` is called as the work advances (see the kernels' function).
        """
        model = check_model(model)
        nc = check_count(n_common, "n_common")
        na = check_count(n_a, "n_a")
        nb = check_count(n_b, "n_b")
        clf = check_classifier(classifier)
        n_total = nc + na + nb + 2
        if self.mode(model, n_total) != "float" or cross1d.applies(model, clf):
            return None
        if not reduced_states.applies(model, n_total, clf):
            return None
        budget = self._dense_budget()
        self._check_memory(model, f"with sizes (n_common, n_a, n_b) = {(nc, na, nb)}",
                           reduced_states.memory_estimate(model, nc, na, nb, budget))
        work = reduced_states.work_estimate(model, nc, na, nb, tail=self.tail)
        if work > self.max_work * self.REDUCED_OPS_PER_WORK:
            seconds = work * reduced_states.ns_per_op(model, nc, na, nb, budget) * 1e-9
            raise InvalidArgument(
                f"the exact cross term for this model (d = {model.d}, K = {model.n_classes}, sizes "
                f"{(nc, na, nb)}) needs about {work:.2g} multiply-adds (~{seconds:.2g} s on one core; "
                f"max_work = {self.max_work:.2g} allows {self.max_work * self.REDUCED_OPS_PER_WORK:.2g}); "
                "use backend='montecarlo' (estimator moments by conditional Monte Carlo), a smaller N, "
                "or raise max_work"
            )
        r = reduced_states.cross_errors(model, nc, na, nb, clf, tail=self.tail, on_progress=on_progress,
                                        dense_budget=budget)
        self.dropped_mass_bound = max(self.dropped_mass_bound, r.dropped_mass_bound)
        return r.matrix

    def _dense_budget(self) -> float:
        """Bytes within which the cross term holds its levels dense (faster): at most
        :data:`~momentbound.exact.reduced_states.DENSE_BYTES`, and within the memory limit in
        force (with the guard's margin)."""
        from momentbound import guard

        limit = guard.memory_limit(self.max_memory)
        budget = float(reduced_states.DENSE_BYTES)
        return budget if limit is None else min(budget, limit / MEMORY_MARGIN)

    def _check_memory(self, model: CellModel, what: str, memory: float) -> None:
        from momentbound import guard

        need = MEMORY_MARGIN * memory
        limit = guard.memory_limit(self.max_memory)
        if limit is not None and need > limit:
            cli = bool(guard.active() and guard.active().cli)
            raise MemoryLimitExceeded(
                f"the exact cross term {what} for this model (d = {model.d}, K = {model.n_classes}) would hold "
                f"up to about {_size(need)} ({'--max-memory' if cli else 'max_memory ='} {_size(limit)}); use {guard.option('backend', 'montecarlo')} "
                "(estimator moments by conditional Monte Carlo), a smaller N, or "
                f"{'--max-memory SIZE' if cli else 'ExactBackend(max_memory=...)'} "
                "on a machine with that much memory"
            )

    def check_cross_memory(self, model: CellModel, N: int, fold_sizes: Sequence[int], clf: NaiveBayes) -> None:
        """Refuse (:class:`~momentbound.errors.MemoryLimitExceeded`) before any work when a
        reduced-state cross term of cross-validation of ``N`` points with these fold sizes would
        exceed ``max_memory``."""
        if cross1d.applies(model, clf):
            return
        for item in self._cross_items(model, N, fold_sizes, clf):
            self._check_memory(model, f"of two folds of {item.key[2]} and {item.key[3]} points (N = {N})", item.memory)

    def estimated_cross_seconds(
        self, model: CellModel, N: int, fold_sizes: Sequence[int], clf: NaiveBayes
    ) -> float:
        """Estimated seconds of the cross terms of cross-validation with these fold sizes
        (0 where neither the one-attribute walk nor the reduced-state kernels serve; the generic
        engine is guarded by ``max_work``; ``inf`` where the dense walk would not fit in memory).

        The one-attribute walk (:mod:`momentbound.exact.cross1d`) multiplies dense
        ``(n + 1) x (n + 1)`` matrices, ``n`` the points the two training sets share: about
        ``1.2e-9 n^2.8`` s per term on one core (measured 0.31 s at n = 800 and 13.9 s at
        n = 3200), about ``(n_inputs K)^2 / 2`` terms, ``8 (n + 1)^2`` bytes per matrix.
        """
        items = self._cross_items(model, N, fold_sizes, clf)
        if any(item.memory > CROSS_MEMORY_BYTES for item in items if cross1d.applies(model, clf)):
            return math.inf  # several dense matrices of this size do not fit: refuse in any case
        return sum(item.seconds for item in items)

    def _cross_items(self, model: CellModel, N: int, fold_sizes: Sequence[int], clf: NaiveBayes) -> list[WorkItem]:
        """One :class:`WorkItem` per pair of fold sizes (``s >= t``) of the float cross terms."""
        if self.mode(model, N) != "float" or len(fold_sizes) < 2:
            return []
        one_attribute = cross1d.applies(model, clf)
        if not one_attribute and not reduced_states.applies(model, N, clf):
            return []
        sizes = sorted(set(int(s) for s in fold_sizes), reverse=True)
        counts = {s: list(fold_sizes).count(s) for s in sizes}
        items = []
        for i, s in enumerate(sizes):
            for t in sizes[i:]:
                if s == t and counts[s] < 2:
                    continue
                nc = N - s - t
                if one_attribute:
                    terms = (model.n_inputs * model.n_classes) ** 2 / 2
                    seconds, memory = 1.2e-9 * float(nc + 1) ** 2.8 * terms, 32.0 * (nc + 1) ** 2
                else:
                    budget = self._dense_budget()
                    seconds = (reduced_states.work_estimate(model, nc, s - 1, t - 1, tail=self.tail)
                               * reduced_states.ns_per_op(model, nc, s - 1, t - 1, budget) * 1e-9)
                    memory = reduced_states.memory_estimate(model, nc, s - 1, t - 1, budget)
                items.append(WorkItem(("cross", nc, s, t), seconds, memory))
        return items

    def work_plan(
        self, model: CellModel, N: int, train_sizes: Sequence[int], fold_sizes: Sequence[int], clf: NaiveBayes
    ) -> tuple[WorkItem, ...]:
        """The costly terms of the exact moments of an estimator that trains on ``train_sizes``
        (pair terms) and, for cross-validation, has folds of ``fold_sizes`` (cross terms; pass
        ``()`` otherwise): what :func:`momentbound.estimators.estimator_moments` shows progress in.

        Terms without an estimate (rational arithmetic, the generic engine) count 0 s.

        Examples
        --------
        >>> from momentbound.model import second_nb_model
        >>> plan = ExactBackend().work_plan(second_nb_model(), 40, (35,), (5,) * 8, NaiveBayes())
        >>> [item.key for item in plan]
        [('pair', 35), ('cross', 30, 5, 5)]
        """
        items = [WorkItem(("pair", n), self.estimated_seconds(model, n, clf), self._pair_memory(model, n, clf))
                 for n in sorted(set(int(n) for n in train_sizes))]
        return tuple(items + self._cross_items(model, N, fold_sizes, clf))

    def _pair_memory(self, model: CellModel, n: int, clf: NaiveBayes) -> float:
        """Rough peak bytes of the pair terms at training size ``n`` (two-class fast path: the class
        laws of every size up to ``n`` on the component grid, or one DFT window above
        ``RECURSION_MAX``, plus the score numerators of both inputs)."""
        if not self._fast(model, n, clf, self.mode(model, n)):
            return 0.0
        x0, x1 = (0,) * model.d, (1,) * model.d
        D = predictions.ComponentSpace(model.arities, (x0, x1)).dim
        if n > two_class_predictions.TwoClassTables.RECURSION_MAX:
            from momentbound.exact.dft_laws import dft_window_size

            return 8.0 * 2 * 4 * float(dft_window_size(n, D, self.tail)) ** D
        return 8.0 * 2 * 4 * float(n + 2) ** (D + 1) / (D + 1)

    def overlap(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        x_a: Sequence[int] | int,
        x_b: Sequence[int] | int,
        classifier: NaiveBayes = NaiveBayes(),
    ) -> np.ndarray:
        """``E[g_{x_a}(a | C + B) g_{x_b}(b | C + A)]``, shape ``(K, K)``: two classifiers sharing the
        training points ``C`` (``n_common``), the first also trained on ``B`` (``n_b``), the second on
        ``A`` (``n_a``); all independent iid samples, no fixed points.

        This is the pair term of the printed (incorrect) Lemma 2, ``E[GE(zeta_i) GE(zeta_j)]``,
        used by ``estimator_moments(..., covariance="paper")`` (docs/mathematics.md, section
        'Cross-validation'). Exact
        ``Fraction`` results in rational mode, floats otherwise (see ``arithmetic``).

        Examples
        --------
        >>> from momentbound.model import independent_1d_model
        >>> ExactBackend().overlap(independent_1d_model("2/5"), 1, 0, 0, (0,), (0,)).sum()
        Fraction(1, 1)
        """
        model = check_model(model)
        nc = check_count(n_common, "n_common")
        na = check_count(n_a, "n_a")
        nb = check_count(n_b, "n_b")
        xa = model.check_input(x_a, name="x_a")
        xb = model.check_input(x_b, name="x_b")
        clf = check_classifier(classifier)
        mode = self.mode(model, nc + na + nb)
        if mode == "float" and cross1d.applies(model, clf):
            return cross1d.overlap_1d_alpha0(model, nc, na, nb, xa, xb, clf)
        self._check_work(model, "cross", (nc, na, nb), (xa, xb))
        return predictions.overlap_probabilities(model, nc, na, nb, xa, xb, clf, mode)

    def __repr__(self) -> str:
        return f"ExactBackend(arithmetic={self.arithmetic!r}, rational_max_n={self.rational_max_n}, tail={self.tail})"


def _size(n_bytes: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.3g} bytes"


def make_exact_backend(option: str | None) -> ExactBackend:
    """The ``exact`` backend (takes no option)."""
    return ExactBackend()
