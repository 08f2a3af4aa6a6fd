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
