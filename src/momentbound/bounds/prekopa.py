"""``prekopa``: Prekopa's dual method for the discrete moment problem, in exact arithmetic.

The discrete moment LP ``max sum_{x in E} q_x`` s.t. ``sum_x T_k(u_x) q_x = tau_k``,
``q >= 0`` is solved by the dual simplex method (Lemke), as Prekopa (1990, "The discrete
moment problem and linear programming") does: start from a *dual feasible basis* of
his structure and pivot, keeping dual feasibility, until the basis is primal feasible.

A basis is a set of ``m + 1`` support points; its dual vector ``y`` is the polynomial
``p`` of degree ``m`` interpolating ``1_E`` there, and the basis is dual feasible iff
``p >= 1_E`` on the whole support.  Starting bases for a tail event ``E``:

* if ``E`` holds at least ``m + 1`` support points: any ``m + 1`` of them (``p = 1``);
* otherwise Prekopa's structure: zeros of ``p`` in pairs of consecutive support points
  of the complement (plus the far end point if ``m`` is odd) and ``p = 1`` at the
  threshold point, so ``p = c * prod (x - s_i)(x - s_{i+1})`` is ``>= 0`` at every
  support point and increases into the tail.

* (default, ``start="auto"``) the *continuous-measure start*
  (:func:`continuous_start_bases`): the contact points of the interval problem's
  extremal measure (single contacts at the threshold / end points, double contacts at the
  roots of a quasi-orthogonal polynomial, computed in the standardized variable), each
  double contact rounded to the pair of consecutive support points around it.  Among
  these candidates the best exactly dual feasible one is the start; on fine grids it is
  (next to) the optimal basis, so the dual simplex needs few or no pivots instead of moving
  the pairs one grid point per pivot.  If no candidate is dual feasible the start falls
  back, still within this method and said in the message, to coarse-to-fine sub-grid
  solves (``start="coarse"``) and then to pairs next to the threshold
  (``start="structured"``).

Each pivot: leaving point = basis point with the most negative primal weight
``w = B^{-1} tau``; entering point = minimiser over the support of the ratio
``(p(x) - 1_E(x)) / (-L_r(x))`` over points with ``L_r(x) < 0``, where ``L_r`` is the
Lagrange polynomial of the leaving point (row ``r`` of ``B^{-1}``).  On a huge grid the
ratio is minimised like every other polynomial search here: candidates at the
floor/ceiling of the real critical points of the ratio, the piece ends and the
neighbours of basis points, evaluated exactly.  Everything (``B^{-1}``, ``w``, ``y``,
ratios) is exact rational arithmetic (python-flint); the final basis is verified on the
whole support by exact root isolation.  Lower bounds use the complementary tail.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.errors import InfeasibleMoments, InvalidArgument, SolverFailed
from momentbound.rational import to_fmpq, to_fraction

from .basis import PolyBasis, choose_basis
from .certificate import certify, slack_minimum
from .problem import EventKind, MomentProblem, Support, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["PrekopaMethod", "DualSimplex", "structured_start_basis", "continuous_start_bases", "dual_simplex_upper",
           "exact_feasibility"]

TAIL_EVENTS = (EventKind.GT, EventKind.GE, EventKind.LT, EventKind.LE)






class _DiscreteSupport:
    """Ordered access to a grid or finite support without enumerating a grid."""

    def __init__(self, problem: MomentProblem) -> None:
        sup = problem.support
        self.grid = sup.kind is SupportKind.GRID
        self.lo, self.hi = sup.lo, sup.hi
        self.points = None if self.grid else list(sup.points)  # type: ignore[arg-type]

    def size(self) -> int:
        return int(self.hi - self.lo) + 1 if self.grid else len(self.points)  # type: ignore[operator,arg-type]

    def at(self, i: int) -> Fraction:
        return self.lo + i if self.grid else self.points[i]  # type: ignore[operator,index]

    def rank(self, x: Fraction) -> int:
        return int(x - self.lo) if self.grid else self.points.index(x)  # type: ignore[operator,union-attr]


def _canonical_nodes(problem: MomentProblem, thr: Fraction, end: Fraction | None) -> list[float]:
    """Interior nodes of the continuous extremal measure through ``thr`` (and ``end``), in x.

    They are the roots of the degree-``n`` polynomial ``R`` with ``E[w(U) R(U) U^j] = 0``
    (``j < n``), ``w(u) = (u - u_thr)`` times ``(u - u_end)`` when ``m`` is odd (Gauss-Radau /
    Lobatto-type quadrature with fixed nodes).  Used only to place the starting pairs.
    """
    amap, mu = problem.affine_to_unit()
    m = problem.order
    n = m // 2
    if n == 0:
        return []
    ut = amap.to_unit(thr)
    w = [Fraction(1)]
    for root in [ut] + ([amap.to_unit(end)] if end is not None else []):
        w = [(w[i - 1] if i > 0 else 0) - root * (w[i] if i < len(w) else 0) for i in range(len(w) + 1)]
    nu = [sum((c * mu[i + k] for i, c in enumerate(w)), Fraction(0)) for k in range(2 * n)]
    import flint

    M = flint.fmpq_mat(n, n, [to_fmpq(nu[i + j]) for j in range(n) for i in range(n)])
    rhs = flint.fmpq_mat(n, 1, [to_fmpq(-nu[n + j]) for j in range(n)])
    try:
        r = M.solve(rhs)
    except ZeroDivisionError:
        return []
    coeffs = [float(to_fraction(r[i, 0])) for i in range(n)] + [1.0]
    roots = np.roots(coeffs[::-1])
    real = roots[np.abs(roots.imag) < 1e-9].real
    return sorted(float(amap.from_unit(Fraction(float(u)))) for u in real)


def structured_start_basis(problem: MomentProblem) -> list[Fraction]:
    """A dual feasible starting basis of Prekopa's structure for the upper bound of a tail event.

    Pairs of consecutive support points are placed next to the nodes of the continuous
    extremal measure (so few pivots remain); any placement of disjoint pairs in the
    complement gives a dual feasible basis, which is what makes the structure useful.
    """
    import bisect

    ev, m = problem.event, problem.order
    sup = _DiscreteSupport(problem)
    n = sup.size()
    if n < m + 1:
        raise InvalidArgument(
            f"prekopa needs at least m + 1 = {m + 1} support points, the support has {n}; drop the redundant moments"
        )
    if n == m + 1:
        # the only basis: p interpolates 1_E at every support point, so p = 1_E there
        return [sup.at(i) for i in range(n)]
    upper_tail = ev.kind in (EventKind.GT, EventKind.GE)
    if sup.grid:
        ins = [p for p in ev.pieces(problem.support) if p.target == 1]
        rng = (int(ins[0].lo - sup.lo), int(ins[0].hi - sup.lo)) if ins else None  # type: ignore[operator]
    else:
        in_idx = [i for i in range(n) if ev.indicator(sup.at(i))]
        rng = (min(in_idx), max(in_idx)) if in_idx else None
    if rng is None:
        # P(E) = 0 on this support: the zero polynomial, interpolated at any m + 1 points
        return [sup.at(i) for i in range(m + 1)]
    n_in = rng[1] - rng[0] + 1
    n_out = n - n_in
    pairs = m // 2
    odd = m % 2 == 1
    if n_out < 2 * pairs + int(odd):
        if n_in < m + 1:
            raise InvalidArgument("prekopa: the support is too small for a structured starting basis; use 'lp'")
        # p = 1 interpolated at m + 1 event points is dual feasible
        a, b = rng
        idx = list(range(a, a + m + 1)) if upper_tail else list(range(b - m, b + 1))
        return [sup.at(i) for i in idx]
    if upper_tail:
        thr = rng[0]
        end = 0 if odd else None
        lo_i, hi_i = (1 if odd else 0), thr - 1
    else:
        thr = rng[1]
        end = n - 1 if odd else None
        lo_i, hi_i = thr + 1, (n - 2 if odd else n - 1)
    nodes = _canonical_nodes(problem, sup.at(thr), None if end is None else sup.at(end))
    starts: list[int] = []
    for z in nodes:
        if sup.grid:
            i = math.floor(z - float(sup.lo))  # type: ignore[arg-type]
        else:
            i = bisect.bisect_right([float(x) for x in sup.points], z) - 1  # type: ignore[union-attr]
        if lo_i <= i + 0.5 <= hi_i:
            starts.append(min(max(i, lo_i), hi_i - 1))
    if len(starts) != pairs:
        # no usable continuous nodes: pairs next to the threshold
        starts = list(range(lo_i, lo_i + 2 * pairs, 2)) if not upper_tail else list(range(hi_i - 2 * pairs + 1, hi_i, 2))
    starts.sort()
    for k in range(1, len(starts)):  # make the pairs disjoint, pushing right ...
        starts[k] = max(starts[k], starts[k - 1] + 2)
    if starts and starts[-1] + 1 > hi_i:  # ... and back left if needed
        starts[-1] = hi_i - 1
        for k in range(len(starts) - 2, -1, -1):
            starts[k] = min(starts[k], starts[k + 1] - 2)
    idx = [thr] + [i for s_ in starts for i in (s_, s_ + 1)] + ([end] if end is not None else [])
    return sorted(sup.at(i) for i in idx)


def _event_range(problem: MomentProblem, sup: _DiscreteSupport) -> tuple[int, int] | None:
    """Indices (first, last) of the support points in the (tail) event, or None if there are none."""
    if sup.grid:
        ins = [p for p in problem.event.pieces(problem.support) if p.target == 1]
        return (int(ins[0].lo - sup.lo), int(ins[0].hi - sup.lo)) if ins else None  # type: ignore[operator]
    in_idx = [i for i in range(sup.size()) if problem.event.indicator(sup.at(i))]
    return (min(in_idx), max(in_idx)) if in_idx else None


def _quasi_orthogonal_nodes(vmom: Sequence[Fraction], fixed: Sequence[Fraction], n: int) -> list[float] | None:
    """Real roots of the monic degree-``n`` ``R`` with ``E[w(V) R(V) V^j] = 0`` (``j < n``).

    ``w(v) = prod (v - f)`` over the fixed nodes; ``vmom`` are the exact moments of the
    standardized variable ``V`` (so the free nodes are of order one and the float root
    finding is well conditioned).  The nodes of the quadrature with ``m + 1`` degrees of
    freedom through ``fixed`` are ``fixed`` and the roots of ``R``.  ``None`` if ``R`` does
    not exist (singular system) or has non-real roots.
    """
    if n == 0:
        return []
    import flint

    w = [Fraction(1)]
    for f in fixed:
        w = [(w[i - 1] if i > 0 else 0) - f * (w[i] if i < len(w) else 0) for i in range(len(w) + 1)]
    nu = [sum((c * vmom[i + k] for i, c in enumerate(w)), Fraction(0)) for k in range(2 * n)]
    M = flint.fmpq_mat(n, n, [to_fmpq(nu[i + j]) for j in range(n) for i in range(n)])
    rhs = flint.fmpq_mat(n, 1, [to_fmpq(-nu[n + j]) for j in range(n)])
    try:
        r = M.solve(rhs)
    except ZeroDivisionError:
        return None
    coeffs = np.array([float(to_fraction(r[i, 0])) for i in range(n)] + [1.0])
    if not np.all(np.isfinite(coeffs)):
        return None
    roots = np.polynomial.polynomial.polyroots(coeffs)
    if np.any(np.abs(roots.imag) > 1e-7 * (1.0 + np.abs(roots.real))):
        return None
    return sorted(float(v) for v in roots.real)


def continuous_start_bases(problem: MomentProblem) -> list[list[Fraction]]:
    """Starting bases of Prekopa's structure rounded from the continuous extremal measures.

    The upper bound of ``P(E)`` for a tail event on the interval ``[lo, hi]`` is attained
    by a measure whose atoms are contact points of the dual polynomial ``p >= 1_E``:
    single contacts at the threshold and/or the end points, double contacts elsewhere
    (``p - 1_E`` has a double root), ``m + 1`` conditions in all.  For every admissible
    set ``F`` of single contacts (a subset of {threshold, lo, hi} of the parity of
    ``m + 1``) the double contacts are the roots of the quasi-orthogonal polynomial of
    the measure ``w_F(v) dmu`` (:func:`_quasi_orthogonal_nodes`, computed in the
    standardized variable).  Each double contact ``z`` is rounded to the pair of
    consecutive support points around it (inside the event or inside its complement,
    like ``z``): Prekopa's pair structure.  The caller keeps the candidates whose basis
    is dual feasible (checked exactly) and starts the dual simplex there, so only a few
    pivots remain however fine the grid is.
    """
    m = problem.order
    sup = _DiscreteSupport(problem)
    size = sup.size()
    if size <= m + 1 or m < 1:
        return []
    rng = _event_range(problem, sup)
    if rng is None or rng == (0, size - 1):
        return []
    upper_tail = problem.event.kind in (EventKind.GT, EventKind.GE)
    thr = rng[0] if upper_tail else rng[1]
    mom = problem.exact_moments
    c = mom[1]
    var = mom[2] - c * c if m >= 2 else Fraction(0)
    try:
        s = Fraction(math.sqrt(float(var))).limit_denominator(10**12) if var > 0 else Fraction(0)
    except OverflowError:  # astronomically wide law: an integer square root is as good a scale
        s = Fraction(math.isqrt(int(var)))
    if s <= 0:
        s = Fraction(max(1, math.ceil((sup.at(size - 1) - sup.at(0)) / 2)))
    vmom = [
        sum((math.comb(k, j) * mom[j] * (-c) ** (k - j) for j in range(k + 1)), Fraction(0)) / s**k
        for k in range(m + 1)
    ]
    xs_sorted = None if sup.grid else [float(x) for x in sup.points]  # type: ignore[union-attr]
    regions = [(rng[0], rng[1])] + ([(0, rng[0] - 1)] if rng[0] > 0 else []) + (
        [(rng[1] + 1, size - 1)] if rng[1] < size - 1 else [])
    singles = {"thr": thr, "lo": 0, "hi": size - 1}
    out: list[list[Fraction]] = []
    import bisect
    import itertools

    for k in range(4):
        if (k % 2) != ((m + 1) % 2):
            continue
        for names in itertools.combinations(("thr", "lo", "hi"), k):
            idx = {singles[nm] for nm in names}
            if len(idx) != k:
                continue
            n_free = (m + 1 - k) // 2
            nodes = _quasi_orthogonal_nodes(vmom, [(sup.at(i) - c) / s for i in sorted(idx)], n_free)
            if nodes is None:
                continue
            ok = True
            chosen = set(idx)
            for v in nodes:
                x = float(c) + float(s) * v
                if sup.grid:
                    i = math.floor(x - float(sup.lo))  # type: ignore[arg-type]
                else:
                    i = bisect.bisect_right(xs_sorted, x) - 1  # type: ignore[arg-type]
                reg = next((r for r in regions if r[0] <= i <= r[1]), None)
                if reg is None:
                    i = min(max(i, 0), size - 1)
                    reg = next(r for r in regions if r[0] <= i <= r[1])
                if reg[1] - reg[0] < 1:
                    ok = False
                    break
                i = min(max(i, reg[0]), reg[1] - 1)
                if i in chosen or i + 1 in chosen:
                    # nudge the pair away from a point already used, inside the region
                    for j in (i - 1, i + 1, i - 2, i + 2):
                        if reg[0] <= j < reg[1] and j not in chosen and j + 1 not in chosen:
                            i = j
                            break
                    else:
                        ok = False
                        break
                chosen.update((i, i + 1))
            if ok and len(chosen) == m + 1:
                out.append([sup.at(i) for i in sorted(chosen)])
    return out


@dataclass
class _State:
    basis: list[Fraction]
    y: list[Any]  # flint fmpq, coefficients of the dual polynomial in the solver basis
    w: list[Any]  # flint fmpq, primal weights of the basis points


class DualSimplex:
    """Lemke's dual simplex on the discrete moment LP (upper bound of ``P(E)``), exact (flint fmpq)."""

    def __init__(self, problem: MomentProblem, *, dense_limit: int = 4096, basis: PolyBasis | None = None) -> None:
        if not problem.support.is_discrete:
            raise InvalidArgument("the dual simplex needs a discrete support (grid or finite set)")
        self.problem = problem
        self.m = problem.order
        self.amap, _ = problem.affine_to_unit()
        self.pb = basis if basis is not None else choose_basis(problem)
        self.tau = [to_fmpq(t) for t in self.pb.moments]
        self.event = problem.event
        self.dense_limit = dense_limit
        self.pivots = 0
        sup = problem.support
        self.pieces = None if sup.kind is SupportKind.FINITE else problem.event.pieces(sup)

    # -- linear algebra ----------------------------------------------------------------
    def tvals(self, x: Fraction) -> list[Any]:
        """Exact basis values at ``x`` (cached)."""
        return self.pb.values_exact(x)

    def u_monomial(self, y: Sequence[Any]) -> tuple[Fraction, ...]:
        """Exact monomial coefficients in the problem's ``u`` of the dual polynomial."""
        return self.pb.monomial_in([to_fraction(v) if not isinstance(v, Fraction) else v for v in y],
                                   self.amap.shift, self.amap.scale)

    def _matrix(self, basis: Sequence[Fraction]) -> Any:
        import flint

        m1 = self.m + 1
        cols = [self.tvals(x) for x in basis]
        return flint.fmpq_mat(m1, m1, [cols[j][k] for k in range(m1) for j in range(m1)])

    def state(self, basis: Sequence[Fraction]) -> _State:
        import flint

        m1 = self.m + 1
        B = self._matrix(basis)
        w = B.solve(flint.fmpq_mat(m1, 1, self.tau))
        c = [int(self.event.indicator(x)) for x in basis]
        y = B.transpose().solve(flint.fmpq_mat(m1, 1, c))
        return _State(list(basis), [y[k, 0] for k in range(m1)], [w[j, 0] for j in range(m1)])

    def lagrange_row(self, basis: Sequence[Fraction], r: int) -> list[Any]:
        """Chebyshev coefficients of the Lagrange polynomial of basis point ``r`` (row r of B^-1)."""
        import flint

        m1 = self.m + 1
        B = self._matrix(basis)
        e = flint.fmpq_mat(m1, 1, [1 if k == r else 0 for k in range(m1)])
        z = B.transpose().solve(e)
        return [z[k, 0] for k in range(m1)]

    # -- ratio test ---------------------------------------------------------------------
    def x_poly(self, coeffs: Sequence[Any]) -> Any:
        """The polynomial ``sum_k c_k phi_k`` as an exact ``fmpq_poly`` in ``x`` itself."""
        import flint

        mono = self.pb.monomial_in([to_fraction(v) if not isinstance(v, Fraction) else v for v in coeffs], Fraction(0), Fraction(1))
        return flint.fmpq_poly([to_fmpq(c) for c in mono])

    def _dense_ratio(
        self, y_x: Any, L_x: Any, lo: int, hi: int, target: int, basis: set[Fraction]
    ) -> tuple[Any, Fraction] | None:
        """Exact minimum ratio over every integer of ``lo..hi`` (all values in rational arithmetic).

        The sign of ``L(x)`` is read from the integer numerator polynomial (``L = N / d``,
        ``d > 0``), so only the points with ``L(x) < 0`` pay for a rational ratio.
        """
        num_L = L_x.numer()
        best: tuple[Any, Fraction] | None = None
        for x in range(lo, hi + 1):
            if num_L(x) >= 0:
                continue
            fx = Fraction(x)
            if fx in basis:
                continue
            ratio = (y_x(x) - target) / (-L_x(x))
            if best is None or ratio < best[0]:
                best = (ratio, fx)
        return best

    def _float_candidates(self, y: Sequence[Any], L: Sequence[Any], basis: Sequence[Fraction], piece: Any) -> set[Fraction]:
        """Candidate entering points of a long integer piece: ends, floor/ceiling of the real
        critical points of the ratio and of the roots of ``L``, neighbours of basis points."""
        pb = self.pb
        yf = np.array([float(to_fraction(v)) for v in y])
        Lf = np.array([float(to_fraction(v)) for v in L])
        lo, hi = int(piece.lo), int(piece.hi)
        out: set[Fraction] = {Fraction(lo), Fraction(hi)}
        d = yf.copy()
        d[0] -= piece.target
        num = pb.sub(pb.mul(pb.der(d), Lf), pb.mul(d, pb.der(Lf)))
        vlo, vhi = float(pb.to_v(Fraction(lo))), float(pb.to_v(Fraction(hi)))
        pad = 1e-9 * max(abs(vlo), abs(vhi)) + 1e-12
        roots = list(pb.real_roots(num, vlo - pad, vhi + pad)) + list(pb.real_roots(Lf, vlo - pad, vhi + pad))
        for r in roots:
            x = float(pb.shift) + float(pb.scale) * float(r)
            if not math.isfinite(x):
                continue
            f = math.floor(x)
            out.update(Fraction(v) for v in range(f - 1, f + 3) if lo <= v <= hi)
        for b in basis:
            out.update(Fraction(v) for v in (b - 1, b + 1) if lo <= v <= hi)
        return out

    def entering(self, st: _State, r: int) -> Fraction | None:
        """The entering point of the dual simplex ratio test (exact), or ``None`` if no support
        point has ``L_r(x) < 0``.

        Integer pieces up to ``dense_limit`` points and finite supports are scanned point by
        point in exact arithmetic; on longer pieces the candidates come from the float
        critical points and the exact ratio decides among them.  ``None`` is returned only
        when ``L_r >= 0`` holds on the *whole* support, checked exactly (a Farkas certificate
        of infeasibility: ``E[L_r(X)] = w_r < 0``); a candidate search that misses a point
        with ``L_r < 0`` falls back to the points found by that exact check.
        """
        L = self.lagrange_row(st.basis, r)
        y_x, L_x = self.x_poly(st.y), self.x_poly(L)
        basis = set(st.basis)
        best: tuple[Any, Fraction] | None = None

        def consider(x: Fraction) -> None:
            nonlocal best
            if x in basis:
                return
            lv = L_x(to_fmpq(x))
            if lv >= 0:
                return
            ratio = (y_x(to_fmpq(x)) - int(self.event.indicator(x))) / (-lv)
            if best is None or ratio < best[0] or (ratio == best[0] and x < best[1]):
                best = (ratio, x)

        sup = self.problem.support
        exhaustive = True
        if sup.kind is SupportKind.FINITE:
            for x in sup.points:  # type: ignore[union-attr]
                consider(x)
        else:
            for piece in self.pieces:  # type: ignore[union-attr]
                lo, hi = int(piece.lo), int(piece.hi)  # type: ignore[arg-type]
                if hi - lo + 1 <= self.dense_limit:
                    got = self._dense_ratio(y_x, L_x, lo, hi, piece.target, basis)
                    if got is not None and (best is None or got[0] < best[0] or (got[0] == best[0] and got[1] < best[1])):
                        best = got
                    continue
                exhaustive = False
                for x in sorted(self._float_candidates(st.y, L, st.basis, piece)):
                    consider(x)
        if best is None and not exhaustive:
            # the float candidates found no point with L_r < 0: decide exactly on the whole support
            ver = self.lagrange_nonnegative(L)
            for x in ver.violations:
                consider(x)
        return None if best is None else best[1]

    def lagrange_nonnegative(self, L: Sequence[Any]) -> Any:
        """Exact check of ``L >= 0`` on the whole support (a :class:`Verification`)."""
        from .problem import Event

        lo = self.problem.support.lo
        never = Event.lt(lo - 1)  # type: ignore[operator]
        return slack_minimum(self.u_monomial(L), "monomial", self.amap, self.problem.support, never, "upper")

    def run(self, basis: Sequence[Fraction], max_pivots: int) -> tuple[_State, bool]:
        """Pivot until primal feasible; returns (state, optimal_reached)."""
        st = self.state(basis)
        seen: set[tuple[Fraction, ...]] = set()
        while True:
            neg = [(w, j) for j, w in enumerate(st.w) if w < 0]
            if not neg:
                return st, True
            if self.pivots >= max_pivots:
                return st, False
            key = tuple(sorted(st.basis))
            if key in seen:  # cycling guard: Bland-like choice of the first negative weight
                r = min(j for _, j in neg)
            else:
                r = min(neg)[1]
            seen.add(key)
            x = self.entering(st, r)
            if x is None:
                # L_r >= 0 on the whole support (checked exactly) while E[L_r(X)] = w_r < 0
                raise InfeasibleMoments(
                    f"no distribution on the discrete support {self.problem.support} has these moments: "
                    f"the Lagrange polynomial of the basis point {st.basis[r]} is >= 0 on the whole support "
                    f"but its expectation is the negative weight {float(to_fraction(st.w[r])):.3g} "
                    "(an exactly verified Farkas certificate)",
                    condition="discrete-support",
                )
            new = list(st.basis)
            new[r] = x
            self.pivots += 1
            st = self.state(new)


def _level_problem(problem: MomentProblem, step: int) -> MomentProblem:
    """The problem for ``I = (X - lo) / step`` on the sub-grid ``0..K`` (exact moment transform)."""
    lo, hi = problem.support.lo, problem.support.hi
    K = int((hi - lo) // step)  # type: ignore[operator]
    mom = problem.exact_moments
    new = []
    for k in range(len(mom)):
        acc = sum((math.comb(k, j) * (-lo) ** (k - j) * mom[j] for j in range(k + 1)), Fraction(0))  # type: ignore[operator]
        new.append(acc / Fraction(step) ** k)
    ev = problem.event
    a = (ev.a - lo) / step  # type: ignore[operator]
    b = None if ev.b is None else (ev.b - lo) / step  # type: ignore[operator]
    return MomentProblem(tuple(new), Support.grid(0, K), type(ev)(ev.kind, a, b))


def _refine_basis(
    ds: DualSimplex, st: _State, ratio: int, fine: MomentProblem, offset: Fraction = Fraction(0)
) -> list[Fraction] | None:
    """Map an optimal coarse basis to the finer level, keeping Prekopa's structure.

    Consecutive coarse pairs become consecutive fine pairs at the coarse polynomial's local
    extremum between them; piece ends map to the fine piece ends; other points scale.
    """
    pb = ds.pb
    basis = sorted(st.basis)
    y = np.array([float(to_fraction(v)) for v in st.y])
    dy = pb.der(y)
    cpieces = ds.pieces or ()
    fpieces = fine.event.pieces(fine.support)
    out: list[Fraction] = []
    used: set[Fraction] = set()
    k = 0
    while k < len(basis):
        i = basis[k]
        pidx = next((n for n, pc in enumerate(cpieces) if pc.lo <= i <= pc.hi), None)
        if pidx is None or pidx >= len(fpieces):
            return None
        fp = fpieces[pidx]
        if k + 1 < len(basis) and basis[k + 1] == i + 1 and cpieces[pidx].lo <= i + 1 <= cpieces[pidx].hi:
            roots = pb.real_roots(dy, float(pb.to_v(i)), float(pb.to_v(i + 1)))
            c = float(pb.shift) + float(pb.scale) * float(roots[0]) if roots.size else float(i) + 0.5
            f = math.floor(c * ratio + offset)
            f = min(max(f, int(fp.lo)), int(fp.hi) - 1)
            pair = [Fraction(f), Fraction(f + 1)]
            k += 2
        else:
            if i == cpieces[pidx].lo:
                pair = [fp.lo]
            elif i == cpieces[pidx].hi:
                pair = [fp.hi]
            else:
                pair = [min(max(Fraction(i * ratio) + offset, fp.lo), fp.hi)]
            k += 1
        for x in pair:
            if x in used:
                return None
            used.add(x)
            out.append(x)
    return out if len(out) == ds.m + 1 else None


def _dual_feasible(ds: DualSimplex, basis: list[Fraction]) -> bool:
    try:
        st = ds.state(basis)
    except ZeroDivisionError:
        return False
    ver = slack_minimum(ds.u_monomial(st.y), "monomial", ds.amap, ds.problem.support, ds.problem.event, "upper")
    return ver.ok


def _continuous_start(ds: DualSimplex, problem: MomentProblem) -> list[Fraction] | None:
    """The best exactly dual feasible basis among :func:`continuous_start_bases` (None if none is).

    Candidates with nonnegative exact primal weights (primal feasible: already optimal)
    come first, then by objective value; dual feasibility is checked on the whole support
    by exact root isolation.
    """
    scored: list[tuple[bool, Fraction, list[Fraction]]] = []
    for basis in continuous_start_bases(problem):
        try:
            st = ds.state(basis)
        except ZeroDivisionError:
            continue
        value = sum((to_fraction(w) for w, x in zip(st.w, basis) if problem.event.indicator(x)), Fraction(0))
        scored.append((not all(w >= 0 for w in st.w), value, basis))
    scored.sort(key=lambda t: (t[0], t[1]))
    for _, _, basis in scored:
        if _dual_feasible(ds, basis):
            return basis
    return None


def dual_simplex_upper(problem: MomentProblem, opts: Mapping[str, Any]) -> tuple[Fraction, Certificate, Status, int, str]:
    """Upper bound of ``P(E)`` for a tail event by the exact dual simplex from Prekopa's starts.

    ``opts`` holds :class:`PrekopaMethod`'s options.  Returns ``(value, certificate, status,
    pivots, note)``; the status is OPTIMAL when the final basis is primal and dual feasible
    in exact arithmetic.
    """
    dense = int(opts["dense_limit"])
    max_pivots = int(opts["max_pivots"])
    pivots = 0
    start: list[Fraction] | None = None
    how = "structured start"
    size = problem.support.size or 0
    start_opt = str(opts["start"])
    tried: list[str] = []
    if start_opt in ("auto", "continuous"):
        start = _continuous_start(DualSimplex(problem, dense_limit=dense), problem)
        if start is not None:
            how = "continuous-measure start"
        else:
            tried.append("no rounded continuous extremal basis was dual feasible")
    if start is None and start_opt in ("auto", "coarse") and problem.support.kind is SupportKind.GRID and size > dense:
        # coarse-to-fine: solve on sub-grids of step s, s/16, ..., map the optimal bases down
        # coarsest step: a power of the refinement factor at most sd/4 (so the bulk of the law
        # keeps ~40 sub-grid points) and leaving at least coarse_points sub-grid points
        factor = int(opts["refine_factor"])
        mom = problem.exact_moments
        sd = math.sqrt(float(mom[2] - mom[1] ** 2)) if problem.order >= 2 else float(size)
        steps = [1]
        while steps[-1] * factor <= sd / 4 and size // (steps[-1] * factor) >= int(opts["coarse_points"]):
            steps.append(steps[-1] * factor)
        steps = steps[::-1]
        prev: tuple[DualSimplex, _State, int] | None = None
        for step in steps[:-1]:
            try:
                lvl = _level_problem(problem, step)
                ds_l = DualSimplex(lvl, dense_limit=dense)
                basis = None
                if prev is not None:
                    basis = _refine_basis(prev[0], prev[1], prev[2] // step, lvl)
                    if basis is not None and not _dual_feasible(ds_l, basis):
                        basis = None
                if basis is None:
                    basis = structured_start_basis(lvl)
                st_l, ok = ds_l.run(basis, max_pivots)
                pivots += ds_l.pivots
                prev = (ds_l, st_l, step) if ok else None
            except (InvalidArgument, ZeroDivisionError):
                prev = None
            except InfeasibleMoments:
                prev = None  # the moments do not fit on this sub-grid; try the next finer one
        if prev is not None:
            ds_f = DualSimplex(problem, dense_limit=dense)
            cand = _refine_basis(prev[0], prev[1], prev[2], problem, problem.support.lo)  # type: ignore[arg-type]
            if cand is not None and _dual_feasible(ds_f, cand):
                start, how = cand, "coarse-to-fine start"
    ds = DualSimplex(problem, dense_limit=dense)
    if start is None:
        start = structured_start_basis(problem)
    if tried:
        how = f"{how}; {'; '.join(tried)}"
    st, optimal = ds.run(start, max_pivots)
    pivots += ds.pivots
    cert, shifted = certify(ds.u_monomial(st.y), "upper", problem, basis="monomial", allow_shift=False,
                            how_prefix="exact-rational")
    if cert.verified:
        status = Status.OPTIMAL if optimal else Status.VALID
        note = (f"dual simplex ({how}) reached a primal feasible basis" if optimal
                else f"pivot limit reached ({how}); dual feasible basis")
        return cert.value, cert, status, pivots, note
    cert, shifted = certify(ds.u_monomial(st.y), "upper", problem, basis="monomial", allow_shift=True,
                            how_prefix="exact-rational")
    status = Status.SHIFTED if cert.verified else Status.UNVERIFIED
    return cert.value, cert, status, pivots, "ratio test missed a point; final certificate shifted"


def exact_feasibility(problem: MomentProblem, max_pivots: int = 600) -> bool | None:
    """Decide in exact arithmetic whether a law on the discrete support has these moments.

    Runs the exact dual simplex for an auxiliary tail event (feasibility does not depend on
    the event).  Returns ``True`` when it reaches a basis with nonnegative exact weights (a
    distribution with these moments, hence a witness), raises :class:`InfeasibleMoments`
    when a Lagrange polynomial ``L >= 0`` on the whole support has a negative expectation
    (an exactly verified Farkas certificate), and returns ``None`` if the pivot limit ends the
    run first.  Continuous supports are decided by :func:`~.feasibility.check_feasible`.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> exact_feasibility(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)))
    True
    """
    from .problem import Event

    sup = problem.support
    if not sup.is_discrete:
        raise InvalidArgument(f"exact_feasibility is for grid or finite supports, got {sup}")
    ds_sup = _DiscreteSupport(problem)
    n = ds_sup.size()
    m = problem.order
    if n < m + 1:
        # too few points for a basis: the moment matrix of the points decides (exact rank test)
        return None
    # a threshold near the mean keeps both sides wide enough for Prekopa's structure
    mean = problem.exact_moments[1] if m >= 1 else ds_sup.at(0)
    if ds_sup.grid:
        idx = min(max(math.floor(mean - ds_sup.lo), 0), n - 1)  # type: ignore[operator]
    else:
        idx = min(range(n), key=lambda i: abs(ds_sup.at(i) - mean))
    for t in (ds_sup.at(idx), ds_sup.at(n // 2), ds_sup.at(0)):
        aux = problem.with_event(Event.le(t))
        try:
            starts = continuous_start_bases(aux) + [structured_start_basis(aux)]
        except InvalidArgument:
            continue
        ds = DualSimplex(aux)
        for start in starts:
            try:
                ds.state(start)
            except ZeroDivisionError:
                continue
            _, optimal = ds.run(start, max_pivots)
            if optimal:
                return True
            break
    return None


class PrekopaMethod(BoundMethod):
    """Prekopa's dual method (exact dual simplex from a structured dual feasible basis).

    Applies to tail events (``gt``, ``ge``, ``lt``, ``le``) on grids and finite supports.
    Options: ``start`` (``"auto"``: the rounded continuous extremal measure, then
    coarse-to-fine, then pairs at the threshold; ``"continuous"``, ``"coarse"``,
    ``"structured"``), ``max_pivots`` (per dual simplex run), ``dense_limit``,
    ``coarse_points``, ``refine_factor`` (coarse-to-fine sub-grids).  Status ``optimal``
    means the final basis is primal feasible and its dual polynomial dominates the event
    indicator on the whole support, both checked in exact rational arithmetic.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> r = PrekopaMethod().solve(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)))
    >>> (r.exact_lower, r.exact_upper)
    (Fraction(1, 20), Fraction(4, 15))
    """

    name = "prekopa"
    kind = Kind.BOUND
    options = {"max_pivots": 600, "dense_limit": 4096, "coarse_points": 64, "refine_factor": 8, "start": "auto"}

    def applies(self, problem: MomentProblem) -> str | None:
        if not problem.support.is_discrete:
            return "Prekopa's method is for discrete supports (grid or finite set)"
        if problem.event.kind not in TAIL_EVENTS:
            return "Prekopa's structures are for tail events (gt, ge, lt, le)"
        if problem.support.size < problem.order + 1:  # type: ignore[operator]
            return f"the support has fewer than m + 1 = {problem.order + 1} points"
        for ev in (problem.event, problem.event.complement()):
            try:
                structured_start_basis(problem.with_event(ev))
            except InvalidArgument as exc:
                return str(exc)
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        if options["start"] not in ("auto", "continuous", "coarse", "structured"):
            raise InvalidArgument(
                f"start must be 'auto', 'continuous', 'coarse' or 'structured', got {options['start']!r}"
            )
        if int(options["max_pivots"]) < 0:
            raise InvalidArgument(f"max_pivots must be >= 0, got {options['max_pivots']!r}")
        uv, ucert, ust, upiv, unote = dual_simplex_upper(problem, options)
        comp = problem.with_event(problem.event.complement())
        cv, ccert, cst, cpiv, cnote = dual_simplex_upper(comp, options)
        lower_cert = Certificate(
            "lower",
            tuple([1 - Fraction(ccert.coefficients[0])] + [-Fraction(v) for v in ccert.coefficients[1:]]),
            ccert.basis,
            ccert.domain_map,
            1 - ccert.value,
            ccert.verified,
            ccert.min_slack,
            ccert.how,
        )
        order = [Status.UNVERIFIED, Status.SHIFTED, Status.VALID, Status.OPTIMAL]
        status = min((ust, cst), key=order.index)
        lo, hi = max(Fraction(0), 1 - cv), min(Fraction(1), uv)
        result = BoundResult(
            round_down(lo),
            round_up(hi),
            self.name,
            Kind.BOUND,
            status,
            f"upper: {unote}; lower: {cnote}",
            certificates=(lower_cert, ucert),
            certified=status.is_proven,
            diagnostics=Diagnostics(solver="exact dual simplex", iterations=upiv + cpiv, exact_basis=True,
                                    formula="prekopa-dual-method"),
            exact_lower=lo,
            exact_upper=hi,
        )
        if status is Status.UNVERIFIED:
            raise SolverFailed("prekopa: final certificate could not be verified", result=result)
        return result
