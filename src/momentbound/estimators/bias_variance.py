"""Bias and variance of the 0-1 loss, exactly, from the law of a classifier's prediction at each input
(docs/mathematics.md, section 'Bias and variance of the 0-1 loss').

For a classifier trained on ``n`` iid points of a cell model, the prediction at input ``x`` is a
random class with law ``p_x(k) = P[pred_n(x) = k]`` (over the training sets and the tie coin):
the ``single`` term of a prediction-probability backend, the same numbers ``E[GE_n]`` is built
from. The true class at ``x`` has law ``q_x(k) = P[Y = k | X = x]`` and is independent of the
prediction, so the expected loss at ``x`` is ``L(x) = 1 - sum_k p_x(k) q_x(k)`` and
``E[GE_n] = sum_x P[X = x] L(x)``. Two decompositions of ``L(x)`` are offered:

* **Domingos (2000)**: optimal prediction ``y*`` (the Bayes class), main prediction ``y_m`` (the
  mode of ``p_x``), noise ``N = 1 - q_x(y*)``, bias ``B = 1{y_m != y*}``, variance
  ``V = 1 - p_x(y_m)`` and ``L = c1 N + B + c2 V`` with
  ``c1 = p_x(y*) - P[pred = Y | pred != y*, Y != y*] P[pred != y*]`` and ``c2 = 1`` on unbiased
  inputs, ``c2 = -P[pred = y* | pred != y_m]`` on biased ones (his Theorem 2, for any number of
  classes).
* **Kohavi & Wolpert (1996)**: noise ``(1 - sum q^2)/2``, squared bias ``sum (q - p)^2 / 2``,
  variance ``(1 - sum p^2)/2``, which sum to ``L`` by construction.

Tie rule: when a class is both one of the most probable classes and one of the most probable
predictions, ``y* = y_m`` is the lowest-index such class (no bias is charged for predicting one
of several equally good classes); otherwise each is the lowest-index maximum of its law. With exact
(Fraction) laws these are exact ties; float laws are compared as computed.

References
----------
P. Domingos, "A unified bias-variance decomposition and its applications", ICML 2000;
R. Kohavi and D. Wolpert, "Bias plus variance decomposition for zero-one loss functions", ICML 1996.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from momentbound import guard
from momentbound._validate import as_int, as_sequence
from momentbound.errors import InvalidArgument, InvalidModel
from momentbound.estimators.from_predictions import exact_form_of, resolve_backend
from momentbound.intervals import Enclosure
from momentbound.model.cells import CellModel

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DECOMPOSITIONS", "BiasVariance", "InputTerms", "bias_variance", "bias_variance_curve"]

#: the decompositions :func:`bias_variance` reports
DECOMPOSITIONS = ("domingos", "kohavi-wolpert")

#: largest training size accepted (the exact backends refuse far earlier, by their work estimate)
MAX_N = 10**7

#: seconds per ``(n + 1)^(D + 1)`` of one single term of the exact backend (see ``_Plan.seconds``)
SINGLE_SECONDS = 2e-7


@dataclass(frozen=True)
class InputTerms:
    """The decomposition at one input ``x`` of positive probability.

    ``loss == c1 * noise + bias + c2 * variance`` holds exactly (in Fractions for exact laws); for
    Kohavi-Wolpert ``c1 = c2 = 1`` and ``bias`` is the squared bias.
    """

    x: tuple[int, ...]
    #: ``P[X = x]``
    weight: Any
    #: ``P[Y = k | X = x]`` for every class ``k``
    conditional: tuple[Any, ...]
    #: ``P[pred_n(x) = k]`` for every class ``k``
    predictions: tuple[Any, ...]
    #: optimal (Bayes) prediction ``y*``
    optimal: int
    #: main prediction ``y_m`` (mode of the prediction law)
    main: int
    #: expected 0-1 loss ``1 - sum_k p(k) q(k)``
    loss: Any
    noise: Any
    bias: Any
    variance: Any
    c1: Any
    c2: Any


@dataclass(frozen=True)
class BiasVariance:
    """Noise, bias and variance of the 0-1 loss of a classifier trained on ``n`` points.

    Totals are averages over ``x`` weighted by ``P[X = x]``. ``expected_error`` is ``E[GE_n]``
    and equals ``noise_term + bias + variance_term`` exactly. For Domingos' decomposition
    ``noise_term = E[c1 N]`` and ``variance_term = E[c2 V]`` is the net variance,
    ``unbiased_variance - biased_variance`` with ``unbiased_variance = E[(1 - B) V]`` and
    ``biased_variance = E[B |c2| V] = E[B P[pred = y*]]`` (``E[B V]`` for two classes); for
    Kohavi-Wolpert ``noise_term = noise``, ``variance_term = variance``, ``bias`` is the squared
    bias and the unbiased and biased variances are ``None``.
    """

    n: int
    classifier: str
    decomposition: str
    backend: str
    #: every number is an exact ``Fraction``
    exact: bool
    expected_error: Any
    noise: Any
    noise_term: Any
    bias: Any
    variance: Any
    variance_term: Any
    unbiased_variance: Any
    biased_variance: Any
    inputs: tuple[InputTerms, ...]
    #: the classifier's smoothing ``alpha`` when it has one, else ``None``
    alpha: Any = None

    def as_decomposition(self, decomposition: str) -> "BiasVariance":
        """The same prediction laws decomposed the other way (``"domingos"`` or ``"kohavi-wolpert"``),
        without computing them again."""
        decomposition = _check_decomposition(decomposition)
        rows = [_input_terms(r.x, r.weight, r.conditional, r.predictions, decomposition) for r in self.inputs]
        return _assemble(self.n, self.classifier, self.alpha, self.backend, self.exact, rows, decomposition)

    def totals(self) -> dict[str, Any]:
        """The totals as ``{name: value}`` (``n``, ``alpha``, ``expected_error``, ``noise``, ...)."""
        names = ("expected_error", "noise", "noise_term", "bias", "variance", "variance_term",
                 "unbiased_variance", "biased_variance")
        return {"n": self.n, "alpha": self.alpha, **{k: getattr(self, k) for k in names}}

    def table(self) -> "pd.DataFrame":
        """One row per input: ``x``, ``weight``, ``optimal``, ``main``, ``loss``, the terms and
        ``c1``, ``c2``, and ``p_k`` (prediction law), ``q_k`` (class law) for each class ``k``."""
        import pandas as pd

        rows = []
        for r in self.inputs:
            row: dict[str, Any] = {"x": r.x, "weight": r.weight, "optimal": r.optimal, "main": r.main,
                                   "loss": r.loss, "noise": r.noise, "bias": r.bias, "variance": r.variance,
                                   "c1": r.c1, "c2": r.c2}
            row.update({f"p_{k}": v for k, v in enumerate(r.predictions)})
            row.update({f"q_{k}": v for k, v in enumerate(r.conditional)})
            rows.append(row)
        return pd.DataFrame(rows)


def _optimal_and_main(q: Sequence[Any], p: Sequence[Any]) -> tuple[int, int]:
    """``(y*, y_m)``: the lowest-index class that is both a most probable class and a most probable
    prediction when there is one (then ``y* = y_m``); else the lowest-index of each."""
    best = [k for k, v in enumerate(q) if v == max(q)]
    modes = [k for k, v in enumerate(p) if v == max(p)]
    both = [k for k in best if k in modes]
    return (both[0], both[0]) if both else (best[0], modes[0])


def _safe_ratio(num: Any, den: Any) -> Any:
    return num / den if den else 0 * num


def _input_terms(x: tuple[int, ...], weight: Any, q: Sequence[Any], p: Sequence[Any], decomposition: str) -> InputTerms:
    """The decomposition at one input from its class law ``q`` and prediction law ``p``."""
    K = len(q)
    one = 1 + 0 * (q[0] + p[0])  # 1 in the arithmetic of the laws
    optimal, main = _optimal_and_main(q, p)
    loss = one - sum((p[k] * q[k] for k in range(K)), 0 * one)
    if decomposition == "kohavi-wolpert":
        noise = (one - sum((v * v for v in q), 0 * one)) / 2
        bias = sum(((q[k] - p[k]) ** 2 for k in range(K)), 0 * one) / 2
        variance = (one - sum((v * v for v in p), 0 * one)) / 2
        c1 = c2 = one
    else:
        noise = one - q[optimal]
        biased = main != optimal
        bias = one if biased else 0 * one
        variance = one - p[main]
        # P[pred = Y, pred != y*] = sum_{k != y*} p(k) q(k); given Y != y* it is divided by N
        agree_off = sum((p[k] * q[k] for k in range(K) if k != optimal), 0 * one)
        c1 = p[optimal] - _safe_ratio(agree_off, noise)
        c2 = -_safe_ratio(p[optimal], variance) if biased else one
    return InputTerms(x, weight, tuple(q), tuple(p), optimal, main, loss, noise, bias, variance, c1, c2)


def _check_decomposition(decomposition: object) -> str:
    if decomposition not in DECOMPOSITIONS:
        raise InvalidArgument(
            f"decomposition must be one of {', '.join(map(repr, DECOMPOSITIONS))}, got {decomposition!r}"
        )
    return str(decomposition)


def _point_law(result: Any, backend: Any) -> list[Any]:
    if isinstance(result, Enclosure):
        raise InvalidArgument(
            f"backend {backend.name!r} returns probability intervals, and the decomposition needs the prediction "
            "law itself; use backend='exact' (or 'series' for two classes and alpha = 0)"
        )
    return [v if isinstance(v, Fraction) else float(v) for v in list(result)]


def _mass(model: CellModel, x: tuple[int, ...]) -> Any:
    return sum((model.p(x, k) for k in range(model.n_classes)), 0 * model.cells[0])


def _form_inputs(form_model: CellModel, model: CellModel) -> list[tuple[int, ...]]:
    """For each input of ``model``, the input of the classifier's naive Bayes form that predicts as
    it does (the two shapes of :class:`~momentbound.classifiers.base.ExactForm`): the same index when
    the form keeps every input's probability, else the single input carrying all the mass (a
    classifier that ignores ``x``)."""
    inputs = list(form_model.inputs())
    if form_model.n_inputs == model.n_inputs and all(
            _mass(form_model, z) == _mass(model, x) for z, x in zip(inputs, model.inputs())):
        return inputs
    heavy = [z for z in inputs if _mass(form_model, z) > 0]
    if len(heavy) != 1:  # pragma: no cover - ExactForm documents only these two shapes
        raise InvalidArgument("the classifier's exact form maps inputs in a way the decomposition cannot follow")
    return heavy * model.n_inputs


def _prepare(model: object, classifier: Any, backend: Any, decomposition: object) -> tuple[str, Any]:
    if not isinstance(model, CellModel):
        raise InvalidModel(f"model must be a momentbound.CellModel, got {type(model).__name__}")
    return _check_decomposition(decomposition), resolve_backend(backend)


@dataclass(frozen=True)
class _Plan:
    """One decomposition to compute: the classifier's naive Bayes form and where each input predicts."""

    n: int
    form_model: CellModel
    form_classifier: Any
    classifier: Any
    form_inputs: tuple[tuple[int, ...], ...]

    def seconds(self, backend: Any) -> float:
        """Rough seconds of the exact backend's single terms: ``SINGLE_SECONDS (n + 1)^(D + 1)`` per distinct
        input, ``D`` the free count components of the input (measured on one loaded core: two binary
        attributes 0.3-2.2 s at n = 200 and 0.9-11 s at n = 400; three, 3-23 s at n = 50-100)."""
        if backend.name != "exact":
            return 0.0
        from momentbound.exact.predictions import ComponentSpace

        return sum(SINGLE_SECONDS * (self.n + 1) ** (ComponentSpace(self.form_model.arities, (z,)).dim + 1)
                   for z in set(self.form_inputs))


def _plan(model: CellModel, n: int, classifier: Any, resolved: Any) -> _Plan:
    form_model, form_clf, clf = exact_form_of(model, classifier, str(resolved.name))
    return _Plan(n, form_model, form_clf, clf, tuple(_form_inputs(form_model, model)))


def _check_seconds(plans: Sequence[_Plan], resolved: Any, max_seconds: float | None) -> None:
    sizes = sorted({p.n for p in plans})
    guard.check(f"the exact prediction laws at n = {', '.join(map(str, sizes))}",
                seconds=sum(p.seconds(resolved) for p in plans), max_seconds=max_seconds,
                fix=f"use a smaller {guard.option('n')} (the work grows like a power of n)")


def _decompose(model: CellModel, plan: _Plan, resolved: Any, decomposition: str) -> BiasVariance:
    n, form_model, form_clf, clf = plan.n, plan.form_model, plan.form_classifier, plan.classifier
    K = model.n_classes
    cells: list[tuple[tuple[int, ...], Any, list[Any], list[Any]]] = []
    laws: dict[tuple[int, ...], list[Any]] = {}
    for x, z in zip(model.inputs(), plan.form_inputs):
        joint = [model.p(x, k) for k in range(K)]
        weight = sum(joint[1:], joint[0])
        if weight == 0:  # P[Y | X = x] is undefined and x carries no loss
            continue
        if z not in laws:
            laws[z] = _point_law(resolved.single(form_model, n, z, form_clf), resolved)
        cells.append((x, weight, [v / weight for v in joint], laws[z]))
    exact = model.is_exact and all(isinstance(v, Fraction) for law in laws.values() for v in law)
    cast = (lambda v: v) if exact else float
    rows = [_input_terms(x, cast(w), [cast(v) for v in q], [cast(v) for v in p], decomposition)
            for x, w, q, p in cells]
    alpha = getattr(clf, "alpha_exact", None)
    return _assemble(n, clf.describe(), alpha, str(getattr(resolved, "label", resolved.name)), exact, rows,
                     decomposition)


def _assemble(n: int, classifier: str, alpha: Any, backend: str, exact: bool, rows: list[InputTerms],
              decomposition: str) -> BiasVariance:
    """The totals of per-input terms, weighted by ``P[X = x]``."""

    def avg(f: Any) -> Any:
        return sum((r.weight * f(r) for r in rows), 0 * rows[0].weight)

    domingos = decomposition == "domingos"
    return BiasVariance(
        n=n,
        classifier=classifier,
        decomposition=decomposition,
        backend=backend,
        exact=exact,
        expected_error=avg(lambda r: r.loss),
        noise=avg(lambda r: r.noise),
        noise_term=avg(lambda r: r.c1 * r.noise),
        bias=avg(lambda r: r.bias),
        variance=avg(lambda r: r.variance),
        variance_term=avg(lambda r: r.c2 * r.variance),
        unbiased_variance=avg(lambda r: (1 - r.bias) * r.variance) if domingos else None,
        biased_variance=avg(lambda r: -r.bias * r.c2 * r.variance) if domingos else None,
        inputs=tuple(rows),
        alpha=alpha,
    )


def bias_variance(
    model: CellModel,
    n: int,
    *,
    classifier: Any = None,
    backend: Any = "exact",
    decomposition: str = "domingos",
    max_seconds: float | None = guard.DEFAULT_SECONDS,
) -> BiasVariance:
    """Noise, bias and variance of the 0-1 loss of a classifier trained on ``n`` iid points.

    Parameters
    ----------
    model:
        The data distribution (a :class:`~momentbound.CellModel`).
    n:
        Training-set size (``>= 0``).
    classifier:
        A classifier with an exact form: ``NaiveBayes(...)`` (default ``NaiveBayes()``),
        ``HistogramRule(...)``, ``MajorityRule(...)`` or a ``CategoricalNB`` they translate.
    backend:
        A prediction-probability backend with point values: ``"exact"`` (default; Fractions for an
        exact model and small ``n``, floats beyond) or ``"series"``.
    decomposition:
        ``"domingos"`` (default) or ``"kohavi-wolpert"``.
    max_seconds:
        Refuse (``WorkLimitExceeded``) before any work when the exact backend's prediction laws
        would take longer by a rough estimate; ``None`` lifts the limit.

    Returns
    -------
    BiasVariance
        Totals and the per-input terms; ``expected_error`` is ``E[GE_n]``.

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> m = CellModel((2,), ["2/5", "1/10", "1/10", "2/5"])
    >>> r = bias_variance(m, 4)
    >>> r.expected_error == r.noise_term + r.bias + r.variance_term, r.noise
    (True, Fraction(1, 5))
    """
    decomposition, resolved = _prepare(model, classifier, backend, decomposition)
    n = as_int(n, "n", minimum=0)
    if n > MAX_N:
        raise InvalidArgument(f"n must be at most {MAX_N}, got {n}; the exact prediction laws are out of reach there")
    plan = _plan(model, n, classifier, resolved)
    _check_seconds([plan], resolved, max_seconds)
    return _decompose(model, plan, resolved, decomposition)


def bias_variance_curve(
    model: CellModel,
    sizes: Sequence[int],
    *,
    classifier: Any = None,
    alphas: Sequence[Any] | None = None,
    backend: Any = "exact",
    decomposition: str = "domingos",
    max_seconds: float | None = guard.DEFAULT_SECONDS,
) -> tuple[BiasVariance, ...]:
    """:func:`bias_variance` for every training size in ``sizes`` and, when ``alphas`` is given,
    every smoothing ``alpha`` of the classifier (alpha-major order: all sizes of the first alpha,
    then the next). ``alphas`` needs a classifier with an ``alpha`` parameter (naive Bayes);
    ``max_seconds`` limits the whole curve, checked before any work.

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> m = CellModel((2,), ["2/5", "1/10", "1/10", "2/5"])
    >>> [r.n for r in bias_variance_curve(m, (2, 4))]
    [2, 4]
    """
    from momentbound.classifiers import NaiveBayes, as_classifier

    decomposition, resolved = _prepare(model, classifier, backend, decomposition)
    grid = [as_int(v, "sizes", minimum=0) for v in as_sequence(sizes, "sizes", example="(5, 10, 20)")]
    if not grid:
        raise InvalidArgument("sizes must hold at least one training size, e.g. (5, 10, 20)")
    if max(grid) > MAX_N:
        raise InvalidArgument(f"sizes must be at most {MAX_N}, got {max(grid)}")
    clf = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    if alphas is None:
        classifiers = [clf]
    else:
        values = as_sequence(alphas, "alphas", example="(0, 0.5, 1)")
        if not values:
            raise InvalidArgument("alphas must hold at least one smoothing value, e.g. (0, 0.5, 1)")
        if not (dataclasses.is_dataclass(clf) and "alpha" in {f.name for f in dataclasses.fields(clf)}):
            raise InvalidArgument(f"alphas needs a classifier with a smoothing alpha (naive Bayes), "
                                  f"got {clf.describe()}; drop alphas")
        classifiers = [dataclasses.replace(clf, alpha=a) for a in values]  # validated by the classifier
    plans = [_plan(model, n, c, resolved) for c in classifiers for n in grid]
    _check_seconds(plans, resolved, max_seconds)
    return tuple(_decompose(model, p, resolved, decomposition) for p in plans)
