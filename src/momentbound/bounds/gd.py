"""Gradient descent on the dual (methods ``"gd"`` and ``"gdts"``), the paper's GD and GDTS.

Write the dual polynomial as ``p = y_0 + q`` with ``q = sum_{k>=1} y_k T_k(u)``.  For a
given ``q`` the cheapest feasible constant term is

    y_0(q) = max over pieces of  max_{u in piece} (target - q(u)),

found from the real roots of ``q'`` (the paper's root-based feasibility check; on a grid,
at the integers next to each root).  The paper searches this constant by bisection; here
the same root-based check gives it in closed form, so every iterate is dual feasible and
its objective ``f(q) = sum_{k>=1} y_k c_k + y_0(q)`` is a valid bound.  ``f`` is convex and
piecewise smooth; GD steps along the negative of the minimum-norm element of the
``eps``-subdifferential (the subgradients ``c - T(u*)`` at the nearly worst points ``u*``),
with a halving (binary) search on the step length.  It stops where no descent is found:
like the paper's GD it may stop short of the optimum (status VALID, never OPTIMAL).  For
two-piece events it starts from a Cantelli-shaped square around the event boundary
(:func:`quadratic_start`): from ``q = 0`` a law concentrated next to the boundary offers no
descent direction at all.

``gdts`` adds the paper's local topology search: random points around the best iterate
(drawn from the ``rng`` argument) are used as new starts, the best result is kept, and
the search radius shrinks when no neighbour improves.

References
----------
Dhurandhar & Dobra, Section 7.2.2 (GD, GDTS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument

from .pieces import UnitPiece, bounded_support_reason, discrete_pieces
from .problem import MomentProblem
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind
from .sdp import assemble, certified_side
from .sqp import MARGIN, candidates_from_roots, critical_points

__all__ = ["GDMethod", "GDTSMethod", "DescentResult", "dual_descent", "feasible_constant", "quadratic_start"]


_PROBES = 24


def _probe_points(piece: UnitPiece) -> np.ndarray:
    """A few interior points, so a flat stretch shows several active subgradients."""
    if piece.a == piece.b:
        return np.array([piece.a])
    t = (1 - np.cos(np.pi * np.arange(1, _PROBES) / _PROBES)) / 2  # Chebyshev points: dense at the ends
    pts = piece.a + (piece.b - piece.a) * t
    if piece.step > 0:
        pts = piece.a + np.round((pts - piece.a) / piece.step) * piece.step
    return pts


def feasible_constant(q: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...]) -> tuple[float, np.ndarray, np.ndarray]:
    """Smallest ``y_0`` with ``y_0 + q(u) >= offset`` on every piece, and the candidate points
    with their required constants (for subgradients).  ``q[0]`` is ignored.

    Example
    -------
    >>> y0, _, _ = feasible_constant(np.array([0.0, 1.0]), (UnitPiece(-1.0, 1.0, 0),), (0.0,))
    >>> y0    # u + y0 >= 0 on [-1, 1]
    1.0
    """
    qq = np.array(q, dtype=float)
    qq[0] = 0.0
    real = critical_points(qq)
    us, offs = [], []
    for pc, off in zip(pieces, offsets):
        u = candidates_from_roots(real, pc)
        if pc.a != pc.b:
            u = np.concatenate([u, _probe_points(pc)])
        us.append(u)
        offs.append(np.full(len(u), off))
    U = np.concatenate(us)
    Nd = np.concatenate(offs) - _cheb.chebval(U, qq)
    return float(Nd.max()), U, Nd


@dataclass(frozen=True)
class DescentResult:
    """Best dual-feasible iterate found (floating point, verified later)."""

    coefficients: tuple[float, ...]
    objective: float
    iterations: int


def dual_descent(
    cheb_moments: np.ndarray,
    pieces: tuple[UnitPiece, ...],
    offsets: tuple[float, ...],
    *,
    start: np.ndarray | None = None,
    max_iter: int = 300,
) -> DescentResult:
    """Descent on ``f(q) = c_{1:} . q_{1:} + y_0(q)``; every iterate is dual feasible.

    Example
    -------
    >>> r = dual_descent(np.array([1.0, -0.6, -0.2]),
    ...                  (UnitPiece(-1.0, 0.6, 0), UnitPiece(0.6, 1.0, 1)), (0.0, 1.0))
    >>> abs(r.objective - 1 / 37) < 1e-6
    True
    """
    from scipy.optimize import nnls

    c = np.asarray(cheb_moments, dtype=float)
    m = len(c) - 1
    q = np.zeros(m + 1) if start is None else np.array(start, dtype=float)
    q[0] = 0.0

    def evaluate(qv: np.ndarray, eps: float) -> tuple[float, np.ndarray]:
        y0, U, need = feasible_constant(qv, pieces, offsets)
        active = U[need >= y0 - eps]
        grads = c[None, 1:] - _cheb.chebvander(active, m)[:, 1:]
        return float(c[1:] @ qv[1:] + y0), grads

    def min_norm(G: np.ndarray) -> np.ndarray:
        if G.shape[0] == 1:
            return G[0]
        rho = 1e3  # weight of the convexity row sum(lambda) = 1
        A = np.vstack([G.T, rho * np.ones((1, G.shape[0]))])
        lam, _ = nnls(A, np.concatenate([np.zeros(G.shape[1]), [rho]]))
        return lam @ G

    eps = 1e-2
    f, G = evaluate(q, eps)
    step = 1.0
    it = 0
    stalled = 0
    while it < max_iter:
        it += 1
        g = min_norm(G)
        gn = float(np.linalg.norm(g))
        if gn < 1e-12:
            if eps < 1e-9:
                break
            eps /= 10
            f, G = evaluate(q, eps)
            continue
        t = step
        improved = False
        while t > 1e-13:  # binary (halving) search along the descent direction
            cand = q.copy()
            cand[1:] -= t * g / gn
            fc, Gc = evaluate(cand, eps)
            if fc < f - 1e-15:
                improved = True
                break
            t /= 2
        if not improved:
            if eps < 1e-9:
                break
            eps /= 10
            f, G = evaluate(q, eps)
            continue
        stalled = stalled + 1 if f - fc < 1e-12 * max(1.0, abs(f)) else 0
        q, f, G = cand, fc, Gc
        step = min(4 * t, 10.0)
        if stalled >= 10:
            break
    y0, _, _ = feasible_constant(q, pieces, offsets)
    out = q.copy()
    out[0] = y0
    return DescentResult(tuple(out.tolist()), float(c @ out), it)


def quadratic_start(c: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...]) -> np.ndarray | None:
    """A starting polynomial with a descent direction (the paper: GD depends on its start).

    From ``q = 0`` a law concentrated next to the event boundary (``Z_x`` at large ``N``) offers
    no descent direction.  For a two-piece problem (``X > t``-type events) start instead from the
    Cantelli-shaped square ``(1 +/- (u - b) / sd)^2`` around the boundary ``b``, rising towards
    the piece with the larger right-hand side.  ``None`` (start at zero) otherwise.

    Example
    -------
    >>> q = quadratic_start(np.array([1.0, 0.0, -0.5]), (UnitPiece(-1.0, 0.0, 0), UnitPiece(0.5, 1.0, 1)), (0.0, 1.0))
    >>> q.shape
    (3,)
    """
    m = len(c) - 1
    if m < 2 or len(pieces) != 2 or offsets[0] == offsets[1]:
        return None
    var = (c[2] + 1) / 2 - c[1] ** 2  # E[u^2] = (E[T_2] + 1) / 2
    if not var > 0:
        return None
    sd = float(np.sqrt(var))
    b = (pieces[0].b + pieces[1].a) / 2
    slope = (1.0 if offsets[1] > offsets[0] else -1.0) / sd
    lin = np.array([1.0 - slope * b, slope])  # 1 + slope (u - b)
    start = np.zeros(m + 1)
    start[:3] = _cheb.chebmul(lin, lin)
    return start


def _validate_iter(value: Any, name: str) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a positive integer, got {value!r}") from exc
    if v < 1 or v != value:
        raise InvalidArgument(f"{name} must be a positive integer, got {value!r}")
    return v


class _DescentBase(BoundMethod):
    kind = Kind.BOUND

    def applies(self, problem: MomentProblem) -> str | None:
        return bounded_support_reason(problem)

    def _side(self, c: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...], options: dict[str, Any], start: np.ndarray | None) -> DescentResult:
        raise NotImplementedError  # pragma: no cover

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        c = np.array([float(v) for v in problem.chebyshev_moments()])
        pieces = discrete_pieces(problem)
        sides: dict[str, tuple[Any, bool]] = {}
        iters = 0
        for side in ("upper", "lower"):
            sign = 1.0 if side == "upper" else -1.0
            offsets = tuple(sign * pc.target for pc in pieces)
            res = self._side(c, pieces, offsets, options, quadratic_start(c, pieces, offsets))
            iters += res.iterations
            cand = np.array(res.coefficients)
            cand[0] += MARGIN
            sides[side] = certified_side(problem, side, sign * cand, self.name)
        diag = Diagnostics(solver=self.name, iterations=iters, notes=("descent may stop before the optimum",))
        return assemble(problem, self.name, sides, diag)


class GDMethod(_DescentBase):
    """Gradient descent on the dual with root-based feasibility (paper's GD); valid, maybe not sharp.

    Options
    -------
    max_iter : int
        Maximum descent steps per side (default 200).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> r = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), method="gd")
    >>> r.certified and r.upper >= 1 / 3 - 1e-9
    True
    """

    name = "gd"
    options = {"max_iter": 200}

    def _side(self, c: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...], options: dict[str, Any], start: np.ndarray | None) -> DescentResult:
        return dual_descent(c, pieces, offsets, start=start, max_iter=_validate_iter(options["max_iter"], "max_iter"))


class GDTSMethod(_DescentBase):
    """GD with random local topology search (paper's GDTS); valid, maybe not sharp.

    Options
    -------
    rng : numpy.random.Generator or int or None
        Source of the random neighbours (an int seeds ``numpy.random.default_rng``).
    rounds : int
        Topology-search rounds (default 2).
    neighbours : int
        Random starts per round (default 3).
    radius : float
        Initial relative search radius (default 0.5; halved after a round without gain).
    max_iter : int
        Descent steps per start (default 60; the first descent uses 200).

    Example
    -------
    >>> import numpy as np
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> r = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), method="gdts",
    ...           rng=np.random.default_rng(0))
    >>> r.certified
    True
    """

    name = "gdts"
    options = {"rng": None, "rounds": 2, "neighbours": 3, "radius": 0.5, "max_iter": 60}

    def _side(self, c: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...], options: dict[str, Any], start: np.ndarray | None) -> DescentResult:
        rng = options["rng"]
        if rng is None or isinstance(rng, (int, np.integer)):
            from momentbound._validate import as_seed

            rng = as_seed(rng, "rng")
        if not isinstance(rng, np.random.Generator):
            raise InvalidArgument(f"rng must be a numpy.random.Generator, an integer seed >= 0 or None, got {rng!r}")
        rounds = _validate_iter(options["rounds"], "rounds")
        neighbours = _validate_iter(options["neighbours"], "neighbours")
        max_iter = _validate_iter(options["max_iter"], "max_iter")
        radius = float(options["radius"])
        if not radius > 0:
            raise InvalidArgument(f"radius must be positive, got {options['radius']!r}")
        best = dual_descent(c, pieces, offsets, start=start, max_iter=max(max_iter, 200))
        iters = best.iterations
        for _ in range(rounds):
            centre = np.array(best.coefficients)
            scale = radius * (1.0 + float(np.linalg.norm(centre[1:])))
            improved = False
            for _ in range(neighbours):
                start = centre + scale * rng.standard_normal(centre.shape) / np.sqrt(len(centre))
                res = dual_descent(c, pieces, offsets, start=start, max_iter=max_iter)
                iters += res.iterations
                if res.objective < best.objective - 1e-15:
                    best, improved = res, True
            if not improved:
                radius /= 2
        return DescentResult(best.coefficients, best.objective, iters)
