"""``exact``: the true probability from a known law (``problem.pmf``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from momentbound.errors import InvalidArgument

from .problem import MomentProblem
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status

__all__ = ["ExactMethod", "pmf_probability"]


def pmf_probability(problem: MomentProblem) -> Fraction:
    """Exact ``P(E)`` under ``problem.pmf`` (a sum of exact rationals)."""
    if problem.pmf is None:
        raise InvalidArgument("the problem has no pmf; pass pmf=((x, p), ...) to MomentProblem")
    return sum((p for x, p in problem.pmf if problem.event.indicator(x)), Fraction(0))


class ExactMethod(BoundMethod):
    """The truth, from the known pmf; checks that the pmf has the problem's moments.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> pmf = ((0, Fraction(1, 2)), (2, Fraction(1, 2)))
    >>> ExactMethod().solve(MomentProblem((1, 1, 2), Support.grid(0, 2), Event.gt(1), pmf=pmf)).upper
    0.5
    """

    name = "exact"
    kind = Kind.EXACT
    options = {"check_moments": True}
    handles_degenerate = False

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.pmf is None:
            return ("it needs the law of X itself (a pmf: MomentProblem(..., pmf=...), or the model form of "
                    "'bound'), and only moments are given; use a bound method such as lp or sdp")
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        if options["check_moments"]:
            for k, mk in enumerate(problem.moments):
                true = sum((p * x**k for x, p in problem.pmf), Fraction(0))  # type: ignore[union-attr]
                ok = true == mk if isinstance(mk, Fraction) else abs(float(true) - mk) <= 1e-9 * max(1.0, abs(mk))
                if not ok:
                    raise InvalidArgument(
                        f"pmf does not match moments[{k}]: pmf gives {true}, moments say {mk}; "
                        "pass the moments of that pmf (or check_moments=False)"
                    )
        v = pmf_probability(problem)
        return BoundResult(
            float(v),
            float(v),
            self.name,
            Kind.EXACT,
            Status.EXACT,
            "exact probability from the known pmf",
            certified=True,
            diagnostics=Diagnostics(formula="sum of pmf over the event"),
            exact_lower=v,
            exact_upper=v,
        )
