"""The method registry and the template every bound method follows."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any, ClassVar

from momentbound.errors import InfeasibleMoments, InvalidArgument

from .feasibility import check_feasible
from .problem import MomentProblem, SupportKind
from .result import BoundResult, Diagnostics, Kind, Status

__all__ = ["BoundMethod", "METHODS", "DISCRETE_FEASIBILITY", "trivial_result"]

#: registered methods by name, filled by the literal lines of ``momentbound.bounds`` (their order is
#: the preference order); a plug-in adds ``METHODS["name"] = MethodClass``
METHODS: dict[str, type[BoundMethod]] = {}
#: exact feasibility checks for grid and finite supports, run before every bound or approximation
#: (the Hankel conditions are not sufficient there); filled by the modules that provide them (``lp``)
DISCRETE_FEASIBILITY: list[Callable[[MomentProblem], None]] = []


class BoundMethod:
    """Base class of every method: validation, degenerate cases, timing, then ``_solve``.

    Subclasses set ``name``, ``kind``, ``options`` (declared option names with defaults)
    and implement ``_solve(problem, **options)``; they may override ``applies`` to say
    why they cannot handle a problem (return a reason string) or ``None`` if they can.
    """

    name: ClassVar[str] = ""
    kind: ClassVar[Kind] = Kind.BOUND
    options: ClassVar[Mapping[str, Any]] = {}
    #: run the generic feasibility check and point-mass handling before ``_solve``
    handles_degenerate: ClassVar[bool] = True
    #: the method proves infeasibility on a discrete support itself (skips :data:`DISCRETE_FEASIBILITY`)
    proves_discrete_feasibility: ClassVar[bool] = False
    #: problem features (``MomentProblem.features``: "shape", "moment-box") the method honours
    features: ClassVar[frozenset[str]] = frozenset()

    def applies(self, problem: MomentProblem) -> str | None:
        """``None`` if this method can handle ``problem``, else the reason it cannot."""
        return None

    def unsupported(self, problem: MomentProblem) -> str | None:
        """``None`` if the method honours every feature of ``problem`` and :meth:`applies`, else why not."""
        missing = sorted(problem.features - self.features)
        if missing:
            able = [name for name, cls in METHODS.items() if problem.features <= cls.features]
            return f"it ignores the problem's {' and '.join(missing)}; methods that honour it: {', '.join(able) or 'none'}"
        return self.applies(problem)

    def solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        """Validate, handle degenerate cases, time and run the method.

        Raises
        ------
        InvalidArgument
            Unknown option, or the method does not apply to the problem.
        InfeasibleMoments
            The moments are not those of any law on the support.
        SolverFailed
            The numerical solver failed (``exc.result`` holds the partial result).
        """
        if not isinstance(problem, MomentProblem):
            raise InvalidArgument(f"problem must be a MomentProblem, got {type(problem).__name__}")
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise InvalidArgument(f"method {self.name!r} got unknown option(s) {unknown}; declared options: {known}")
        merged = {**self.options, **options}
        reason = self.unsupported(problem)
        if reason is not None:
            raise InvalidArgument(f"method {self.name!r} does not apply to this problem: {reason}")
        start = time.perf_counter()
        result = None
        if self.handles_degenerate and self.kind in (Kind.BOUND, Kind.APPROXIMATION):
            # no bound and no approximation for moments that no law on the support has
            check_feasible(problem)
            if self.kind is Kind.BOUND:
                result = trivial_result(problem, self.name)
            if result is None and problem.support.is_discrete and not self.proves_discrete_feasibility:
                for check in DISCRETE_FEASIBILITY:
                    check(problem)
        if result is None:
            try:
                result = self._solve(problem, **merged)
            except OverflowError as exc:
                raise InvalidArgument(
                    f"method {self.name!r}: these moments overflow floating-point arithmetic ({exc}); rescale X "
                    "(divide it by a power of ten) so that its moments fit in a double (about 1.8e308)"
                ) from exc
        return replace(result, seconds=time.perf_counter() - start)

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _point_mass(problem: MomentProblem) -> Fraction | None:
    sup = problem.support
    if sup.kind is SupportKind.FINITE and len(sup.points) == 1:  # type: ignore[arg-type]
        return sup.points[0]  # type: ignore[index]
    if sup.kind in (SupportKind.GRID, SupportKind.INTERVAL) and sup.lo == sup.hi:
        return sup.lo
    if problem.order == 0 or not problem.is_exact:
        return None
    amap, mu = problem.affine_to_unit()
    if problem.order >= 2 and mu[2] - mu[1] ** 2 == 0:
        return amap.from_unit(mu[1])
    if sup.is_bounded and abs(mu[1]) == 1:
        return amap.from_unit(mu[1])
    return None


def trivial_result(problem: MomentProblem, method: str) -> BoundResult | None:
    """Exact answer when the moments carry no information (order 0) or force a point mass."""
    x = _point_mass(problem)
    if x is not None:
        if not problem.support.contains(x):
            raise InfeasibleMoments(
                f"the moments force a point mass at {x}, which is not in the support {problem.support}",
                condition="support",
            )
        v = Fraction(int(problem.event.indicator(x)))
        return BoundResult(
            float(v),
            float(v),
            method,
            Kind.BOUND,
            Status.OPTIMAL,
            f"the moments force a point mass at x = {x}; P(E) = {v} exactly",
            certified=True,
            diagnostics=Diagnostics(formula="point-mass"),
            exact_lower=v,
            exact_upper=v,
        )
    if problem.order == 0:
        sup, ev = problem.support, problem.event
        if sup.kind is SupportKind.FINITE:
            flags = {ev.indicator(p) for p in sup.points}  # type: ignore[union-attr]
        else:
            flags = {piece.target == 1 for piece in ev.pieces(sup)}
        lo = Fraction(1) if flags == {True} else Fraction(0)
        hi = Fraction(0) if flags == {False} else Fraction(1)
        return BoundResult(
            float(lo),
            float(hi),
            method,
            Kind.BOUND,
            Status.OPTIMAL,
            "only m0 is known: the bounds are the trivial ones",
            certified=True,
            diagnostics=Diagnostics(formula="order-0"),
            exact_lower=lo,
            exact_upper=hi,
        )
    return None
