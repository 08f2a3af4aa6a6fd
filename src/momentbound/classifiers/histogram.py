"""The discrete histogram rule and the majority-class rule, as naive Bayes on a transformed model.

* **Histogram rule**: predict the majority class among the training points whose input equals
  ``x`` (the cell of ``x`` in the full joint of the attributes). It is exactly naive Bayes with
  ``alpha = 0`` on the model whose single attribute is the flattened input
  (``prod(arities)`` values, same order): that classifier's score of class ``k`` at ``x`` is
  ``(N_k / N) * N[x, k] / N_k = N[x, k] / N``, so it predicts the majority of cell ``x``.
  Ties, and empty cells (every class scores 0), follow the same rules as naive Bayes.
* **Majority rule**: predict the majority class of the whole training set, whatever ``x``. It is
  naive Bayes with ``alpha = 0`` on a model with one binary attribute that always takes the value
  0 (class ``k`` has probability ``P[Y = k]``): the score is ``N_k / N``.

Both therefore get every backend of naive Bayes, the exact ones included.

References
----------
Braga-Neto & Dougherty, "Exact performance of error estimators for discrete classifiers",
Pattern Recognition 38 (2005) (the histogram rule); ``docs/mathematics.md`` ("Classifiers").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from momentbound.classifiers.base import ExactForm, check_tables
from momentbound.classifiers.naive_bayes import KEY_TIE_RULES as TIE_RULES, NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["HistogramRule", "MajorityRule"]


def _check_ties(ties: object) -> None:
    if ties not in TIE_RULES:
        raise InvalidArgument(f"ties must be one of {', '.join(map(repr, TIE_RULES))}, got {ties!r}")


@dataclass(frozen=True)
class HistogramRule:
    """Majority class in the input's cell of the full joint (the discrete histogram rule).

    Parameters
    ----------
    ties:
        ``"random"`` (a fair coin among the tied classes, an empty cell included) or ``"first"``
        (the lowest-index class present in the training data among the tied ones).

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> m = CellModel((2, 2), ["1/8"] * 8)
    >>> HistogramRule().exact_form(m).model.arities
    (4,)
    """

    ties: str = "random"
    name: ClassVar[str] = "histogram"

    def __post_init__(self) -> None:
        _check_ties(self.ties)

    def describe(self) -> str:
        return f"HistogramRule(ties={self.ties!r})"

    def params(self) -> dict[str, Any]:
        return {"ties": self.ties}

    def exact_form(self, model: CellModel) -> ExactForm:
        flat = CellModel((model.n_inputs,), model.cells, model.n_classes)
        return ExactForm(flat, NaiveBayes(self.ties, 0))

    def predict_tables(self, model: CellModel, tables: np.ndarray) -> np.ndarray:
        form = self.exact_form(model)
        return form.classifier.predict_tables(form.model, check_tables(model, tables))


@dataclass(frozen=True)
class MajorityRule:
    """Majority class of the training set, whatever the input (no attributes used).

    Parameters
    ----------
    ties:
        ``"random"`` or ``"first"``, as for :class:`HistogramRule`.

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> MajorityRule().exact_form(CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])).model.cells
    (Fraction(2, 5), Fraction(3, 5), Fraction(0, 1), Fraction(0, 1))
    """

    ties: str = "random"
    name: ClassVar[str] = "majority"

    def __post_init__(self) -> None:
        _check_ties(self.ties)

    def describe(self) -> str:
        return f"MajorityRule(ties={self.ties!r})"

    def params(self) -> dict[str, Any]:
        return {"ties": self.ties}

    def exact_form(self, model: CellModel) -> ExactForm:
        K = model.n_classes
        zero = model.cells[0] * 0
        cells = [model.prior(k) for k in range(K)] + [zero] * K
        return ExactForm(CellModel((2,), cells, K), NaiveBayes(self.ties, 0))

    def predict_tables(self, model: CellModel, tables: np.ndarray) -> np.ndarray:
        arr = check_tables(model, tables)
        form = self.exact_form(model)
        K = model.n_classes
        collapsed = np.zeros((arr.shape[0], 2 * K), dtype=arr.dtype)
        collapsed[:, :K] = arr.reshape(arr.shape[0], -1, K).sum(axis=1)
        g = form.classifier.predict_tables(form.model, collapsed)[:, :1, :]  # (R, 1, K) at input 0
        return np.repeat(g, model.n_inputs, axis=1)
