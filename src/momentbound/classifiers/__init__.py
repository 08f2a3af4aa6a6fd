"""Classifiers as plug-ins: a protocol (:class:`Classifier`) and a literal registry.

==============  ==========================================  ==========================
name            class                                       exact terms
==============  ==========================================  ==========================
naive-bayes     :class:`NaiveBayes`                         yes
histogram       :class:`HistogramRule`                      yes (naive Bayes form)
majority        :class:`MajorityRule`                       yes (naive Bayes form)
sklearn         :class:`SklearnClassifier` (any estimator)  no: Monte Carlo backends
==============  ==========================================  ==========================

Adding a classifier is one module and one line in :data:`CLASSIFIERS` (``docs/extending.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from momentbound.classifiers.base import Classifier, ExactForm, check_tables
from momentbound.classifiers.histogram import HistogramRule, MajorityRule
from momentbound.classifiers.naive_bayes import TIE_RULES, NaiveBayes
from momentbound.classifiers.sklearn import SklearnClassifier, load_estimator
from momentbound.errors import InvalidArgument
from momentbound.registry import lookup

__all__ = [
    "CLASSIFIERS",
    "Classifier",
    "classifier_class",
    "ExactForm",
    "HistogramRule",
    "MajorityRule",
    "NaiveBayes",
    "SklearnClassifier",
    "TIE_RULES",
    "as_classifier",
    "check_tables",
    "make_classifier",
]

#: registered classifiers by name; the order of the lines is the order of the docs and CLI help; a
#: plug-in adds ``CLASSIFIERS["name"] = ClassifierClass`` (:mod:`momentbound.registry`)
CLASSIFIERS: dict[str, type] = {
    "naive-bayes": NaiveBayes,
    "histogram": HistogramRule,
    "majority": MajorityRule,
    "sklearn": SklearnClassifier,
}


def classifier_class(spec: str) -> type:
    """The registered class of a classifier name (not ``sklearn:...``); ``UnknownMethod`` naming the
    registered ones for any other name. Nothing is instantiated."""
    return lookup({n: c for n, c in CLASSIFIERS.items() if n != "sklearn"}, str(spec), "classifier",
                  also=("sklearn:MODULE.CLASS",))


def make_classifier(spec: str, params: dict[str, Any] | None = None) -> Classifier:
    """A classifier from a registry name (``"naive-bayes"``) or ``"sklearn:MODULE.CLASS"``.

    ``params`` are the constructor's keyword arguments (for ``sklearn:...`` those of the
    scikit-learn class, except ``encoding``, which goes to :class:`SklearnClassifier`).

    ``sklearn:MODULE.CLASS`` loads a class from the scikit-learn package only, checks that it is
    a classifier (``BaseEstimator`` and ``ClassifierMixin``) and that ``params`` are literals
    (numbers, booleans, None, strings, flat tuples of them) before anything is instantiated
    (:func:`~momentbound.classifiers.sklearn.resolve_class`); a function, a regressor or a module
    outside scikit-learn is refused. Code of one's own is a registered plug-in
    (:data:`CLASSIFIERS`, ``docs/extending.md``).

    Examples
    --------
    >>> make_classifier("naive-bayes", {"ties": "first", "alpha": 1}).describe()
    "NaiveBayes(ties='first', alpha=1)"
    """
    params = dict(params or {})
    head, sep, rest = str(spec).partition(":")
    if head == "sklearn":
        if not sep or not rest:
            raise InvalidArgument("write a scikit-learn classifier as sklearn:MODULE.CLASS, e.g. sklearn:sklearn.tree.DecisionTreeClassifier")
        encoding = params.pop("encoding", "ordinal")
        return SklearnClassifier(load_estimator(rest, params), encoding=encoding)
    cls = classifier_class(spec)
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidArgument(f"classifier {spec!r} does not take parameters {sorted(params)}: {exc}") from exc


def _is_categorical_nb(obj: object) -> bool:
    cls = type(obj)
    return cls.__name__ == "CategoricalNB" and cls.__module__.startswith("sklearn")


def as_classifier(obj: object, model: object = None) -> Classifier:
    """Accept a momentbound classifier or a scikit-learn one, translated where it can be modelled.

    ``CategoricalNB(alpha=a, force_alpha=True, min_categories=arities)`` becomes
    ``NaiveBayes(ties="first", alpha=a)`` (scikit-learn's argmax takes the first of tied classes; on
    exact ties that float rounding of the log-probabilities decides, ``first`` can differ from
    ``CategoricalNB``: pass ``NaiveBayes(ties="sklearn", alpha=a)`` for its decisions exactly);
    ``class_prior`` and ``fit_prior=False`` change the classifier and are refused. Without
    ``min_categories`` scikit-learn's CategoricalNB knows only the categories of its training data and
    fails to score a test fold holding another (``cross_val_score`` reports a NaN fold score; with a
    rare category, p = 0.05, N = 20, 5 folds, that is most datasets): it is refused, with the reason.
    ``min_categories`` must then equal the model's arities (checked when ``model`` is given). A
    :class:`SklearnClassifier` holding a ``CategoricalNB`` (``--classifier
    sklearn:sklearn.naive_bayes.CategoricalNB`` in the CLI) is translated the same way, so every
    backend gives the same answer or the same refusal (a Monte Carlo run would otherwise stop at
    the first fold with an unseen category). Other scikit-learn classifiers become
    :class:`SklearnClassifier` (Monte Carlo only).
    """
    if isinstance(obj, SklearnClassifier) and _is_categorical_nb(obj.estimator) and obj.encoding == "ordinal":
        obj = obj.estimator
    if isinstance(obj, Classifier):
        return obj
    if _is_categorical_nb(obj):
        p = obj.get_params()  # type: ignore[attr-defined]
        if p.get("class_prior") is not None or not p.get("fit_prior", True):
            raise InvalidArgument(
                "CategoricalNB with class_prior or fit_prior=False is not modelled: momentbound's naive Bayes "
                "estimates the class prior from the training counts (use the default fit_prior=True)"
            )
        alpha = p.get("alpha", 1.0)
        if not p.get("force_alpha", True) and float(alpha) < 1e-10:
            raise InvalidArgument(
                f"CategoricalNB(alpha={alpha}) without force_alpha=True uses alpha = 1e-10, not {alpha}; "
                "pass force_alpha=True for exact alpha = 0"
            )
        arities = getattr(model, "arities", None)
        given = p.get("min_categories")
        if given is None:
            hint = "" if arities is None else f" (here min_categories={list(arities)})"
            raise InvalidArgument(
                "CategoricalNB() without min_categories is not modelled: it learns only the categories in its "
                "training data, and cross_val_score gives a NaN fold score whenever a test fold holds another; "
                f"pass min_categories equal to the model's arities{hint}, which momentbound's naive Bayes uses"
            )
        if arities is not None:
            wanted = np.broadcast_to(np.asarray(given), (len(arities),)) if np.ndim(given) == 0 else np.asarray(given)
            if wanted.shape != (len(arities),) or [int(x) for x in wanted] != [int(a) for a in arities]:
                raise InvalidArgument(
                    f"CategoricalNB(min_categories={given!r}) does not match the model's arities {list(arities)}: "
                    f"momentbound models the arities as the categories; pass min_categories={list(arities)}"
                )
        return NaiveBayes("first", alpha)
    if callable(getattr(obj, "fit", None)) and callable(getattr(obj, "predict", None)):
        return SklearnClassifier(obj)
    raise InvalidArgument(
        f"classifier must be a momentbound classifier ({', '.join(c.__name__ for c in CLASSIFIERS.values())}) "
        f"or a scikit-learn classifier, got {obj!r}"
    )
