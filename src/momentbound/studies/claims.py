"""Checks of the paper's qualitative claims (trends, minima, U shapes) against curves.

Each function returns a :class:`~momentbound.studies.result.ClaimCheck` whose evidence
states the numbers the verdict rests on, so "not reproduced" is always explained.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.studies.result import ClaimCheck, Verdict

__all__ = [
    "check_trend",
    "check_argmin_in",
    "check_u_shape",
    "check_constant",
    "check_less_than",
    "check_rise_after_min",
    "check_argmin_in_intervals",
    "check_trend_intervals",
    "check_u_shape_intervals",
    "check_less_than_intervals",
    "fmt",
]


def fmt(value: float) -> str:
    """Compact number formatting for evidence strings."""
    v = float(value)
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-3:
        return f"{v:.4e}"
    return f"{v:.5g}"


def _arrays(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise InvalidArgument(f"x and y must be 1-D of the same length, got {xa.shape} and {ya.shape}")
    if xa.size < 2:
        raise InvalidArgument(f"a claim needs at least 2 grid points, got {xa.size}; refine the grid")
    if not np.all(np.isfinite(ya)):
        raise InvalidArgument("y contains NaN or infinite values; the curve cannot be checked")
    return xa, ya


def check_trend(
    x: Sequence[float],
    y: Sequence[float],
    *,
    direction: str,
    figure: str,
    claim: str,
    min_share: float = 0.8,
) -> ClaimCheck:
    """Is ``y`` increasing (or decreasing) along ``x``?

    Reproduced when the last value is beyond the first in ``direction`` and at least
    ``min_share`` of the consecutive steps go that way (discrete effects such as ties may
    cause small local reversals, which the evidence reports).
    """
    if direction not in ("increasing", "decreasing"):
        raise InvalidArgument(f"direction must be 'increasing' or 'decreasing', got {direction!r}")
    xa, ya = _arrays(x, y)
    steps = np.diff(ya)
    sign = 1.0 if direction == "increasing" else -1.0
    good = int(np.sum(sign * steps > 0))
    flat = int(np.sum(steps == 0))
    share = (good + flat) / steps.size
    net = sign * (ya[-1] - ya[0]) > 0
    ok = bool(net and share >= min_share)
    evidence = (
        f"y goes from {fmt(ya[0])} at x={fmt(xa[0])} to {fmt(ya[-1])} at x={fmt(xa[-1])}; "
        f"{good + flat} of {steps.size} steps {direction} or flat"
    )
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


def check_argmin_in(
    x: Sequence[float],
    y: Sequence[float],
    *,
    lo: float,
    hi: float,
    figure: str,
    claim: str,
    rel_tol: float = 0.0,
) -> ClaimCheck:
    """Is the minimum of ``y`` attained at an ``x`` in ``[lo, hi]``?

    With ``rel_tol > 0`` (for claims like "smallest *around* 10-20"), it is enough that the
    best value inside ``[lo, hi]`` is within ``rel_tol`` (relative) of the global minimum;
    the evidence then states both values.
    """
    xa, ya = _arrays(x, y)
    i = int(np.argmin(ya))
    inside = (xa >= lo) & (xa <= hi)
    ok = bool(lo <= xa[i] <= hi)
    evidence = f"minimum {fmt(ya[i])} at x={fmt(xa[i])} (claimed range {fmt(lo)}..{fmt(hi)})"
    if not ok and rel_tol > 0 and inside.any():
        j = int(np.flatnonzero(inside)[np.argmin(ya[inside])])
        gap = (ya[j] - ya[i]) / abs(ya[i]) if ya[i] != 0 else float("inf")
        ok = bool(gap <= rel_tol)
        evidence += (
            f"; best inside the range {fmt(ya[j])} at x={fmt(xa[j])}, {fmt(100 * gap)}% above the minimum "
            f"(tolerance {fmt(100 * rel_tol)}%)"
        )
    # the range of x whose value is within 1% of the minimum shows how flat the optimum is
    near = xa[ya <= ya[i] + 0.01 * abs(ya[i])]
    evidence += f"; within 1% of the minimum for x in {fmt(near.min())}..{fmt(near.max())}"
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


def check_u_shape(
    x: Sequence[float],
    y: Sequence[float],
    *,
    figure: str,
    claim: str,
    rel_margin: float = 0.01,
) -> ClaimCheck:
    """Does ``y`` fall first and rise again (interior minimum, both ends above it)?

    Both end values must exceed the minimum by more than ``rel_margin`` of the curve's range
    so that a flat tail is not mistaken for a rise.
    """
    xa, ya = _arrays(x, y)
    i = int(np.argmin(ya))
    span = float(ya.max() - ya.min())
    margin = rel_margin * span
    ok = 0 < i < xa.size - 1 and ya[0] - ya[i] > margin and ya[-1] - ya[i] > margin
    evidence = (
        f"first {fmt(ya[0])} at x={fmt(xa[0])}, minimum {fmt(ya[i])} at x={fmt(xa[i])}, "
        f"last {fmt(ya[-1])} at x={fmt(xa[-1])}"
    )
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


def check_constant(
    x: Sequence[float],
    y: Sequence[float],
    *,
    value: float,
    atol: float,
    figure: str,
    claim: str,
) -> ClaimCheck:
    """Is ``y`` equal to ``value`` (within ``atol``) at every grid point?"""
    xa, ya = _arrays(x, y)
    dev = np.abs(ya - value)
    j = int(np.argmax(dev))
    ok = bool(dev[j] <= atol)
    evidence = f"largest deviation from {fmt(value)} is {fmt(dev[j])} at x={fmt(xa[j])} (tolerance {fmt(atol)})"
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


def check_less_than(
    x: Sequence[float],
    smaller: Sequence[float],
    larger: Sequence[float],
    *,
    figure: str,
    claim: str,
    names: tuple[str, str] = ("a", "b"),
) -> ClaimCheck:
    """Is ``smaller < larger`` at every grid point?"""
    xa, sa = _arrays(x, smaller)
    _, la = _arrays(x, larger)
    diff = la - sa
    bad = xa[diff <= 0]
    ok = bad.size == 0
    j = int(np.argmin(diff))
    evidence = (
        f"{names[0]} < {names[1]} at {xa.size - bad.size} of {xa.size} points; "
        f"smallest gap {fmt(diff[j])} at x={fmt(xa[j])}"
    )
    if bad.size:
        evidence += f"; fails at x={', '.join(fmt(b) for b in bad[:5])}" + (" ..." if bad.size > 5 else "")
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


def check_rise_after_min(
    x: Sequence[float],
    y: Sequence[float],
    *,
    figure: str,
    claim: str,
) -> ClaimCheck:
    """Is the minimum of ``y`` interior and the last value above it (a rise after the minimum)?"""
    xa, ya = _arrays(x, y)
    i = int(np.argmin(ya))
    ok = i < xa.size - 1 and ya[-1] > ya[i]
    evidence = f"minimum {fmt(ya[i])} at x={fmt(xa[i])}; last value {fmt(ya[-1])} at x={fmt(xa[-1])}"
    if ok:
        evidence += f" (rise of {fmt(ya[-1] - ya[i])}"
        evidence += f", {fmt(100 * (ya[-1] - ya[i]) / abs(ya[i]))}% of the minimum)" if ya[i] != 0 else ")"
    return ClaimCheck(figure, claim, Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, evidence)


# ----------------------------------------------------------------------------- with confidence intervals
# Monte Carlo curves carry a confidence interval [lower, upper] around each estimate. A claim is
# "reproduced" only when the intervals separate what the claim asserts, "not reproduced" only when
# they separate the contrary, and otherwise "inconclusive at this precision" with the numbers.


def _bands(x: Sequence[float], est: Sequence[float], lower: Sequence[float],
           upper: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    xa, ea = _arrays(x, est)
    _, la = _arrays(x, lower)
    _, ua = _arrays(x, upper)
    if np.any(la > ea) or np.any(ua < ea):
        raise InvalidArgument("every estimate must lie inside its interval [lower, upper]")
    return xa, ea, la, ua


def _iv(e: float, lo: float, hi: float) -> str:
    return f"{fmt(e)} [{fmt(lo)}, {fmt(hi)}]"


def check_argmin_in_intervals(
    x: Sequence[float],
    est: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    lo: float,
    hi: float,
    figure: str,
    claim: str,
) -> ClaimCheck:
    """Is the minimum attained at an ``x`` in ``[lo, hi]``, judged with confidence intervals?

    Reproduced when the best upper end inside the range is below every lower end outside it
    (the minimum is inside whichever values the intervals allow); not reproduced when some point
    outside has an upper end below every lower end inside; otherwise inconclusive.
    """
    xa, ea, la, ua = _bands(x, est, lower, upper)
    inside = (xa >= lo) & (xa <= hi)
    if not inside.any() or inside.all():
        raise InvalidArgument(f"the grid needs points inside and outside {fmt(lo)}..{fmt(hi)} to check a minimum")
    i = int(np.argmin(ea))
    j = int(np.flatnonzero(inside)[np.argmin(ua[inside])])  # best certified point inside
    k = int(np.flatnonzero(~inside)[np.argmin(la[~inside])])  # most optimistic point outside
    m = int(np.flatnonzero(~inside)[np.argmin(ua[~inside])])  # best certified point outside
    if ua[j] < la[k]:
        verdict = Verdict.REPRODUCED
    elif ua[m] < la[inside].min():
        verdict = Verdict.NOT_REPRODUCED
    else:
        verdict = Verdict.INCONCLUSIVE
    evidence = (
        f"smallest estimate {_iv(ea[i], la[i], ua[i])} at x={fmt(xa[i])} (claimed range {fmt(lo)}..{fmt(hi)}); "
        f"inside the range best upper end at x={fmt(xa[j])}: {_iv(ea[j], la[j], ua[j])}; outside lowest lower end "
        f"at x={fmt(xa[k])}: {_iv(ea[k], la[k], ua[k])}"
    )
    if verdict is Verdict.INCONCLUSIVE:
        evidence += "; the intervals overlap"
    return ClaimCheck(figure, claim, verdict, evidence)


def check_trend_intervals(
    x: Sequence[float],
    est: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    direction: str,
    figure: str,
    claim: str,
    min_share: float = 0.8,
) -> ClaimCheck:
    """Trend of a curve with intervals: :func:`check_trend` on the estimates, decided by the ends.

    Reproduced when the estimates follow ``direction`` (as :func:`check_trend`) and the first and
    last intervals are separated in that direction; not reproduced when they are separated in the
    opposite direction or the estimates clearly fail the step share while the ends are separated;
    otherwise inconclusive.
    """
    xa, ea, la, ua = _bands(x, est, lower, upper)
    base = check_trend(xa, ea, direction=direction, figure=figure, claim=claim, min_share=min_share)
    sign_up = direction == "increasing"
    forward = la[-1] > ua[0] if sign_up else ua[-1] < la[0]
    backward = ua[-1] < la[0] if sign_up else la[-1] > ua[0]
    if base.reproduced and forward:
        verdict = Verdict.REPRODUCED
    elif backward:
        verdict = Verdict.NOT_REPRODUCED
    else:
        verdict = Verdict.INCONCLUSIVE
    evidence = (
        f"estimates: {base.evidence}; first {_iv(ea[0], la[0], ua[0])}, last {_iv(ea[-1], la[-1], ua[-1])}"
    )
    return ClaimCheck(figure, claim, verdict, evidence)


def check_u_shape_intervals(
    x: Sequence[float],
    est: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    figure: str,
    claim: str,
) -> ClaimCheck:
    """Falls, then rises, judged with intervals.

    Reproduced when the smallest estimate is interior and both end intervals lie above its
    interval; not reproduced when one end's interval lies below every interior interval (no
    interior minimum is possible); otherwise inconclusive.
    """
    xa, ea, la, ua = _bands(x, est, lower, upper)
    if xa.size < 3:
        raise InvalidArgument(f"a U shape needs at least 3 grid points, got {xa.size}")
    i = int(np.argmin(ea))
    interior = 0 < i < xa.size - 1
    if interior and la[0] > ua[i] and la[-1] > ua[i]:
        verdict = Verdict.REPRODUCED
    elif min(ua[0], ua[-1]) < la[1:-1].min():
        verdict = Verdict.NOT_REPRODUCED
    else:
        verdict = Verdict.INCONCLUSIVE
    evidence = (
        f"first {_iv(ea[0], la[0], ua[0])} at x={fmt(xa[0])}, smallest estimate {_iv(ea[i], la[i], ua[i])} at "
        f"x={fmt(xa[i])}, last {_iv(ea[-1], la[-1], ua[-1])} at x={fmt(xa[-1])}"
    )
    return ClaimCheck(figure, claim, verdict, evidence)


def check_less_than_intervals(
    x: Sequence[float],
    smaller: tuple[Sequence[float], Sequence[float], Sequence[float]],
    larger: tuple[Sequence[float], Sequence[float], Sequence[float]],
    *,
    figure: str,
    claim: str,
    names: tuple[str, str] = ("a", "b"),
) -> ClaimCheck:
    """``smaller < larger`` at every point, each given as ``(estimate, lower, upper)``.

    Reproduced when ``upper(smaller) < lower(larger)`` everywhere; not reproduced when at some
    point ``upper(larger) < lower(smaller)``; otherwise inconclusive (the points where the
    intervals overlap are listed).
    """
    xa, se, sl, su = _bands(x, *smaller)
    _, le, ll, lu = _bands(x, *larger)
    sure = su < ll
    wrong = lu < sl
    j = int(np.argmin(ll - su))
    evidence = (
        f"{names[0]} < {names[1]} separated by the intervals at {int(sure.sum())} of {xa.size} points; "
        f"closest at x={fmt(xa[j])}: {names[0]} {_iv(se[j], sl[j], su[j])}, {names[1]} {_iv(le[j], ll[j], lu[j])}"
    )
    if sure.all():
        verdict = Verdict.REPRODUCED
    elif wrong.any():
        verdict = Verdict.NOT_REPRODUCED
        evidence += f"; {names[0]} > {names[1]} (separated) at x={', '.join(fmt(b) for b in xa[wrong][:5])}"
    else:
        verdict = Verdict.INCONCLUSIVE
        evidence += f"; overlapping at x={', '.join(fmt(b) for b in xa[~sure][:5])}"
    return ClaimCheck(figure, claim, verdict, evidence)
