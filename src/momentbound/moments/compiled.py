"""Compiled moments: derive the structure once per (statistic, order), evaluate at any (N, p).

The derivation (powers of the statistic in its features, the block layout, the
per-block exponent lists and the coefficient tables of the closed-form block vectors)
depends only on the statistic and the order; it is cached. Two exact evaluators share it:

* the integer plan of :mod:`momentbound.moments.integer_plan` (python-flint; same mathematics
  as :mod:`momentbound.moments.polynomial_expectation`, whose power-table evaluator is kept as the
  independent witness in the tests) builds ``N``-independent integer vectors per
  probability vector and caches them, so sweeps over ``N`` cost only the final sums;
* the multimodular kernel of :mod:`momentbound.moments.modular` (numba) evaluates one new
  ``(N, p)`` modulo enough primes for a rigorous bound and reassembles the exact integers.

``CompiledMoments.__call__(..., engine=)`` chooses between them; the values are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional

from momentbound._validate import as_int
from momentbound.errors import InvalidArgument, InvalidProbability
from momentbound.model.statistics import Exponents, Statistic
from momentbound.moments.integer_plan import FastPlan
from momentbound.moments.modular import ModularPlan
from momentbound.moments.polynomial_expectation import StatisticLayout, finish, layout, scaled_probabilities
from momentbound.moments.sequence import MomentSequence

__all__ = ["CompiledMoments", "compile_moments", "load_kernel", "KERNEL_AFTER"]


class CompiledMoments:
    """Callable ``(N, probs) -> MomentSequence`` for ``E[Z^k]``, ``k = 0..order``.

    Build with :func:`compile_moments` (cached). ``probs`` are the cell probabilities in
    the model's cell order (Fractions, ints, strings like ``"1/8"`` or floats).
    ``E[Z^k] = sum_w (N)_w gamma_k[w] / D^w`` where the integers ``gamma`` depend only on
    the probabilities; they are cached per probability vector, so a sweep over ``N`` at
    fixed ``p`` costs only the final sums.
    """

    def __init__(self, statistic: Statistic, order: int):
        self.statistic = statistic
        self.order = order
        self.layout: StatisticLayout = layout(statistic)
        n_f = len(statistic.features)
        one: dict[Exponents, int] = {(0,) * n_f: 1}
        z = statistic.term_dict
        powers = [one]
        for _ in range(order):
            acc: dict[Exponents, int] = {}
            for ea, ca in powers[-1].items():
                for eb, cb in z.items():
                    key = tuple(a + b for a, b in zip(ea, eb))
                    acc[key] = acc.get(key, 0) + ca * cb
            powers.append({k: v for k, v in acc.items() if v})
        self.splits = [
            [(self.layout.split(e), c) for e, c in sorted(p.items())] for p in powers
        ]
        nb = len(self.layout.blocks)
        self.grid_max = []
        for b in range(nb):
            mx = [0] * len(self.layout.blocks[b].grid)
            for poly in self.splits:
                for sp, _ in poly:
                    for j, e in enumerate(sp[b][1]):
                        mx[j] = max(mx[j], e)
            self.grid_max.append(tuple(mx))
        # the p-dependent evaluation plan (closed-form block vectors, packed chains)
        self.plan = FastPlan(self.layout, self.splits, self.grid_max)
        # the p-dependent part (gamma) does not depend on N: sweeps over N reuse it
        self._gamma_cache: dict[tuple[int, ...], tuple[list[list[int]], int]] = {}
        # the multimodular kernel for a single new (N, p) (None when the statistic has a
        # block with three or more grid features, or more than two blocks)
        self.modular: Optional[ModularPlan] = (
            ModularPlan(self.plan, statistic) if ModularPlan.supported(self.plan) else None
        )
        self._seen: dict[tuple[tuple[int, ...], int], None] = {}

    def gammas(self, probs: Sequence[Any]) -> tuple[list[list[int]], int]:
        """Integer vectors ``gamma`` per moment and the denominator ``D``:
        ``E[Z^k] = sum_w (N)_w gamma_k[w] / D^w``."""
        if len(probs) != self.statistic.n_cells:
            raise InvalidArgument(
                f"probs must have one entry per cell ({self.statistic.n_cells}), got {len(probs)}"
            )
        return self._gammas(*scaled_probabilities(probs))

    def _gammas(self, q: tuple[int, ...], D: int) -> tuple[list[list[int]], int]:
        hit = self._gamma_cache.get(q)
        if hit is not None and hit[1] == D:
            return hit
        res = (self.plan.gammas(q), D)
        if len(self._gamma_cache) >= 32:
            self._gamma_cache.pop(next(iter(self._gamma_cache)))
        self._gamma_cache[q] = res
        return res

    def __call__(
        self,
        N: int,
        probs: Sequence[Any],
        *,
        exact: Optional[bool] = None,
        engine: str = "auto",
    ):
        """Moments ``E[Z^k]``, ``k = 0..order``, at ``(N, probs)`` (always computed exactly).

        ``engine`` chooses how, never what (both give the same exact rationals, and the
        result records which ran in ``.engine``): ``"modular"`` runs the multimodular
        numba kernel of :mod:`momentbound.moments.modular` for this ``(N, p)`` (about
        0.4 ms for the 12 moments of the 2x2x2 ``Z``; loading the kernel costs about a
        second once per process); ``"flint"`` builds and caches the ``N``-independent
        integer vectors ``gamma`` of this ``p`` with python-flint (about 1.5 ms; then
        0.1 ms for every further ``N``). ``"auto"`` (default) takes ``gamma`` when it is
        cached or ``p`` was seen before (sweeps over ``N``), the kernel for a new ``p``
        once the kernel is loaded, and loads it after :data:`KERNEL_AFTER` new
        probability vectors in the process (or at the first ``engine="modular"`` call, or
        :func:`load_kernel`), when it has paid for its loading time.
        """
        from momentbound.model.cells import parse_number
        N = as_int(N, "N", minimum=0)
        if engine not in ("auto", "modular", "flint"):
            raise InvalidArgument(f"engine must be 'auto', 'modular' or 'flint', got {engine!r}")
        if len(probs) != self.statistic.n_cells:
            raise InvalidArgument(
                f"probs must have one entry per cell ({self.statistic.n_cells}), got {len(probs)}"
            )
        vals = [parse_number(p, name=f"probs[{i}]") for i, p in enumerate(probs)]
        is_exact = all(isinstance(v, Fraction) for v in vals)
        _check_probs(vals, is_exact, total=not is_exact)  # floats: fsum within 1e-9
        q, D = scaled_probabilities(vals)
        if is_exact and sum(q) != D:  # exact: sum(p) == 1 iff sum(q) == D
            raise InvalidProbability(
                f"probs must sum to 1 (got {Fraction(sum(q), D)}); pass normalized cell probabilities"
            )
        if engine == "modular" and self.modular is None:
            raise InvalidArgument(
                f"engine='modular' needs blocks with at most two grid features and at most "
                f"two blocks; {self.statistic.name} has another layout: use engine='flint'"
            )
        cached = self._gamma_cache.get(q)
        use_modular = engine == "modular" or (
            engine == "auto"
            and self.modular is not None
            and not (cached is not None and cached[1] == D)
            and (q, D) not in self._seen
            and _kernel_wanted()
        )
        if use_modular:
            assert self.modular is not None
            nums = self.modular.numerators(q, D, N)
            dpow = [1]
            for _ in range(max(self.modular.W)):
                dpow.append(dpow[-1] * D)
            res = [Fraction(num, dpow[w]) for num, w in zip(nums, self.modular.W)]
            if len(self._seen) >= 64:
                self._seen.pop(next(iter(self._seen)))
            self._seen[(q, D)] = None
            used = "modular"
        else:
            gammas, D = self._gammas(q, D)
            res = [finish(g, N, D) for g in gammas]
            used = "flint"
        ex = is_exact if exact is None else bool(exact)
        if ex:
            values = tuple(res)
        else:
            from momentbound._validate import to_float

            values = tuple(to_float(v, f"moment E[Z^{k}]") for k, v in enumerate(res))
        return MomentSequence(values, N, ex, self.statistic.name, rational=tuple(res), engine=used)

    def __repr__(self) -> str:
        return f"CompiledMoments({self.statistic.name}, order={self.order})"


#: number of new probability vectors evaluated in a process after which ``engine="auto"``
#: loads the multimodular kernel (about 1 s once; saves about 1 ms per new vector)
KERNEL_AFTER = 256
_new_vectors = 0


def load_kernel() -> None:
    """Load the multimodular kernel now: numba import and the kernel's machine code from
    numba's disk cache (compiled and cached the first time after installation, about 6 s).
    One tiny evaluation makes numba load the compiled specialisation."""
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic

    m = equal_cells_model((2,))
    compile_moments(naive_bayes_statistic(m, (0,)), 1)(1, m.cells, engine="modular")


def _kernel_wanted() -> bool:
    global _new_vectors
    import sys

    if "momentbound.moments._modular_kernel" in sys.modules:
        return True
    _new_vectors += 1
    if _new_vectors > KERNEL_AFTER:
        load_kernel()
        return True
    return False


def _check_probs(vals: Sequence[Any], is_exact: bool, total: bool = True) -> None:
    import math

    for i, v in enumerate(vals):
        if isinstance(v, float) and not math.isfinite(v):
            raise InvalidProbability(f"probs[{i}] must be a finite probability, got {v}")
        if v < 0:
            raise InvalidProbability(f"probs[{i}] must be non-negative, got {v}")
    if not total:
        return
    tot = sum(vals, Fraction(0)) if is_exact else math.fsum(float(v) for v in vals)
    if (is_exact and tot != 1) or (not is_exact and abs(tot - 1.0) > 1e-9):
        raise InvalidProbability(
            f"probs must sum to 1 (got {tot}); pass normalized cell probabilities"
        )


def compile_moments(statistic: Statistic, order: int) -> CompiledMoments:
    """Derive the moment structure of ``statistic`` up to ``order`` once (cached).

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2, 2))
    >>> f = compile_moments(naive_bayes_statistic(m, (0, 0)), 2)
    >>> f(4, m.cells).values
    (Fraction(1, 1), Fraction(0, 1), Fraction(123, 16))
    """
    if not isinstance(statistic, Statistic):
        raise InvalidArgument(f"statistic must be a Statistic, got {type(statistic).__name__}")
    from momentbound._validate import as_int

    return _compile(statistic, as_int(order, "order", minimum=0))


@lru_cache(maxsize=128)
def _compile(statistic: Statistic, order: int) -> CompiledMoments:
    return CompiledMoments(statistic, order)
