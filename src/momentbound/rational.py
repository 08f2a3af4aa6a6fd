"""Conversions between Python ``Fraction`` and python-flint's exact rationals ``fmpq``.

The exact steps of the bound methods (simplex pivots, certificate checks, dominance programs)
run in flint; their inputs and results are ``Fraction``.
"""

from __future__ import annotations

from fractions import Fraction

import flint

__all__ = ["to_fmpq", "to_fraction"]


def to_fmpq(value: Fraction) -> flint.fmpq:
    """``value`` (a ``Fraction`` or ``int``) as a flint ``fmpq``, exactly.

    Examples
    --------
    >>> to_fmpq(Fraction(-3, 4))
    -3/4
    """
    return flint.fmpq(value.numerator, value.denominator)


def to_fraction(value: flint.fmpq) -> Fraction:
    """A flint ``fmpq`` (or ``fmpz``) as a ``Fraction``, exactly.

    Examples
    --------
    >>> to_fraction(flint.fmpq(6, 8))
    Fraction(3, 4)
    """
    if isinstance(value, flint.fmpz):
        return Fraction(int(value))
    return Fraction(int(value.p), int(value.q))
