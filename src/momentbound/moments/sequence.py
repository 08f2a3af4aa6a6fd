"""Moment sequences: raw moments of a statistic and what follows from them (central and
standardized moments, cumulants), exact for Fractions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Union

from momentbound.errors import InvalidArgument

__all__ = ["MomentSequence", "central_moments", "cumulants", "standardized_moments"]

Value = Union[Fraction, float]


def central_moments(raw: Sequence[Value]) -> list[Value]:
    """``E[(X - mu)^k]`` from raw moments ``m0 = 1, m1, ...`` (exact for Fractions).

    Examples
    --------
    >>> central_moments([Fraction(1), Fraction(1), Fraction(3)])
    [Fraction(1, 1), Fraction(0, 1), Fraction(2, 1)]
    """
    if not raw:
        return []
    m0 = raw[0]
    if m0 == 0:
        raise InvalidArgument("raw moments must have m0 != 0")
    mu = raw[1] / m0 if len(raw) > 1 else 0 * m0
    out = []
    for k in range(len(raw)):
        s = 0 * m0
        for i in range(k + 1):
            s += math.comb(k, i) * raw[i] * (-mu) ** (k - i)
        out.append(s / m0 if k else m0 / m0)
    return out


def standardized_moments(raw: Sequence[Value]) -> list[float]:
    """``E[((X - mu) / sigma)^k]`` as floats (computed from exact central moments).

    Raises ``InvalidArgument`` when the variance is zero.
    """
    cm = central_moments(raw)
    if len(cm) < 3:
        raise InvalidArgument("standardized moments need raw moments up to order >= 2")
    var = cm[2]
    if var <= 0:
        raise InvalidArgument("standardized moments are undefined: the variance is zero")
    out = []
    for k, c in enumerate(cm):
        if isinstance(c, Fraction):
            # exact ratio, one rounding: c / var^(k/2)
            if k % 2 == 0:
                out.append(float(c / var ** (k // 2)))
            else:
                out.append(float(c / var ** (k // 2)) / math.sqrt(var))
        else:
            out.append(float(c) / float(var) ** (k / 2))
    return out


def cumulants(raw: Sequence[Value]) -> list[Value]:
    """Cumulants ``kappa_1..kappa_n`` (``kappa_0 = 0``) from raw moments by the recursion
    ``kappa_n = m_n - sum_{i=1}^{n-1} C(n-1, i-1) kappa_i m_{n-i}``.

    Examples
    --------
    >>> cumulants([Fraction(1), Fraction(2), Fraction(5)])
    [Fraction(0, 1), Fraction(2, 1), Fraction(1, 1)]
    """
    if not raw:
        return []
    m0 = raw[0]
    if m0 != 1:
        raise InvalidArgument(f"cumulants need a probability measure (m0 = 1), got m0 = {m0}")
    k: list[Value] = [0 * m0]
    for n in range(1, len(raw)):
        s = raw[n]
        for i in range(1, n):
            s -= math.comb(n - 1, i - 1) * k[i] * raw[n - i]
        k.append(s)
    return k


@dataclass(frozen=True)
class MomentSequence:
    """Raw moments ``m_0 .. m_order`` of a statistic under ``Multinomial(N, p)``.

    ``values`` are exact ``Fraction`` when ``exact`` is true, else floats (each the
    correctly rounded exact moment of the float cell probabilities).
    """

    values: tuple[Value, ...]
    N: int
    exact: bool
    statistic: str = ""
    #: the exact rational moments behind float ``values`` (derived quantities such as
    #: central moments are computed from these, then rounded once: no cancellation)
    rational: Optional[tuple[Fraction, ...]] = field(default=None, repr=False, compare=False)
    #: how the exact values were computed ("flint", "modular", "engine", ...); the values
    #: do not depend on it
    engine: str = field(default="", repr=False, compare=False)

    def _base(self) -> tuple[Value, ...]:
        return self.rational if self.rational is not None else self.values

    def _out(self, vals: Sequence[Value]) -> tuple[Value, ...]:
        from momentbound._validate import to_float

        return tuple(vals) if self.exact else tuple(to_float(v, f"moment {k}") for k, v in enumerate(vals))

    @property
    def order(self) -> int:
        return len(self.values) - 1

    def __getitem__(self, k: int) -> Value:
        return self.values[k]

    def __len__(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> Value:
        return self.values[1]

    @property
    def variance(self) -> Value:
        return self.central()[2]

    def central(self) -> tuple[Value, ...]:
        """Central moments (from the exact moments; floats rounded once at the end)."""
        return self._out(central_moments(self._base()))

    def standardized(self) -> tuple[float, ...]:
        return tuple(standardized_moments(self._base()))

    def cumulants(self) -> tuple[Value, ...]:
        return self._out(cumulants(self._base()))

    def as_floats(self) -> tuple[float, ...]:
        from momentbound._validate import to_float

        return tuple(to_float(v, f"moment {k}", fix="keep the exact values") for k, v in enumerate(self.values))
