"""Any scikit-learn classifier (an object with ``fit`` and ``predict``), for the Monte Carlo backends.

A training set is given by its count table; the classifier is fitted on the rows it stands for
(each input ``x`` repeated ``T[x, y]`` times with label ``y``, in cell order) and predicts every
input of the model. The data are i.i.d., so for a classifier that does not depend on the order of
its training rows this is the law of the real procedure; a classifier that does (through a
``random_state`` or tie-breaking by row order) is fitted on rows in cell order, which is one
admissible order.

Inputs are encoded as ordinal integers (``encoding="ordinal"``: attribute ``j`` takes values
``0..a_j - 1``) or one-hot (``encoding="onehot"``). A training set holding one class only
predicts that class (scikit-learn classifiers either do so or refuse to fit one class); an
empty training set predicts class 0.

Fits are independent across tables, so :meth:`SklearnClassifier.predict_tables` can spread them
over Dask (``scheduler=``: one of dask's local schedulers ``"threads"``, ``"processes"``,
``"synchronous"``, a ``distributed.Client`` or a scheduler address); the tables are drawn before,
in the calling process, and each fit depends on its table only, so a fixed seed gives the same
numbers however many workers run (and the same as without Dask).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from momentbound.classifiers.base import ExactForm, check_tables
from momentbound.errors import ClassifierFailed, InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["SklearnClassifier", "ENCODINGS", "LOCAL_SCHEDULERS", "SKLEARN_PACKAGE", "load_estimator", "resolve_class"]

ENCODINGS = ("ordinal", "onehot")
#: dask's single-machine schedulers (``dask.compute(..., scheduler=name)``)
LOCAL_SCHEDULERS = ("threads", "processes", "synchronous")


#: the package ``sklearn:MODULE.CLASS`` loads from; code of one's own is a registered plug-in
#: (:data:`momentbound.classifiers.CLASSIFIERS`, ``docs/extending.md``)
SKLEARN_PACKAGE = "sklearn"


def resolve_class(path: str) -> type:
    """The scikit-learn classifier class named ``MODULE.CLASS`` (not instantiated).

    Only modules of the ``sklearn`` package are imported (never its ``tests``), and nothing is
    imported before the name is checked: dotted Python identifiers, public class name. The
    object found must be a class deriving from ``sklearn.base.BaseEstimator`` and
    ``sklearn.base.ClassifierMixin``; a function, a regressor or any other object is refused.
    Anything a scikit-learn module prints while it is imported goes to stderr, never stdout.

    Examples
    --------
    >>> resolve_class("sklearn.tree.DecisionTreeClassifier").__name__
    'DecisionTreeClassifier'
    """
    import contextlib
    import importlib.util
    import keyword
    import sys

    text = str(path).strip()
    example = "e.g. sklearn:sklearn.tree.DecisionTreeClassifier"
    parts = text.split(".")
    if len(parts) < 2 or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise InvalidArgument(
            f"a scikit-learn classifier is named sklearn:MODULE.CLASS with dotted Python names, {example}; "
            f"got {text!r:.80}"
        )
    module_name, class_name = ".".join(parts[:-1]), parts[-1]
    if parts[0] != SKLEARN_PACKAGE:
        raise InvalidArgument(
            f"sklearn:{text} is not in the scikit-learn package: sklearn: loads classifier classes from "
            f"modules under sklearn. only ({example}); a classifier of your own is registered as a plug-in "
            "(see docs/extending.md)"
        )
    if any(p.startswith("__") or p in ("tests", "conftest") for p in parts) or class_name.startswith("_"):
        raise InvalidArgument(
            f"sklearn:{text} names a private or test part of scikit-learn; name a public classifier class, "
            f"{example}"
        )
    try:
        with contextlib.redirect_stdout(sys.stderr):
            if importlib.util.find_spec(module_name) is None:
                raise ModuleNotFoundError(f"No module named {module_name!r}")
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InvalidArgument(f"cannot import {module_name!r} for sklearn:{text} ({exc}); {example}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise InvalidArgument(f"module {module_name!r} has no class {class_name!r}; {example}")
    from sklearn.base import BaseEstimator, ClassifierMixin

    if not isinstance(cls, type):
        raise InvalidArgument(
            f"sklearn:{text} is a {type(cls).__name__}, not a class: sklearn: takes a scikit-learn classifier "
            f"class, {example}"
        )
    if not (issubclass(cls, BaseEstimator) and issubclass(cls, ClassifierMixin)):
        raise InvalidArgument(
            f"sklearn:{text} is not a scikit-learn classifier (it does not derive from BaseEstimator and "
            f"ClassifierMixin); the error rate needs a classifier, {example}"
        )
    return cls


def load_estimator(path: str, params: dict[str, Any] | None = None) -> Any:
    """``MODULE.CLASS(**params)`` for a scikit-learn classifier class, e.g. ``sklearn.tree.DecisionTreeClassifier``.

    The class is resolved and checked first (:func:`resolve_class`), then the parameters: their
    names against the constructor's, their values as literals
    (:func:`momentbound.classifiers.params.check_literal`); only then is the class
    instantiated, and its parameters are validated by scikit-learn before any fit.
    """
    import inspect

    from momentbound.classifiers.params import check_literal

    cls = resolve_class(path)
    params = dict(params or {})
    for key, value in params.items():
        check_literal(value, f"parameter {key!r} of {cls.__name__}")
    accepted = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise InvalidArgument(
            f"{cls.__name__} has no parameter(s) {', '.join(unknown)}; it takes {', '.join(accepted) or 'none'}"
        )
    try:
        estimator = cls(**params)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"cannot build {cls.__name__} with parameters {params}: {exc}") from exc
    _validate_params(estimator)
    return estimator


def _validate_params(estimator: Any) -> None:
    """scikit-learn's own check of the constructor parameters (it otherwise runs at the first fit)."""
    validate = getattr(estimator, "_validate_params", None)
    if not callable(validate):
        return
    try:
        validate()
    except (TypeError, ValueError) as exc:
        message = " ".join(str(exc).split())
        raise InvalidArgument(f"{type(estimator).__name__}: {message}") from exc


def _check_estimator(estimator: object) -> None:
    """An unfitted scikit-learn classifier instance (``sklearn.base.is_classifier``), else InvalidArgument."""
    from sklearn.base import is_classifier

    if isinstance(estimator, type):
        raise InvalidArgument(
            f"estimator must be a scikit-learn classifier instance, got the class {estimator.__name__}; "
            f"pass {estimator.__name__}()"
        )
    if not all(callable(getattr(estimator, a, None)) for a in ("fit", "predict", "get_params")):
        raise InvalidArgument(
            f"estimator must be a scikit-learn classifier (fit, predict, get_params), got {estimator!r:.80}"
        )
    try:
        classifier = is_classifier(estimator)
    except (TypeError, AttributeError, ValueError):
        classifier = False
    if not classifier:
        raise InvalidArgument(
            f"estimator must be a scikit-learn classifier (sklearn.base.is_classifier), got {estimator!r:.80}: "
            "a regressor or transformer has no error rate"
        )


@dataclass(frozen=True)
class SklearnClassifier:
    """A scikit-learn classifier evaluated on count tables (Monte Carlo backends only).

    Parameters
    ----------
    estimator:
        An unfitted scikit-learn classifier; it is cloned for every fit.
    encoding:
        ``"ordinal"`` or ``"onehot"`` encoding of the attributes.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> SklearnClassifier(DecisionTreeClassifier(random_state=0)).describe()
    'sklearn:DecisionTreeClassifier(random_state=0)'
    """

    estimator: Any
    encoding: str = "ordinal"
    name: ClassVar[str] = "sklearn"
    schedulable: ClassVar[bool] = True
    _rows: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_estimator(self.estimator)
        if self.encoding not in ENCODINGS:
            raise InvalidArgument(f"encoding must be one of {ENCODINGS}, got {self.encoding!r}")

    def describe(self) -> str:
        return f"sklearn:{self.estimator!r}"

    def params(self) -> dict[str, Any]:
        cls = type(self.estimator)
        out: dict[str, Any] = {"class": f"{cls.__module__}.{cls.__qualname__}", "encoding": self.encoding}
        get = getattr(self.estimator, "get_params", None)
        if callable(get):
            out.update({f"param.{k}": v if isinstance(v, (str, int, float, bool)) or v is None else repr(v)
                        for k, v in sorted(get(deep=False).items())})
        return out

    def exact_form(self, model: CellModel) -> ExactForm | None:
        return None

    def seeded(self, rng: np.random.Generator) -> "SklearnClassifier":
        """This classifier with ``random_state`` drawn from ``rng`` when the estimator has that
        parameter and it is unset (``None``); else itself.

        A seeded run then fits every table with the same fixed ``random_state`` (what setting it by
        hand does), so a seed reproduces the numbers. The integer comes from a child of ``rng``'s
        seed sequence (``rng.spawn``), which leaves ``rng``'s own stream untouched: the run draws the
        same tables as with that ``random_state`` given by hand.

        Examples
        --------
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> clf = SklearnClassifier(RandomForestClassifier(n_estimators=3))
        >>> a, b = (clf.seeded(np.random.default_rng(7)) for _ in range(2))
        >>> a.estimator.random_state == b.estimator.random_state is not None
        True
        """
        params = self.estimator.get_params(deep=False)
        if "random_state" not in params or params["random_state"] is not None:
            return self
        from sklearn.base import clone

        state = int(rng.spawn(1)[0].integers(0, 2**31 - 1))
        return SklearnClassifier(clone(self.estimator).set_params(random_state=state), encoding=self.encoding)

    def encode(self, model: CellModel) -> np.ndarray:
        """Feature rows of the model's inputs, in input order: ``(n_inputs, n_features)``."""
        key = tuple(model.arities)
        if key not in self._rows:
            ordinal = np.array(list(itertools.product(*(range(a) for a in model.arities))), dtype=np.int64)
            if self.encoding == "ordinal":
                rows = ordinal.astype(float)
            else:
                rows = np.concatenate(
                    [(ordinal[:, [j]] == np.arange(a)).astype(float) for j, a in enumerate(model.arities)], axis=1
                )
            self._rows[key] = rows
        return self._rows[key]

    def predict_one(self, model: CellModel, table: np.ndarray) -> np.ndarray:
        """Predicted class at every input for one count table: ``(n_inputs,)`` integers."""
        from sklearn.base import clone

        K = model.n_classes
        counts = np.asarray(table).reshape(model.n_inputs, K)
        rows = self.encode(model)
        present = np.flatnonzero(counts.sum(axis=0))
        if present.size == 0:
            return np.zeros(model.n_inputs, dtype=np.int64)
        if present.size == 1:
            return np.full(model.n_inputs, int(present[0]), dtype=np.int64)
        x_idx, y = np.nonzero(counts)
        reps = counts[x_idx, y]
        X = np.repeat(rows[x_idx], reps, axis=0)
        labels = np.repeat(y, reps)
        try:
            fitted = clone(self.estimator).fit(X, labels)
            return np.asarray(fitted.predict(rows), dtype=np.int64)
        except Exception as exc:  # the plug-in's own error, as one line naming the classifier
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())
            raise ClassifierFailed(
                self.describe(), f"on a training set of {len(labels)} points with {present.size} classes", reason
            ) from exc

    def predict_tables(
        self, model: CellModel, tables: np.ndarray, *, scheduler: Any = None, workers: int = 2
    ) -> np.ndarray:
        """One-hot predictions ``(R, n_inputs, K)`` for count tables ``(R, n_cells)``.

        ``scheduler``: ``None`` fits in this process; ``"threads"``, ``"processes"`` or
        ``"synchronous"`` use dask's local scheduler of that name with ``workers`` workers; a
        ``distributed.Client`` or a scheduler address spreads the tables over its workers. The
        tables go out in chunks and come back in order: the results do not depend on the scheduler.
        """
        arr = check_tables(model, tables)
        if scheduler is None or len(arr) == 0:
            labels = np.stack([self.predict_one(model, t) for t in arr]) if len(arr) else np.zeros((0, model.n_inputs), dtype=np.int64)
        elif isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS:
            labels = _predict_local(self, model, arr, scheduler, workers)
        else:
            labels = _predict_dask(self, model, arr, scheduler)
        out = np.zeros((arr.shape[0], model.n_inputs, model.n_classes))
        np.put_along_axis(out, labels[:, :, None], 1.0, axis=2)
        return out


def _predict_chunk(clf: SklearnClassifier, model: CellModel, chunk: np.ndarray) -> np.ndarray:
    return np.stack([clf.predict_one(model, t) for t in chunk])


def _predict_local(clf: SklearnClassifier, model: CellModel, arr: np.ndarray, scheduler: str, workers: int) -> np.ndarray:
    import dask

    chunks = [c for c in np.array_split(arr, max(1, min(len(arr), 4 * int(workers)))) if len(c)]
    tasks = [dask.delayed(_predict_chunk, pure=False)(clf, model, c) for c in chunks]
    return np.concatenate(dask.compute(*tasks, scheduler=scheduler, num_workers=int(workers)))


def _predict_dask(clf: SklearnClassifier, model: CellModel, arr: np.ndarray, scheduler: Any) -> np.ndarray:
    from distributed import Client

    if isinstance(scheduler, str):  # an address: a bounded wait and one-line errors (dask_client)
        from momentbound.parallel import dask_client

        with dask_client(scheduler) as client:
            return _predict_dask(clf, model, arr, client)
    client = scheduler if isinstance(scheduler, Client) else None
    own = client is None
    if own:
        client = Client(processes=False)
    try:
        n_chunks = max(1, min(len(arr), 4 * max(1, len(client.scheduler_info().get("workers", {})))))
        chunks = [c for c in np.array_split(arr, n_chunks) if len(c)]
        futures = client.map(_predict_chunk, [clf] * len(chunks), [model] * len(chunks), chunks, pure=False)
        return np.concatenate(client.gather(futures))
    finally:
        if own:
            client.close()
