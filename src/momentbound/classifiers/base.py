"""The classifier plug-in point: a small protocol and the pieces every classifier shares.

A classifier is built deterministically (up to its tie coin) from the **count table** of its
training set, ``T[x, y]`` = number of training points with input ``x`` and class ``y``. What a
backend needs from it:

* ``predict_tables(model, tables)``: the prediction probabilities ``g_x(y | T)`` at every input for
  many count tables at once. Every classifier provides this; it is all the Monte Carlo and
  ``sampling`` backends use.
* ``exact_form(model)``: when the classifier's predictions equal those of naive Bayes on a
  transformed model (``(model', NaiveBayes(...))``), the exact and bound backends run on that
  form. ``None`` means "no exact terms": exact backends then refuse with a message naming
  ``backend="montecarlo"``.

Optional members, with their defaults in :class:`ClassifierDefaults` (the backends ask through
:func:`classifier_member`): ``schedulable`` (``predict_tables`` also takes ``scheduler=`` and
``workers=``, so its fits can run on Dask).

See ``docs/extending.md`` for a worked example of adding a classifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.model.cells import CellModel

__all__ = ["Classifier", "ClassifierDefaults", "ExactForm", "check_tables", "classifier_member"]


@dataclass(frozen=True)
class ExactForm:
    """A classifier expressed as naive Bayes on a transformed model.

    Every prediction of the original classifier at input ``x`` equals the naive Bayes prediction
    at the same input of ``model`` (whose inputs are in one-to-one, order-preserving
    correspondence with the original inputs, or, for a classifier that ignores ``x``, a single
    input carrying all the mass), so GE and every estimator built on it have the same law.
    """

    model: "CellModel"
    classifier: "NaiveBayes"


@runtime_checkable
class Classifier(Protocol):
    """What momentbound needs from a classifier (see the module docstring)."""

    name: ClassVar[str]

    def describe(self) -> str:
        """A short, human-readable name with the parameters, e.g. ``NaiveBayes(ties='first', alpha=1)``."""
        ...

    def params(self) -> dict[str, Any]:
        """The parameters as JSON-friendly values (reported by the CLI)."""
        ...

    def predict_tables(self, model: "CellModel", tables: np.ndarray) -> np.ndarray:
        """``g_x(y | T)`` for count tables ``(R, n_cells)`` (cell order of ``model``): ``(R, n_inputs, K)``."""
        ...

    def exact_form(self, model: "CellModel") -> ExactForm | None:
        """Naive Bayes form of the classifier on ``model``, or ``None`` when it has none."""
        ...


class ClassifierDefaults:
    """The optional members of the :class:`Classifier` protocol and their defaults."""

    #: ``predict_tables(model, tables, scheduler=..., workers=...)`` fits on a Dask scheduler
    schedulable: ClassVar[bool] = False
    #: its predictions and probabilities are those of :class:`~momentbound.classifiers.naive_bayes.NaiveBayes`
    #: with its own ``ties`` and ``alpha_exact``, so the compiled naive Bayes kernels (Monte Carlo) and
    #: the rank scorers (``roc_auc``) apply to it
    naive_bayes_kernel: ClassVar[bool] = False


def classifier_member(classifier: Any, name: str) -> Any:
    """The member ``name`` of a classifier, or its documented default (:class:`ClassifierDefaults`)."""
    if not hasattr(ClassifierDefaults, name):
        raise AttributeError(f"{name!r} is not a member of the Classifier protocol")
    return getattr(classifier, name, getattr(ClassifierDefaults, name))


def check_tables(model: "CellModel", tables: object) -> np.ndarray:
    """Validate count tables for ``predict_tables``: a non-negative integer array ``(R, n_cells)``."""
    from momentbound.errors import InvalidArgument

    arr = np.asarray(tables)
    if arr.ndim != 2 or arr.shape[1] != model.n_cells or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidArgument(
            f"tables must be an integer array of shape (R, {model.n_cells}) (one count table per row, "
            f"cells in the model's order), got dtype {arr.dtype} and shape {arr.shape}"
        )
    if arr.size and arr.min() < 0:
        raise InvalidArgument("tables must hold non-negative counts")
    return arr
