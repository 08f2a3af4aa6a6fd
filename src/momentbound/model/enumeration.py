"""Brute-force expectations over all count tables (the independent witness for small N).

Every moment the engine computes can be checked against a plain sum over all count
tables ``(N_1, ..., N_C)`` with ``sum N_c = N``, weighted by the multinomial pmf. There are
``C(N + C - 1, C - 1)`` tables, so this is only for small ``N`` (tests use ``N <= 8``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Union

from momentbound.errors import InvalidArgument

if TYPE_CHECKING:
    from momentbound.model.cells import CellModel

__all__ = ["count_tables", "multinomial_pmf", "expectation_by_enumeration", "n_count_tables"]


def _check_nonneg_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import numpy as np

            if isinstance(value, np.integer):
                return _check_nonneg_int(int(value), name)
        except ImportError:  # pragma: no cover - numpy is a dependency
            pass
        raise InvalidArgument(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise InvalidArgument(f"{name} must be a non-negative integer, got {value}")
    return value


def n_count_tables(n_cells: int, N: int) -> int:
    """Number of count tables: ``C(N + n_cells - 1, n_cells - 1)``."""
    n_cells = _check_nonneg_int(n_cells, "n_cells")
    N = _check_nonneg_int(N, "N")
    if n_cells == 0:
        return 1 if N == 0 else 0
    return math.comb(N + n_cells - 1, n_cells - 1)


def count_tables(n_cells: int, N: int) -> Iterator[tuple[int, ...]]:
    """All compositions of ``N`` into ``n_cells`` non-negative parts.

    Parameters
    ----------
    n_cells:
        Number of cells (parts), at least 1.
    N:
        Total count, non-negative.

    Yields
    ------
    tuple of int
        Each count table once, in lexicographic order of the first cells.

    Examples
    --------
    >>> list(count_tables(2, 2))
    [(0, 2), (1, 1), (2, 0)]
    """
    n_cells = _check_nonneg_int(n_cells, "n_cells")
    N = _check_nonneg_int(N, "N")
    if n_cells < 1:
        raise InvalidArgument(f"n_cells must be at least 1, got {n_cells}")

    def rec(prefix: list[int], remaining: int, left: int) -> Iterator[tuple[int, ...]]:
        if left == 1:
            yield tuple(prefix) + (remaining,)
            return
        for v in range(remaining + 1):
            prefix.append(v)
            yield from rec(prefix, remaining - v, left - 1)
            prefix.pop()

    yield from rec([], N, n_cells)


def multinomial_pmf(counts: Sequence[int], probs: Sequence[Any]) -> Union[Fraction, float]:
    """``P[counts]`` under ``Multinomial(sum(counts), probs)``.

    Exact (a ``Fraction``) when every probability is exact (``Fraction`` or ``int``),
    a float otherwise. ``0 ** 0 == 1`` (a zero-probability cell with zero count).

    Examples
    --------
    >>> multinomial_pmf((1, 1), (Fraction(1, 2), Fraction(1, 2)))
    Fraction(1, 2)
    """
    if len(counts) != len(probs):
        raise InvalidArgument(
            f"counts and probs must have the same length, got {len(counts)} and {len(probs)}"
        )
    cs = [_check_nonneg_int(c, f"counts[{i}]") for i, c in enumerate(counts)]
    coef = math.factorial(sum(cs))
    for c in cs:
        coef //= math.factorial(c)
    exact = all(isinstance(p, (Fraction, int)) and not isinstance(p, bool) for p in probs)
    if exact:
        value: Any = Fraction(coef)
        for c, p in zip(cs, probs):
            if c:
                value *= Fraction(p) ** c
        return value
    value_f = float(coef)
    for c, p in zip(cs, probs):
        if c:
            value_f *= float(p) ** c
    return value_f


def expectation_by_enumeration(
    f: Callable[[tuple[int, ...]], Any], model: "CellModel", N: int
) -> Union[Fraction, float]:
    """``E[f(counts)]`` by summing ``pmf * f`` over every count table of size ``N``.

    Exact when the model is exact and ``f`` returns integers or Fractions.

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> m = CellModel((2,), ["1/4"] * 4)
    >>> expectation_by_enumeration(lambda n: n[0], m, 4)
    Fraction(1, 1)
    """
    N = _check_nonneg_int(N, "N")
    probs = model.cells
    total: Any = Fraction(0) if model.is_exact else 0.0
    for counts in count_tables(len(probs), N):
        w = multinomial_pmf(counts, probs)
        if w:
            total += w * f(counts)
    return total
