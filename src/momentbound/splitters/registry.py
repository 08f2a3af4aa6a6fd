"""The registry of splitters, and the translation of scikit-learn's splitter objects.

Adding a splitter is one module (a class following
:class:`~momentbound.splitters.basic.Splitter`) and one line in :data:`SPLITTERS`
(``docs/extending.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.registry import lookup
from momentbound.splitters.basic import GE, HoldOut, KFold, LeaveOneOut, Splitter
from momentbound.splitters.bootstrap import Bootstrap, OutOfBag, Point632, Point632Plus, Resubstitution
from momentbound.splitters.repeated import RepeatedKFold, RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

__all__ = ["SPLITTERS", "as_splitter"]

#: registered splitters by name (the CLI's ``--splitter`` choices), in the order of the docs; a plug-in
#: adds ``SPLITTERS["name"] = SplitterClass`` (:mod:`momentbound.registry`)
SPLITTERS: dict[str, type] = {
    "ge": GE,
    "holdout": HoldOut,
    "cv": KFold,
    "stratified-cv": StratifiedKFold,
    "loo": LeaveOneOut,
    "repeated-cv": RepeatedKFold,
    "repeated-stratified-cv": RepeatedStratifiedKFold,
    "shuffle-split": ShuffleSplit,
    "stratified-shuffle-split": StratifiedShuffleSplit,
    "resubstitution": Resubstitution,
    "bootstrap": Bootstrap,
    "632": Point632,
    "632plus": Point632Plus,
    "oob": OutOfBag,
}


def _shuffle_split(obj: Any, cls: type) -> Any:
    test, train = getattr(obj, "test_size", None), getattr(obj, "train_size", None)
    if train is not None:
        raise InvalidArgument(
            f"{type(obj).__name__}(train_size=...) leaves points unused; momentbound models train = N - test: "
            "give test_size only"
        )
    return cls(obj.n_splits, 0.1 if test is None else test)


def as_splitter(obj: object) -> Splitter:
    """A momentbound splitter from one, from scikit-learn's ``cv`` argument, or from its splitter objects.

    * an integer ``k`` means what ``check_cv(k, y, classifier=True)`` gives a classifier:
      ``StratifiedKFold(k)``, so ``cross_val_score(clf, X, y, cv=k)`` is answered;
    * ``KFold``, ``StratifiedKFold`` (shuffled or not: the same law for i.i.d. data),
      ``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``, ``StratifiedShuffleSplit``
      and ``LeaveOneOut`` instances are translated;
    * splitters that need groups or an order (``GroupKFold``, ``TimeSeriesSplit``, ...) and
      ``LeavePOut``/``PredefinedSplit`` are refused.

    Examples
    --------
    >>> as_splitter(5)
    StratifiedKFold(v=5, average='folds')
    """
    if isinstance(obj, Splitter):
        return obj
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        return StratifiedKFold(int(obj))
    cls = type(obj)
    name = cls.__name__
    if not cls.__module__.startswith("sklearn"):
        raise InvalidArgument(
            f"estimator must be a momentbound splitter ({', '.join(SPLITTERS)}), an integer number of "
            f"stratified folds, or a scikit-learn splitter; got {obj!r}"
        )
    if "Group" in name or name in ("TimeSeriesSplit", "PredefinedSplit", "LeavePOut"):
        raise InvalidArgument(
            f"scikit-learn's {name} is not modelled: momentbound's data are i.i.d. points without groups or "
            "order; use KFold, StratifiedKFold, their Repeated forms, ShuffleSplit or LeaveOneOut"
        )
    if name == "LeaveOneOut":
        return LeaveOneOut()
    if name in ("KFold", "StratifiedKFold"):
        v = obj.n_splits  # type: ignore[attr-defined]
        return KFold(v) if name == "KFold" else StratifiedKFold(v)
    if name in ("RepeatedKFold", "RepeatedStratifiedKFold"):
        v, r = obj.cvargs["n_splits"], obj.n_repeats  # type: ignore[attr-defined]
        return (RepeatedKFold if name == "RepeatedKFold" else RepeatedStratifiedKFold)(v, r)
    if name == "ShuffleSplit":
        return _shuffle_split(obj, ShuffleSplit)
    if name == "StratifiedShuffleSplit":
        return _shuffle_split(obj, StratifiedShuffleSplit)
    raise InvalidArgument(f"scikit-learn's {name} has no momentbound counterpart")


def make_splitter(name: str, **params: Any) -> Splitter:
    """A registered splitter by name, e.g. ``make_splitter("stratified-cv", v=10)``."""
    cls = lookup(SPLITTERS, name, "splitter")
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidArgument(f"splitter {name!r} does not take parameters {sorted(params)}: {exc}") from exc
