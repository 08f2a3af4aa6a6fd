"""``shape-closed-form``: the classical bounds for unimodal and symmetric laws, in exact arithmetic.

With the mean ``mu`` and variance ``s^2`` (two moments) these theorems give the upper bound
at once (docs/mathematics.md, "Shape constraints and moment boxes"):

* Gauss, mode ``m`` known, ``tau^2 = s^2 + (mu - m)^2``:
  ``P(|X - m| >= k) <= 4 tau^2 / (9 k^2)`` if ``3 k^2 >= 4 tau^2``, else ``1 - k / (sqrt 3 tau)``;
* Vysochanskij-Petunin, mode unknown: ``P(|X - mu| >= t) <= 4 s^2 / (9 t^2)`` if
  ``3 t^2 >= 8 s^2`` (the maximum over the modes: Gauss's bound at the mode ``mu``); below, its
  second branch ``4 s^2 / (3 t^2) - 1/3`` is valid but not the maximum over the modes (at
  ``t = 3 s / 2`` it is 7/27 where the maximum is 16/81), so this method does not apply there and
  ``sos`` (the envelope over the modes) answers;
* one-sided, unimodal, mode unknown: ``P(X - mu >= t) <= 4 s^2 / (9 (s^2 + t^2))`` if
  ``3 t^2 >= 5 s^2``, else ``(3 s^2 - t^2) / (3 (s^2 + t^2))`` (lower tails by reflection);
* symmetric about the mean: ``P(|X - mu| >= t) <= min(1, s^2 / t^2)`` and
  ``P(X - mu >= t) <= min(1/2, s^2 / (2 t^2))``.

Every value is rational except Gauss's second branch, whose square root is rounded so that
the reported number stays an upper bound.  They hold on any continuous support (a smaller
support only lowers the supremum), so the result is VALID; the lower side is the trivial 0,
which is the infimum on the real line.  They do not hold for laws on the integers (a grid
support is ``shape-grid``'s).  No polynomial certificate exists for these: the theorem is the
proof, and ``certificates`` is empty.  The general case, more moments and other events is
``sos``.

References
----------
C. F. Gauss, Theoria combinationis observationum (1823); D. F. Vysochanskij and Y. I.
Petunin, Theory Probab. Math. Statist. 21 (1980); I. Popescu, Math. Oper. Res. 30 (2005).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .problem import Event, EventKind, MomentProblem, ShapeKind, Span, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status, round_up

__all__ = ["ShapeClosedFormMethod", "shape_closed_form"]


def _sqrt_up(v: Fraction) -> Fraction:
    """A rational upper bound of ``sqrt(v)`` (``v >= 0``), within ``2^-40`` relative."""
    den = 1 << 40
    return Fraction(math.isqrt(math.ceil(v * den * den)) + 1, den)


def _two_sided(event: Event) -> tuple[Fraction, Fraction] | None:
    """(centre, half-width) if ``event`` is ``|X - centre| >= half-width``."""
    if event.kind is not EventKind.UNION or len(event.parts) != 2:
        return None
    left, right = event.parts
    if left == Span(None, left.hi) and right == Span(right.lo, None) and left.hi is not None and right.lo is not None:
        return (left.hi + right.lo) / 2, (right.lo - left.hi) / 2
    return None


def _one_sided(event: Event, mu: Fraction) -> Fraction | None:
    """``t > 0`` if ``event`` is ``X >= mu + t`` or ``X <= mu - t`` (strict versions included)."""
    if event.kind in (EventKind.GE, EventKind.GT) and event.a > mu:
        return event.a - mu
    if event.kind in (EventKind.LE, EventKind.LT) and event.a < mu:
        return mu - event.a
    return None


def _gauss(mu: Fraction, s2: Fraction, mode: Fraction, event: Event) -> tuple[Fraction, str] | None:
    dev = _two_sided(event)
    if dev is None or dev[0] != mode:
        return None
    k = dev[1]
    tau2 = s2 + (mu - mode) ** 2
    if 3 * k * k >= 4 * tau2:
        return 4 * tau2 / (9 * k * k), "gauss"
    return 1 - k / _sqrt_up(3 * tau2), "gauss"


def _unimodal(mu: Fraction, s2: Fraction, event: Event) -> tuple[Fraction, str] | None:
    dev = _two_sided(event)
    if dev is not None and dev[0] == mu:
        t2 = dev[1] ** 2
        if 3 * t2 >= 8 * s2:
            return 4 * s2 / (9 * t2), "vysochanskij-petunin"
        return None  # the second branch is not the maximum over the modes: see the module doc
    t = _one_sided(event, mu)
    if t is not None:
        t2 = t * t
        if 3 * t2 >= 5 * s2:
            return 4 * s2 / (9 * (s2 + t2)), "unimodal-one-sided"
        return (3 * s2 - t2) / (3 * (s2 + t2)), "unimodal-one-sided"
    return None


def _symmetric(mu: Fraction, s2: Fraction, event: Event) -> tuple[Fraction, str] | None:
    dev = _two_sided(event)
    if dev is not None and dev[0] == mu:
        return min(Fraction(1), s2 / dev[1] ** 2), "symmetric-chebyshev"
    t = _one_sided(event, mu)
    if t is not None:
        return min(Fraction(1, 2), s2 / (2 * t * t)), "symmetric-one-sided"
    return None


def _loose_vysochanskij_petunin(problem: MomentProblem) -> bool:
    """Whether ``problem`` is the case of Vysochanskij-Petunin's second branch (mode unknown)."""
    shape = problem.shape
    if (shape is None or shape.kind is not ShapeKind.UNIMODAL or shape.mode is not None or problem.order != 2
            or problem.moment_box is not None):
        return False
    mom = problem.exact_moments
    dev = _two_sided(problem.event)
    return dev is not None and dev[0] == mom[1] and 3 * dev[1] ** 2 < 8 * (mom[2] - mom[1] ** 2)


def shape_closed_form(problem: MomentProblem) -> tuple[Fraction, str] | None:
    """The closed-form upper bound and its name for ``problem``, or ``None`` if none applies.

    Example
    -------
    >>> from momentbound.bounds import Event, Shape, Support
    >>> shape_closed_form(MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, 2), shape=Shape.unimodal()))
    (Fraction(1, 9), 'vysochanskij-petunin')
    """
    shape = problem.shape
    if shape is None or problem.order != 2 or problem.moment_box is not None:
        return None
    mom = problem.exact_moments
    mu, s2 = mom[1], mom[2] - mom[1] ** 2
    if s2 <= 0:
        return None
    forms: dict[tuple[ShapeKind, bool], Callable[[], tuple[Fraction, str] | None]] = {
        (ShapeKind.UNIMODAL, True): lambda: _gauss(mu, s2, shape.mode, problem.event),  # type: ignore[arg-type]
        (ShapeKind.UNIMODAL, False): lambda: _unimodal(mu, s2, problem.event),
        (ShapeKind.SYMMETRIC, False): lambda: _symmetric(mu, s2, problem.event),
    }
    form = forms.get((shape.kind, shape.mode is not None))
    return None if form is None else form()


class ShapeClosedFormMethod(BoundMethod):
    """Gauss, Vysochanskij-Petunin, the one-sided unimodal and the symmetric bounds (two moments).

    Example
    -------
    >>> from momentbound.bounds import Event, Shape, Support, bound
    >>> r = bound(MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.unimodal()), "shape-closed-form")
    >>> r.exact_upper, r.message
    (Fraction(4, 45), 'upper: unimodal-one-sided (theorem); lower: trivial 0')
    """

    name = "shape-closed-form"
    kind = Kind.BOUND
    options: dict[str, Any] = {}
    features = frozenset({"shape"})

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.support.kind not in (SupportKind.INTERVAL, SupportKind.HALFLINE, SupportKind.REAL):
            return ("the closed forms (Gauss, Vysochanskij-Petunin) are theorems about continuous laws (interval, "
                    "halfline or real supports); on grid:LO:HI use 'shape-grid' (the discrete analogue)")
        if shape_closed_form(problem) is None:
            if _loose_vysochanskij_petunin(problem):
                return ("with the mode unknown and t < sqrt(8/3) s, Vysochanskij-Petunin's 4 s^2 / (3 t^2) - 1/3 is "
                        "valid but not the maximum over the modes; use 'sos' (the certified envelope over the modes)")
            return ("closed forms need a shape, exactly two moments and a matching event (dev:MU:T or a tail "
                    "about the mean; dev:M:K about the known mode); use 'sos'")
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        value, name = shape_closed_form(problem)  # type: ignore[misc]
        upper = min(Fraction(1), value)
        message = f"upper: {name} (theorem); lower: trivial 0"
        return BoundResult(
            0.0,
            round_up(upper),
            self.name,
            Kind.BOUND,
            Status.VALID,
            message,
            certified=True,
            diagnostics=Diagnostics(formula=name),
            exact_lower=Fraction(0),
            exact_upper=upper,
        )
