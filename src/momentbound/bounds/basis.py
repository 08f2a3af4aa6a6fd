"""Exact and floating-point tools for the Chebyshev basis on ``[-1, 1]``.

Moments arrive as exact raw moments of the scaled variable ``u`` (see
:meth:`momentbound.bounds.problem.MomentProblem.affine_to_unit`); they are converted to
Chebyshev moments ``E[T_k(u)]`` exactly, and only then to floats for a solver.  Dual
polynomials live in the Chebyshev basis; converting them to monomials is done only in
exact rational arithmetic (floating-point conversion is catastrophic at high degree,
see ORACLES.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numpy.polynomial import chebyshev as _cheb

__all__ = [
    "chebyshev_table",
    "monomial_to_chebyshev_moments",
    "chebyshev_to_monomial_moments",
    "chebyshev_to_monomial_coeffs",
    "chebyshev_values_exact",
    "clenshaw",
    "cheb_derivative",
    "cheb_real_roots",
    "cheb_vander",
]


@lru_cache(maxsize=64)
def chebyshev_table(degree: int) -> tuple[tuple[int, ...], ...]:
    """Monomial coefficients of ``T_0 .. T_degree`` (row ``k`` = coefficients of ``T_k``).

    Example
    -------
    >>> chebyshev_table(2)[2]
    (-1, 0, 2)
    """
    if degree < 0:
        raise ValueError("degree must be >= 0")
    rows: list[list[int]] = [[1] + [0] * degree]
    if degree >= 1:
        rows.append([0, 1] + [0] * (degree - 1))
    for k in range(2, degree + 1):
        prev, prev2 = rows[k - 1], rows[k - 2]
        row = [0] * (degree + 1)
        for j in range(degree):
            row[j + 1] += 2 * prev[j]
        for j in range(degree + 1):
            row[j] -= prev2[j]
        rows.append(row)
    return tuple(tuple(r) for r in rows)


def monomial_to_chebyshev_moments(moments: Sequence[Fraction | int]) -> tuple[Fraction, ...]:
    """Exact ``E[T_k(u)]`` from exact ``E[u^j]`` (``j = 0..m``).

    Example
    -------
    >>> monomial_to_chebyshev_moments([1, 0, Fraction(1, 2)])
    (Fraction(1, 1), Fraction(0, 1), Fraction(0, 1))
    """
    m = len(moments) - 1
    table = chebyshev_table(max(m, 0))
    mom = [Fraction(v) for v in moments]
    return tuple(sum((Fraction(table[k][j]) * mom[j] for j in range(k + 1)), Fraction(0)) for k in range(m + 1))


def chebyshev_to_monomial_moments(cheb_moments: Sequence[Fraction | int]) -> tuple[Fraction, ...]:
    """Exact inverse of :func:`monomial_to_chebyshev_moments` (triangular solve)."""
    m = len(cheb_moments) - 1
    table = chebyshev_table(max(m, 0))
    out: list[Fraction] = []
    for k in range(m + 1):
        acc = Fraction(cheb_moments[k]) - sum((table[k][j] * out[j] for j in range(k)), Fraction(0))
        out.append(acc / table[k][k])
    return tuple(out)


def chebyshev_to_monomial_coeffs(coeffs: Sequence[Fraction | int | float]) -> tuple[Fraction, ...]:
    """Exact monomial coefficients (in ``u``) of ``sum_k c_k T_k(u)``; floats are taken exactly."""
    n = len(coeffs) - 1
    if n < 0:
        return (Fraction(0),)
    table = chebyshev_table(n)
    out = [Fraction(0)] * (n + 1)
    for k, c in enumerate(coeffs):
        ck = Fraction(c)
        if ck == 0:
            continue
        for j in range(k + 1):
            if table[k][j]:
                out[j] += ck * table[k][j]
    return tuple(out)


def chebyshev_values_exact(u: Fraction, degree: int) -> tuple[Fraction, ...]:
    """Exact ``(T_0(u), ..., T_degree(u))`` by the three-term recurrence."""
    u = Fraction(u)
    vals = [Fraction(1)]
    if degree >= 1:
        vals.append(u)
    for _ in range(2, degree + 1):
        vals.append(2 * u * vals[-1] - vals[-2])
    return tuple(vals[: degree + 1])


def clenshaw(coeffs: Sequence[float] | np.ndarray, u: float | np.ndarray) -> np.ndarray:
    """Evaluate ``sum_k c_k T_k(u)`` in floating point (Clenshaw recurrence)."""
    return _cheb.chebval(u, np.asarray(coeffs, dtype=float))


def cheb_derivative(coeffs: Sequence[float] | np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the derivative with respect to ``u``."""
    c = np.asarray(coeffs, dtype=float)
    if c.size <= 1:
        return np.zeros(1)
    return _cheb.chebder(c)


def cheb_real_roots(
    coeffs: Sequence[float] | np.ndarray, lo: float = -1.0, hi: float = 1.0, *, imag_tol: float = 1e-7
) -> np.ndarray:
    """Approximate real roots of ``sum_k c_k T_k(u)`` inside ``[lo, hi]`` (floating point).

    Used only to propose candidate points; rigorous checks use exact root isolation in
    :mod:`momentbound.bounds.certificate`.
    """
    c = np.trim_zeros(np.asarray(coeffs, dtype=float), "b")
    if c.size <= 1:
        return np.zeros(0)
    roots = _cheb.chebroots(c)
    scale = max(1.0, float(np.max(np.abs(roots)))) if roots.size else 1.0
    real = roots[np.abs(np.imag(roots)) <= imag_tol * scale].real
    return np.sort(real[(real >= lo) & (real <= hi)])


def cheb_vander(u: np.ndarray, degree: int) -> np.ndarray:
    """Matrix ``V[j, k] = T_k(u_j)`` in floating point."""
    return _cheb.chebvander(np.asarray(u, dtype=float), degree)
