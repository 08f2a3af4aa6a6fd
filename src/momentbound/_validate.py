"""Argument checks shared by the public API: integers, integer sequences and seeds.

numpy integers and 0-d integer arrays are accepted wherever a Python ``int`` is, and
numpy arrays wherever a sequence is; floats are never rounded to integers (that would
be a guess). Every refusal is an :class:`~momentbound.errors.InvalidArgument` naming the
argument, its value and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument

__all__ = ["as_int", "as_int_tuple", "as_sequence", "as_seed", "to_float"]


def as_int(value: object, name: str, *, minimum: int | None = None, what: str | None = None) -> int:
    """``value`` as a Python ``int`` (``int``, numpy integer or 0-d integer array), at least ``minimum``.

    ``what`` describes the expected value in the message (default from ``minimum``).
    """
    if what is None:
        what = "a non-negative integer" if minimum == 0 else (
            f"an integer >= {minimum}" if minimum is not None else "an integer")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name} must be {what}, got {value!r}")
    out = int(value)
    if minimum is not None and out < minimum:
        raise InvalidArgument(f"{name} must be {what}, got {out}")
    return out


def as_sequence(value: object, name: str, *, example: str = "(1, 2, 3)", what: str = "a sequence") -> Sequence[Any]:
    """A list or tuple, or a 1-D numpy array as a tuple of Python scalars."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InvalidArgument(f"{name} must be one-dimensional, got an array of shape {value.shape}")
        return tuple(v.item() if isinstance(v, np.generic) else v for v in value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidArgument(f"{name} must be {what} like {example}, got {value!r}")
    return value


def as_int_tuple(value: object, name: str, *, example: str = "(0, 1)", what: str = "a sequence",
                 item: str = "an integer") -> tuple[int, ...]:
    """A sequence (or 1-D array) of integers as a tuple of Python ints."""
    seq = as_sequence(value, name, example=example, what=what)
    return tuple(as_int(v, f"{name}[{j}]", what=item) for j, v in enumerate(seq))


def as_seed(seed: object, name: str = "seed") -> np.random.Generator:
    """A numpy Generator from ``None``, a non-negative integer seed or a Generator.

    numpy seeds must be non-negative; a negative seed is refused with that rule rather
    than folded silently onto another seed.
    """
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        raise InvalidArgument(f"{name} must be an integer seed >= 0 or a numpy Generator, got a legacy RandomState; "
                              f"pass np.random.default_rng(seed)")
    return np.random.default_rng(as_int(seed, f"{name} (a random seed)", minimum=0))


def to_float(value: Any, name: str, *, fix: str = "pass exact=True for exact Fractions") -> float:
    """``float(value)``, or an :class:`InvalidArgument` saying the value exceeds the float range.

    Exact moments grow like ``N^(k deg)``; beyond about ``1.8e308`` a float cannot hold them.
    """
    try:
        return float(value)
    except OverflowError:
        from fractions import Fraction

        magnitude = "?"
        if isinstance(value, (int, Fraction)) and value != 0:
            q = Fraction(value)
            digits = len(str(abs(q.numerator))) - len(str(q.denominator))
            magnitude = f"about 1e{digits}"
        raise InvalidArgument(
            f"{name} is {magnitude}, beyond the float range (about 1.8e308); {fix}"
        ) from None
