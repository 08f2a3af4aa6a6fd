"""Dual programs for unimodal and symmetric laws, and the classical closed forms.

**Unimodal about a known mode** ``m`` (docs/mathematics.md, "Shape constraints and moment boxes").  By
Khinchine's representation ``X = m + U Y`` with ``U ~ Uniform(0, 1)`` independent of ``Y``,
so ``E[(X - m)^k] = E[Y^k] / (k + 1)`` and ``P(X in E | Y = y) = (1/y) |[m, m + y] cap E|``:
an ordinary moment problem in ``Y`` (Popescu 2005).  Its dual, written back in ``x``, asks
for a polynomial ``q`` of the moment degree with ``E[q(X)]`` minimal and

    ``G(z) = int_m^z (q(x) - 1_E(x)) dx >= 0`` for ``z >= m``, ``<= 0`` for ``z <= m``,
    and ``q(m) >= 1_E(m)`` (the atom ``Y = 0``),

because ``E[q(X) | Y = y] = (1/y) int_m^{m+y} q``.  On each piece between breakpoints of
``E`` the function ``G`` is a polynomial of degree ``k + 1``: these are the stretches of a
:class:`~momentbound.bounds.dominance.DominanceProgram`.  The piece next to ``m`` is divided
by ``z - m`` before the exact check.

**Mode in an interval** ``[m1, m2]``: the same ``q`` serves every mode in the interval iff
``q >= 1_E`` on ``[m1, m2]``, ``int_{m2}^z (q - 1_E) >= 0`` for ``z >= m2`` and
``int_z^{m1} (q - 1_E) >= 0`` for ``z <= m1``.  **Mode unknown**: the mode of a unimodal law
lies within ``sqrt(3)`` standard deviations of its mean (from ``E[(X - m)^2] = E[Y^2]/3``
and ``E[X] - m = E[Y]/2``), so the bound is the largest of the interval bounds over a
partition of ``[mu - sqrt(3) s, mu + sqrt(3) s]``, refined where it is largest: every
number is certified, and the envelope converges to the sharp supremum over the modes.

**Symmetric about the mean** ``c``: ``X = c + S W`` with a fair sign ``S`` independent of
``W = |X - c|``, so ``P(X in E) = E[h(V)]`` with ``V = W^2`` and
``h(v) = (1_E(c + sqrt v) + 1_E(c - sqrt v)) / 2`` (values 0, 1/2, 1), and the even
central moments are the moments of ``V``: an ordinary moment problem in ``V >= 0``.

References
----------
I. Popescu, "A semidefinite programming approach to optimal-moment bounds for convex
classes of distributions", Math. Oper. Res. 30 (2005); B. P. G. Van Parys, P. J. Goulart,
D. Kuhn, "Generalized Gauss inequalities via semidefinite programming", Math. Program. 156
(2016); D. F. Vysochanskij and Y. I. Petunin (1980); C. F. Gauss (1823).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from momentbound.errors import InfeasibleMoments, InvalidArgument

from .certificate import polynomial_minimum
from .dominance import DominanceProgram, DominanceSolution, Stretch, solve_dominance
from .problem import Event, MomentProblem, Support, SupportKind

__all__ = [
    "gauss_bound",
    "vysochanskij_petunin_bound",
    "unimodal_one_sided_bound",
    "unimodal_program",
    "symmetric_program",
    "mode_range",
    "ModeEnvelope",
    "mode_envelope",
    "moment_objective",
]


# ----------------------------------------------------------------------------- closed forms
def gauss_bound(tau2: float, k: float) -> float:
    """Gauss: ``sup P(|X - m| >= k)`` over unimodal laws with mode ``m`` and ``E[(X - m)^2] = tau2``.

    ``4 tau2 / (9 k^2)`` for ``k >= 2 tau / sqrt(3)``, else ``1 - k / (sqrt(3) tau)``.

    Example
    -------
    >>> round(gauss_bound(1.0, 2.0), 12), round(gauss_bound(1.0, 1.0), 6)
    (0.111111111111, 0.42265)
    """
    if tau2 <= 0 or k <= 0:
        raise InvalidArgument(f"gauss_bound needs tau2 > 0 and k > 0, got tau2={tau2!r}, k={k!r}")
    tau = math.sqrt(tau2)
    if k >= 2 * tau / math.sqrt(3):
        return 4 * tau2 / (9 * k * k)
    return 1 - k / (math.sqrt(3) * tau)


def vysochanskij_petunin_bound(lam: float) -> float:
    """Vysochanskij-Petunin: ``sup P(|X - mu| >= lam s)`` over unimodal laws (mode unknown).

    ``4 / (9 lam^2)`` for ``lam >= sqrt(8/3)``, else ``4 / (3 lam^2) - 1/3`` (capped at 1).

    Example
    -------
    >>> round(vysochanskij_petunin_bound(2.0), 12)
    0.111111111111
    """
    if lam <= 0:
        raise InvalidArgument(f"lam must be > 0, got {lam!r}")
    if lam >= math.sqrt(8 / 3):
        return 4 / (9 * lam * lam)
    return min(1.0, 4 / (3 * lam * lam) - 1 / 3)


def unimodal_one_sided_bound(lam: float) -> float:
    """One-sided bound for unimodal laws: ``sup P(X - mu >= lam s)`` (mode unknown).

    ``4 / (9 (1 + lam^2))`` for ``lam^2 >= 5/3``, else ``(3 - lam^2) / (3 (1 + lam^2))``.

    Example
    -------
    >>> round(unimodal_one_sided_bound(2.0), 12)
    0.088888888889
    """
    if lam <= 0:
        raise InvalidArgument(f"lam must be > 0, got {lam!r}")
    if lam * lam >= 5 / 3:
        return 4 / (9 * (1 + lam * lam))
    return (3 - lam * lam) / (3 * (1 + lam * lam))


# ----------------------------------------------------------------------------- shared pieces
def moment_objective(
    problem: MomentProblem, nvar: int
) -> tuple[tuple[tuple[Fraction, ...], ...], tuple[tuple[Fraction, Fraction], ...]]:
    """Objective map and moment intervals for a dual ``q(u) = sum_k y_k u^k`` (``u`` scaled).

    Exact moments use the scaled moments directly; a moment box is applied to the raw
    moments, whose coefficients are ``a_j = sum_k y_k [u^k : x^j]``.
    """
    amap, mu = problem.affine_to_unit()
    if problem.moment_box is None:
        rows = tuple(tuple(Fraction(int(j == k)) for j in range(nvar)) for k in range(nvar))
        return rows, tuple((mu[k], mu[k]) for k in range(nvar))
    s, sc = amap.shift, amap.scale
    # [u^k : x^j] = C(k, j) (-s)^(k - j) / sc^k
    rows = tuple(
        tuple(Fraction(math.comb(k, j)) * (-s) ** (k - j) / sc**k if j <= k else Fraction(0) for k in range(nvar))
        for j in range(nvar)
    )
    box = ((Fraction(1), Fraction(1)),) + tuple(problem.moment_box[:nvar - 1])
    return rows, box


def _identity_rows(nvar: int, length: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(int(j == k)) for j in range(nvar)) for k in range(length))


def _unit_support(problem: MomentProblem) -> tuple[Fraction | None, Fraction | None]:
    amap, _ = problem.affine_to_unit()
    sup = problem.support
    lo = None if sup.lo is None else amap.to_unit(sup.lo)
    hi = None if sup.hi is None else amap.to_unit(sup.hi)
    return lo, hi


def _breakpoints(problem: MomentProblem, event: Event) -> list[Fraction]:
    amap, _ = problem.affine_to_unit()
    pts = {amap.to_unit(v) for sp in event.spans() for v in (sp.lo, sp.hi) if v is not None}
    return sorted(pts)


def _inside(problem: MomentProblem, event: Event, u: Fraction) -> int:
    amap, _ = problem.affine_to_unit()
    return int(event.indicator(amap.from_unit(u)))


def _interior(a: Fraction | None, b: Fraction | None) -> Fraction:
    if a is not None and b is not None:
        return (a + b) / 2
    if a is not None:
        return a + 1
    if b is not None:
        return b - 1
    return Fraction(0)


def _segments(
    cuts: Sequence[Fraction], lo: Fraction | None, hi: Fraction | None
) -> list[tuple[Fraction | None, Fraction | None]]:
    inner = [c for c in cuts if (lo is None or c > lo) and (hi is None or c < hi)]
    ends: list[Fraction | None] = [lo, *inner, hi]
    return list(zip(ends[:-1], ends[1:]))


# ----------------------------------------------------------------------------- unimodal
def unimodal_program(problem: MomentProblem, event: Event, mode_lo: Fraction, mode_hi: Fraction) -> DominanceProgram:
    """The dual program of ``sup P(X in event)`` over unimodal laws with a mode in ``[mode_lo, mode_hi]``.

    Modes are in the problem's scaled variable ``u``.
    """
    n = problem.order
    nvar = n + 1
    length = n + 2
    cuts = _breakpoints(problem, event)
    s_lo, s_hi = _unit_support(problem)
    integral = tuple(
        tuple(Fraction(1, j + 1) if k == j + 1 else Fraction(0) for j in range(nvar)) for k in range(length)
    )

    def antiderivative_from(base: Fraction, sign: int) -> tuple[tuple[Fraction, ...], ...]:
        # sign * (I(z) - I(base)) with I(z) = sum_j y_j z^(j+1)/(j+1)
        rows = [list(r) for r in integral]
        for j in range(nvar):
            rows[0][j] -= base ** (j + 1) / (j + 1)
        return tuple(tuple(sign * v for v in r) for r in rows)

    stretches: list[Stretch] = []
    # q >= 1_E on the mode interval (a point constraint when the mode is known)
    ident = _identity_rows(nvar, length)
    points = {mode_lo, mode_hi} | {c for c in cuts if mode_lo < c < mode_hi}
    for p in sorted(points):
        target = (Fraction(_inside(problem, event, p)),) + (Fraction(0),) * (length - 1)
        stretches.append(Stretch(p, p, ident, target, None, "mode"))
    for a, b in _segments(cuts, mode_lo, mode_hi) if mode_lo < mode_hi else []:
        tgt = Fraction(_inside(problem, event, _interior(a, b)))
        stretches.append(Stretch(a, b, ident, (tgt,) + (Fraction(0),) * (length - 1), None, "mode"))
    # right of the modes: int_{mode_hi}^z (q - 1_E) >= 0
    if s_hi is None or s_hi > mode_hi:
        rows = antiderivative_from(mode_hi, 1)
        acc = Fraction(0)
        for i, (a, b) in enumerate(_segments(cuts, mode_hi, s_hi)):
            c = Fraction(_inside(problem, event, _interior(a, b)))
            off = (acc - c * a, c) + (Fraction(0),) * (length - 2)  # type: ignore[operator]
            div = (-mode_hi, Fraction(1)) if i == 0 else None
            stretches.append(Stretch(a, b, rows, off, div, "right"))
            if b is not None:
                acc += c * (b - a)  # type: ignore[operator]
    # left of the modes: int_z^{mode_lo} (q - 1_E) >= 0
    if s_lo is None or s_lo < mode_lo:
        rows = antiderivative_from(mode_lo, -1)
        acc = Fraction(0)
        segs = _segments(cuts, s_lo, mode_lo)[::-1]
        for i, (a, b) in enumerate(segs):
            c = Fraction(_inside(problem, event, _interior(a, b)))
            off = (acc + c * b, -c) + (Fraction(0),) * (length - 2)  # type: ignore[operator]
            div = (mode_lo, Fraction(-1)) if i == 0 else None
            stretches.append(Stretch(a, b, rows, off, div, "left"))
            if a is not None:
                acc += c * (b - a)  # type: ignore[operator]
    objective_map, box = moment_objective(problem, nvar)
    shift = (Fraction(1),) + (Fraction(0),) * n
    return DominanceProgram(nvar, tuple(stretches), objective_map, box, shift)


def check_unimodal_moments(problem: MomentProblem, mode: Fraction) -> None:
    """Raise :class:`InfeasibleMoments` unless ``E[Y^k] = (k + 1) E[(X - m)^k]`` are moments on ``Y``'s support."""
    from .feasibility import check_feasible

    if problem.moment_box is not None:
        return
    mom = problem.exact_moments
    ymom = []
    for k in range(problem.order + 1):
        central = sum((math.comb(k, j) * (-mode) ** (k - j) * mom[j] for j in range(k + 1)), Fraction(0))
        ymom.append((k + 1) * central)
    sup = problem.support
    kinds: dict[SupportKind, Callable[[], Support]] = {
        SupportKind.REAL: Support.real,
        SupportKind.HALFLINE: lambda: Support.halfline(sup.lo - mode),  # type: ignore[operator]
        SupportKind.INTERVAL: lambda: Support.interval(sup.lo - mode, sup.hi - mode),  # type: ignore[operator]
    }
    try:
        check_feasible(MomentProblem(tuple(ymom), kinds[sup.kind](), problem.event))
    except InfeasibleMoments as exc:
        raise InfeasibleMoments(
            f"no law unimodal about {mode} on {sup} has these moments: {exc}", condition=exc.condition
        ) from exc


def mode_range(problem: MomentProblem) -> tuple[Fraction, Fraction]:
    """Where the mode of a unimodal law with these moments can lie (in ``x``), exact and outward.

    ``|mode - mean| <= sqrt(3) s`` (Johnson and Rogers, 1951), intersected with the support
    and with ``2 mu - c <= mode <= 2 mu - a`` for a support ``[a, c]`` (``E[Y] = 2 (mu - m)``
    and ``a - m <= Y <= c - m``); with a moment box, the widest such range over the box.
    """
    mom = problem.exact_moments
    if problem.moment_box is not None:
        (m1_lo, m1_hi) = problem.moment_box[0]
        least_square = Fraction(0) if m1_lo <= 0 <= m1_hi else min(m1_lo**2, m1_hi**2)
        var_hi = problem.moment_box[1][1] - least_square if len(problem.moment_box) >= 2 else None
        center_lo, center_hi = m1_lo, m1_hi
    else:
        center_lo = center_hi = mom[1] if problem.order >= 1 else None  # type: ignore[assignment]
        var_hi = mom[2] - mom[1] ** 2 if problem.order >= 2 else None
    sup = problem.support
    lo, hi = sup.lo, sup.hi
    if center_lo is not None and sup.hi is not None:
        lo = max(lo, 2 * center_lo - sup.hi) if lo is not None else 2 * center_lo - sup.hi
    if center_hi is not None and sup.lo is not None:
        hi = min(hi, 2 * center_hi - sup.lo) if hi is not None else 2 * center_hi - sup.lo
    if center_lo is not None and var_hi is not None:
        den = 1 << 30
        r = Fraction(math.isqrt(math.ceil(3 * max(var_hi, Fraction(0)) * den * den)) + 1, den)
        lo = center_lo - r if lo is None else max(lo, center_lo - r)
        hi = center_hi + r if hi is None else min(hi, center_hi + r)
    if lo is None or hi is None:
        raise InvalidArgument(
            "an unknown mode on an unbounded support needs the variance (two moments) to locate it; "
            "give two moments or a known mode (--mode M)"
        )
    return lo, hi


@dataclass(frozen=True)
class ModeEnvelope:
    """The worst case over mode intervals: its value, the worst interval (in ``x``), the number of
    intervals, how many of them got the trivial bound 1 (no verified dual) and how many were
    excluded by a verified Farkas polynomial (no unimodal law has its mode there)."""

    value: Fraction
    solution: DominanceSolution | None
    worst: tuple[Fraction, Fraction]
    intervals: int
    trivial: int
    excluded: int = 0
    #: the largest bound found at a single mode (the numerical optimum of that mode's program): the
    #: sharp supremum over the modes lies in ``[best_mode_value, value]`` up to the solver tolerance
    best_mode_value: Fraction | None = None
    best_mode: Fraction | None = None


def mode_envelope(
    problem: MomentProblem, event: Event, lo: Fraction, hi: Fraction, *, pieces: int, refine: int, tol: float,
    gap: float = 0.0,
) -> ModeEnvelope:
    """Largest certified ``sup P(X in event)`` over mode intervals covering ``[lo, hi]`` (``x`` units).

    Starts from ``pieces`` equal intervals and bisects the worst one, at most ``refine`` times,
    until the worst interval's bound is within ``gap`` of the largest single-mode bound found at
    the ends and middles of the worst intervals (``gap = 0``: all ``refine`` bisections).  The
    envelope is then the maximum over the modes up to ``gap``: sharp, and every number certified.
    An interval with no dominating polynomial contributes the trivial bound 1.
    """
    amap, _ = problem.affine_to_unit()

    def solve(a: Fraction, b: Fraction) -> tuple[Fraction, DominanceSolution | None]:
        ua, ub = amap.to_unit(a), amap.to_unit(b)
        try:
            sol = solve_dominance(unimodal_program(problem, event, ua, ub), tol=tol)
        except InfeasibleMoments:
            sol = None
        if sol is not None and sol.verified and sol.value <= 1 + Fraction(1, 10**6):
            # a verified negative value also proves that no law has its mode in the cell
            return (min(Fraction(1), sol.value), sol) if sol.value >= 0 else (Fraction(-1), sol)
        # no useful dual (q = 1 already gives 1, so a larger value means an ill-conditioned cell,
        # typically at the edge of the feasible modes): is the cell empty?
        if unimodal_farkas(problem, ua, ub, tol=tol):
            return Fraction(-1), None  # proven: no law has its mode here, so no contribution
        return Fraction(1), None  # the trivial bound, proven without a certificate

    width = (hi - lo) / pieces
    cells: dict[tuple[Fraction, Fraction], tuple[Fraction, DominanceSolution | None]] = {}
    if width == 0:
        cells[(lo, hi)] = solve(lo, hi)
    else:
        # the event's breakpoints are cell ends: no cell straddles one, and bisection never
        # leaves a sliver of a piece between a cell end and a breakpoint (ill-conditioned)
        cuts = {v for sp in event.spans() for v in (sp.lo, sp.hi) if v is not None and lo < v < hi}
        ends = sorted({lo + i * width for i in range(pieces + 1)} | cuts)
        for a, b in zip(ends[:-1], ends[1:]):
            cells[(a, b)] = solve(a, b)
    points: dict[Fraction, Fraction | None] = {}

    def at_mode(m: Fraction) -> Fraction | None:
        # the bound at a single mode, when its dual verified (a trivial 1 says nothing about the supremum)
        if m not in points:
            value, sol = solve(m, m)
            points[m] = value if sol is not None and 0 <= value <= 1 else None
        return points[m]

    def best_point() -> tuple[Fraction | None, Fraction | None]:
        known = [(v, m) for m, v in points.items() if v is not None]
        return max(known) if known else (None, None)

    for _ in range(refine):
        (a, b), (worst_value, _s) = max(cells.items(), key=lambda kv: kv[1][0])
        if a == b:
            break
        if gap > 0:
            for m in (a, b, (a + b) / 2):
                at_mode(m)
            best, _m = best_point()
            if best is not None and worst_value - best <= gap:
                break
        del cells[(a, b)]
        mid = (a + b) / 2
        cells[(a, mid)] = solve(a, mid)
        cells[(mid, b)] = solve(mid, b)
    worst, (value, sol) = max(cells.items(), key=lambda kv: kv[1][0])
    if value < 0:
        raise InfeasibleMoments(
            f"no unimodal law on {problem.support} has these moments: every mode in [{lo}, {hi}] is excluded "
            "by a verified Farkas polynomial",
            condition="unimodal",
        )
    trivial = sum(1 for v, s in cells.values() if s is None and v == 1)  # no verified dual at all
    if gap > 0 and worst[0] != worst[1]:
        for m in (worst[0], worst[1], (worst[0] + worst[1]) / 2):
            at_mode(m)
    best, best_mode = best_point()
    return ModeEnvelope(value, sol, worst, len(cells), trivial, sum(1 for v, _ in cells.values() if v < 0),
                        best, best_mode)


def unimodal_farkas(problem: MomentProblem, mode_lo: Fraction, mode_hi: Fraction, *, tol: float = 1e-9) -> bool:
    """Whether a verified polynomial proves that no law unimodal about a mode in ``[mode_lo, mode_hi]``
    (scaled units) has the problem's (exact) moments.

    The certificate is a ``q`` meeting the constraints of :func:`unimodal_program` for the empty
    event (``int (q) >= 0`` to the right, ``<= 0`` to the left, ``q >= 0`` on the modes), so
    ``E[q(X)] >= 0`` for every such law, together with ``E[q(X)] < 0`` from the moments.
    """
    if problem.moment_box is not None:
        return False
    base = unimodal_program(problem, Event.lt(problem.support.lo) if problem.support.lo is not None else Event.ge(0),
                            mode_lo, mode_hi)
    homogeneous = [Stretch(st.lo, st.hi, st.matrix, (Fraction(0),) * len(st.offset), st.divisor, st.label)
                   for st in base.stretches]
    # normalisation E[q] >= -1 as a constraint at the point z = 0 (keeps the program bounded)
    c = [sum((base.objective_map[k][j] * base.moment_box[k][0] for k in range(len(base.objective_map))), Fraction(0))
         for j in range(base.nvar)]
    norm = Stretch(Fraction(0), Fraction(0), (tuple(c),), (Fraction(-1),), None, "normalisation")
    program = DominanceProgram(base.nvar, (*homogeneous, norm), base.objective_map, base.moment_box, base.shift)
    try:
        sol = solve_dominance(program, tol=tol)
    except InfeasibleMoments:
        return False
    if sol is None:
        return False
    y = list(sol.y)
    ok = all(
        (chk := st.checked(st.polynomial(y))) is not None and polynomial_minimum(chk, st.lo, st.hi) >= 0
        for st in homogeneous
    )
    return ok and base.value(y) < 0


# ----------------------------------------------------------------------------- symmetric
def symmetric_program(problem: MomentProblem, event: Event) -> DominanceProgram:
    """The dual program of ``sup P(X in event)`` over laws symmetric about the mean, in ``V = (u - c)^2``."""
    if problem.moment_box is not None:
        raise InvalidArgument(
            "a symmetric shape needs exactly known moments (the centre is the mean); drop the moment box"
        )
    _, mu = problem.affine_to_unit()
    c = mu[1]
    n = problem.order // 2
    nvar = n + 1
    central = [
        sum((math.comb(k, j) * (-c) ** (k - j) * mu[j] for j in range(k + 1)), Fraction(0)) for k in range(2 * n + 1)
    ]
    s_lo, s_hi = _unit_support(problem)
    radius = None
    for end in (s_lo, s_hi):
        if end is not None:
            radius = abs(end - c) if radius is None else min(radius, abs(end - c))
    wcuts = sorted({abs(b - c) for b in _breakpoints(problem, event)} | {Fraction(0)})
    if radius is not None:
        wcuts = [w for w in wcuts if w <= radius]

    def h(w: Fraction) -> Fraction:
        return Fraction(_inside(problem, event, c + w) + _inside(problem, event, c - w), 2)

    ident = _identity_rows(nvar, nvar)
    zero = (Fraction(0),) * (nvar - 1)
    stretches = [Stretch(w * w, w * w, ident, (h(w),) + zero, None, "point") for w in wcuts]
    ends: list[Fraction | None] = [*wcuts, radius]
    for a, b in zip(ends[:-1], ends[1:]):
        if b is not None and b == a:
            continue
        hi = None if b is None else b * b
        stretches.append(Stretch(a * a, hi, ident, (h(_interior(a, b)),) + zero, None, "piece"))  # type: ignore[operator]
    rows = _identity_rows(nvar, nvar)
    box = tuple((central[2 * j], central[2 * j]) for j in range(nvar))
    return DominanceProgram(nvar, tuple(stretches), rows, box, (Fraction(1),) + zero)


def check_symmetric_moments(problem: MomentProblem) -> None:
    """Raise :class:`InfeasibleMoments` if an odd central moment is not zero."""
    mom = problem.exact_moments
    c = mom[1]
    for k in range(3, problem.order + 1, 2):
        central = sum((math.comb(k, j) * (-c) ** (k - j) * mom[j] for j in range(k + 1)), Fraction(0))
        tol = 0 if problem.is_exact else 1e-9 * max(1.0, float(abs(mom[k])))
        if abs(central) > tol:
            raise InfeasibleMoments(
                "a law symmetric about its mean has zero odd central moments, "
                f"but E[(X - mu)^{k}] = {float(central):.6g}",
                condition="symmetry",
            )
