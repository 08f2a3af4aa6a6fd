"""Time estimates of the bound methods, for the work guard (:mod:`momentbound.guard`) of callers
that run several methods or many problems (``momentbound bound``, ``compare``).

A method's time grows with the number of moments (measured: about with its square between
orders 20 and 40) and, on discrete supports beyond a few thousand points, with the support's
size. Measured wall-clock seconds on the model form of a one-attribute model (support
grid:-6:6), on a two-core machine shared with other jobs (load about 10; one-core CPU time is
about a sixth of these): order 40: lp 0.72, lp-dual 0.68, closed-form 0.49, sqp 3.5, sdp 9.0,
gd 19.4 and gdts over 60 (seven descents); order 20: sdp 2.9, gd 10.2, the others under 0.6.
The coefficients below are the order-40 seconds divided by ``(order + 1)^2``, rounded up (gdts
taken as 100 s); a cvxpy ``solver`` other than the default path counts three times (SCS, a
first-order solver, needed 12 s of wall clock for an order-6 LP on that machine).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["SECONDS_PER_SQUARED_ORDER", "method_seconds", "methods_seconds"]

#: seconds per (order + 1)^2 of each method (unlisted methods: the largest listed)
SECONDS_PER_SQUARED_ORDER = {
    "lp": 5e-4, "lp-dual": 5e-4, "prekopa": 5e-4, "closed-form": 3e-4, "shape-closed-form": 3e-4,
    "sqp": 2.1e-3, "sdp": 5.4e-3, "sos": 5.4e-3, "series": 5e-4, "gd": 1.2e-2, "gdts": 6e-2,
    "exact": 3e-4, "sampling": 0.0,
}


def method_seconds(problem: Any, method: str, options: dict[str, Any] | None = None) -> float:
    """Estimated seconds of ``bound(problem, method, **options)`` (a rough upper estimate)."""
    options = options or {}
    order = float(getattr(problem, "order", 1))
    coeff = SECONDS_PER_SQUARED_ORDER.get(method, max(SECONDS_PER_SQUARED_ORDER.values()))
    seconds = coeff * (order + 1) ** 2
    sup = getattr(problem, "support", None)
    if sup is not None and getattr(sup, "is_discrete", False) and method in ("lp", "lp-dual", "prekopa"):
        # the LP exchanges points of large supports rather than solving over all of them: measured
        # (one core, 6 moments of a binomial) 0.04-0.19 s for lp, lp-dual and prekopa on 2e6 and 2e7
        # points; the term keeps the estimate above that and refuses supports of billions of points
        seconds += 3e-8 * float(sup.size) * (order + 1)
    if options.get("solver") is not None:
        seconds *= 3.0
    if method == "sampling":
        per = getattr(getattr(problem, "statistic_sampler", None), "seconds_per_draw", 1e-6)
        seconds += per * float(options.get("draws", 1000))
    return seconds


def methods_seconds(problem: Any, methods: Iterable[str], options: dict[str, Any] | None = None) -> float:
    """Estimated seconds of running every one of ``methods`` on ``problem``."""
    return sum(method_seconds(problem, m, options) for m in methods)
