"""The ``exact`` backend: prediction probabilities by summing over sufficient counts."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.exact import cross1d, engine, fast2
from momentbound.exact.classifier import NaiveBayes
from momentbound.model.cells import CellModel
from momentbound.probability.base import PredictionBackend
from momentbound.probability.registry import register_backend

__all__ = ["ExactBackend", "ARITHMETICS"]

ARITHMETICS = ("auto", "rational", "float")


class ExactBackend(PredictionBackend):
    """Exact prediction probabilities (SPEC sections 2-4).

    Parameters
    ----------
    arithmetic:
        ``"rational"``: exact ``Fraction`` results (needs an exact model); ``"float"``:
        floating point sums (comparisons of scores stay exact); ``"auto"``: rational when the
        model is exact and every sample size is at most ``rational_max_n``.
    rational_max_n:
        Size limit of ``"auto"`` for rational arithmetic.

    Examples
    --------
    >>> from momentbound.model import independent_1d_model
    >>> ExactBackend().single(independent_1d_model("2/5"), 2, (0,))
    array([Fraction(8, 25), Fraction(17, 25)], dtype=object)
    """

    name: ClassVar[str] = "exact"
    kind_name: ClassVar[str] = "EXACT"

    def __init__(self, arithmetic: str = "auto", rational_max_n: int = 12) -> None:
        if arithmetic not in ARITHMETICS:
            raise InvalidArgument(f"arithmetic must be one of {ARITHMETICS}, got {arithmetic!r}")
        if isinstance(rational_max_n, bool) or not isinstance(rational_max_n, int) or rational_max_n < 0:
            raise InvalidArgument(f"rational_max_n must be an integer >= 0, got {rational_max_n!r}")
        self.arithmetic = arithmetic
        self.rational_max_n = rational_max_n
        self._tables: dict[tuple[object, ...], fast2.TwoClassTables] = {}

    def _two_class_tables(
        self, model: CellModel, inputs: tuple[tuple[int, ...], ...], n: int, clf: NaiveBayes
    ) -> fast2.TwoClassTables:
        space = engine.ComponentSpace(model.arities, inputs)
        key = (model, space.comps, space.implicit, clf.alpha_exact)
        cached = self._tables.get(key)
        if cached is not None and len(cached.laws[0]) > n:
            cached_inputs = cached.inputs
            if all(x in cached_inputs for x in inputs):
                return cached
        tables = fast2.TwoClassTables(model, inputs, n, clf)
        if len(self._tables) >= 8:
            self._tables.pop(next(iter(self._tables)))
        self._tables[key] = tables
        return tables

    def _fast(self, model: CellModel, n: int, clf: NaiveBayes, mode: str) -> bool:
        return mode == "float" and model.n_classes == 2 and fast2.fits_int64(model, n, clf)

    def mode(self, model: CellModel, n: int) -> str:
        """``"rational"`` or ``"float"`` for a computation with total sample size ``n``."""
        if self.arithmetic == "rational":
            if not model.is_exact:
                raise InvalidArgument(
                    "arithmetic='rational' needs an exact model (Fraction cells); pass exact "
                    "probabilities like '1/8' or use arithmetic='float'"
                )
            return "rational"
        if self.arithmetic == "float":
            return "float"
        return "rational" if model.is_exact and n <= self.rational_max_n else "float"

    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> np.ndarray:
        mode = self.mode(model, n)
        if self._fast(model, n, clf, mode):
            tables = self._two_class_tables(model, (x,), n, clf)
            return fast2.single_two_class(model, n, x, clf, tables)
        return engine.single_probabilities(model, n, x, clf, mode)

    def _pair(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> np.ndarray:
        mode = self.mode(model, n)
        if self._fast(model, n, clf, mode):
            tables = self._two_class_tables(model, (x, x2), n, clf)
            return fast2.pair_two_class(model, n, x, x2, clf, tables)
        return engine.pair_probabilities(model, n, x, x2, clf, mode)

    def _cross(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        point_a: tuple[tuple[int, ...], int],
        point_b: tuple[tuple[int, ...], int],
        clf: NaiveBayes,
    ) -> np.ndarray:
        mode = self.mode(model, n_common + n_a + n_b + 2)
        if mode == "float" and cross1d.applies(model, clf):
            return cross1d.cross_1d_alpha0(model, n_common, n_a, n_b, point_a, point_b, clf)
        return engine.cross_probabilities(model, n_common, n_a, n_b, point_a, point_b, clf, mode)

    def __repr__(self) -> str:
        return f"ExactBackend(arithmetic={self.arithmetic!r}, rational_max_n={self.rational_max_n})"


@register_backend("exact")
def _make_exact(option: str | None) -> ExactBackend:
    return ExactBackend()
