"""The moment problem: known moments, a support, and an event (docs/mathematics.md, section
'Bounds on a probability from moments').

Numbers given exactly (``int``, ``Fraction``) stay exact; floats are accepted for
moments and converted to exact rationals (``Fraction(float)`` is exact) only where exact
arithmetic is needed.  Supports are always stored exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from functools import cached_property
from decimal import Decimal
from numbers import Rational
from typing import Any

from momentbound.errors import InvalidArgument

from .basis import chebyshev_to_monomial_moments, monomial_to_chebyshev_moments

__all__ = [
    "SupportKind",
    "Support",
    "EventKind",
    "Event",
    "Piece",
    "Span",
    "AffineMap",
    "MomentProblem",
    "Shape",
    "ShapeKind",
    "as_exact",
]

Number = int | Fraction | float


def _show(value: Any) -> str:
    """A number as a user wrote it: ``2`` or ``1/3`` for a Fraction, not ``Fraction(2, 1)``."""
    if isinstance(value, (Fraction, int, float, Decimal)) and not isinstance(value, bool):
        return str(value)
    return repr(value)


def as_exact(value: Any, name: str) -> Fraction:
    """Convert ``value`` to an exact ``Fraction`` (floats exactly), rejecting NaN/inf/bool."""
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be a number, got the bool {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidArgument(f"{name} must be finite, got {value!r}")
        return Fraction(value)
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidArgument(f"{name} must be a number like '3', '1/3' or '0.25', got {value!r}") from exc
    try:
        f = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a number, got {value!r} of type {type(value).__name__}") from exc
    if not math.isfinite(f):
        raise InvalidArgument(f"{name} must be finite, got {value!r}")
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(f)


def _ordered_pair(what: str, a: Any, b: Any, names: tuple[str, str] = ("a", "b")) -> tuple[Fraction, Fraction]:
    """``(a, b)`` as exact Fractions, rejecting ``a > b`` with an actionable message."""
    lo, hi = as_exact(a, names[0]), as_exact(b, names[1])
    if lo > hi:
        raise InvalidArgument(f"{what} needs {names[0]} <= {names[1]}, got {names[0]}={lo} > {names[1]}={hi}; swap them")
    return lo, hi


def _moment_value(value: Any, name: str) -> Fraction | float:
    """Moments keep their exactness: ints/Fractions become Fractions, floats stay floats."""
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be a number, got the bool {value!r}")
    if isinstance(value, (int, Fraction, Rational, str, Decimal)):
        return as_exact(value, name)
    try:
        f = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a number, got {value!r}") from exc
    if not math.isfinite(f):
        raise InvalidArgument(f"{name} must be finite, got {value!r}; moments overflowed? pass exact integers/Fractions")
    if hasattr(value, "item") and isinstance(value.item(), int):
        return Fraction(value.item())
    return f


class SupportKind(Enum):
    """Kind of support of the random variable."""

    GRID = "grid"
    FINITE = "finite"
    INTERVAL = "interval"
    HALFLINE = "halfline"  # [lo, oo)
    REAL = "real"


@dataclass(frozen=True)
class Support:
    """Where the random variable lives.

    Use the constructors :meth:`grid`, :meth:`finite`, :meth:`interval`, :meth:`halfline`,
    :meth:`real`.
    A grid may hold 10^8+ points and is never enumerated blindly.

    Example
    -------
    >>> Support.grid(-3, 3).size
    7
    """

    kind: SupportKind
    lo: Fraction | None
    hi: Fraction | None
    points: tuple[Fraction, ...] | None = None

    @classmethod
    def grid(cls, lo: int, hi: int) -> Support:
        """Every integer ``lo, lo + 1, ..., hi``."""
        a, b = as_exact(lo, "lo"), as_exact(hi, "hi")
        if a.denominator != 1 or b.denominator != 1:
            raise InvalidArgument(f"grid bounds must be integers, got lo={_show(lo)}, hi={_show(hi)}")
        if a > b:
            raise InvalidArgument(f"grid needs lo <= hi, got lo={_show(lo)} > hi={_show(hi)}; swap them")
        return cls(SupportKind.GRID, a, b)

    @classmethod
    def finite(cls, points: Iterable[Number]) -> Support:
        """A finite set of (exact) points."""
        pts = tuple(sorted({as_exact(p, "points") for p in points}))
        if not pts:
            raise InvalidArgument("finite support needs at least one point, got none")
        return cls(SupportKind.FINITE, pts[0], pts[-1], pts)

    @classmethod
    def interval(cls, a: Number, c: Number) -> Support:
        """The closed interval ``[a, c]``."""
        return cls(SupportKind.INTERVAL, *_ordered_pair("interval", a, c, ("a", "c")))

    @classmethod
    def halfline(cls, a: Number) -> Support:
        """The closed half-line ``[a, oo)`` (``X >= a``; ``a = 0`` for a nonnegative variable)."""
        return cls(SupportKind.HALFLINE, as_exact(a, "a"), None)

    @classmethod
    def real(cls) -> Support:
        """The whole real line (unbounded)."""
        return cls(SupportKind.REAL, None, None)

    @classmethod
    def parse(cls, text: str) -> Support:
        """Parse ``grid:LO:HI``, ``interval:A:C``, ``finite:x1,x2,...``, ``halfline:A`` or ``real``."""
        parts = text.strip().split(":")
        head = parts[0].lower()
        try:
            if head == "grid" and len(parts) == 3:
                ends = [as_exact(v, name) for v, name in ((parts[1], "LO"), (parts[2], "HI"))]
                if any(v.denominator != 1 for v in ends):
                    raise InvalidArgument(f"grid:LO:HI takes integer ends (every integer from LO to HI), got {text!r}; "
                                          "for a continuum use interval:A:C")
                return cls.grid(int(ends[0]), int(ends[1]))
            if head == "interval" and len(parts) == 3:
                return cls.interval(as_exact(parts[1], "A"), as_exact(parts[2], "C"))
            if head == "finite" and len(parts) == 2:
                return cls.finite(as_exact(p, "points") for p in parts[1].split(",") if p.strip())
            if head == "halfline" and len(parts) == 2:
                return cls.halfline(as_exact(parts[1], "A"))
            if head == "real" and len(parts) == 1:
                return cls.real()
        except ValueError as exc:
            raise InvalidArgument(f"cannot parse support {text!r}: {exc}") from exc
        raise InvalidArgument(
            f"support must look like 'grid:LO:HI', 'interval:A:C', 'finite:x1,x2', 'halfline:A' or 'real', got {text!r}"
        )

    @property
    def is_discrete(self) -> bool:
        return self.kind in (SupportKind.GRID, SupportKind.FINITE)

    @property
    def is_bounded(self) -> bool:
        return self.kind not in (SupportKind.REAL, SupportKind.HALFLINE)

    @property
    def size(self) -> int | None:
        """Number of points of a discrete support (``None`` for a continuum)."""
        if self.kind is SupportKind.GRID:
            return int(self.hi - self.lo) + 1  # type: ignore[operator]
        if self.kind is SupportKind.FINITE:
            return len(self.points)  # type: ignore[arg-type]
        return None

    def contains(self, x: Number) -> bool:
        v = as_exact(x, "x")
        if self.kind is SupportKind.REAL:
            return True
        if self.kind is SupportKind.FINITE:
            return v in self.points  # type: ignore[operator]
        if self.kind is SupportKind.HALFLINE:
            return v >= self.lo  # type: ignore[operator]
        inside = self.lo <= v <= self.hi  # type: ignore[operator]
        return inside and (self.kind is SupportKind.INTERVAL or v.denominator == 1)

    def __str__(self) -> str:
        if self.kind is SupportKind.GRID:
            return f"grid:{self.lo}:{self.hi}"
        if self.kind is SupportKind.INTERVAL:
            return f"interval:{self.lo}:{self.hi}"
        if self.kind is SupportKind.FINITE:
            return "finite:" + ",".join(str(p) for p in self.points)  # type: ignore[union-attr]
        if self.kind is SupportKind.HALFLINE:
            return f"halfline:{self.lo}"
        return "real"


class EventKind(Enum):
    """Shape of the event whose probability is bounded."""

    GT = "gt"
    GE = "ge"
    LT = "lt"
    LE = "le"
    BETWEEN = "between"  # closed interval [a, b]
    OUTSIDE = "outside"  # complement of [a, b]: x < a or x > b
    UNION = "union"  # a finite union of disjoint intervals (``Event.parts``)


@dataclass(frozen=True, order=True)
class Span:
    """One interval of an event: ``lo < x < hi`` with each end closed or open (``None`` = infinite).

    Example
    -------
    >>> Span(Fraction(1), Fraction(2), True, False).contains(Fraction(2))
    False
    """

    lo: Fraction | None
    hi: Fraction | None
    lo_closed: bool = True
    hi_closed: bool = True

    def contains(self, v: Fraction) -> bool:
        above = self.lo is None or v > self.lo or (self.lo_closed and v == self.lo)
        below = self.hi is None or v < self.hi or (self.hi_closed and v == self.hi)
        return above and below

    def __str__(self) -> str:
        lo, hi = self.lo, self.hi
        if lo is None and hi is None:
            return "real"
        if lo is None:
            return f"{'le' if self.hi_closed else 'lt'}:{hi}"
        if hi is None:
            return f"{'ge' if self.lo_closed else 'gt'}:{lo}"
        name = {(True, True): "between", (False, False): "open", (False, True): "lopen", (True, False): "ropen"}
        return f"{name[(self.lo_closed, self.hi_closed)]}:{lo}:{hi}"


def _merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Sorted disjoint spans covering the union of ``spans`` (empty spans dropped)."""
    live = []
    for sp in spans:
        if sp.lo is not None and sp.hi is not None:
            if sp.lo > sp.hi or (sp.lo == sp.hi and not (sp.lo_closed and sp.hi_closed)):
                continue
        live.append(sp)
    key = lambda sp: (sp.lo is not None, sp.lo if sp.lo is not None else 0, not sp.lo_closed)  # noqa: E731
    out: list[Span] = []
    for sp in sorted(live, key=key):
        if out:
            last = out[-1]
            touch = last.hi is None or sp.lo is None or sp.lo < last.hi or (
                sp.lo == last.hi and (sp.lo_closed or last.hi_closed)
            )
            if touch:
                if last.hi is None or sp.hi is None:
                    hi, hc = None, True
                elif sp.hi > last.hi or (sp.hi == last.hi and sp.hi_closed):
                    hi, hc = sp.hi, sp.hi_closed
                else:
                    hi, hc = last.hi, last.hi_closed
                out[-1] = Span(last.lo, hi, last.lo_closed, hc)
                continue
        out.append(sp)
    return tuple(out)


def _complement_spans(spans: tuple[Span, ...]) -> tuple[Span, ...]:
    out: list[Span] = []
    cur: Fraction | None = None
    cur_closed = True
    started = False
    for sp in spans:
        if sp.lo is not None:
            out.append(Span(cur if started else None, sp.lo, cur_closed, not sp.lo_closed))
        started = True
        if sp.hi is None:
            return _merge_spans(out)
        cur, cur_closed = sp.hi, not sp.hi_closed
    out.append(Span(cur if started else None, None, cur_closed, True))
    return _merge_spans(out)


@dataclass(frozen=True)
class Piece:
    """A maximal part of the support on which the event indicator is constant.

    ``lo``/``hi`` are exact (``None`` = unbounded); ``integer`` means only the integers in
    ``[lo, hi]`` belong to it; ``target`` is the indicator value (0 or 1).  For
    continuous supports pieces are closed (closures), which is what a continuous dual
    polynomial has to satisfy anyway.
    """

    lo: Fraction | None
    hi: Fraction | None
    target: int
    integer: bool


@dataclass(frozen=True)
class Event:
    """An event ``{X > t}``, ``{X >= t}``, ``{X < t}``, ``{X <= t}``, ``{a <= X <= b}``, its complement,
    or a finite union of intervals (:meth:`union`, :meth:`deviation`).

    Example
    -------
    >>> Event.gt(0).indicator(1), str(Event.parse("le:2").complement())
    (True, 'gt:2')
    """

    kind: EventKind
    a: Fraction
    b: Fraction | None = None
    #: the disjoint sorted intervals of a ``UNION`` event (empty for the other kinds)
    parts: tuple[Span, ...] = ()

    @classmethod
    def gt(cls, t: Number) -> Event:
        return cls(EventKind.GT, as_exact(t, "t"))

    @classmethod
    def ge(cls, t: Number) -> Event:
        return cls(EventKind.GE, as_exact(t, "t"))

    @classmethod
    def lt(cls, t: Number) -> Event:
        return cls(EventKind.LT, as_exact(t, "t"))

    @classmethod
    def le(cls, t: Number) -> Event:
        return cls(EventKind.LE, as_exact(t, "t"))

    @classmethod
    def between(cls, a: Number, b: Number) -> Event:
        return cls(EventKind.BETWEEN, *_ordered_pair("between", a, b))

    @classmethod
    def outside(cls, a: Number, b: Number) -> Event:
        return cls(EventKind.OUTSIDE, *_ordered_pair("outside", a, b))

    @classmethod
    def from_spans(cls, spans: Iterable[Span]) -> Event:
        """The union of ``spans``; a single interval becomes the simple event it is.

        Example
        -------
        >>> str(Event.from_spans([Span(None, Fraction(1)), Span(Fraction(5), None)]))
        'union:le:1,ge:5'
        """
        merged = _merge_spans(spans)
        if len(merged) == 1:
            sp = merged[0]
            if sp.lo is None and sp.hi is not None:
                return cls(EventKind.LE if sp.hi_closed else EventKind.LT, sp.hi)
            if sp.hi is None and sp.lo is not None:
                return cls(EventKind.GE if sp.lo_closed else EventKind.GT, sp.lo)
            if sp.lo is not None and sp.hi is not None and sp.lo_closed and sp.hi_closed:
                return cls(EventKind.BETWEEN, sp.lo, sp.hi)
        if len(merged) == 2:
            first, second = merged
            if (first.lo is None and second.hi is None and not first.hi_closed and not second.lo_closed):
                return cls(EventKind.OUTSIDE, first.hi, second.lo)  # type: ignore[arg-type]
        ends = [v for sp in merged for v in (sp.lo, sp.hi) if v is not None]
        a = ends[0] if ends else Fraction(0)
        return cls(EventKind.UNION, a, ends[-1] if ends else None, merged)

    @classmethod
    def union(cls, *events: Event) -> Event:
        """``{X in E_1 or X in E_2 or ...}`` (overlapping parts are merged).

        Example
        -------
        >>> Event.union(Event.le(1), Event.ge(5)).indicator(3)
        False
        """
        if not events:
            raise InvalidArgument("union needs at least one event, got none")
        for i, ev in enumerate(events):
            if not isinstance(ev, Event):
                raise InvalidArgument(f"union: argument {i} must be an Event, got {ev!r}")
        return cls.from_spans(sp for ev in events for sp in ev.spans())

    @classmethod
    def deviation(cls, mu: Number, t: Number) -> Event:
        """The two-sided deviation ``{|X - mu| >= t}`` (``t > 0``)."""
        m, r = as_exact(mu, "mu"), as_exact(t, "t")
        if r <= 0:
            raise InvalidArgument(f"deviation needs t > 0, got t={_show(t)}; |X - mu| >= 0 always holds")
        return cls.from_spans([Span(None, m - r), Span(m + r, None)])

    def spans(self) -> tuple[Span, ...]:
        """The event as sorted disjoint intervals with open/closed ends."""
        k, a, b = self.kind, self.a, self.b
        if k is EventKind.UNION:
            return self.parts
        table = {
            EventKind.GT: lambda: (Span(a, None, False),),
            EventKind.GE: lambda: (Span(a, None, True),),
            EventKind.LT: lambda: (Span(None, a, True, False),),
            EventKind.LE: lambda: (Span(None, a, True, True),),
            EventKind.BETWEEN: lambda: (Span(a, b),),
            EventKind.OUTSIDE: lambda: (Span(None, a, True, False), Span(b, None, False)),
        }
        return table[k]()

    @classmethod
    def _parse_part(cls, text: str) -> tuple[Span, ...]:
        parts = text.strip().split(":")
        head = parts[0].lower()
        two = {"between": (True, True), "open": (False, False), "lopen": (False, True), "ropen": (True, False)}
        if head in two and len(parts) == 3:
            lo, hi = _ordered_pair(head, as_exact(parts[1], "A"), as_exact(parts[2], "B"))
            return (Span(lo, hi, *two[head]),)
        return cls.parse(text).spans()

    @classmethod
    def parse(cls, text: str) -> Event:
        """Parse ``gt:T``, ``ge:T``, ``lt:T``, ``le:T``, ``between:A:B``, ``outside:A:B``, ``dev:MU:T``
        (``|X - MU| >= T``) or ``union:PART,PART,...``.

        A union part is a simple event or an interval ``between:A:B`` (closed), ``open:A:B``,
        ``lopen:A:B`` (``A < x <= B``) or ``ropen:A:B`` (``A <= x < B``).

        Example
        -------
        >>> str(Event.parse("union:le:1,between:2:3,ge:5"))
        'union:le:1,between:2:3,ge:5'
        >>> str(Event.parse("dev:0:2"))
        'union:le:-2,ge:2'
        """
        parts = text.strip().split(":")
        head = parts[0].lower()
        if head == "union" and len(parts) >= 2:
            body = text.strip()[len(parts[0]) + 1 :]
            pieces = [p for p in body.split(",") if p.strip()]
            if not pieces:
                raise InvalidArgument(f"union needs at least one part, e.g. 'union:le:1,ge:5', got {text!r}")
            return cls.from_spans(sp for p in pieces for sp in cls._parse_part(p))
        if head == "dev" and len(parts) == 3:
            return cls.deviation(as_exact(parts[1], "MU"), as_exact(parts[2], "T"))
        single = {"gt": cls.gt, "ge": cls.ge, "lt": cls.lt, "le": cls.le}
        if head in single and len(parts) == 2:
            return single[head](as_exact(parts[1], "T"))
        if head in ("between", "outside") and len(parts) == 3:
            ctor = cls.between if head == "between" else cls.outside
            return ctor(as_exact(parts[1], "A"), as_exact(parts[2], "B"))
        raise InvalidArgument(
            "event must look like 'gt:T', 'ge:T', 'lt:T', 'le:T', 'between:A:B', 'outside:A:B', 'dev:MU:T' "
            f"or 'union:le:1,ge:5', got {text!r}"
        )

    def indicator(self, x: Number) -> bool:
        """Whether ``x`` belongs to the event (exact comparison)."""
        v = x if isinstance(x, (Fraction, int)) else as_exact(x, "x")
        k, a, b = self.kind, self.a, self.b
        if k is EventKind.UNION:
            return any(sp.contains(Fraction(v)) for sp in self.parts)
        if k is EventKind.GT:
            return v > a
        if k is EventKind.GE:
            return v >= a
        if k is EventKind.LT:
            return v < a
        if k is EventKind.LE:
            return v <= a
        inside = a <= v <= b  # type: ignore[operator]
        return inside if k is EventKind.BETWEEN else not inside

    def complement(self) -> Event:
        if self.kind is EventKind.UNION:
            return Event.from_spans(_complement_spans(self.parts))
        flip = {
            EventKind.GT: EventKind.LE,
            EventKind.LE: EventKind.GT,
            EventKind.GE: EventKind.LT,
            EventKind.LT: EventKind.GE,
            EventKind.BETWEEN: EventKind.OUTSIDE,
            EventKind.OUTSIDE: EventKind.BETWEEN,
        }
        return Event(flip[self.kind], self.a, self.b)

    def __str__(self) -> str:
        if self.kind is EventKind.UNION:
            return "union:" + ",".join(str(sp) for sp in self.parts)
        if self.b is None:
            return f"{self.kind.value}:{self.a}"
        return f"{self.kind.value}:{self.a}:{self.b}"

    def inside_intervals(self) -> tuple[tuple[Fraction | None, Fraction | None], ...]:
        """Closure of the event as closed intervals (``None`` = infinite end)."""
        k, a, b = self.kind, self.a, self.b
        if k is EventKind.UNION:
            return tuple((sp.lo, sp.hi) for sp in self.parts)
        if k in (EventKind.GT, EventKind.GE):
            return ((a, None),)
        if k in (EventKind.LT, EventKind.LE):
            return ((None, a),)
        if k is EventKind.BETWEEN:
            return ((a, b),)
        return ((None, a), (b, None))

    def pieces(self, support: Support) -> tuple[Piece, ...]:
        """Split a grid, interval or real support into pieces of constant indicator.

        Grid pieces are exact integer ranges; continuum pieces are closed intervals.
        Finite supports are handled point by point and raise here.
        """
        if support.kind is SupportKind.FINITE:
            raise InvalidArgument("pieces() is for grid/interval/real supports; iterate over support.points")
        if support.kind is SupportKind.GRID:
            return self._grid_pieces(int(support.lo), int(support.hi))  # type: ignore[arg-type]
        lo, hi = support.lo, support.hi
        out: list[Piece] = []
        for target, ivs in ((1, self.inside_intervals()), (0, self.complement().inside_intervals())):
            for a, b in ivs:
                ca = a if lo is None else (lo if a is None else max(a, lo))
                cb = b if hi is None else (hi if b is None else min(b, hi))
                if ca is not None and cb is not None and ca > cb:
                    continue
                out.append(Piece(ca, cb, target, False))
        return tuple(out)

    def _grid_pieces(self, lo: int, hi: int) -> tuple[Piece, ...]:
        k, a, b = self.kind, self.a, self.b
        fl = lambda v: math.floor(v)  # noqa: E731
        ce = lambda v: math.ceil(v)  # noqa: E731
        if k is EventKind.GT:
            inside = [(fl(a) + 1, hi)]
        elif k is EventKind.GE:
            inside = [(ce(a), hi)]
        elif k is EventKind.LT:
            inside = [(lo, ce(a) - 1)]
        elif k is EventKind.LE:
            inside = [(lo, fl(a))]
        elif k is EventKind.BETWEEN:
            inside = [(ce(a), fl(b))]  # type: ignore[arg-type]
        elif k is EventKind.UNION:
            inside = [_integer_range(sp, lo, hi) for sp in self.parts]
        else:
            inside = [(lo, ce(a) - 1), (fl(b) + 1, hi)]  # type: ignore[arg-type]
        ins = sorted((max(x, lo), min(y, hi)) for x, y in inside if max(x, lo) <= min(y, hi))
        pieces: list[Piece] = []
        cur = lo
        for x, y in ins:
            if cur <= x - 1:
                pieces.append(Piece(Fraction(cur), Fraction(x - 1), 0, True))
            pieces.append(Piece(Fraction(x), Fraction(y), 1, True))
            cur = y + 1
        if cur <= hi:
            pieces.append(Piece(Fraction(cur), Fraction(hi), 0, True))
        return tuple(pieces)


def _integer_range(sp: Span, lo: int, hi: int) -> tuple[int, int]:
    """The integers of ``sp`` within ``lo..hi`` as an inclusive range (possibly empty)."""
    first = lo if sp.lo is None else (math.ceil(sp.lo) if sp.lo_closed else math.floor(sp.lo) + 1)
    last = hi if sp.hi is None else (math.floor(sp.hi) if sp.hi_closed else math.ceil(sp.hi) - 1)
    return first, last


def _magnitude(v: Fraction) -> str:
    """``1e+400``-style text of a rational of any size."""
    a = abs(v)
    if a == 0:
        return "0"
    digits = len(str(a.numerator)) - len(str(a.denominator))
    mantissa = float(a / Fraction(10) ** digits)
    if mantissa < 1:
        mantissa, digits = mantissa * 10, digits - 1
    text = f"{mantissa:.3g}"
    if text == "10":
        text, digits = "1", digits + 1
    return f"{'-' if v < 0 else ''}{text}e{digits:+d}"


def _sqrt_near(v: Fraction) -> Fraction:
    """A rational within a float's precision of ``sqrt(v)`` (``v > 0``), for any magnitude of ``v``."""
    e = (v.numerator.bit_length() - v.denominator.bit_length()) // 2
    return Fraction(math.sqrt(float(v / Fraction(4) ** e))) * Fraction(2) ** e


#: largest magnitude of a scaled moment, a shift or a scale that the float solvers can take
FLOAT_RANGE = Fraction(10) ** 300


@dataclass(frozen=True)
class AffineMap:
    """``u = (x - shift) / scale``: how the support maps to the basis variable (``[-1, 1]``)."""

    shift: Fraction
    scale: Fraction

    def to_unit(self, x: Number) -> Fraction:
        return (as_exact(x, "x") - self.shift) / self.scale

    def from_unit(self, u: Number) -> Fraction:
        return self.shift + self.scale * as_exact(u, "u")

    def to_unit_float(self, x: Any) -> Any:
        return (x - float(self.shift)) / float(self.scale)


class ShapeKind(Enum):
    """A shape constraint on the law of ``X`` (continuous supports only)."""

    UNIMODAL = "unimodal"  # unimodal about a mode (known or unknown)
    SYMMETRIC = "symmetric"  # symmetric about its mean


@dataclass(frozen=True)
class Shape:
    """A shape constraint: unimodal (mode known or not) or symmetric about the mean.

    Example
    -------
    >>> str(Shape.parse("unimodal:0")), Shape.unimodal().mode is None
    ('unimodal:0', True)
    """

    kind: ShapeKind
    mode: Fraction | None = None

    @classmethod
    def unimodal(cls, mode: Number | None = None) -> Shape:
        """Unimodal about ``mode`` (``None``: the mode is unknown)."""
        return cls(ShapeKind.UNIMODAL, None if mode is None else as_exact(mode, "mode"))

    @classmethod
    def symmetric(cls) -> Shape:
        """Symmetric about the mean ``E[X]``."""
        return cls(ShapeKind.SYMMETRIC)

    @classmethod
    def parse(cls, text: str) -> Shape:
        """Parse ``unimodal``, ``unimodal:M`` (mode ``M``) or ``symmetric``."""
        parts = text.strip().split(":")
        head = parts[0].lower()
        if head == "unimodal" and len(parts) in (1, 2):
            return cls.unimodal(as_exact(parts[1], "mode") if len(parts) == 2 else None)
        if head == "symmetric" and len(parts) == 1:
            return cls.symmetric()
        raise InvalidArgument(f"shape must be 'unimodal', 'unimodal:M' or 'symmetric', got {text!r}")

    def __str__(self) -> str:
        if self.mode is not None:
            return f"{self.kind.value}:{self.mode}"
        return self.kind.value


@dataclass(frozen=True)
class MomentProblem:
    """Known moments ``(m0 = 1, m1, ..., mk)`` of ``X``, its support, and the event to bound.

    Parameters
    ----------
    moments : sequence of numbers
        Raw moments ``E[X^k]``, ``k = 0..order``; ints/Fractions stay exact.
    support : Support
    event : Event
    pmf : optional ``((x, p), ...)``
        The known law, for the ``exact`` method.
    statistic_sampler : optional callable ``(rng, size) -> samples``
        For the ``sampling`` method.
    name : str
        Free label used in reports.
    shape : Shape, optional
        A shape constraint (unimodal, symmetric); only methods declaring the ``"shape"``
        feature accept it.
    moment_box : optional ``((lo_1, hi_1), ..., (lo_k, hi_k))``
        Moments known only to lie in intervals: ``lo_j <= E[X^j] <= hi_j``.  ``moments`` then
        holds the midpoints (use :meth:`from_box`); only methods declaring the
        ``"moment-box"`` feature accept it, and they bound the worst case over the box.

    Example
    -------
    >>> p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    >>> p.order, p.affine_to_unit()[1]
    (2, (Fraction(1, 1), Fraction(0, 1), Fraction(2, 9)))
    """

    moments: tuple[Fraction | float, ...]
    support: Support
    event: Event
    pmf: tuple[tuple[Fraction, Fraction], ...] | None = None
    statistic_sampler: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    name: str = ""
    shape: Shape | None = None
    moment_box: tuple[tuple[Fraction, Fraction], ...] | None = None

    def __post_init__(self) -> None:
        self._check_fields()
        if self.shape is not None and not isinstance(self.shape, Shape):
            raise InvalidArgument(f"shape must be a Shape (e.g. Shape.unimodal()), got {self.shape!r}")
        if self.shape is not None and self.shape.mode is not None:
            mode, sup = self.shape.mode, self.support
            if (sup.lo is not None and mode < sup.lo) or (sup.hi is not None and mode > sup.hi):
                lo = "-inf" if sup.lo is None else str(sup.lo)
                hi = "inf" if sup.hi is None else str(sup.hi)
                raise InvalidArgument(
                    f"mode {mode} lies outside the support {sup}: a unimodal law's mode lies between the ends of its "
                    f"support; give a mode in [{lo}, {hi}] or leave it unknown (Shape.unimodal(), --shape unimodal)"
                )
        if self.moment_box is not None:
            box = tuple(_ordered_pair(f"moment_box[{j}]", *pair, names=(f"lo_{j + 1}", f"hi_{j + 1}"))
                        for j, pair in enumerate(self.moment_box))
            if len(box) != len(self.moments) - 1:
                raise InvalidArgument(
                    f"moment_box has {len(box)} intervals but moments has order {len(self.moments) - 1}; "
                    "give one (lo, hi) pair per moment E[X^1..X^k] (MomentProblem.from_box does this)"
                )
            object.__setattr__(self, "moment_box", box)
        self._check_float_range()

    def _check_float_range(self) -> None:
        """Refuse, before any work, numbers that the float solvers cannot represent after scaling."""
        amap, mu = self.affine_to_unit()
        for what, value in (("the centre (shift)", amap.shift), ("the scale", amap.scale)):
            if abs(value) > FLOAT_RANGE:
                raise InvalidArgument(
                    f"{what} of this problem, about {_magnitude(value)}, exceeds the floating-point range the "
                    "solvers work in (1e300); rescale X (divide it and the support by a power of ten)")
        if not self.support.is_bounded:  # on a bounded support a scaled moment above 1 is infeasible
            for k, v in enumerate(mu):
                if abs(v) > FLOAT_RANGE:
                    raise InvalidArgument(
                        f"the standardized moment E[((X - mean) / sd)^{k}] is about {_magnitude(v)}, beyond the "
                        "floating-point range the solvers work in (1e300); these moments describe an extremely "
                        "heavy tail: give fewer moments (drop the highest) or rescale X")

    def _check_fields(self) -> None:
        if not isinstance(self.support, Support):
            raise InvalidArgument(f"support must be a Support (e.g. Support.grid(lo, hi)), got {self.support!r}")
        if not isinstance(self.event, Event):
            raise InvalidArgument(f"event must be an Event (e.g. Event.gt(0)), got {self.event!r}")
        from momentbound._validate import as_sequence

        object.__setattr__(self, "moments", as_sequence(self.moments, "moments", example="(m0, m1, ...)"))
        if len(self.moments) == 0:
            raise InvalidArgument("moments must contain at least m0 = 1, got an empty sequence")
        mom = tuple(_moment_value(v, f"moments[{k}]") for k, v in enumerate(self.moments))
        m0 = mom[0]
        if (isinstance(m0, Fraction) and m0 != 1) or (isinstance(m0, float) and abs(m0 - 1.0) > 1e-12):
            raise InvalidArgument(f"moments[0] (m0) must be 1, got {_show(self.moments[0])}; normalize the distribution")
        object.__setattr__(self, "moments", (Fraction(1),) + mom[1:])
        if self.pmf is not None:
            pairs = []
            for i, item in enumerate(self.pmf):
                try:
                    x, p = item
                except (TypeError, ValueError) as exc:
                    raise InvalidArgument(f"pmf[{i}] must be a pair (x, p), got {item!r}") from exc
                xv, pv = as_exact(x, f"pmf[{i}].x"), as_exact(p, f"pmf[{i}].p")
                if pv < 0:
                    raise InvalidArgument(f"pmf[{i}] has negative probability {_show(p)}")
                if not self.support.contains(xv):
                    raise InvalidArgument(f"pmf[{i}] point {_show(x)} is outside the support {self.support}")
                pairs.append((xv, pv))
            total = sum((p for _, p in pairs), Fraction(0))
            exact_in = all(isinstance(p, (int, Fraction)) for _, p in self.pmf)
            if (exact_in and total != 1) or (not exact_in and abs(float(total) - 1.0) > 1e-9):
                raise InvalidArgument(f"pmf probabilities must sum to 1, got {float(total)!r}")
            object.__setattr__(self, "pmf", tuple(pairs))
        if self.statistic_sampler is not None and not callable(self.statistic_sampler):
            raise InvalidArgument("statistic_sampler must be callable (rng, size) -> samples")

    @classmethod
    def from_chebyshev(
        cls, cheb_moments: Sequence[Number], amap: AffineMap, support: Support, event: Event, **kwargs: Any
    ) -> MomentProblem:
        """Build a problem from Chebyshev moments ``E[T_k(u)]`` of ``u = amap.to_unit(X)`` (exact)."""
        umom = chebyshev_to_monomial_moments([as_exact(v, "cheb_moments") for v in cheb_moments])
        raw = []
        for k in range(len(umom)):
            # E[X^k] = E[(shift + scale u)^k]
            raw.append(
                sum(
                    (math.comb(k, j) * amap.shift ** (k - j) * amap.scale**j * umom[j] for j in range(k + 1)),
                    Fraction(0),
                )
            )
        return cls(tuple(raw), support, event, **kwargs)

    @classmethod
    def from_box(
        cls, lo: Sequence[Number], hi: Sequence[Number], support: Support, event: Event, **kwargs: Any
    ) -> MomentProblem:
        """A problem whose moments ``E[X^j]`` (``j = 1..k``) are only known to lie in ``[lo_j, hi_j]``.

        ``lo`` and ``hi`` count from ``m0`` like ``moments``: their first entries are ``m0 = 1``
        (the same list convention everywhere, so ``(1, 1, 2)`` always means ``E[X] = 1, E[X^2] = 2``).

        Example
        -------
        >>> p = MomentProblem.from_box([1, 0, 1], [1, 1, 2], Support.real(), Event.ge(3))
        >>> p.moments, p.features
        ((Fraction(1, 1), Fraction(1, 2), Fraction(3, 2)), frozenset({'moment-box'}))
        """
        if isinstance(lo, (str, bytes)) or isinstance(hi, (str, bytes)) or len(lo) != len(hi):
            raise InvalidArgument(f"moments lo and hi must be sequences of the same length, got {lo!r} and {hi!r}")
        if len(lo) < 2:
            raise InvalidArgument(
                "a moment box needs m0 = 1 and at least one moment interval: lo = (1, lo_1, ...), hi = (1, hi_1, ...)")
        m0 = (as_exact(lo[0], "lo[0]"), as_exact(hi[0], "hi[0]"))
        if m0 != (1, 1):
            raise InvalidArgument(
                f"moment boxes count from m0 like the moments (1, E[X], E[X^2], ...): lo[0] and hi[0] must be 1, got "
                f"{_show(lo[0])} and {_show(hi[0])}; for E[X] in [{lo[0]}, {hi[0]}] write lo = (1, {lo[0]}, ...), "
                f"hi = (1, {hi[0]}, ...) (CLI: --moments-lo 1,... --moments-hi 1,...)")
        pairs = tuple((as_exact(a, f"lo[{j}]"), as_exact(b, f"hi[{j}]"))
                      for j, (a, b) in enumerate(zip(lo, hi)) if j > 0)
        mid = (Fraction(1),) + tuple((a + b) / 2 for a, b in pairs)
        return cls(mid, support, event, moment_box=pairs, **kwargs)

    @property
    def features(self) -> frozenset[str]:
        """What a method must handle to solve this problem: ``"shape"``, ``"moment-box"``."""
        out = set()
        if self.shape is not None:
            out.add("shape")
        if self.moment_box is not None:
            out.add("moment-box")
        return frozenset(out)

    @property
    def order(self) -> int:
        """Highest known moment ``k``."""
        return len(self.moments) - 1

    @property
    def is_exact(self) -> bool:
        """Whether every moment was given exactly (int/Fraction)."""
        return all(isinstance(v, Fraction) for v in self.moments)

    @property
    def exact_moments(self) -> tuple[Fraction, ...]:
        """Moments as exact rationals (floats converted exactly)."""
        return tuple(Fraction(v) for v in self.moments)

    def truncated(self, order: int) -> MomentProblem:
        """The same problem with only the moments up to ``order``."""
        if not 0 <= order <= self.order:
            raise InvalidArgument(f"order must be in 0..{self.order}, got {order}")
        box = None if self.moment_box is None else self.moment_box[:order]
        return replace(self, moments=self.moments[: order + 1], moment_box=box)

    def with_event(self, event: Event) -> MomentProblem:
        return replace(self, event=event)

    @cached_property
    def _unit(self) -> tuple[AffineMap, tuple[Fraction, ...]]:
        mom = self.exact_moments
        if self.support.is_bounded:
            lo, hi = self.support.lo, self.support.hi
            shift = (lo + hi) / 2  # type: ignore[operator]
            scale = (hi - lo) / 2  # type: ignore[operator]
            if scale == 0:
                scale = Fraction(1)
        else:
            shift = mom[1] if len(mom) > 1 else Fraction(0)
            var = mom[2] - mom[1] ** 2 if len(mom) > 2 else Fraction(1)
            scale = _sqrt_near(var).limit_denominator(1 << 20) if var > 0 else Fraction(1)
            if scale <= 0:
                scale = Fraction(1)
        umom = []
        for k in range(len(mom)):
            s = sum((math.comb(k, j) * (-shift) ** (k - j) * mom[j] for j in range(k + 1)), Fraction(0))
            umom.append(s / scale**k)
        return AffineMap(shift, scale), tuple(umom)

    def affine_to_unit(self) -> tuple[AffineMap, tuple[Fraction, ...]]:
        """The map ``u = (x - shift)/scale`` onto ``[-1, 1]`` and the exact moments ``E[u^k]``.

        For an unbounded support the map standardizes (shift = mean, scale ~ sd).
        """
        return self._unit

    @cached_property
    def _cheb(self) -> tuple[Fraction, ...]:
        return monomial_to_chebyshev_moments(self._unit[1])

    def chebyshev_moments(self) -> tuple[Fraction, ...]:
        """Exact Chebyshev moments ``E[T_k(u)]`` of the scaled variable."""
        return self._cheb
