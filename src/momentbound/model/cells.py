"""Validated cell probabilities of a finite-input, finite-class data model (docs/mathematics.md,
section 'Data model')."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Rational, Real
from typing import Union

import numpy as np

from momentbound.errors import InvalidModel

__all__ = ["CellModel", "Number", "parse_number"]

Number = Union[Fraction, float]

FLOAT_SUM_TOLERANCE = 1e-9


def parse_number(value: object, *, name: str = "value") -> Number:
    """Turn ``value`` into an exact ``Fraction`` or a ``float``.

    Strings (``"1/8"``, ``"0.125"``), ints (numpy integers included), ``Decimal``,
    ``Fraction`` and other rationals (including sympy ``Rational``) become exact
    ``Fraction``; Python and numpy floats stay floats.

    Examples
    --------
    >>> parse_number("1/8"), parse_number("0.1"), parse_number(0.25)
    (Fraction(1, 8), Fraction(1, 10), 0.25)
    """
    if isinstance(value, bool):
        raise InvalidModel(f"{name} must be a number, got the boolean {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidModel(
                f"{name} must be a decimal or a fraction like '1/8', got {value!r}"
            ) from exc
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidModel(f"{name} must be a finite number, got {value}")
        return Fraction(value)
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if hasattr(value, "p") and hasattr(value, "q") and getattr(value, "is_Rational", False):
        return Fraction(int(value.p), int(value.q))  # sympy Rational
    if isinstance(value, (Real, np.floating)):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return parse_number(value.item(), name=name)
    raise InvalidModel(f"{name} must be a number, got {type(value).__name__} {value!r}")


def _as_int(value: object, name: str) -> int:
    """An integer argument: a Python or numpy integer (never a float, which would be a guess)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise InvalidModel(f"{name} must be an integer, got {value!r}")


@dataclass(frozen=True)
class CellModel:
    """Joint distribution of ``d`` categorical attributes and a class with ``K`` values.

    Parameters
    ----------
    arities:
        Number of values of each attribute, e.g. ``(2, 2)``; every arity is at least 2.
    cells:
        Probabilities ``P[X = x, Y = k]`` in the order of
        ``itertools.product(range(a_1), ..., range(a_d), range(K))`` (the class varies
        fastest). Exact (``Fraction``, ``int``, ``Decimal``, strings like ``"1/8"`` or
        ``"0.125"``) or floats; any sequence or numpy array. A model is exact when every
        cell is exact and the cells sum to exactly 1. Cells that sum to 1 only up to
        rounding (within ``FLOAT_SUM_TOLERANCE = 1e-9``, e.g. six times
        ``"0.16666666666666666"``) are accepted whether given as floats or as exact
        values, and the model then computes in floating point (exact results need exact
        cells, e.g. ``"1/6"``). Anything further from 1 is refused; use
        :meth:`normalized` to rescale weights explicitly.
    n_classes:
        ``K >= 2``; inferred from ``len(cells)`` when omitted.

    Examples
    --------
    >>> m = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
    >>> m.n_classes, m.prior(0), m.p((1,), 1)
    (2, Fraction(2, 5), Fraction(3, 10))

    References
    ----------
    Dhurandhar & Dobra, Section 3; docs/mathematics.md, section 'Data model'.
    """

    arities: tuple[int, ...]
    cells: tuple[Number, ...]
    n_classes: int = 0

    def __init__(
        self,
        arities: Sequence[int] | int,
        cells: Iterable[object],
        n_classes: int | None = None,
    ) -> None:
        if isinstance(arities, (int, np.integer)):
            arities = (int(arities),)
        try:
            ar = tuple(_as_int(a, f"arities[{j}]") for j, a in enumerate(arities))
        except TypeError as exc:
            raise InvalidModel(
                f"arities must be a sequence of integers like (2, 2), got {arities!r}"
            ) from exc
        if len(ar) == 0:
            raise InvalidModel("arities must name at least one attribute, got ()")
        for j, a in enumerate(ar):
            if a < 2:
                raise InvalidModel(
                    f"arities[{j}] must be at least 2 (an attribute with one value carries "
                    f"no information), got {a}"
                )
        if isinstance(cells, (str, bytes)):
            raise InvalidModel(
                f"cells must be a sequence of probabilities, got the string {cells!r}; "
                f"split it into entries first"
            )
        values = [parse_number(c, name=f"cells[{i}]") for i, c in enumerate(cells)]
        if not values:
            raise InvalidModel(
                "cells is empty; pass prod(arities) * K probabilities P[X=x, Y=k], class fastest"
            )
        n_inputs = math.prod(ar)
        if n_classes is None:
            if len(values) % n_inputs != 0:
                raise InvalidModel(
                    f"cells has {len(values)} entries, which is not a multiple of the "
                    f"{n_inputs} inputs of arities {ar}; pass prod(arities) * K probabilities"
                )
            n_classes = len(values) // n_inputs
        n_classes = _as_int(n_classes, "n_classes")
        if n_classes < 2:
            raise InvalidModel(f"n_classes must be at least 2, got {n_classes}")
        if len(values) != n_inputs * n_classes:
            raise InvalidModel(
                f"cells must have prod(arities) * n_classes = {n_inputs} * {n_classes} = "
                f"{n_inputs * n_classes} entries, got {len(values)}"
            )
        exact = all(isinstance(v, Fraction) for v in values)
        for i, v in enumerate(values):
            if isinstance(v, float) and not math.isfinite(v):
                raise InvalidModel(f"cells[{i}] must be a finite probability, got {v}")
            if v < 0:
                raise InvalidModel(f"cells[{i}] must be non-negative, got {v}")
        if exact:
            total = sum(values, Fraction(0))
            if total != 1 and abs(total - 1) <= FLOAT_SUM_TOLERANCE:
                # rounded decimals (six times 0.16666666666666666): the same tolerance as
                # float cells, and the same floating-point computation
                exact = False
            elif total != 1:
                raise InvalidModel(
                    f"cells must sum to exactly 1, or within {FLOAT_SUM_TOLERANCE:g} for rounded "
                    f"decimals (got {total} = {float(total)!r}); pass normalized probabilities "
                    f"or use CellModel.normalized(...)"
                )
        if not exact:
            values = [float(v) for v in values]
            total_f = math.fsum(values)
            if abs(total_f - 1.0) > FLOAT_SUM_TOLERANCE:
                raise InvalidModel(
                    f"cells must sum to 1 within {FLOAT_SUM_TOLERANCE:g} (got {total_f!r}); pass "
                    f"normalized probabilities or use CellModel.normalized(...)"
                )
        object.__setattr__(self, "arities", ar)
        object.__setattr__(self, "cells", tuple(values))
        object.__setattr__(self, "n_classes", n_classes)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def normalized(
        cls, arities: Sequence[int] | int, weights: Iterable[object], n_classes: int | None = None
    ) -> "CellModel":
        """Build a model from non-negative weights, dividing by their sum."""
        vals = [parse_number(w, name=f"weights[{i}]") for i, w in enumerate(weights)]
        if any(isinstance(v, float) for v in vals):
            total = math.fsum(float(v) for v in vals)
            if not total > 0:
                raise InvalidModel(f"weights must have a positive sum, got {total}")
            return cls(arities, [float(v) / total for v in vals], n_classes)
        total_q = sum(vals, Fraction(0))
        if total_q <= 0:
            raise InvalidModel(f"weights must have a positive sum, got {total_q}")
        return cls(arities, [v / total_q for v in vals], n_classes)

    @classmethod
    def uniform(cls, arities: Sequence[int] | int, n_classes: int = 2) -> "CellModel":
        """Every cell equally likely (exact)."""
        ar = (arities,) if isinstance(arities, int) else tuple(arities)
        n = math.prod(ar) * n_classes
        return cls(ar, [Fraction(1, n)] * n, n_classes)

    @classmethod
    def from_array(cls, array: object) -> "CellModel":
        """From an array of shape ``arities + (K,)`` (floats or exact objects)."""
        arr = np.asarray(array, dtype=object)
        if arr.ndim < 2:
            raise InvalidModel(
                f"array must have shape arities + (K,) with at least 2 dimensions, got {arr.shape}"
            )
        return cls(arr.shape[:-1], list(arr.reshape(-1)), arr.shape[-1])

    # ------------------------------------------------------------------ accessors
    @property
    def d(self) -> int:
        """Number of attributes."""
        return len(self.arities)

    @property
    def n_inputs(self) -> int:
        return math.prod(self.arities)

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def is_exact(self) -> bool:
        """True when every cell is an exact rational (``Fraction``)."""
        return all(isinstance(c, Fraction) for c in self.cells)

    def inputs(self) -> Iterator[tuple[int, ...]]:
        """All inputs ``x`` in the cell order."""
        return itertools.product(*(range(a) for a in self.arities))

    def check_input(self, x: Sequence[int] | int, *, name: str = "x") -> tuple[int, ...]:
        """Validate an input tuple and return it normalised."""
        if isinstance(x, (int, np.integer)):
            x = (int(x),)
        try:
            xt = tuple(_as_int(v, f"{name}[{j}]") for j, v in enumerate(x))
        except TypeError as exc:
            raise InvalidModel(f"{name} must be a tuple of attribute values, got {x!r}") from exc
        if len(xt) != self.d:
            raise InvalidModel(
                f"{name} must have one value per attribute ({self.d}), got {len(xt)}: {xt}"
            )
        for j, (v, a) in enumerate(zip(xt, self.arities)):
            if not 0 <= v < a:
                raise InvalidModel(f"{name}[{j}] must be in 0..{a - 1}, got {v}")
        return xt

    def check_class(self, k: int, *, name: str = "k") -> int:
        if not 0 <= int(k) < self.n_classes:
            raise InvalidModel(f"{name} must be a class index in 0..{self.n_classes - 1}, got {k}")
        return int(k)

    def index(self, x: Sequence[int] | int, k: int) -> int:
        """Flat position of cell ``(x, k)`` in :attr:`cells`."""
        xt = self.check_input(x)
        k = self.check_class(k)
        idx = 0
        for v, a in zip(xt, self.arities):
            idx = idx * a + v
        return idx * self.n_classes + k

    def p(self, x: Sequence[int] | int, k: int) -> Number:
        """``P[X = x, Y = k]``."""
        return self.cells[self.index(x, k)]

    def prior(self, k: int) -> Number:
        """``P[Y = k]``."""
        k = self.check_class(k)
        vals = self.cells[k :: self.n_classes]
        return sum(vals, Fraction(0)) if self.is_exact else math.fsum(vals)

    def as_array(self, dtype: type = float) -> np.ndarray:
        """Cells as an array of shape ``arities + (K,)``."""
        if dtype is object:
            return np.array(self.cells, dtype=object).reshape(self.arities + (self.n_classes,))
        return np.array([float(c) for c in self.cells], dtype=dtype).reshape(
            self.arities + (self.n_classes,)
        )

    def to_float(self) -> "CellModel":
        """The same model with float cells."""
        return CellModel(self.arities, [float(c) for c in self.cells], self.n_classes)

    def __repr__(self) -> str:
        cells = ", ".join(str(c) for c in self.cells)
        return f"CellModel(arities={self.arities}, n_classes={self.n_classes}, cells=[{cells}])"
