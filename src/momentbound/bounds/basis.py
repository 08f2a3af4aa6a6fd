"""Exact and floating-point tools for the Chebyshev basis on ``[-1, 1]``.

Moments arrive as exact raw moments of the scaled variable ``u`` (see
:meth:`momentbound.bounds.problem.MomentProblem.affine_to_unit`); they are converted to
Chebyshev moments ``E[T_k(u)]`` exactly, and only then to floats for a solver.  Dual
polynomials live in the Chebyshev basis; converting them to monomials is done only in
exact rational arithmetic (floating-point conversion is catastrophic at high degree,
see docs/mathematics.md, section 'Numerical conditioning').
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument
from momentbound.rational import to_fmpq

__all__ = [
    "chebyshev_table",
    "monomial_to_chebyshev_moments",
    "chebyshev_to_monomial_moments",
    "chebyshev_to_monomial_coeffs",
    "chebyshev_values_exact",
]


def _three_term_table(
    degree: int, lead: Callable[[int], int], back: Callable[[int], int]
) -> tuple[tuple[int, ...], ...]:
    """Monomial coefficients of ``P_0 = 1``, ``P_1 = u``, ``P_k = lead(k) u P_{k-1} - back(k) P_{k-2}``."""
    rows: list[list[int]] = [[1] + [0] * degree]
    if degree >= 1:
        rows.append([0, 1] + [0] * (degree - 1))
    for k in range(2, degree + 1):
        prev, prev2 = rows[k - 1], rows[k - 2]
        row = [0] * (degree + 1)
        for j in range(degree):
            row[j + 1] += lead(k) * prev[j]
        for j in range(degree + 1):
            row[j] -= back(k) * prev2[j]
        rows.append(row)
    return tuple(tuple(r) for r in rows)


@lru_cache(maxsize=64)
def chebyshev_table(degree: int) -> tuple[tuple[int, ...], ...]:
    """Monomial coefficients of ``T_0 .. T_degree`` (row ``k`` = coefficients of ``T_k``).

    Example
    -------
    >>> chebyshev_table(2)[2]
    (-1, 0, 2)
    """
    if degree < 0:
        raise InvalidArgument(f"degree must be >= 0, got {degree!r}")
    return _three_term_table(degree, lambda k: 2, lambda k: 1)


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


@lru_cache(maxsize=64)
def hermite_table(degree: int) -> tuple[tuple[int, ...], ...]:
    """Monomial coefficients of the probabilists' Hermite polynomials ``He_0 .. He_degree``."""
    return _three_term_table(degree, lambda k: 1, lambda k: k - 1)


class PolyBasis:
    """A polynomial basis ``phi_0..phi_m`` in ``v = (x - shift) / scale`` used by the LP solvers.

    ``kind="chebyshev"``: ``T_k(v)`` with ``v`` the support mapped to ``[-1, 1]`` (good when
    the law spreads over the support).  ``kind="hermite"``: ``He_k(v)`` with ``v`` the
    standardized variable (good when the law is concentrated in a small part of a huge
    support, e.g. ``Z_x`` with support ``[-N^3/8, N^3/8]`` and spread ``~N^1.5``).  Exact values
    and moments are rationals; floats are used only for solver matrices and root searches.
    """

    def __init__(self, kind: str, shift: Fraction, scale: Fraction, raw_moments: Sequence[Fraction]) -> None:
        import math as _m

        from numpy.polynomial import hermite_e as _herm

        if kind not in ("chebyshev", "hermite"):
            raise InvalidArgument(f"unknown basis kind {kind!r}; use 'chebyshev' or 'hermite'")
        self.kind = kind
        self.shift, self.scale = Fraction(shift), Fraction(scale)
        self.m = len(raw_moments) - 1
        self.np = _cheb if kind == "chebyshev" else _herm
        table = chebyshev_table(self.m) if kind == "chebyshev" else hermite_table(self.m)
        self.table = table
        vmom = []
        for k in range(self.m + 1):
            s = sum(
                (_m.comb(k, j) * (-self.shift) ** (k - j) * Fraction(raw_moments[j]) for j in range(k + 1)), Fraction(0)
            )
            vmom.append(s / self.scale**k)
        self.vmoments = tuple(vmom)
        self.moments = tuple(
            sum((Fraction(table[k][j]) * vmom[j] for j in range(k + 1)), Fraction(0)) for k in range(self.m + 1)
        )
        self._cache: dict[Fraction, list] = {}

    # exact -------------------------------------------------------------------------
    def to_v(self, x: Fraction) -> Fraction:
        return (Fraction(x) - self.shift) / self.scale

    def values_exact(self, x: Fraction) -> list:
        """Exact ``phi_k(v(x))`` as flint ``fmpq`` (cached)."""
        import flint

        got = self._cache.get(x)
        if got is not None:
            return got
        fx = Fraction(x)
        v = flint.fmpq((fx - self.shift).numerator * self.scale.denominator,
                       (fx - self.shift).denominator * self.scale.numerator)
        vals = [flint.fmpq(1), v]
        for k in range(2, self.m + 1):
            if self.kind == "chebyshev":
                vals.append(2 * v * vals[-1] - vals[-2])
            else:
                vals.append(v * vals[-1] - (k - 1) * vals[-2])
        vals = vals[: self.m + 1]
        self._cache[x] = vals
        return vals

    def monomial_in_v(self, coeffs: Sequence[Fraction]) -> tuple[Fraction, ...]:
        """Exact monomial coefficients (in ``v``) of ``sum_k c_k phi_k(v)``."""
        out = [Fraction(0)] * (len(coeffs))
        for k, c in enumerate(coeffs):
            c = Fraction(c)
            if c:
                for j in range(k + 1):
                    if self.table[k][j]:
                        out[j] += c * self.table[k][j]
        return tuple(out)

    def monomial_in(self, coeffs: Sequence[Fraction], shift: Fraction, scale: Fraction) -> tuple[Fraction, ...]:
        """Exact monomial coefficients in ``w = (x - shift)/scale`` of ``sum_k c_k phi_k(v(x))``."""
        import flint

        mono = self.monomial_in_v(coeffs)
        p = flint.fmpq_poly([to_fmpq(c) for c in mono])
        # v = (x - s)/h = (w * scale + shift - s) / h = a w + b
        a = Fraction(scale) / self.scale
        b = (Fraction(shift) - self.shift) / self.scale
        lin = flint.fmpq_poly([to_fmpq(b), to_fmpq(a)])
        q = p(lin) if p.degree() >= 0 else p
        return tuple(Fraction(int(c.p), int(c.q)) for c in q.coeffs()) or (Fraction(0),)

    # float -------------------------------------------------------------------------
    def v_float(self, x: np.ndarray | float) -> np.ndarray:
        return (np.asarray(x, dtype=float) - float(self.shift)) / float(self.scale)

    def vander(self, v: np.ndarray) -> np.ndarray:
        return self.np.chebvander(v, self.m) if self.kind == "chebyshev" else self.np.hermevander(v, self.m)

    def der(self, c: np.ndarray) -> np.ndarray:
        c = np.asarray(c, dtype=float)
        if c.size <= 1:
            return np.zeros(1)
        return self.np.chebder(c) if self.kind == "chebyshev" else self.np.hermeder(c)

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.np.chebmul(a, b) if self.kind == "chebyshev" else self.np.hermemul(a, b)

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.np.chebsub(a, b) if self.kind == "chebyshev" else self.np.hermesub(a, b)

    def real_roots(self, c: np.ndarray, lo: float, hi: float, imag_tol: float = 1e-7) -> np.ndarray:
        c = np.trim_zeros(np.asarray(c, dtype=float), "b")
        if c.size <= 1:
            return np.zeros(0)
        roots = self.np.chebroots(c) if self.kind == "chebyshev" else self.np.hermeroots(c)
        scale = max(1.0, float(np.max(np.abs(roots)))) if roots.size else 1.0
        real = roots[np.abs(np.imag(roots)) <= imag_tol * scale].real
        return np.sort(real[(real >= lo) & (real <= hi)])


def choose_basis(problem: "object", kind: str = "auto") -> PolyBasis:
    """The LP basis for a problem: Chebyshev on the support, or Hermite in the standardized variable.

    ``auto`` picks Hermite when the support reaches more than 12 standard deviations from
    the mean (the Chebyshev moments then differ from those of a point mass only in the
    ninth digit and float solvers lose them), else Chebyshev.
    """
    import math as _m

    amap, _ = problem.affine_to_unit()  # type: ignore[attr-defined]
    mom = problem.exact_moments  # type: ignore[attr-defined]
    if kind == "auto":
        kind = "chebyshev"
        if len(mom) > 2 and problem.support.is_bounded:  # type: ignore[attr-defined]
            var = mom[2] - mom[1] ** 2
            if var > 0:
                reach = float(max(abs(problem.support.lo - mom[1]), abs(problem.support.hi - mom[1])))  # type: ignore[attr-defined]
                if reach > 12 * _m.sqrt(float(var)):
                    kind = "hermite"
    if kind == "chebyshev":
        return PolyBasis("chebyshev", amap.shift, amap.scale, mom)
    if len(mom) < 3:
        return PolyBasis("chebyshev", amap.shift, amap.scale, mom)
    var = mom[2] - mom[1] ** 2
    sd = Fraction(_m.sqrt(float(var))).limit_denominator(1 << 16) if var > 0 else Fraction(1)
    mean = Fraction(float(mom[1])).limit_denominator(1 << 16) if mom[1] != 0 else Fraction(0)
    return PolyBasis("hermite", mean, sd if sd > 0 else Fraction(1), mom)
