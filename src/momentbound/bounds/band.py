"""The whole cdf band: sharp lower and upper bounds on ``F(t) = P[X <= t]`` at many points.

``cdf_band(problem_or_moments, support, points=..., method=...)`` returns, for every point
``t``, the certified bounds of ``bound(problem.with_event(Event.le(t)), method)`` (on an
interval with ``lp``, bounds at least as tight).
Every point is certified on its own (a verified dual polynomial per side); a point whose
certificate cannot be verified keeps its status (UNVERIFIED / FAILED) instead of vanishing.

Warm start along ``t`` (docs/mathematics.md, "The cdf band"): on a grid or finite support of
moderate size the moment LP ``max sum_{x <= t} q_x`` s.t. ``sum_x phi_k(x) q_x = tau_k``,
``q >= 0`` has the same feasible set for every ``t``; only the objective changes.  One
HiGHS instance holds the LP over all support points; for each new ``t`` only the costs are
changed, so the simplex restarts from the previous optimal basis (usually a few pivots).
The float basis is then finished exactly, as in the ``lp`` method: ``B w = tau`` and
``B^T y = c_B`` in rational arithmetic; ``w >= 0`` proves primal feasibility and ``y`` is
verified on the whole support by exact root isolation, so the value is the exact sharp
bound (status OPTIMAL) and equals what ``lp`` or ``prekopa`` return.  A point where this
finish does not verify is solved by an independent ``bound`` call.

On an interval the LP is semi-infinite: the same instance keeps every column it ever
generated, each ``t`` adds the violated critical points of its dual polynomial (exchange)
until none is left, and the float dual is verified on the whole interval by interval
arithmetic, its constant term shifted to the verified value (status VALID or SHIFTED).
These bounds are at least as tight as the pointwise ``lp`` ones and sharp to ~1e-9 where a
closed form is known (Cantelli).

Problems with extra structure (options, other methods, the real line, huge grids, or any
constraint beyond moments + support) are solved point by point with ``bound``, so every
support, shape or moment option of :class:`MomentProblem` works here too.
"""

from __future__ import annotations

import bisect
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from momentbound import guard
from momentbound.errors import InvalidArgument, SolverFailed
from momentbound.guard import DEFAULT_SECONDS
from momentbound.quiet import quiet_native_output
from momentbound.rational import to_fmpq

from .api import bound, get_method
from .basis import PolyBasis, choose_basis
from .certificate import certify, slack_minimum
from .feasibility import check_feasible
from .figures import save_png
from .problem import Event, EventKind, MomentProblem, Support, SupportKind, as_exact
from .registry import trivial_result
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["CdfBand", "cdf_band", "band_points", "WARM_METHODS", "WARM_INTERVAL_METHODS", "WARM_SIZE_LIMIT"]

#: methods whose answer on a discrete support is the exact sharp LP value (the warm path's value)
WARM_METHODS = ("lp", "lp-dual", "prekopa")
#: methods whose answer on an interval is the verified semi-infinite LP value
WARM_INTERVAL_METHODS = ("lp", "lp-dual")
#: ``method="auto"`` takes the first of these that applies to the problem
AUTO_METHODS = ("lp", "sdp", "closed-form")
#: discrete supports with at most this many points use the warm-started LP
WARM_SIZE_LIMIT = 4096
#: discrete supports with at most this many points are banded at every point by default
DEFAULT_GRID_POINTS = 201
#: number of evenly spaced points otherwise
DEFAULT_POINTS = 101
#: exact primal simplex pivots allowed per point after the warm-started float solve
MAX_PIVOTS = 50
#: exchange rounds (new columns) allowed per point on an interval
MAX_EXCHANGES = 20
#: a dual polynomial violated by less than this at its critical points is final (the shift covers it)
EXCHANGE_TOL = 1e-9


@dataclass(frozen=True)
class CdfBand:
    """Certified bounds on ``F(t) = P[X <= t]`` at the points ``t``.

    ``results[i]`` is the :class:`BoundResult` at ``t[i]`` (certificates included);
    ``warm[i]`` says whether it came from the warm-started LP (else an independent
    ``bound`` call); ``truth`` holds the true cdf at the points when it was given.
    """

    t: tuple[Fraction, ...]
    results: tuple[BoundResult, ...]
    method: str
    support: Support
    order: int
    warm: tuple[bool, ...]
    seconds: float
    truth: tuple[float, ...] | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def lower(self) -> np.ndarray:
        return np.array([r.lower for r in self.results])

    @property
    def upper(self) -> np.ndarray:
        return np.array([r.upper for r in self.results])

    @property
    def statuses(self) -> tuple[Status, ...]:
        return tuple(r.status for r in self.results)

    @property
    def certified(self) -> bool:
        """Whether every point is certified."""
        return all(r.certified for r in self.results)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per point: t, lower, upper, status, certified (and truth)."""
        out = []
        for i, (t, r) in enumerate(zip(self.t, self.results)):
            row: dict[str, Any] = {
                "t": float(t),
                "lower": r.lower,
                "upper": r.upper,
                "status": r.status.value,
                "certified": r.certified,
                "warm": self.warm[i],
            }
            if self.truth is not None:
                row["truth"] = self.truth[i]
            out.append(row)
        return out

    def summary(self) -> dict[str, Any]:
        """A JSON-ready document: the settings and one row per point."""
        return {
            "method": self.method,
            "support": str(self.support),
            "order": self.order,
            "points": len(self.t),
            "warm_points": sum(self.warm),
            "certified": self.certified,
            "seconds": self.seconds,
            "notes": list(self.notes),
            "band": self.rows(),
        }

    def figure(self, title: str | None = None) -> Any:
        """A matplotlib ``Figure`` of the band (and the true cdf when known), without pyplot."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7.0, 4.2), layout="constrained")
        ax = fig.add_subplot()
        x = np.array([float(v) for v in self.t])
        step = "post" if self.support.is_discrete else None
        draw = (lambda y, **kw: ax.step(x, y, where="post", **kw)) if step else (lambda y, **kw: ax.plot(x, y, **kw))
        if step:
            ax.fill_between(x, self.lower, self.upper, step="post", alpha=0.18, color="tab:blue")
        else:
            ax.fill_between(x, self.lower, self.upper, alpha=0.18, color="tab:blue")
        draw(self.upper, color="tab:blue", lw=1.4, label="sharp upper bound")
        draw(self.lower, color="tab:blue", lw=1.4, ls="--", label="sharp lower bound")
        if self.truth is not None:  # a cdf is right-continuous: steps between the points
            ax.step(x, np.array(self.truth), where="post", color="black", lw=1.1, label="true cdf")
        bad = [i for i, r in enumerate(self.results) if not r.certified]
        if bad:
            ax.plot(x[bad], self.upper[bad], "rx", label="not certified")
        ax.set_xlabel("t")
        ax.set_ylabel("F(t) = P[X <= t]")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(title or f"cdf band from {self.order} moments on {self.support} ({self.method})")
        ax.legend(loc="lower right")
        return fig

    def plot(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """Write the band as a PNG (to a temporary name, then renamed into place)."""
        return save_png(self.figure(title), path)


# -- inputs -------------------------------------------------------------------------


def _base_problem(problem_or_moments: Any, support: Support | str | None) -> MomentProblem:
    if isinstance(support, str):
        support = Support.parse(support)
    if support is not None and not isinstance(support, Support):
        raise InvalidArgument(f"support must be a Support or a string like 'grid:0:20', got {support!r}")
    if isinstance(problem_or_moments, MomentProblem):
        if support is not None and support != problem_or_moments.support:
            raise InvalidArgument(
                f"support {support} differs from the problem's support {problem_or_moments.support}; pass one of them"
            )
        return problem_or_moments
    if support is None:
        raise InvalidArgument("support is required when moments are given (e.g. Support.grid(0, 20) or 'grid:0:20')")
    if isinstance(problem_or_moments, (str, bytes)) or not isinstance(problem_or_moments, Sequence):
        raise InvalidArgument(
            f"problem_or_moments must be a MomentProblem or a sequence of moments (m0, m1, ...), got {problem_or_moments!r}"
        )
    return MomentProblem(tuple(problem_or_moments), support, Event.le(0))


def band_work(problem: MomentProblem, points: int | Sequence[Any] | None) -> tuple[float, float, int]:
    """Estimated seconds, peak bytes and number of points of a band (before any point is made).

    Measured per point on one core: the warm-started LP on grids of 11 and 1,001 points 9 and
    32 ms, independent LPs on grids of 4,097 to 20,001 points about 100 ms, ``sdp`` on the real
    line 31 ms, intervals 48 ms; the estimate is ``10 ms + 30 us`` per support point on discrete
    supports and 60 ms elsewhere. Memory: the points themselves and the dense problem over the
    support (exact rationals, about 200 bytes per entry).
    """
    sup = problem.support
    if points is not None and not isinstance(points, (int, np.integer)):
        try:
            count = len(points)  # type: ignore[arg-type]
        except TypeError:
            count = 1
    elif isinstance(points, bool) or points is None or int(points) < 2:
        count = DEFAULT_POINTS if points is None or isinstance(points, bool) or int(points) >= 2 else 2
        if points is None and sup.is_discrete and sup.size <= DEFAULT_GRID_POINTS:  # type: ignore[operator]
            count = int(sup.size)  # type: ignore[arg-type]
    else:
        count = int(points)
    size = float(sup.size) if sup.is_discrete else 0.0  # type: ignore[arg-type]
    per = 0.01 + 3e-5 * size if sup.is_discrete else 0.06
    k = float(problem.order) + 1
    per += 1e-4 * k**2  # every point grows with the number of moments (measured, 3 points on grid:0:6:
    # 201 moments 6.4 s, 401 moments 26 s, about 5e-5 s per point and squared moment count)
    # the feasibility check moves the moments to the unit interval: k^2 products of numbers of
    # up to k digits (exact rationals)
    once = 1e-7 * k**3
    memory = 200.0 * count + 200.0 * size * (problem.order + 2) + 8.0 * k**2
    return once + count * per, memory, count


def band_points(problem: MomentProblem, points: int | Sequence[Any] | None) -> tuple[Fraction, ...]:
    """The points ``t`` of a band: explicit values, ``K`` evenly spaced, or the default.

    Default: every support point of a discrete support with at most 201 points, else 101
    evenly spaced points over the support (an unbounded end is replaced by the mean -+ 4
    standard deviations).
    """
    sup = problem.support
    if points is not None and not isinstance(points, (int, np.integer)):
        if isinstance(points, (str, bytes)) or not isinstance(points, (Sequence, np.ndarray)):
            raise InvalidArgument(f"points must be an int K or a sequence of numbers, got {points!r}")
        ts = tuple(sorted({as_exact(v, "points") for v in points}))
        if not ts:
            raise InvalidArgument("points is an empty sequence; give at least one t")
        return ts
    if isinstance(points, bool) or (points is not None and int(points) < 2):
        raise InvalidArgument(f"points must be an integer >= 2 (the number of t values), got {points!r}")
    if points is None and sup.is_discrete and sup.size <= DEFAULT_GRID_POINTS:  # type: ignore[operator]
        if sup.kind is SupportKind.FINITE:
            return tuple(sup.points)  # type: ignore[arg-type]
        return tuple(Fraction(x) for x in range(int(sup.lo), int(sup.hi) + 1))  # type: ignore[arg-type]
    k = DEFAULT_POINTS if points is None else int(points)
    mom = problem.exact_moments
    mean = mom[1] if len(mom) > 1 else Fraction(0)
    var = mom[2] - mom[1] ** 2 if len(mom) > 2 else Fraction(1)
    sd = Fraction(math.sqrt(float(var))).limit_denominator(1 << 20) if var > 0 else Fraction(1)
    # a missing end (the real line, a half-line) is replaced by mean -+ 4 standard deviations
    lo = Fraction(sup.lo) if sup.lo is not None else mean - 4 * sd
    hi = Fraction(sup.hi) if sup.hi is not None else mean + 4 * sd
    if sup.lo is not None and sup.hi is None:
        hi = max(hi, lo + 8 * sd)
    if sup.hi is not None and sup.lo is None:
        lo = min(lo, hi - 8 * sd)
    return tuple(lo + (hi - lo) * i / (k - 1) for i in range(k))


def _truth_values(truth: Any, ts: Sequence[Fraction]) -> tuple[float, ...] | None:
    if truth is None:
        return None
    if callable(truth):
        vals = []
        for t in ts:
            v = float(truth(float(t)))
            if not (math.isfinite(v) and -1e-12 <= v <= 1 + 1e-12):
                raise InvalidArgument(f"truth({float(t)}) = {v!r} is not a probability; truth must be a cdf F(t)")
            vals.append(v)
        return tuple(vals)
    try:
        pairs = [(as_exact(x, "truth x"), as_exact(p, "truth p")) for x, p in truth]
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"truth must be a cdf callable F(t) or a pmf sequence of (x, p) pairs, got {truth!r}"
        ) from exc
    if any(p < 0 for _, p in pairs) or abs(float(sum(p for _, p in pairs)) - 1) > 1e-9:
        raise InvalidArgument("truth pmf must have nonnegative probabilities summing to 1")
    return tuple(float(sum((p for x, p in pairs if x <= t), Fraction(0))) for t in ts)


def _is_plain(problem: MomentProblem) -> bool:
    """Whether the problem is only moments + support (no extra constraints of any kind).

    Any field beyond those (a shape, a moment box, a subclass) makes the rebuilt problem differ,
    and the band then solves each point with ``bound``, which honours it.
    """
    try:
        plain = MomentProblem(
            moments=problem.moments, support=problem.support, event=problem.event, pmf=problem.pmf, name=problem.name
        )
    except (InvalidArgument, TypeError):
        return False
    return problem == plain


# -- the warm-started exact LP ------------------------------------------------------------


def _columns(pb: PolyBasis, xf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column-scaled basis values at the points ``xf`` (scaling a column rescales its weight only)."""
    A = pb.vander(pb.v_float(xf)).T
    scale = np.maximum(1.0, np.max(np.abs(A), axis=0))
    return A / scale, scale


def _highs_model(A: np.ndarray, tau: np.ndarray) -> Any:
    """A quiet HiGHS instance holding ``A q = tau, q >= 0`` (costs set per ``t``)."""
    import highspy

    with quiet_native_output():
        h = highspy.Highs()
    for k, v in (("output_flag", False), ("presolve", "off"), ("primal_feasibility_tolerance", 1e-10),
                 ("dual_feasibility_tolerance", 1e-10), ("small_matrix_value", 1e-12)):
        h.setOptionValue(k, v)
    nrow, ncol = A.shape
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = ncol, nrow
    lp.col_cost_ = np.zeros(ncol)
    lp.col_lower_ = np.zeros(ncol)
    lp.col_upper_ = np.full(ncol, highspy.kHighsInf)
    lp.row_lower_, lp.row_upper_ = tau.copy(), tau.copy()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(0, nrow * ncol + 1, nrow)
    lp.a_matrix_.index_ = np.tile(np.arange(nrow), ncol)
    lp.a_matrix_.value_ = A.T.reshape(-1).copy()
    h.passModel(lp)
    return h


def _optimal(h: Any, hs: Any) -> bool:
    """Whether HiGHS found an optimum (an unconfirmed one counts: the finish verifies it)."""
    status = h.getModelStatus()
    if status == hs.HighsModelStatus.kOptimal:
        return True
    sol = h.getSolution()
    return bool(status == hs.HighsModelStatus.kUnknown and sol.value_valid and sol.dual_valid)


class _WarmLP:
    """One HiGHS LP over every support point; the objective changes with ``t``."""

    def __init__(self, problem: MomentProblem) -> None:
        import highspy

        self.problem = problem
        sup = problem.support
        if sup.kind is SupportKind.FINITE:
            self.xs = list(sup.points)  # type: ignore[arg-type]
        else:
            self.xs = [Fraction(x) for x in range(int(sup.lo), int(sup.hi) + 1)]  # type: ignore[arg-type]
        self.amap, _ = problem.affine_to_unit()
        self.pb: PolyBasis = choose_basis(problem, "auto")
        self.m = problem.order
        A, self.colscale = _columns(self.pb, np.array([float(x) for x in self.xs]))
        self.n = len(self.xs)
        self.xf = np.array([float(x) for x in self.xs])
        h = _highs_model(A, np.array([float(v) for v in self.pb.moments]))
        self.h = h
        self._hs = highspy
        self._idx = np.arange(self.n, dtype=np.int32)
        self._w: dict[tuple[Fraction, ...], tuple[Any, list[Fraction]] | None] = {}

    def _basis(self, target: np.ndarray) -> list[Fraction] | None:
        h, hs = self.h, self._hs
        h.changeColsCost(self.n, self._idx, -target / self.colscale)
        with quiet_native_output():
            h.run()
        if not _optimal(h, hs):
            return None
        col_status = h.getBasis().col_status
        basic = [self.xs[j] for j in range(self.n) if col_status[j] == hs.HighsBasisStatus.kBasic]
        return basic if len(basic) == self.m + 1 else None

    def _factor(self, basis: Sequence[Fraction]) -> tuple[Any, list[Fraction]] | None:
        """The exact basis matrix and primal weights ``w = B^-1 tau`` (None if singular)."""
        import flint

        key = tuple(basis)
        if key not in self._w:
            m1 = self.m + 1
            cols = [self.pb.values_exact(x) for x in basis]
            B = flint.fmpq_mat(m1, m1, [cols[j][k] for k in range(m1) for j in range(m1)])
            try:
                w = B.solve(flint.fmpq_mat(m1, 1, [to_fmpq(t) for t in self.pb.moments]))
            except ZeroDivisionError:
                self._w[key] = None
            else:
                self._w[key] = (B, [Fraction(int(w[j, 0].p), int(w[j, 0].q)) for j in range(m1)])
        return self._w[key]

    def _target(self, event: Event) -> np.ndarray:
        """Indicator of ``{X <= t}`` or ``{X > t}`` on the sorted support points (exact threshold)."""
        below = bisect.bisect_right(self.xs, event.a)  # points x <= t
        le = np.arange(self.n) < below
        if event.kind is EventKind.LE:
            return le.astype(float)
        if event.kind is EventKind.GT:
            return (~le).astype(float)
        raise InvalidArgument(f"the band bounds P[X <= t] and P[X > t], got the event {event}")

    def upper(self, event: Event) -> tuple[Fraction, Certificate, Status] | None:
        """Exact sharp ``max P(E)`` with its verified certificate, or None if the finish fails.

        From the float optimal basis (primal feasible in exact arithmetic, ``w >= 0``), exact
        primal simplex pivots priced by the whole-support verifier run until the dual
        polynomial verifies (at most :data:`MAX_PIVOTS`).
        """
        import flint

        target = self._target(event)
        basis = self._basis(target)
        fac = self._factor(basis) if basis is not None else None
        if fac is None or any(v < 0 for v in fac[1]):
            # the warm-started float basis is off: solve this t from scratch once
            self.h.clearSolver()
            basis = self._basis(target)
        if basis is None:
            return None
        m1 = self.m + 1
        for _ in range(MAX_PIVOTS + 1):
            fac = self._factor(basis)
            if fac is None or any(v < 0 for v in fac[1]):
                return None
            B, w = fac
            c = [int(event.indicator(x)) for x in basis]
            try:
                yv = B.transpose().solve(flint.fmpq_mat(m1, 1, c))
            except ZeroDivisionError:
                return None
            y = [Fraction(int(yv[k, 0].p), int(yv[k, 0].q)) for k in range(m1)]
            coeffs = self.pb.monomial_in(y, self.amap.shift, self.amap.scale)
            ver = slack_minimum(coeffs, "monomial", self.amap, self.problem.support, event, "upper")
            if ver.ok:
                value = sum((Fraction(ci) * wi for ci, wi in zip(c, w)), Fraction(0))  # = E[p] = y . tau
                how = "band-warm-start:exact-rational:" + ver.how
                cert = Certificate("upper", coeffs, "monomial", self.amap, value, True, float(ver.min_slack), how)
                return value, cert, Status.OPTIMAL
            x = ver.worst_point
            if x is None or x in basis:
                return None
            d = B.solve(flint.fmpq_mat(m1, 1, self.pb.values_exact(x)))
            ratios = [(Fraction(w[i]) / Fraction(int(d[i, 0].p), int(d[i, 0].q)), i) for i in range(m1) if d[i, 0] > 0]
            if not ratios:
                return None
            basis = list(basis)
            basis[min(ratios)[1]] = x
        return None


def _warm_point(lp: _WarmLP | _WarmInterval, problem: MomentProblem, method: str) -> BoundResult | None:
    up = lp.upper(problem.event)
    if up is None:
        return None
    comp = lp.upper(problem.event.complement())
    if comp is None:
        return None
    (uval, ucert, ust), (cval, ccert, cst) = up, comp
    order = [Status.SHIFTED, Status.VALID, Status.OPTIMAL]
    status = min((ust, cst), key=order.index)
    lower_cert = ccert.complement_lower()
    lo, hi = max(Fraction(0), 1 - cval), min(Fraction(1), uval)
    return BoundResult(
        round_down(lo),
        round_up(hi),
        method,
        Kind.BOUND,
        status,
        "warm-started LP along t; "
        + ("exact basis verified: primal and dual feasible in rational arithmetic" if status is Status.OPTIMAL
           else "float dual certificates verified on the whole interval" + (
               " after shifting their constant terms" if status is Status.SHIFTED else "")),
        certificates=(lower_cert, ucert),
        certified=True,
        diagnostics=Diagnostics(solver="highs", solver_status="optimal", exact_basis=status is Status.OPTIMAL,
                                formula="band-warm-start"),
        exact_lower=lo,
        exact_upper=hi,
    )


class _WarmInterval:
    """The semi-infinite LP on an interval: one HiGHS instance, columns kept across ``t``.

    For each ``t`` the costs change, violated points of the dual polynomial (piece ends and
    real critical points) are added as columns until none is left, and the float dual is
    verified on the whole interval by interval arithmetic with its constant term shifted to
    the verified value (status VALID or SHIFTED, as the ``lp`` method on an interval).
    """

    def __init__(self, problem: MomentProblem, ts: Sequence[Fraction]) -> None:
        import highspy

        self.problem = problem
        self.amap, _ = problem.affine_to_unit()
        self.pb = choose_basis(problem, "auto")
        lo, hi = float(problem.support.lo), float(problem.support.hi)  # type: ignore[arg-type]
        k = max(64, 8 * (problem.order + 1))
        cheb = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * np.arange(k + 1) / k)
        self.xf = np.unique(np.clip(np.concatenate([cheb, [float(t) for t in ts]]), lo, hi))
        A, self.colscale = _columns(self.pb, self.xf)
        self.h = _highs_model(A, np.array([float(v) for v in self.pb.moments]))
        self._hs = highspy

    def _target(self, pieces: Sequence[Any]) -> np.ndarray:
        target = np.zeros(self.xf.size)
        for piece in pieces:  # closed pieces: a point on a boundary takes the larger target
            if piece.target:
                target[(self.xf >= float(piece.lo)) & (self.xf <= float(piece.hi))] = 1.0
        return target

    def _add(self, xs: Sequence[float]) -> None:
        new = np.setdiff1d(np.unique(np.array(xs, dtype=float)), self.xf)
        if new.size == 0:
            return
        A, scale = _columns(self.pb, new)
        nrow = A.shape[0]
        self.h.addCols(new.size, np.zeros(new.size), np.zeros(new.size), np.full(new.size, self._hs.kHighsInf),
                       A.size, np.arange(0, A.size, nrow, dtype=np.int32),
                       np.tile(np.arange(nrow, dtype=np.int32), new.size), A.T.reshape(-1).copy())
        self.xf = np.concatenate([self.xf, new])
        self.colscale = np.concatenate([self.colscale, scale])

    def upper(self, event: Event) -> tuple[Fraction, Certificate, Status] | None:
        """Verified (shifted) upper bound on ``P(E)`` from the exchange-refined float dual."""
        pb = self.pb
        pieces = event.pieces(self.problem.support)
        y = None
        for _ in range(MAX_EXCHANGES):
            target = self._target(pieces)
            self.h.changeColsCost(self.xf.size, np.arange(self.xf.size, dtype=np.int32), -target / self.colscale)
            with quiet_native_output():
                self.h.run()
            if not _optimal(self.h, self._hs):
                return None
            y = -np.array(self.h.getSolution().row_dual)
            dy = pb.der(y)
            new: list[float] = []
            for piece in pieces:
                a, b = float(piece.lo), float(piece.hi)
                va, vb = float(pb.to_v(piece.lo)), float(pb.to_v(piece.hi))
                roots = pb.real_roots(dy, min(va, vb), max(va, vb))
                cand = np.concatenate([[a, b], float(pb.shift) + float(pb.scale) * roots])
                slack = pb.vander(pb.v_float(cand)) @ y - piece.target
                new.extend(cand[slack < -EXCHANGE_TOL])
            if not new:
                break
            self._add(new)
        if y is None:
            return None
        coeffs = pb.monomial_in([Fraction(float(v)) for v in y], self.amap.shift, self.amap.scale)
        cert, shifted = certify(coeffs, "upper", self.problem.with_event(event), basis="monomial", allow_shift=True,
                                how_prefix="band-warm-start:float-dual")
        if not cert.verified:
            return None
        return cert.value, cert, Status.SHIFTED if shifted else Status.VALID


def _edge_point(problem: MomentProblem, method: str) -> BoundResult | None:
    """``F(t) = 0`` below a bounded support and ``1`` from its top on: exact, constant certificates."""
    sup, t = problem.support, problem.event.a
    below = sup.lo is not None and t < sup.lo
    above = sup.hi is not None and t >= sup.hi
    if not (below or above):
        return None
    v = Fraction(0) if below else Fraction(1)
    amap, _ = problem.affine_to_unit()
    certs = tuple(
        Certificate(side, (v,), "monomial", amap, v, True, 0.0, "constant: X <= t is impossible or certain")
        for side in ("lower", "upper")
    )
    return BoundResult(
        float(v), float(v), method, Kind.BOUND, Status.OPTIMAL,
        f"t = {t} is {'below' if v == 0 else 'at or above'} the support {sup}: F(t) = {v} exactly",
        certificates=certs, certified=True, diagnostics=Diagnostics(formula="band-edge"),
        exact_lower=v, exact_upper=v,
    )


def _independent_point(problem: MomentProblem, method: str, options: dict[str, Any]) -> BoundResult:
    reason = get_method(method).applies(problem)
    if reason is not None:  # e.g. a closed form that has no formula at this t: reported, not hidden
        msg = f"method {method!r} does not apply at t = {problem.event.a}: {reason}"
        return BoundResult(0.0, 1.0, method, Kind.BOUND, Status.FAILED, msg, diagnostics=Diagnostics(notes=(msg,)))
    try:
        out = bound(problem, method, allow_unverified=True, **options)
    except SolverFailed as exc:
        if isinstance(exc.result, BoundResult):
            return exc.result
        return BoundResult(0.0, 1.0, method, Kind.BOUND, Status.FAILED, str(exc),
                           diagnostics=Diagnostics(notes=(str(exc),)))
    assert isinstance(out, BoundResult)  # a single method name gives a single result
    return out


def cdf_band(
    problem_or_moments: MomentProblem | Sequence[Any],
    support: Support | str | None = None,
    *,
    points: int | Sequence[Any] | None = None,
    method: str = "auto",
    truth: Callable[[float], float] | Sequence[tuple[Any, Any]] | None = None,
    warm: bool = True,
    max_seconds: float | None = DEFAULT_SECONDS,
    **options: Any,
) -> CdfBand:
    """Certified sharp lower and upper cdf ``F(t) = P[X <= t]`` at many points ``t``.

    Parameters
    ----------
    problem_or_moments : MomentProblem or sequence of numbers
        A problem (its event is ignored; its support and every other constraint are kept)
        or the raw moments ``(1, m1, ..., mk)``.
    support : Support or str, optional
        Required with raw moments (``Support.grid(0, 20)`` or ``"grid:0:20"``).
    points : int or sequence, optional
        ``K`` evenly spaced points over the support, or explicit ``t`` values.  Default:
        every support point of a discrete support with at most 201 points, else 101 points.
    method : str
        A registered bound method (``bound(..., method)`` is what every point equals), or
        ``"auto"``: the first of ``lp``, ``sdp``, ``closed-form`` that applies (``lp`` on grids,
        finite sets and intervals, ``sdp`` on the real line).
    truth : callable or sequence of (x, p), optional
        The true cdf ``F(t)`` or pmf, stored for tables and plots.
    warm : bool
        Use the warm-started exact LP where it applies (grid/finite supports up to 4096
        points, methods lp / lp-dual / prekopa, no options); ``False`` solves every point
        independently (the reference the warm path is tested and benchmarked against).
    max_seconds : float or None
        Refuse (``WorkLimitExceeded``, ``MemoryLimitExceeded``) before any work when
        :func:`band_work` estimates a longer run (or more memory than 80% of this machine's);
        ``None`` lifts the time limit (:mod:`momentbound.guard`).
    **options
        Passed to every ``bound`` call (disables the warm path).

    Returns
    -------
    CdfBand

    Example
    -------
    >>> b = cdf_band((1, 3, 11), "grid:0:6")
    >>> tuple(str(b.results[i].exact_upper) for i in range(3))
    ('1/6', '1/3', '2/3')
    """
    start = time.perf_counter()
    if not isinstance(warm, bool):
        raise InvalidArgument(f"warm must be True or False, got {warm!r}")
    base = _base_problem(problem_or_moments, support)
    seconds, memory, count = band_work(base, points)
    guard.check(f"a band of {count:,} points from {base.order} moments on {base.support}", seconds=seconds,
                memory=memory, max_seconds=max_seconds,
                fix=f"use fewer {guard.option('points')}" + (" or a support with fewer points" if
                                                             base.support.is_discrete else ""))
    ts = band_points(base, points)
    if method == "auto":
        probe = base.with_event(Event.le(ts[len(ts) // 2]))
        method = next((m for m in AUTO_METHODS if get_method(m).applies(probe) is None), AUTO_METHODS[0])
    inst = get_method(method)  # an unknown method fails before any work
    unknown = sorted(set(options) - set(inst.options))
    if unknown:
        raise InvalidArgument(f"method {method!r} got unknown option(s) {unknown}; declared: {sorted(inst.options)}")
    if all(inst.applies(base.with_event(Event.le(t))) is not None for t in ts):
        reason = inst.applies(base.with_event(Event.le(ts[0])))
        raise InvalidArgument(f"method {method!r} does not apply to this band: {reason}")
    truth_vals = _truth_values(truth, ts)
    check_feasible(base.with_event(Event.le(ts[0])))
    notes: list[str] = []
    sup = base.support
    plain = warm and not options and _is_plain(base) and trivial_result(base.with_event(Event.le(ts[0])), method) is None
    lp: _WarmLP | _WarmInterval | None = None
    if plain and method in WARM_METHODS and sup.is_discrete and sup.size <= WARM_SIZE_LIMIT:  # type: ignore[operator]
        lp = _WarmLP(base)
    elif plain and method in WARM_INTERVAL_METHODS and sup.kind is SupportKind.INTERVAL:
        lp = _WarmInterval(base, ts)
    use_warm = lp is not None
    if not use_warm:
        notes.append("every point solved by an independent bound call")
    results: list[BoundResult] = []
    warm_flags: list[bool] = []
    for t in ts:
        pr = base.with_event(Event.le(t))
        t0 = time.perf_counter()
        res = _edge_point(pr, method)
        if res is None and lp is not None:
            res = _warm_point(lp, pr, method)
        if res is not None:
            results.append(replace(res, seconds=time.perf_counter() - t0))
            warm_flags.append(res.diagnostics.formula == "band-warm-start")
            continue
        if lp is not None:
            notes.append(f"t = {t}: warm-start finish did not verify; solved independently")
        results.append(_independent_point(pr, method, options))
        warm_flags.append(False)
    return CdfBand(tuple(ts), tuple(results), method, sup, base.order, tuple(warm_flags),
                   time.perf_counter() - start, truth_vals, tuple(notes))
