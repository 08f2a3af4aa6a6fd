"""The support of a moment problem cut into pieces of constant event indicator, and the points
the bound methods start from on them.

* :class:`UnitPiece`, :func:`unit_pieces`, :func:`discrete_pieces`: the pieces in the scaled
  variable ``u`` (support mapped to ``[-1, 1]``), as the ``sdp``, ``sqp`` and ``gd`` methods
  and their cvxpy formulations read them;
* :func:`chebyshev_nodes`, :func:`piece_variable`, :func:`markov_lukacs_blocks`: the
  interpolation nodes and the weighted sum-of-squares blocks of the Markov-Lukacs
  representation of a polynomial non-negative on one piece;
* :func:`initial_points` (exchange methods, in ``u``) and :func:`starting_columns` (LP column
  generation, on the support itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument

from .problem import MomentProblem, Support, SupportKind

#: starting columns of the LP column generation on a continuum or a large grid
INITIAL_COLUMNS = 64

__all__ = [
    "INITIAL_COLUMNS",
    "SOSSolution",
    "UnitPiece",
    "bounded_support_reason",
    "chebyshev_nodes",
    "discrete_pieces",
    "grid_neighbours",
    "initial_points",
    "markov_lukacs_blocks",
    "piece_variable",
    "starting_columns",
    "support_neighbours",
    "unit_pieces",
]


@dataclass(frozen=True)
class UnitPiece:
    """A closed piece ``[a, b]`` of the scaled support (``-inf``/``inf`` for unbounded ends)
    on which the event indicator equals ``target``; ``step`` is the grid spacing in ``u``
    (0 for a continuum), used by the exchange methods to stay on the grid."""

    a: float
    b: float
    target: int
    step: float = 0.0


def unit_pieces(problem: MomentProblem, *, relax_finite: bool = True) -> tuple[UnitPiece, ...]:
    """The pieces of constant indicator of ``problem``'s support, in the scaled variable ``u``.

    Grid pieces keep their integer ends (the event boundary moves to the neighbouring
    integers) and their spacing ``step``; continuum pieces are closed (closures); a finite
    support is split into the hulls of its runs of points with the same indicator.

    Example
    -------
    >>> from momentbound.bounds.problem import Event, Support
    >>> p = MomentProblem((1, 0, 1), Support.grid(-2, 2), Event.gt(0))
    >>> [(q.a, q.b, q.target) for q in unit_pieces(p)]
    [(-1.0, 0.0, 0), (0.5, 1.0, 1)]
    """
    amap, _ = problem.affine_to_unit()
    sup = problem.support
    out: list[UnitPiece] = []
    if sup.kind is SupportKind.FINITE:
        if not relax_finite:
            raise InvalidArgument("finite supports are handled point by point")
        runs: list[list[Any]] = []
        for x in sup.points:  # type: ignore[union-attr]
            t = int(problem.event.indicator(x))
            if runs and runs[-1][2] == t:
                runs[-1][1] = x
            else:
                runs.append([x, x, t])
        for lo, hi, t in runs:
            out.append(UnitPiece(float(amap.to_unit(lo)), float(amap.to_unit(hi)), t))
        return tuple(out)
    step = float(1 / amap.scale) if sup.kind is SupportKind.GRID else 0.0
    for piece in problem.event.pieces(sup):
        a = -math.inf if piece.lo is None else float(amap.to_unit(piece.lo))
        b = math.inf if piece.hi is None else float(amap.to_unit(piece.hi))
        out.append(UnitPiece(a, b, piece.target, step if piece.integer else 0.0))
    return tuple(out)


def discrete_pieces(problem: MomentProblem) -> tuple[UnitPiece, ...]:
    """Pieces for the exchange methods: a finite support becomes one point-piece per point
    (exact), other supports use :func:`unit_pieces` (grids keep their spacing)."""
    if problem.support.kind is SupportKind.FINITE:
        amap, _ = problem.affine_to_unit()
        return tuple(
            UnitPiece(float(amap.to_unit(x)), float(amap.to_unit(x)), int(problem.event.indicator(x)))
            for x in problem.support.points  # type: ignore[union-attr]
        )
    return unit_pieces(problem)


def bounded_support_reason(problem: MomentProblem) -> str | None:
    """Why the exchange methods (``sqp``, ``gd``) do not apply to ``problem``, or ``None``."""
    if not problem.support.is_bounded:
        return "needs a bounded support (grid, finite or interval); use 'sdp' or 'closed-form' on the real line"
    return None


def grid_neighbours(points: np.ndarray, piece: UnitPiece) -> np.ndarray:
    """The grid points of ``piece`` next to each of ``points`` (floor and ceiling)."""
    if piece.step <= 0 or points.size == 0:
        return points
    n = round((piece.b - piece.a) / piece.step)
    k = np.floor((points - piece.a) / piece.step)
    ks = np.clip(np.concatenate([k, k + 1]), 0, n)
    return piece.a + ks * piece.step


def initial_points(piece: UnitPiece, m: int) -> np.ndarray:
    """Starting points of the exchange methods on ``piece``: its ends and ``2 m + 2`` Chebyshev
    nodes (moved to the neighbouring grid points on a grid)."""
    if piece.a == piece.b:
        return np.array([piece.a])
    k = 2 * m + 2
    t = np.cos(np.pi * (np.arange(k) + 0.5) / k)
    pts = np.concatenate([[piece.a, piece.b], (piece.a + piece.b) / 2 + (piece.b - piece.a) / 2 * t])
    return np.unique(grid_neighbours(pts, piece))


def chebyshev_nodes(m: int, a: float, b: float) -> np.ndarray:
    """``m + 1`` distinct interpolation nodes on the piece: Chebyshev extrema of ``[a, b]``;
    for unbounded pieces, extrema of a window of width 4 starting at the finite end."""
    theta = np.pi * np.arange(m + 1) / max(m, 1)
    t = np.cos(theta) if m > 0 else np.zeros(1)
    if math.isinf(a) and math.isinf(b):
        return 2.0 * t
    if math.isinf(a):
        return b - 2.0 + 2.0 * t
    if math.isinf(b):
        return a + 2.0 + 2.0 * t
    return (a + b) / 2 + (b - a) / 2 * t


def piece_variable(u: np.ndarray, a: float, b: float) -> np.ndarray:
    """The Gram basis variable: the piece mapped onto ``[-1, 1]`` (identity if unbounded)."""
    if math.isinf(a) or math.isinf(b):
        return u
    return (2 * u - a - b) / (b - a)


def markov_lukacs_blocks(m: int, a: float, b: float) -> list[tuple[int, np.ndarray]]:
    """(Gram size, weight) pairs of the Markov-Lukacs representation on the piece ``[a, b]``."""
    lin_a = np.array([-a, 1.0]) if not math.isinf(a) else None  # u - a
    lin_b = np.array([b, -1.0]) if not math.isinf(b) else None  # b - u
    one = np.array([1.0])
    if lin_a is None and lin_b is None:
        return [(m // 2 + 1, one)]
    if lin_a is None or lin_b is None:
        lin = lin_a if lin_a is not None else lin_b
        return [(m // 2 + 1, one), ((m - 1) // 2 + 1, lin)]  # type: ignore[list-item]
    if m % 2 == 0:
        return [(m // 2 + 1, one), (m // 2, _cheb.chebmul(lin_a, lin_b))]
    return [((m - 1) // 2 + 1, lin_a), ((m - 1) // 2 + 1, lin_b)]


def support_neighbours(support: Support, x: float) -> list[Fraction]:
    """Support points next to the real number ``x``: ``x`` itself (clipped) on an interval,
    the grid points ``floor(x) - 1 .. floor(x) + 2`` inside the support on a grid."""
    lo, hi = support.lo, support.hi
    if support.kind is SupportKind.INTERVAL:
        v = Fraction(x)
        return [min(max(v, lo), hi)]  # type: ignore[type-var]
    f = math.floor(x)
    return [Fraction(v) for v in (f - 1, f, f + 1, f + 2) if lo <= v <= hi]  # type: ignore[operator]


@dataclass(frozen=True)
class SOSSolution:
    """Candidate dual polynomial of the sum-of-squares program built from
    :func:`markov_lukacs_blocks`, as a conic solver returns it (floating point, unverified)."""

    coefficients: tuple[float, ...]
    objective: float
    solver_status: str
    iterations: int


def starting_columns(problem: MomentProblem, basis: Any, *, dense_limit: int, initial: int = INITIAL_COLUMNS) -> list[Fraction]:
    """The LP's starting columns: every point of a discrete support with at most ``dense_limit``
    points (an even subsample of a larger finite set); otherwise the ends of the event pieces
    and ``max(initial, 2 m + 2)`` points spread like Chebyshev nodes over the support (plus,
    for a Hermite ``basis``, points spread over ``+-8`` standard deviations), moved to the
    support by :func:`support_neighbours`."""
    sup = problem.support
    if sup.kind is SupportKind.FINITE:
        pts = list(sup.points)  # type: ignore[arg-type]
        if len(pts) <= dense_limit:
            return pts
        idx = np.unique(np.linspace(0, len(pts) - 1, dense_limit).round().astype(int))
        return [pts[i] for i in idx]
    if sup.kind is SupportKind.GRID and sup.size <= dense_limit:  # type: ignore[operator]
        return [Fraction(x) for x in range(int(sup.lo), int(sup.hi) + 1)]  # type: ignore[arg-type]
    amap, _ = problem.affine_to_unit()
    k = max(int(initial), 2 * problem.order + 2)
    out: set[Fraction] = set()
    for piece in problem.event.pieces(sup):
        out.add(piece.lo)
        out.add(piece.hi)
    xs = [float(amap.shift) + float(amap.scale) * float(u) for u in np.cos(np.pi * np.arange(k + 1) / k)]
    if basis.kind == "hermite":  # the bulk of the law, in standard deviations
        xs += [float(basis.shift) + float(basis.scale) * v for v in np.linspace(-8.0, 8.0, k + 1)]
    lo, hi = float(sup.lo), float(sup.hi)  # type: ignore[arg-type]
    for x in xs:
        out.update(support_neighbours(sup, min(max(x, lo), hi)))
    return sorted(out)
