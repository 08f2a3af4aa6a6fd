"""The error estimators whose moments momentbound computes (SPEC section 3).

Each estimator is a small frozen, validated dataclass that knows how it splits ``N`` points:

* :class:`GE` -- the generalization error of the classifier trained on all ``N`` points;
* :class:`HoldOut` -- train on ``N - Ns`` points, test on ``Ns`` (``test_size`` or ``test_fraction``,
  the latter rounded up like scikit-learn's ``ShuffleSplit``);
* :class:`KFold` -- ``v``-fold cross-validation with scikit-learn's fold sizes (the first ``N % v``
  folds have ``N // v + 1`` points, the others ``N // v``);
* :class:`LeaveOneOut` -- ``KFold(N)``.

``split(N)`` validates the estimator against a dataset size and returns a :class:`Split` describing
the training and test sizes; impossible splits raise :class:`~momentbound.errors.ImpossibleSplit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Union

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument

__all__ = ["GE", "HoldOut", "KFold", "LeaveOneOut", "Estimator", "Split", "check_model_and_estimator", "check_size"]


def check_size(N: object, *, name: str = "N", minimum: int = 1) -> int:
    """Validate a dataset size: an integer (not a bool) at least ``minimum``."""
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer number of data points, got {N!r}")
    n = int(N)
    if n < minimum:
        raise InvalidArgument(f"{name} must be at least {minimum}, got {n}")
    return n


@dataclass(frozen=True)
class Split:
    """How an estimator splits ``N`` points.

    Attributes
    ----------
    N:
        Dataset size.
    fold_sizes:
        Test-set sizes, one per classifier that is trained (``()`` for :class:`GE`, one entry for
        :class:`HoldOut`, ``v`` entries for cross-validation, largest first as in scikit-learn).
    """

    N: int
    fold_sizes: tuple[int, ...]

    @property
    def train_sizes(self) -> tuple[int, ...]:
        """Training size of each classifier (``(N,)`` for :class:`GE`)."""
        if not self.fold_sizes:
            return (self.N,)
        return tuple(self.N - s for s in self.fold_sizes)

    def size_counts(self) -> dict[int, int]:
        """Distinct fold sizes and how many folds have each size."""
        out: dict[int, int] = {}
        for s in self.fold_sizes:
            out[s] = out.get(s, 0) + 1
        return out


@dataclass(frozen=True)
class GE:
    """Generalization error of the classifier trained on all ``N`` points.

    Examples
    --------
    >>> GE().split(10).train_sizes
    (10,)
    """

    name = "ge"

    def split(self, N: int) -> Split:
        return Split(check_size(N), ())

    def describe(self) -> str:
        return "GE"


@dataclass(frozen=True)
class HoldOut:
    """Hold-out error: train on ``N - Ns`` points, count errors on the other ``Ns``.

    Parameters
    ----------
    test_size:
        Number of test points ``Ns`` (``1 <= Ns <= N - 1``).
    test_fraction:
        Share of test points in ``(0, 1)``; ``Ns = ceil(test_fraction * N)`` as in scikit-learn's
        ``ShuffleSplit``. Give exactly one of the two.

    Examples
    --------
    >>> HoldOut(test_fraction=0.25).split(10).fold_sizes
    (3,)
    """

    test_size: int | None = None
    test_fraction: float | None = None
    name = "holdout"

    def __post_init__(self) -> None:
        if (self.test_size is None) == (self.test_fraction is None):
            raise InvalidArgument(
                "HoldOut needs exactly one of test_size (a number of points) or test_fraction "
                f"(a share in (0, 1)); got test_size={self.test_size!r}, "
                f"test_fraction={self.test_fraction!r}"
            )
        if self.test_size is not None:
            if isinstance(self.test_size, bool) or not isinstance(self.test_size, (int, np.integer)):
                raise InvalidArgument(
                    f"test_size must be an integer number of test points, got {self.test_size!r}"
                )
            object.__setattr__(self, "test_size", int(self.test_size))
            if self.test_size < 1:
                raise ImpossibleSplit(
                    f"test_size must be at least 1 test point, got {self.test_size}"
                )
        else:
            f = self.test_fraction
            if isinstance(f, bool) or not isinstance(f, (Real, Decimal, np.integer, np.floating)):
                raise InvalidArgument(f"test_fraction must be a number in (0, 1), got {f!r}")
            if not (math.isfinite(float(f)) and 0 < float(f) < 1):
                raise ImpossibleSplit(
                    f"test_fraction must be strictly between 0 and 1, got {f!r}; "
                    "use test_size for a number of points"
                )
            object.__setattr__(self, "test_fraction", float(f))

    def test_size_for(self, N: int) -> int:
        """The number of test points for a dataset of ``N`` points."""
        if self.test_size is not None:
            return self.test_size
        # the float product rounded up, as scikit-learn's ShuffleSplit does (same quirks)
        return math.ceil(float(self.test_fraction or 0.0) * N)

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"hold-out needs N >= 2 (one training and one test point), got N={n}")
        ns = self.test_size_for(n)
        if ns >= n:
            raise ImpossibleSplit(
                f"hold-out test size {ns} leaves no training point out of N={n}; "
                f"choose test_size <= {n - 1}"
            )
        return Split(n, (ns,))

    def describe(self) -> str:
        if self.test_size is not None:
            return f"HoldOut(test_size={self.test_size})"
        return f"HoldOut(test_fraction={self.test_fraction:g})"


@dataclass(frozen=True)
class KFold:
    """``v``-fold cross-validation with scikit-learn's fold sizes.

    Parameters
    ----------
    v:
        Number of folds, ``2 <= v <= N``. When ``v`` does not divide ``N`` the first ``N % v``
        folds have ``N // v + 1`` points and the others ``N // v``.

    Examples
    --------
    >>> KFold(3).split(10).fold_sizes
    (4, 3, 3)
    """

    v: int
    name = "cv"

    def __post_init__(self) -> None:
        if isinstance(self.v, bool) or not isinstance(self.v, (int, np.integer)):
            raise InvalidArgument(f"KFold v must be an integer number of folds, got {self.v!r}")
        object.__setattr__(self, "v", int(self.v))
        if self.v < 2:
            raise ImpossibleSplit(f"KFold needs at least 2 folds, got v={self.v}")

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"cross-validation needs N >= 2 points, got N={n}")
        if self.v > n:
            raise ImpossibleSplit(
                f"KFold has more folds (v={self.v}) than points (N={n}); choose v <= {n} "
                "(v = N is leave-one-out)"
            )
        q, r = divmod(n, self.v)
        return Split(n, tuple([q + 1] * r + [q] * (self.v - r)))

    def describe(self) -> str:
        return f"KFold(v={self.v})"


@dataclass(frozen=True)
class LeaveOneOut:
    """Leave-one-out cross-validation, ``KFold(N)``.

    Examples
    --------
    >>> LeaveOneOut().split(4).fold_sizes
    (1, 1, 1, 1)
    """

    name = "loo"

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"leave-one-out needs N >= 2 points, got N={n}")
        return KFold(n).split(n)

    def describe(self) -> str:
        return "LeaveOneOut()"


Estimator = Union[GE, HoldOut, KFold, LeaveOneOut]


def check_model_and_estimator(model: object, estimator: object) -> None:
    """Raise a clear error unless ``model`` is a CellModel and ``estimator`` one of the four."""
    from momentbound.errors import InvalidModel
    from momentbound.model.cells import CellModel

    if not isinstance(model, CellModel):
        raise InvalidModel(
            f"model must be a momentbound.CellModel, got {type(model).__name__}; build one with "
            "CellModel(arities, cells)"
        )
    if not isinstance(estimator, (GE, HoldOut, KFold, LeaveOneOut)):
        raise InvalidArgument(
            f"estimator must be GE(), HoldOut(...), KFold(v) or LeaveOneOut(), got {estimator!r}"
        )
