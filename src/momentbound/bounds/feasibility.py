"""Moment admissibility: Hankel and localizing matrices in exact arithmetic.

For moments of the scaled variable ``u`` (support mapped to ``[-1, 1]``), a sequence
``mu_0..mu_m`` is the moment sequence of a measure on ``[-1, 1]`` iff (Hausdorff,
truncated; Krein-Nudelman):

* ``m = 2n``: ``[mu_{i+j}]_{i,j<=n}`` and ``[mu_{i+j} - mu_{i+j+2}]_{i,j<n}`` are PSD;
* ``m = 2n+1``: ``[mu_{i+j} + mu_{i+j+1}]`` and ``[mu_{i+j} - mu_{i+j+1}]`` (``i,j<=n``) are PSD.

On the real line the Hankel matrix must be PSD; on a half-line ``[a, oo)`` also the
localizing matrix ``[mu_{i+j+1} - a mu_{i+j}]`` (Stieltjes).  On an integer grid these conditions are
necessary but not sufficient; the discrete LP methods certify the rest (a Farkas
polynomial).  PSD-ness is decided exactly by a symmetric LDL^T sweep on Fractions: a
negative pivot, or a zero pivot with a nonzero remaining column, proves the matrix is
not PSD.  Float moments are converted exactly and allowed a relative tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from momentbound.errors import InfeasibleMoments

from .problem import MomentProblem, SupportKind

__all__ = ["is_psd_exact", "check_feasible"]


def is_psd_exact(matrix: Sequence[Sequence[Fraction]], tol: Fraction = Fraction(0)) -> bool:
    """Exact PSD test of a symmetric rational matrix (``tol`` = allowed negative pivot size)."""
    a = [[Fraction(v) for v in row] for row in matrix]
    n = len(a)
    for k in range(n):
        piv = a[k][k]
        if piv < -tol:
            return False
        if piv <= tol:
            if any(abs(a[i][k]) > tol for i in range(k + 1, n)):
                return False
            continue
        for i in range(k + 1, n):
            f = a[i][k] / piv
            if f == 0:
                continue
            for j in range(k + 1, n):
                a[i][j] -= f * a[k][j]
    return True


def _rank_exact(matrix: Sequence[Sequence[Fraction]]) -> int:
    """Exact rank of a rational matrix (Gaussian elimination on Fractions)."""
    a = [[Fraction(v) for v in row] for row in matrix]
    rank, cols = 0, len(a[0]) if a else 0
    for col in range(cols):
        pivot = next((i for i in range(rank, len(a)) if a[i][col] != 0), None)
        if pivot is None:
            continue
        a[rank], a[pivot] = a[pivot], a[rank]
        for i in range(rank + 1, len(a)):
            f = a[i][col] / a[rank][col]
            if f:
                a[i] = [x - f * y for x, y in zip(a[i], a[rank])]
        rank += 1
    return rank


def _next_column_in_range(nu: Sequence[Fraction], rows: int) -> bool:
    """Whether ``[nu_{i+j}]_{i < rows, j <= rows}`` has the rank of its leading ``rows x rows`` block:
    the next moment column lies in the range of the moment matrix (a singular moment matrix of
    a measure confines it to the roots of its kernel polynomial, which fixes the later moments)."""
    if rows <= 0:
        return True
    square = [[nu[i + j] for j in range(rows)] for i in range(rows)]
    wide = [[nu[i + j] for j in range(rows + 1)] for i in range(rows)]
    return _rank_exact(square) == _rank_exact(wide)


def _flat(nu: Sequence[Fraction], n: int) -> bool:
    """For ``nu_0..nu_2n``: a singular ``[nu_{i+j}]_{i,j < n}`` forces ``rank [nu_{i+j}]_{i,j <= n}`` to equal it
    (a kernel polynomial ``p`` gives ``int p^2 = 0``: finitely many atoms, one per rank)."""
    if n <= 0:
        return True
    inner = _rank_exact([[nu[i + j] for j in range(n)] for i in range(n)])
    return inner == n or _rank_exact([[nu[i + j] for j in range(n + 1)] for i in range(n + 1)]) == inner


def _unbounded_range_conditions(problem: MomentProblem, mu: Sequence[Fraction]) -> None:
    """The boundary conditions of the truncated Hamburger and Stieltjes problems (exact moments).

    On a non-compact support the PSD conditions describe the closure of the moment cone; on its
    boundary a moment matrix (or the localizing matrix of ``[a, oo)``) is singular, which confines
    the law to the roots of a kernel polynomial, and the remaining moments must follow from those
    points (Curto and Fialkow, "Recursiveness, positivity, and truncated moment problems",
    Houston J. Math. 17 (1991)): e.g. mean 0 and second moment 1 on ``[0, oo)``.
    """
    m = problem.order
    n = m // 2
    checks = [(_flat(mu, n), "the moment matrix")]
    if m % 2 == 1:  # (mu_{n+1}, ..., mu_{2n+1}) in the range of H(n)
        checks.append((_next_column_in_range(mu, n + 1), "the moment matrix"))
    if problem.support.kind is SupportKind.HALFLINE:
        amap, _ = problem.affine_to_unit()
        a = amap.to_unit(problem.support.lo)  # type: ignore[arg-type]
        nu = [mu[k + 1] - a * mu[k] for k in range(m)]
        if m % 2 == 0:
            checks.append((_next_column_in_range(nu, n), "the localizing matrix (u - a)"))
        else:
            checks.append((_flat(nu, n), "the localizing matrix (u - a)"))
    for ok, what in checks:
        if not ok:
            raise InfeasibleMoments(
                f"no distribution on {problem.support} has these moments: {what} is singular (it confines the "
                "law to finitely many points) but the higher moments do not follow from those points",
                condition="range",
            )


def _hankel(mu: Sequence[Fraction], n: int, shift: int = 0) -> list[list[Fraction]]:
    return [[mu[i + j + shift] for j in range(n + 1)] for i in range(n + 1)]


def _halfline_condition(problem: MomentProblem, mu: Sequence[Fraction], tol: Fraction) -> None:
    """Stieltjes localizing condition on ``[A, oo)``: ``[E[(u - a) u^(i+j)]]`` is PSD (``a`` = A scaled)."""
    m = problem.order
    amap, _ = problem.affine_to_unit()
    a = amap.to_unit(problem.support.lo)  # type: ignore[arg-type]
    n = (m - 1) // 2
    if m >= 1 and mu[1] < a - tol:
        raise InfeasibleMoments(
            f"mean {float(problem.moments[1])!r} lies below the half-line {problem.support}", condition="support"
        )
    mat = [[mu[i + j + 1] - a * mu[i + j] for j in range(n + 1)] for i in range(n + 1)]
    if m >= 1 and not is_psd_exact(mat, tol):
        raise InfeasibleMoments(
            f"moments violate the localizing condition (u - a) for the support {problem.support}: "
            "no distribution on this half-line has these moments",
            condition="localizing",
        )


def check_feasible(problem: MomentProblem) -> None:
    """Raise :class:`InfeasibleMoments` if no law on the support has these moments.

    ``condition`` is one of ``"support"`` (mean outside the support), ``"hankel"``,
    ``"localizing"``, ``"point-mass"`` (zero variance but inconsistent higher moments).

    Example
    -------
    >>> from momentbound.bounds.problem import MomentProblem, Support, Event
    >>> check_feasible(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)))
    >>> check_feasible(MomentProblem((1, 3, 8), Support.grid(0, 6), Event.ge(5)))
    Traceback (most recent call last):
    ...
    momentbound.errors.InfeasibleMoments: moments violate the Hankel condition ...
    """
    m = problem.order
    if m == 0:
        return
    _, mu = problem.affine_to_unit()
    tol = Fraction(0) if problem.is_exact else Fraction(1, 10**9)
    bounded = problem.support.is_bounded
    if bounded and not (-1 - tol <= mu[1] <= 1 + tol):
        raise InfeasibleMoments(
            f"mean {float(problem.moments[1])!r} lies outside the support {problem.support}", condition="support"
        )
    n = m // 2
    if not is_psd_exact(_hankel(mu, n), tol):
        raise InfeasibleMoments(
            f"moments violate the Hankel condition (the moment matrix of order {n} is not PSD): "
            "no distribution has these moments; check that they were computed for the same variable",
            condition="hankel",
        )
    if bounded:
        if m % 2 == 0:
            mats = [("(1-u^2)", [[mu[i + j] - mu[i + j + 2] for j in range(n)] for i in range(n)])] if n > 0 else []
        else:
            mats = [
                ("(1+u)", [[mu[i + j] + mu[i + j + 1] for j in range(n + 1)] for i in range(n + 1)]),
                ("(1-u)", [[mu[i + j] - mu[i + j + 1] for j in range(n + 1)] for i in range(n + 1)]),
            ]
        for label, mat in mats:
            if not is_psd_exact(mat, tol):
                raise InfeasibleMoments(
                    f"moments violate the localizing condition {label} for the support {problem.support}: "
                    "no distribution on this support has these moments",
                    condition="localizing",
                )
    if problem.support.kind is SupportKind.HALFLINE:
        _halfline_condition(problem, mu, tol)
    if m >= 2 and problem.is_exact:
        var = mu[2] - mu[1] ** 2
        if var == 0 and any(mu[k] != mu[1] ** k for k in range(m + 1)):
            raise InfeasibleMoments(
                "variance is zero (a point mass) but higher moments are not powers of the mean",
                condition="point-mass",
            )
    if problem.is_exact and problem.support.kind in (SupportKind.REAL, SupportKind.HALFLINE):
        _unbounded_range_conditions(problem, mu)

