"""Common interface of the prediction-probability backends.

A backend answers three questions about the classifier trained on iid training sets
(docs/mathematics.md, sections 'The naive Bayes classifier', 'Tie rules', 'Generalization error' and
'Cross-validation'):

* ``single``: ``E[g_x(y | T)]`` for ``T`` of size ``n_train``;
* ``pair``: ``E[g_x(y | T) g_x2(y' | T)]`` (same training set, independent coins);
* ``cross``: ``E[g_{x_a}(a | C + B' + point_b) g_{x_b}(b | C + A' + point_a)]``, the exact
  cross-validation covariance term.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.core import Kind
from momentbound.errors import InvalidArgument
from momentbound.intervals import Enclosure
from momentbound.model.cells import CellModel

__all__ = ["PredictionBackend", "ProbabilityInterval", "BackendOutput", "check_classifier", "check_count", "check_model"]


@dataclass(frozen=True)
class ProbabilityInterval(Enclosure):
    """Guaranteed (``bound``) or confidence (``estimate``) intervals for an array of probabilities.

    ``lower`` and ``upper`` have the shape of the exact answer (``(K,)`` or ``(K, K)``).
    ``estimate`` is the point estimate (sampling backends) and ``draws`` the number of Monte
    Carlo draws behind it; both are ``None`` for guaranteed bounds.
    """

    lower: np.ndarray
    upper: np.ndarray
    estimate: np.ndarray | None = None
    draws: int | None = None
    confidence: float | None = None

    def __post_init__(self) -> None:
        lo = np.asarray(self.lower, dtype=float)
        hi = np.asarray(self.upper, dtype=float)
        if lo.shape != hi.shape:
            raise InvalidArgument(f"lower and upper must have the same shape, got {lo.shape} and {hi.shape}")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)
        if self.estimate is not None:
            object.__setattr__(self, "estimate", np.asarray(self.estimate, dtype=float))

    def contains(self, value: object, tol: float = 0.0) -> bool:
        v = np.asarray(value, dtype=float)
        return bool(np.all(self.lower - tol <= v) and np.all(v <= self.upper + tol))


BackendOutput = Union[np.ndarray, ProbabilityInterval]


def check_count(value: object, name: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise InvalidArgument(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_classifier(classifier: object) -> NaiveBayes:
    """``classifier`` if it is a :class:`NaiveBayes`, else ``InvalidArgument``."""
    if not isinstance(classifier, NaiveBayes):
        raise InvalidArgument(
            f"classifier must be a NaiveBayes(ties=..., alpha=...) instance, got {classifier!r}"
        )
    return classifier


def check_model(model: object) -> CellModel:
    """``model`` if it is a :class:`CellModel`, else ``InvalidArgument``."""
    if not isinstance(model, CellModel):
        raise InvalidArgument(f"model must be a CellModel, got {type(model).__name__}")
    return model


def _check_point(model: CellModel, point: object, name: str) -> tuple[tuple[int, ...], int]:
    try:
        x, y = point  # type: ignore[misc]
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a pair (x, y) of an input and a class, got {point!r}") from exc
    return model.check_input(x, name=f"{name}[0]"), model.check_class(y, name=f"{name}[1]")


class PredictionBackend(abc.ABC):
    """Base class: validates arguments, then calls ``_single`` / ``_pair`` / ``_cross``.

    Subclasses set ``name`` and ``kind_name`` (``"EXACT"``, ``"BOUND"``, ``"ESTIMATE"``,
    ``"APPROXIMATION"``: a member of :class:`momentbound.core.Kind`).
    """

    name: ClassVar[str] = ""
    kind_name: ClassVar[str] = ""

    @property
    def kind(self) -> Kind:
        return Kind[self.kind_name]

    # ------------------------------------------------------------------ public template
    def single(
        self, model: CellModel, n_train: int, x: Sequence[int] | int, classifier: NaiveBayes = NaiveBayes()
    ) -> BackendOutput:
        """``E[g_x(y | T)]`` for every class ``y``; ``T`` has ``n_train`` iid points.

        Returns an array of shape ``(K,)`` (Fractions for exact rational computations) or a
        :class:`ProbabilityInterval`.
        """
        model = check_model(model)
        n = check_count(n_train, "n_train")
        xt = model.check_input(x, name="x")
        return self._single(model, n, xt, check_classifier(classifier))

    def pair(
        self,
        model: CellModel,
        n_train: int,
        x: Sequence[int] | int,
        x2: Sequence[int] | int,
        classifier: NaiveBayes = NaiveBayes(),
    ) -> BackendOutput:
        """``E[g_x(y | T) g_x2(y' | T)]``, shape ``(K, K)``; same training set, independent coins."""
        model = check_model(model)
        n = check_count(n_train, "n_train")
        xt = model.check_input(x, name="x")
        x2t = model.check_input(x2, name="x2")
        return self._pair(model, n, xt, x2t, check_classifier(classifier))

    def cross(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        point_a: tuple[Any, int],
        point_b: tuple[Any, int],
        classifier: NaiveBayes = NaiveBayes(),
    ) -> BackendOutput:
        """``E[g_{x_a}(a | C + B' + point_b) g_{x_b}(b | C + A' + point_a)]``, shape ``(K, K)``.

        ``C``, ``A'``, ``B'`` are independent iid samples of sizes ``n_common``, ``n_a``, ``n_b``.
        """
        model = check_model(model)
        nc = check_count(n_common, "n_common")
        na = check_count(n_a, "n_a")
        nb = check_count(n_b, "n_b")
        pa = _check_point(model, point_a, "point_a")
        pb = _check_point(model, point_b, "point_b")
        return self._cross(model, nc, na, nb, pa, pb, check_classifier(classifier))

    # ------------------------------------------------------------------ implementations
    @abc.abstractmethod
    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> BackendOutput: ...

    @abc.abstractmethod
    def _pair(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> BackendOutput: ...

    @abc.abstractmethod
    def _cross(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        point_a: tuple[tuple[int, ...], int],
        point_b: tuple[tuple[int, ...], int],
        clf: NaiveBayes,
    ) -> BackendOutput: ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
