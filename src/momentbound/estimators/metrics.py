"""Linear statistics of the confusion matrix (docs/mathematics.md, "Linear statistics of the
confusion matrix").

A :class:`LinearMetric` is a ``K x K`` loss matrix ``L``: a test point of class ``a`` predicted as
``k`` counts ``L[a, k]``, and the estimator's statistic is the splitter's average of these losses
exactly as for the 0-1 error (``L = 1 - I``): hold-out divides the sum by its test points,
cross-validation averages its folds (pooled or the mean of the fold rates), ``GE`` is the population
value ``E[L(Y, g(X)) | T]`` of the classifier trained on all ``N`` points. ``confusion_entry(a, b)``
(``L = e_a e_b^T``) gives the entry ``(a, b)`` of the confusion matrix over the test points, the
population rate ``P[Y = a, g(X) = b]`` for ``GE``.

The moment engine weighs its prediction probabilities with ``w_L[x][k] = sum_a P[X = x, Y = a] L[a, k]``
and, for one test point with itself, ``sum_a P[X = x, Y = a] L[a, k]^2``.

Metrics weighted by the class priors (``recall(a)``, ``class_error_rate(a)``, ``balanced_error()``:
rows of ``L`` divided by ``P[Y = a]``) are linear population rates of a fitted classifier, so ``GE``
has their exact moments. An estimator's recall divides by the number of its test points of class
``a``: for ``KFold`` or hold-out a random count, so a ratio (``scoring=`` by simulation), but the
splitters whose exact routes condition on the class counts of every test set (``class_rates``:
``StratifiedKFold``, ``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``,
``StratifiedShuffleSplit``) score each test set as scikit-learn does
(:meth:`LinearMetric.test_set_weights`), linearly given those counts, so exactly; so do the table
sums of ``Resubstitution``, the ideal ``Bootstrap`` and ``Point632``, with the class counts of the data.
A splitter says why it cannot weigh a metric through its ``metric_refusal`` member.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from momentbound.errors import InvalidArgument
from momentbound.splitters.basic import splitter_member

__all__ = ["LinearMetric", "METRIC_RULES", "as_metric", "parse_metric", "METRIC_FORMS", "check_metric", "metric_engine", "metric_loss"]

#: how a metric's loss matrix is built against a model's classes
METRIC_RULES = ("error", "matrix", "confusion", "class_error", "recall", "class_error_rate", "balanced_error")
#: the rules whose rows are divided by the class priors (population rates)
_PRIOR_WEIGHTED = ("recall", "class_error_rate", "balanced_error")


def _as_fraction(value: object, name: str) -> Fraction:
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be a number (a Fraction, an integer or a decimal string), got {value!r}")
    try:
        out = Fraction(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        raise InvalidArgument(
            f"{name} must be a finite number (a Fraction, an integer or a decimal string), got {value!r}"
        ) from None
    return out


def _as_class(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f"{name} must be a class index (an integer >= 0), got {value!r}")
    return int(value)


@dataclass(frozen=True)
class LinearMetric:
    """A linear statistic of the confusion matrix: the loss ``L[y, prediction]`` per test point.

    Parameters
    ----------
    loss:
        The ``K x K`` loss matrix (rows: true class, columns: predicted class), converted to exact
        ``Fraction`` entries; ``None`` for the built-in rules (see the constructors).
    name:
        A label for reports.
    rule:
        ``"matrix"`` (``loss`` given) or the rule of a constructor: ``"error"``, ``"confusion"``,
        ``"class_error"``, ``"recall"``, ``"class_error_rate"``, ``"balanced_error"``.
    classes:
        The class indices the rule refers to.

    Examples
    --------
    >>> LinearMetric.confusion_entry(0, 1).matrix_for(2)
    ((Fraction(0, 1), Fraction(1, 1)), (Fraction(0, 1), Fraction(0, 1)))
    >>> LinearMetric([[0, 1], [2, 0]], name="costs").name
    'costs'
    """

    loss: Any = None
    name: str = "custom"
    rule: str = "matrix"
    classes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.rule not in METRIC_RULES:
            raise InvalidArgument(f"rule must be one of {', '.join(METRIC_RULES)}, got {self.rule!r}")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidArgument(f"name must be a non-empty string, got {self.name!r}")
        if self.rule == "matrix":
            if self.loss is None:
                raise InvalidArgument("LinearMetric needs a K x K loss matrix (rows: true class, columns: "
                                      "prediction), e.g. LinearMetric([[0, 1], [5, 0]]), or a constructor "
                                      "such as LinearMetric.error()")
            try:
                rows = [list(row) for row in self.loss]
            except TypeError:
                raise InvalidArgument(f"loss must be a K x K matrix (a list of rows), got {self.loss!r}") from None
            K = len(rows)
            if K < 2 or any(len(row) != K for row in rows):
                raise InvalidArgument(
                    f"loss must be a square K x K matrix with K >= 2 (one row and one column per class), "
                    f"got rows of lengths {[len(r) for r in rows]}"
                )
            matrix = tuple(tuple(_as_fraction(v, f"loss[{a}][{k}]") for k, v in enumerate(row))
                           for a, row in enumerate(rows))
            object.__setattr__(self, "loss", matrix)
        elif self.loss is not None:
            raise InvalidArgument(f"rule={self.rule!r} builds its own loss matrix; pass loss=None")
        object.__setattr__(self, "classes", tuple(_as_class(c, "class") for c in self.classes))

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def error(cls) -> LinearMetric:
        """The 0-1 error, ``L = 1 - I`` (the default of every estimator)."""
        return cls(name="error", rule="error")

    @classmethod
    def confusion_entry(cls, a: int, b: int) -> LinearMetric:
        """Entry ``(a, b)`` of the confusion matrix (true class ``a`` predicted ``b``), ``L = e_a e_b^T``:
        as a share of the test points (``P[Y = a, g(X) = b]`` for ``GE``)."""
        return cls(name=f"confusion[{_as_class(a, 'a')},{_as_class(b, 'b')}]", rule="confusion", classes=(a, b))

    @classmethod
    def class_error(cls, a: int) -> LinearMetric:
        """The errors on class ``a`` (test points of class ``a`` predicted otherwise) as a share of the test
        points (``P[Y = a, g(X) != a]`` for ``GE``)."""
        return cls(name=f"class_error[{_as_class(a, 'a')}]", rule="class_error", classes=(a,))

    @classmethod
    def recall(cls, a: int) -> LinearMetric:
        """Recall of class ``a``: the population rate ``P[g(X) = a | Y = a]`` for ``GE``, scikit-learn's
        ``recall_score`` of class ``a`` on each test set for the splitters that fix its class counts
        (:meth:`test_set_weights`)."""
        return cls(name=f"recall[{_as_class(a, 'a')}]", rule="recall", classes=(a,))

    @classmethod
    def class_error_rate(cls, a: int) -> LinearMetric:
        """Error rate of class ``a``, ``P[g(X) != a | Y = a]`` for ``GE``, one minus the recall of class ``a``
        on each test set for the splitters that fix its class counts."""
        return cls(name=f"class_error_rate[{_as_class(a, 'a')}]", rule="class_error_rate", classes=(a,))

    @classmethod
    def balanced_error(cls) -> LinearMetric:
        """Balanced error, 1 - balanced accuracy: ``(1/K) sum_a P[g(X) != a | Y = a]`` for ``GE``, one minus
        ``balanced_accuracy_score`` on each test set for the splitters that fix its class counts."""
        return cls(name="balanced_error", rule="balanced_error")

    # -- properties -------------------------------------------------------------------------
    @property
    def is_error(self) -> bool:
        """The 0-1 error (the engine's default weights)."""
        return self.rule == "error"

    @property
    def prior_weighted(self) -> bool:
        """Rows divided by the class priors (a population rate) or by a test set's class counts: linear
        for ``GE`` and for the splitters that fix those counts (``class_rates``)."""
        return self.rule in _PRIOR_WEIGHTED

    def matrix_for(self, K: int, priors: Any = None) -> tuple[tuple[Fraction, ...], ...]:
        """The ``K x K`` loss matrix (exact Fractions; the prior-weighted rules need ``priors``,
        ``P[Y = a]`` for every class, Fractions or floats)."""
        for c in self.classes:
            if c >= K:
                raise InvalidArgument(f"metric {self.name} names class {c}, but the model has {K} classes (0..{K - 1})")
        zero, one = Fraction(0), Fraction(1)
        if self.rule == "matrix":
            if len(self.loss) != K:
                raise InvalidArgument(f"metric {self.name}: loss is {len(self.loss)} x {len(self.loss)}, "
                                      f"but the model has {K} classes; give a {K} x {K} matrix")
            return self.loss  # type: ignore[no-any-return]
        if self.rule == "error":
            return tuple(tuple(zero if a == k else one for k in range(K)) for a in range(K))
        if self.rule == "confusion":
            ca, cb = self.classes
            return tuple(tuple(one if (a, k) == (ca, cb) else zero for k in range(K)) for a in range(K))
        if self.rule == "class_error":
            (c,) = self.classes
            return tuple(tuple(one if a == c and k != c else zero for k in range(K)) for a in range(K))
        if priors is None:
            raise InvalidArgument(f"metric {self.name} divides by the class priors; pass priors")
        for a in range(K):
            if priors[a] == 0:
                raise InvalidArgument(f"metric {self.name} divides by P[Y = {a}], which is 0 under this model")
        if self.rule == "recall":
            (c,) = self.classes
            return tuple(tuple(1 / priors[c] if a == c == k else 0 * priors[a] for k in range(K)) for a in range(K))
        if self.rule == "class_error_rate":
            (c,) = self.classes
            return tuple(tuple(1 / priors[c] if a == c != k else 0 * priors[a] for k in range(K)) for a in range(K))
        return tuple(tuple(0 * priors[a] if a == k else 1 / (K * priors[a]) for k in range(K)) for a in range(K))

    def base_matrix(self, K: int) -> tuple[tuple[Fraction, ...], ...]:
        """The loss of one test point before any division by class counts: the rule's own matrix for
        the shares of the test points; ``e_a e_a^T`` for ``recall(a)``, row ``a`` of ``1 - I`` for
        ``class_error_rate(a)``, ``1 - I`` for ``balanced_error`` (see :meth:`test_set_weights`)."""
        if not self.prior_weighted:
            return self.matrix_for(K)
        for c in self.classes:
            if c >= K:
                raise InvalidArgument(f"metric {self.name} names class {c}, but the model has {K} classes (0..{K - 1})")
        zero, one = Fraction(0), Fraction(1)
        if self.rule == "recall":
            (c,) = self.classes
            return tuple(tuple(one if a == c == k else zero for k in range(K)) for a in range(K))
        if self.rule == "class_error_rate":
            (c,) = self.classes
            return tuple(tuple(one if a == c != k else zero for k in range(K)) for a in range(K))
        return tuple(tuple(zero if a == k else one for k in range(K)) for a in range(K))

    def test_set_weights(self, counts: Any) -> tuple[tuple[Fraction, ...], Fraction]:
        """``(w, c)``: the statistic of a test set with ``counts[k]`` points of class ``k`` is
        ``c + sum_k w_k sum_{test points t of class k} B[k, prediction_t]`` (``B`` the
        :meth:`base_matrix`), as scikit-learn scores that test set.

        The shares of the test points divide by its size. ``recall(a)`` is ``recall_score`` of class
        ``a`` (true positives over ``counts[a]``; a test set without class ``a`` scores 0, scikit-learn's
        ``zero_division`` default); ``class_error_rate(a)`` is one minus that recall (1 on a test set
        without class ``a``); ``balanced_error`` is one minus ``balanced_accuracy_score``, the mean of
        the recalls of the classes present in the test set (scikit-learn leaves out the classes that
        are only predicted)."""
        n = [int(c) for c in counts]
        K, total = len(n), sum(n)
        zero = Fraction(0)
        if not self.prior_weighted:
            return tuple(Fraction(1, total) for _ in range(K)), zero
        if self.rule in ("recall", "class_error_rate"):
            (a,) = self.classes
            w = tuple(Fraction(1, n[a]) if k == a and n[a] else zero for k in range(K))
            return w, (Fraction(1) if self.rule == "class_error_rate" and not n[a] else zero)
        present = sum(1 for c in n if c)
        return tuple(Fraction(1, present * c) if c else zero for c in n), zero

    def population_weights(self, priors: Any) -> tuple[Any, ...]:
        """``omega``: the population value is ``sum_l omega_l E[B[l, g(X)] | Y = l]`` (``P[Y = l]`` for
        the shares of the test points, 1 for ``recall(a)`` and ``class_error_rate(a)``, ``1/K`` for
        ``balanced_error``)."""
        K = len(priors)
        if not self.prior_weighted:
            return tuple(priors)
        if self.rule == "balanced_error":
            return tuple(0 * priors[a] + Fraction(1, K) for a in range(K))
        (c,) = self.classes
        return tuple(0 * priors[a] + (1 if a == c else 0) for a in range(K))

    def matrix(self, model: Any) -> tuple[tuple[Any, ...], ...]:
        """The loss matrix for a :class:`~momentbound.model.cells.CellModel` (its classes and priors)."""
        K = model.n_classes
        priors = [model.prior(a) for a in range(K)] if self.prior_weighted else None
        return self.matrix_for(K, priors)

    def describe(self) -> str:
        return self.name


#: the metric names of :func:`parse_metric` and their number of class indices
METRIC_FORMS = {"error": (LinearMetric.error, 0), "balanced_error": (LinearMetric.balanced_error, 0),
                "confusion": (LinearMetric.confusion_entry, 2), "class_error": (LinearMetric.class_error, 1),
                "recall": (LinearMetric.recall, 1), "class_error_rate": (LinearMetric.class_error_rate, 1)}


def parse_metric(spec: str) -> LinearMetric | None:
    """The metric written ``"error"``, ``"balanced_error"``, ``"confusion:A:B"``, ``"class_error:A"``,
    ``"recall:A"`` or ``"class_error_rate:A"`` (the command line's ``--metric``), or as a metric's own
    name (``"recall[1]"``, ``"confusion[0,1]"``); ``None`` for anything else.

    >>> parse_metric("recall:1") == parse_metric("recall[1]") == LinearMetric.recall(1)
    True
    """
    text = spec.strip()
    if text.endswith("]") and "[" in text:  # a LinearMetric's name
        head, _, rest = text[:-1].partition("[")
        text = ":".join([head, *rest.split(",")])
    name, *args = text.split(":")
    if name not in METRIC_FORMS or len(args) != METRIC_FORMS[name][1] or not all(a.strip().isdigit() for a in args):
        return None
    return METRIC_FORMS[name][0](*(int(a) for a in args))


def as_metric(metric: object) -> LinearMetric:
    """A :class:`LinearMetric` from one or from a name (:func:`parse_metric`: ``"error"``,
    ``"balanced_error"``, ``"recall:1"``, ``"confusion:0:1"``, ...)."""
    if metric is None:
        return LinearMetric.error()
    if isinstance(metric, LinearMetric):
        return metric
    parsed = parse_metric(metric) if isinstance(metric, str) else None
    if parsed is not None:
        return parsed
    raise InvalidArgument(
        f"metric must be a momentbound LinearMetric (e.g. LinearMetric.confusion_entry(0, 1)) or one of 'error', "
        f"'balanced_error', 'confusion:A:B', 'class_error:A', 'recall:A', 'class_error_rate:A' (A, B: class "
        f"indices from 0), got {metric!r}; ratios such as precision or F1 are not linear (use backend='montecarlo')"
    )


def check_metric(metric: object, estimator: Any, backend: object = "exact") -> LinearMetric:
    """The metric as a :class:`LinearMetric`, refused (``InvalidArgument`` naming the fixes: a splitter with
    an exact route, or ``scoring=`` with ``backend="montecarlo"``; command-line options inside the command
    line) when it is not a linear statistic of what ``estimator`` computes (asked of the splitter:
    ``metric_refusal``) or the backend cannot weigh it."""
    from momentbound.guard import cli_mode, option

    m = as_metric(metric)
    if m.is_error:
        return m
    what = estimator.describe()
    montecarlo = option("backend", "montecarlo")
    if isinstance(backend, str) and backend == "montecarlo":
        backends = ("--backend exact, sampling, series or bound:..." if cli_mode()
                    else "backend='exact', 'sampling', 'series' or 'bound:...'")
        raise InvalidArgument(
            f"metric {m.name}: the exact linear-statistic route needs a prediction-probability backend "
            f"({backends}); {montecarlo} simulates the 0-1 error here"
        )
    reason = splitter_member(estimator, "metric_refusal")(m)
    if reason is None:
        return m
    cli = cli_mode()
    if m.prior_weighted and splitter_member(estimator, "metric_refusal")(LinearMetric.confusion_entry(0, 0)) is None:
        # the splitter weighs the shares of its test points, not this division by a class count
        scorer = option("scoring", "recall" if m.rule in ("recall", "class_error_rate") else "balanced_accuracy")
        fixed = ("--splitter cv, stratified-cv, repeated-cv, repeated-stratified-cv, shuffle-split, "
                 "stratified-shuffle-split, resubstitution, bootstrap or 632" if cli else
                 "KFold, StratifiedKFold, RepeatedKFold, RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit, "
                 "Resubstitution, Bootstrap() or Point632()")
        raise InvalidArgument(
            f"metric {m.name} of {what}: {reason}: use {'--splitter ge' if cli else 'GE()'} for the population "
            f"rate, a splitter whose exact route fixes the class counts of its test sets ({fixed}), or {scorer} "
            f"with {montecarlo} (scikit-learn's per-fold ratio)"
        )
    exact = ("--splitter ge, holdout, cv, loo, repeated-cv, stratified-cv, repeated-stratified-cv, shuffle-split, "
             "stratified-shuffle-split, resubstitution, bootstrap or 632 (without --bootstraps)" if cli else
             "GE, HoldOut, KFold, LeaveOneOut, RepeatedKFold, StratifiedKFold, RepeatedStratifiedKFold, "
             "ShuffleSplit, StratifiedShuffleSplit, Resubstitution, Bootstrap() or Point632()")
    raise InvalidArgument(
        f"metric {m.name} has no exact route for {what} ({reason}): use a splitter with one ({exact}), or "
        f"{option('scoring') + ('' if cli else '=')} with {montecarlo} for a scikit-learn scorer of the folds of "
        "the splitters that have folds"
    )


def metric_engine(engine: Any, metric: LinearMetric) -> Any:
    """The moment engine of ``metric``: ``engine`` itself when it already weighs that statistic, else
    one with its loss (:func:`metric_loss`) and the metric, sharing the prediction probabilities."""
    loss = metric_loss(metric, engine.model)
    kept = None if metric.is_error else metric
    if loss == engine.loss and getattr(engine, "metric", None) == kept:
        return engine
    return engine.with_loss(loss, kept)


def metric_loss(metric: LinearMetric, model: Any) -> Any:
    """The moment engine's ``loss``: ``None`` for the 0-1 error (the engine's own weights, bit for
    bit), else the metric's matrix for ``model``."""
    return None if metric.is_error else metric.matrix(model)
