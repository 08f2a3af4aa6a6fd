"""scikit-learn's classification scorers under cross-validation, by Monte Carlo over datasets.

``cross_val_score(clf, X, y, cv=..., scoring=s)`` returns one score per fold and users report their
mean. :func:`monte_carlo_scores` draws datasets of ``N`` i.i.d. points from a cell model as the
fold count tables of the splitter (its ``score_folds`` member: :class:`~momentbound.splitters.KFold`,
:class:`~momentbound.splitters.StratifiedKFold`, :class:`~momentbound.splitters.HoldOut`, ``LeaveOneOut``,
the repeated k-folds and the shuffle-splits), trains
the classifier on each training table, and computes every fold's score from its confusion counts
(or, for the ROC AUC, from the counts of each score level) in numpy, for many datasets at once.

Semantics (those of scikit-learn's scorer of the same name, ``error_score=nan``):

* ``accuracy``: correct test points over test points.
* ``balanced_accuracy``: the mean recall over the classes present in the fold's ``y_true`` (a class
  predicted but absent from ``y_true`` is left out, as scikit-learn does after its warning).
* ``recall``, ``precision``, ``f1`` (two classes, ``pos_label=1``): ``tp / (tp + fn)``,
  ``tp / (tp + fp)``, ``2 tp / (2 tp + fp + fn)``; an empty denominator gives 0
  (``zero_division="warn"``). A fold whose training part holds class 0 only makes the scorer raise
  (``pos_label=1`` is not among the fitted classes), so the fold's score is ``nan``.
* ``recall_macro``, ``precision_macro``, ``f1_macro``: the unweighted mean of the per-class values
  over the classes present in the fold's ``y_true`` or predictions (zero divisions give 0).
* ``roc_auc`` (two classes): the Mann-Whitney statistic of the predicted probability of class 1,
  ties counted 1/2; ``nan`` when the fold's test part holds one class or its training part lacks
  a class. ``roc_auc_ovr``: with every class fitted, the mean over classes of the one-vs-rest AUC of
  that class's probability, ``nan`` unless the test part holds every fitted class; with two fitted
  classes ``a < b`` the AUC of the probability of ``b`` for the larger against the smaller of the
  two classes of the test part (``nan`` unless it holds exactly two). Scores are the naive Bayes
  posteriors computed as ``CategoricalNB.predict_proba`` does (float64, the same operations), so
  equal and unequal scores are those scikit-learn sees.

A dataset has a score when every fold's score is defined; ``cross_val_score`` gives ``nan`` for
the others. The result reports the fraction of such datasets (``undefined``) and the moments of
the score over the datasets that have one (never mixed with a fallback value).

The counterpart of ``GE_N`` is the **population** value of the same metric for the classifier
trained on all ``N`` points, exact per dataset from the cell model: the metric of the population
confusion rates ``P[Y = y, prediction = k]`` (tie coins as their probabilities), and the population
AUC ``P[s(X1) > s(X0)] + P[s(X1) = s(X0)] / 2`` of ``X1 ~ P(x | Y = 1)`` and ``X0 ~ P(x | Y = 0)``
(one-vs-rest and averaged for ``roc_auc_ovr``; a class absent from the training data has
probability 0 everywhere, so a classifier fitted on one class has population AUC 1/2).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.intervals import Interval
from momentbound.model.cells import CellModel

__all__ = [
    "SCORINGS", "ScoreMoments", "RocBand", "check_scoring", "confusion_scores", "rank_scores",
    "naive_bayes_proba", "population_scores", "pooled_auc", "POOLED_AUC", "monte_carlo_scores", "roc_band", "fold_scores", "full_scores",
    "scoring_setup", "population_roc", "scored_moments", "check_scoring_run", "statistic_folds",
]

#: scikit-learn's scorer names offered by ``scoring=``
SCORINGS = ("accuracy", "balanced_accuracy", "recall", "precision", "f1", "recall_macro", "precision_macro",
            "f1_macro", "roc_auc", "roc_auc_ovr")
#: the pooled AUC, ``roc_auc_score(y, cross_val_predict(clf, X, y, cv=..., method="predict_proba")[:, 1])``
#: (not a scorer: one AUC of the out-of-fold probabilities of every point, two classes)
POOLED_AUC = "roc_auc_pooled"
#: every name ``scoring=`` takes
SCORING_NAMES = SCORINGS + (POOLED_AUC,)
#: the scorers with ``pos_label=1`` (two classes only)
BINARY_SCORINGS = ("recall", "precision", "f1", "roc_auc", POOLED_AUC)
#: the scorers of the classifier's probabilities (the others use its predictions)
RANK_SCORINGS = ("roc_auc", "roc_auc_ovr", POOLED_AUC)

# fold tables times cells times classes (or input pairs) per chunk of datasets (bounds one chunk's memory)
_CHUNK_ENTRIES = 4_000_000
# measured on the naive Bayes kernels: about this many seconds per dataset, fold and cell
_SECONDS_PER_CELL = 3e-6


def check_scoring(scoring: object, n_classes: int | None = None) -> str:
    """``scoring`` as a scorer name of :data:`SCORINGS`, checked against the number of classes."""
    if not isinstance(scoring, str) or scoring not in SCORING_NAMES:
        raise InvalidArgument(f"scoring must be one of scikit-learn's scorer names {', '.join(SCORINGS)}, or "
                              f"{POOLED_AUC!r} (the AUC of the pooled out-of-fold probabilities); got {scoring!r}")
    if n_classes is not None and n_classes != 2 and scoring in BINARY_SCORINGS:
        other = "roc_auc_ovr" if scoring in ("roc_auc", POOLED_AUC) else f"{scoring}_macro"
        raise InvalidArgument(f"scoring={scoring!r} is scikit-learn's binary scorer (pos_label=1) and the model "
                              f"has {n_classes} classes: use scoring={other!r}")
    return scoring


# ----------------------------------------------------------------------------- scores from counts
def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den == 0`` (scikit-learn's ``zero_division="warn"``)."""
    return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def confusion_scores(conf: np.ndarray, scoring: str, trained: np.ndarray | None = None) -> np.ndarray:
    """The scores of confusion matrices ``conf[..., y, k]`` (true class ``y``, predicted ``k``; counts
    or population rates): shape ``conf.shape[:-2]``, ``nan`` where scikit-learn's scorer raises.

    ``trained[..., k]``: class ``k`` was in the training data (the fitted ``classes_``); ``None``:
    every class (population values).
    """
    c = np.asarray(conf, dtype=float)
    true, pred = c.sum(axis=-1), c.sum(axis=-2)
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    if scoring == "accuracy":
        return tp.sum(axis=-1) / true.sum(axis=-1)
    if scoring == "balanced_accuracy":
        present = true > 0
        return (_ratio(tp, true) * present).sum(axis=-1) / present.sum(axis=-1)
    base = scoring.removesuffix("_macro")
    if base == "recall":
        per = _ratio(tp, true)
    elif base == "precision":
        per = _ratio(tp, pred)
    elif base == "f1":
        per = _ratio(2 * tp, true + pred)
    else:
        raise InvalidArgument(f"scoring={scoring!r} is not a confusion-matrix score; use one of "
                              f"{', '.join(s for s in SCORINGS if s not in RANK_SCORINGS)}")
    if scoring.endswith("_macro"):
        labels = (true > 0) | (pred > 0)
        return (per * labels).sum(axis=-1) / labels.sum(axis=-1)
    out = per[..., 1].copy()
    if trained is not None:
        out[~np.asarray(trained, dtype=bool)[..., 1]] = np.nan
    return out


def _mann_whitney(pos: np.ndarray, neg: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``P[s(X1) > s(X0)] + P[=] / 2`` for weights ``pos``, ``neg`` and scores ``score`` over the
    inputs (last axis); ``nan`` when a side has no weight."""
    above = (score[..., :, None] > score[..., None, :]) + 0.5 * (score[..., :, None] == score[..., None, :])
    u = np.einsum("...x,...y,...xy->...", pos, neg, above)
    den = pos.sum(axis=-1) * neg.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, u / np.where(den > 0, den, 1), np.nan)


def rank_scores(counts: np.ndarray, proba: np.ndarray, trained: np.ndarray, scoring: str) -> np.ndarray:
    """ROC AUC scores of test count tables ``counts[..., x, y]`` with class probabilities
    ``proba[..., x, k]`` of classifiers fitted on the classes ``trained[..., k]``: shape
    ``counts.shape[:-2]``, ``nan`` where scikit-learn's scorer gives ``nan`` or raises.

    ``roc_auc``: class 1 against class 0 (both fitted and present). ``roc_auc_ovr``: see the
    module docstring (the pairing of fitted and present classes by rank, as scikit-learn's)."""
    counts = np.asarray(counts, dtype=float)
    K = counts.shape[-1]
    lead = counts.shape[:-2]
    flat_c = counts.reshape((-1,) + counts.shape[-2:])
    flat_p = np.asarray(proba, dtype=float).reshape(flat_c.shape[0], -1, K)
    fitted = np.asarray(trained, dtype=bool).reshape(-1, K)
    labels = flat_c.sum(axis=1) > 0
    out = np.full(flat_c.shape[0], np.nan)
    weights = 2 ** np.arange(K)
    key = (fitted @ weights) * 2**K + labels @ weights
    for pattern in np.unique(key):
        rows = np.flatnonzero(key == pattern)
        S = [k for k in range(K) if (pattern >> K) >> k & 1]
        L = [k for k in range(K) if pattern >> k & 1]
        c, p = flat_c[rows], flat_p[rows]
        if scoring == "roc_auc":
            if S == [0, 1] and L == [0, 1]:
                out[rows] = _mann_whitney(c[..., 1], c[..., 0], p[..., 1])
        elif len(S) == 2:
            if len(L) == 2:
                out[rows] = _mann_whitney(c[..., L[1]], c[..., L[0]], p[..., S[1]])
        elif len(S) > 2 and len(L) == len(S):
            total = c.sum(axis=-1)
            out[rows] = np.mean([_mann_whitney(c[..., y], total - c[..., y], p[..., k])
                                 for y, k in zip(L, S)], axis=0)
    return out.reshape(lead)


# ----------------------------------------------------------------------------- naive Bayes scores
def naive_bayes_proba(tables: np.ndarray, arities: tuple[int, ...], K: int,
                      alpha: Any) -> tuple[np.ndarray, np.ndarray]:
    """``CategoricalNB.predict_proba`` of naive Bayes fitted on count tables ``(n, cells)``: the
    probabilities ``(n, inputs, K)`` (0 for a class absent from training) and the fitted classes
    ``(n, K)``.

    The float64 operations are scikit-learn's (``_joint_log_likelihood`` summed attribute by
    attribute, then ``exp(jll - logsumexp(jll))`` over the fitted classes), so the values agree
    bit for bit and ties between inputs are the ties scikit-learn ranks.
    """
    from fractions import Fraction

    from scipy.special import logsumexp

    from momentbound.classifiers.naive_bayes import sklearn_logs

    T = np.asarray(tables, dtype=np.int64)
    n = T.shape[0]
    shaped = T.reshape((n,) + tuple(arities) + (K,))
    totals = shaped.reshape(n, -1, K).sum(axis=1)  # (n, K)
    N_all = totals.sum(axis=1)
    log_smoothed, log_class, log_count = sklearn_logs(Fraction(alpha), tuple(int(a) for a in arities),
                                                      int(max(N_all.max(initial=0), 1)))
    inputs = list(np.ndindex(*arities))
    jll = np.zeros((n, len(inputs), K))
    d = len(arities)
    with np.errstate(divide="ignore", invalid="ignore"):  # a class absent from training: never a column
        for j in range(d):
            axes = tuple(1 + i for i in range(d) if i != j)
            marg = shaped.sum(axis=axes) if axes else shaped  # (n, a_j, K)
            values = np.array([x[j] for x in inputs])
            feature = log_smoothed[marg] - log_class[j][totals][:, None, :]  # (n, a_j, K)
            jll = jll + feature[:, values, :]
        jll = jll + (log_count[totals] - log_count[N_all][:, None])[:, None, :]
    fitted = totals > 0
    proba = np.zeros_like(jll)
    weights = 2 ** np.arange(K)
    key = fitted @ weights
    for pattern in np.unique(key):
        rows = np.flatnonzero(key == pattern)
        cols = [k for k in range(K) if pattern >> k & 1]
        sub = jll[np.ix_(rows, np.arange(len(inputs)), cols)].reshape(-1, len(cols))
        lse = logsumexp(sub, axis=1)
        proba[np.ix_(rows, np.arange(len(inputs)), cols)] = np.exp(sub - np.atleast_2d(lse).T).reshape(
            rows.size, len(inputs), len(cols))
    return proba, fitted


def population_scores(p: np.ndarray, K: int, scoring: str, predictions: np.ndarray,
                      proba: np.ndarray | None = None) -> np.ndarray:
    """The population value of ``scoring`` for classifiers with prediction probabilities
    ``predictions[n, x, k]`` (and class probabilities ``proba`` for the AUC) under the flat cell
    probabilities ``p``: shape ``(n,)``."""
    cells = np.asarray(p, dtype=float).reshape(-1, K)  # (inputs, K)
    if scoring in RANK_SCORINGS:
        assert proba is not None
        if scoring != "roc_auc_ovr" or K == 2:  # scikit-learn's ovr scorer on two classes ranks class 1 too
            return _mann_whitney(cells[:, 1], cells[:, 0], proba[..., 1])
        total = cells.sum(axis=1)
        classes = [k for k in range(K) if 0 < cells[:, k].sum() < 1]
        return np.mean([_mann_whitney(cells[:, k], total - cells[:, k], proba[..., k]) for k in classes], axis=0)
    rates = np.einsum("xy,nxk->nyk", cells, predictions)
    return confusion_scores(rates, scoring)


# ----------------------------------------------------------------------------- the simulation
@dataclass(frozen=True, kw_only=True)
class ScoreMoments:
    """Monte Carlo moments of a cross-validated scikit-learn score (result of :func:`monte_carlo_scores`).

    Every number is an :class:`~momentbound.intervals.Interval` (confidence interval at level
    ``confidence`` with the point ``estimate``) over the datasets whose every fold has a score.

    Attributes
    ----------
    scoring, estimator, N, classifier:
        What was simulated: the scorer name, the splitter, the dataset size, the classifier.
    mean, variance, std:
        Moments of the estimate (the mean of the fold scores, as ``cross_val_score(...).mean()``).
    ge_full_mean, ge_full_variance:
        Moments of the population value of the metric for the classifier trained on all ``N`` points.
    bias, deviation_variance, mean_square, rms, covariance_with_ge, correlation_with_ge:
        ``E[est - pop]``, ``Var(est - pop)``, ``E[(est - pop)^2]``, its square root, ``Cov(est, pop)``
        and the correlation (``None`` when a variance is 0).
    undefined:
        Fraction of datasets with a fold whose score is undefined (``nan`` in ``cross_val_score``),
        an interval; ``undefined_draws`` of the ``draws`` datasets.
    folds:
        Number of folds (test sets) per dataset.
    backend, kind, draws, confidence, seconds:
        ``"montecarlo"``, ``Kind.ESTIMATE``, datasets drawn, interval level, wall-clock seconds.
    """

    scoring: str
    estimator: Any
    N: int
    classifier: Any
    mean: Interval
    variance: Interval
    std: Interval
    ge_full_mean: Interval
    ge_full_variance: Interval
    bias: Interval
    deviation_variance: Interval
    mean_square: Interval
    rms: Interval
    covariance_with_ge: Interval
    correlation_with_ge: Interval | None
    undefined: Interval
    undefined_draws: int
    folds: int
    draws: int
    confidence: float
    backend: str = "montecarlo"
    kind: Any = None
    seconds: float = field(default=0.0, compare=False)

    def as_row(self) -> dict[str, Any]:
        """A flat row: point estimates under the field names, intervals as ``_lower``/``_upper``."""
        row: dict[str, Any] = {"scoring": self.scoring, "estimator": self.estimator.describe(), "N": self.N,
                               "classifier": self.classifier.describe()}
        for name in ("mean", "variance", "std", "ge_full_mean", "ge_full_variance", "bias", "deviation_variance",
                     "mean_square", "rms", "covariance_with_ge", "correlation_with_ge", "undefined"):
            value = getattr(self, name)
            row[name] = None if value is None else float(value.estimate)
            row[f"{name}_lower"] = None if value is None else float(value.lower)
            row[f"{name}_upper"] = None if value is None else float(value.upper)
        row.update(undefined_draws=self.undefined_draws, folds=self.folds, draws=self.draws,
                   confidence=self.confidence, backend=self.backend, seconds=self.seconds)
        return row


@dataclass(frozen=True)
class _Setup:
    """What a scoring simulation needs: the table model, its naive Bayes form (for scores) and the
    fold sampler."""

    table: Any
    nb: Any
    sampler: Any
    folds: int = 1
    multimetric: bool = False


def _setup(model: CellModel, N: int, estimator: Any, classifier: Any, draws: object, confidence: object,
           rng: object, scoring: str | None, max_seconds: float | None) -> tuple[Any, Any, _Setup]:
    """Validate everything before any work; returns ``(estimator, classifier, setup)``.

    ``scoring=None``: the classifier trained on all ``N`` points only (``estimator`` is ``GE()``),
    scored by its probabilities (:func:`roc_band`)."""
    from momentbound import guard
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.classifiers.base import classifier_member
    from momentbound.estimators.simulation import MIN_DRAWS, TableModel, check_arguments
    from momentbound.splitters.basic import splitter_member
    from momentbound.splitters.registry import as_splitter

    estimator = as_splitter(estimator)
    clf = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    check_arguments(model, N, estimator, clf, draws, confidence, rng)
    if scoring is not None:
        check_scoring(scoring, model.n_classes)
    sampler = splitter_member(estimator, "score_folds")
    if sampler is None and scoring is not None:
        raise InvalidArgument(f"scoring= simulates the folds of KFold, StratifiedKFold, HoldOut, LeaveOneOut, the "
                              f"repeated k-folds and the shuffle-splits; {estimator.describe()} has no fold tables to "
                              "score: use one of those")
    split = estimator.split(N)
    folds = len(split.fold_sizes) if scoring is None else _check_folds(estimator, sampler, model, N, scoring)
    if getattr(estimator, "average", "folds") != "folds":
        raise InvalidArgument("scoring= reports the mean of the fold scores, as cross_val_score(...).mean(): "
                              "use the splitter's default average='folds'")
    seeded = getattr(clf, "seeded", None)
    if callable(seeded):
        clf = seeded(rng)
    form = clf.exact_form(model)
    table = TableModel(model, clf) if form is None else TableModel(form.model, form.classifier)
    nb = form.classifier if form is not None and classifier_member(form.classifier, "naive_bayes_kernel") else None
    if (scoring is None or scoring in RANK_SCORINGS) and nb is None:
        raise InvalidArgument(f"{'roc_band' if scoring is None else f'scoring={scoring!r}'} ranks the classifier's probabilities, which momentbound "
                              f"computes for naive Bayes (and CategoricalNB); {clf.describe()} has none: "
                              "use a prediction scorer such as 'balanced_accuracy' or 'f1'")
    if (scoring is None or scoring in RANK_SCORINGS) and nb.alpha_exact == 0:
        raise InvalidArgument(f"{'roc_band' if scoring is None else f'scoring={scoring!r}'} ranks naive Bayes "
                              "probabilities, which need alpha > 0 (with alpha = 0 an input unseen in training has "
                              "probability 0/0 in every class): use "
                              + ("--alpha 1" if guard.cli_mode() else "e.g. NaiveBayes('sklearn', 1)")
                              + ", CategoricalNB's default")
    if scoring is None or scoring in RANK_SCORINGS or getattr(nb, "ties", None) == "sklearn":
        # CategoricalNB's logarithms of every count up to N
        guard.check(f"naive Bayes probabilities for counts up to N = {split.N}",
                    memory=8.0 * (split.N + 1) * (2 + len(model.arities)), fix=f"use a smaller {guard.option('N')}")
    seconds = _SECONDS_PER_CELL * int(draws) * folds * table.p.size
    if table.layout is None:  # a scikit-learn fit per training table (milliseconds each)
        seconds += 2e-3 * int(draws) * folds
    guard.check(f"{int(draws)} datasets of {folds} fold(s) over {table.p.size} cells", seconds=seconds,
                max_seconds=max_seconds,
                fix=f"use fewer {guard.option('draws')} (at least {MIN_DRAWS}) or fewer folds")
    return estimator, clf, _Setup(table, nb, sampler, folds)


def _check_folds(estimator: Any, sampler: Any, model: CellModel, N: int, scoring: str) -> int:
    """The number of fold tables the splitter scores per dataset; refuses a scorer that its folds leave
    undefined, from one throwaway draw of its fold tables (the splitter's own refusals, e.g. infinitely
    many repetitions, come first)."""
    p = np.asarray([float(c) for c in model.cells])
    test, _, full = sampler(p / p.sum(), model.n_classes, estimator.split(N).N, 1, np.random.default_rng(0))
    if scoring == POOLED_AUC:
        if not np.array_equal(test.sum(axis=1), full):
            raise InvalidArgument(f"scoring={POOLED_AUC!r} pools the out-of-fold probabilities of every point, as "
                                  f"cross_val_predict does, so each point must be tested exactly once; "
                                  f"{estimator.describe()} is not a partition: use KFold, StratifiedKFold or "
                                  "LeaveOneOut (or scoring='roc_auc', the mean of the fold AUCs)")
    elif scoring in RANK_SCORINGS and test.sum(axis=2).max() == 1:
        raise InvalidArgument(f"scoring={scoring!r} of folds of one test point is undefined in scikit-learn (one "
                              f"class in every fold: nan for every dataset) with {estimator.describe()}: use "
                              f"scoring={POOLED_AUC!r} (the AUC of cross_val_predict's pooled probabilities) or "
                              "larger test folds")
    return int(test.shape[1])


def _predicted_counts(test: np.ndarray, g: np.ndarray, K: int, rng: np.random.Generator) -> np.ndarray:
    """Confusion counts ``(n, K, K)`` of test tables ``(n, cells)`` under prediction probabilities
    ``g (n, inputs, K)``: exact for deterministic predictions, tie coins drawn per test point."""
    F = test.reshape(test.shape[0], -1, K)  # (n, inputs, y)
    if np.all((g == 0) | (g == 1)):
        return np.einsum("nxy,nxk->nyk", F, g.astype(np.int64))
    split = rng.multinomial(F, np.broadcast_to(g[:, :, None, :], F.shape + (K,)))
    return split.sum(axis=1)


def pooled_auc(test: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """The AUC of the pooled out-of-fold probabilities of class 1: test tables ``(n, folds, inputs, 2)``
    and the probabilities ``(n, folds, inputs, 2)`` of each fold's classifier (0 for a class absent from
    its training part, as ``cross_val_predict`` fills it) to ``(n,)``; ``nan`` for a dataset of one class
    (``roc_auc_score`` raises)."""
    n = test.shape[0]
    return _mann_whitney_sorted(test[..., 1].reshape(n, -1), test[..., 0].reshape(n, -1),
                                proba[..., 1].reshape(n, -1))


def _mann_whitney_sorted(pos: np.ndarray, neg: np.ndarray, score: np.ndarray) -> np.ndarray:
    """:func:`_mann_whitney` of rows ``(n, M)`` by sorting (time ``M log M``, memory ``M`` per row): every
    positive weight counts the negative weight of the lower scores and half of the equal ones."""
    order = np.argsort(score, axis=1, kind="stable")
    s, p, q = (np.take_along_axis(a, order, axis=1) for a in (score, pos, neg))
    n, M = s.shape
    idx = np.broadcast_to(np.arange(M), (n, M))
    new = np.ones((n, M), dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)  # first index of each element's tie group
    last = np.ones((n, M), dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, idx, M), axis=1), axis=1), axis=1)
    below = np.concatenate([np.zeros((n, 1)), np.cumsum(q, axis=1)], axis=1)  # negative weight before index i
    lower = np.take_along_axis(below, start, axis=1)
    tied = np.take_along_axis(below, end + 1, axis=1) - lower
    u = (p * (lower + 0.5 * tied)).sum(axis=1)
    den = p.sum(axis=1) * q.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, u / np.where(den > 0, den, 1), np.nan)


def fold_scores(setup: _Setup, test: np.ndarray, train: np.ndarray, scoring: str,
                rng: np.random.Generator) -> np.ndarray:
    """The score of every fold: test and training count tables ``(n, folds, cells)`` to ``(n, folds)``
    (``nan`` where scikit-learn's scorer gives ``nan`` or raises); for :data:`POOLED_AUC` one score per
    dataset, ``(n, 1)``."""
    m = setup.table
    K, (n, v, C) = m.K, test.shape
    flat_test, flat_train = test.reshape(n * v, C), train.reshape(n * v, C)
    if scoring == POOLED_AUC:
        proba, _ = naive_bayes_proba(flat_train, m.arities, K, setup.nb.alpha_exact)
        return pooled_auc(test.reshape(n, v, -1, K), proba.reshape(n, v, -1, K))[:, None]
    if scoring in RANK_SCORINGS:
        proba, fitted = naive_bayes_proba(flat_train, m.arities, K, setup.nb.alpha_exact)
        fold = rank_scores(flat_test.reshape(n * v, -1, K), proba, fitted, scoring)
    else:
        conf = _predicted_counts(flat_test, m.predictions(flat_train), K, rng)
        trained = None if setup.multimetric else flat_train.reshape(n * v, -1, K).sum(axis=1) > 0
        fold = confusion_scores(conf, scoring, trained)
    return fold.reshape(n, v)


def full_scores(setup: _Setup, full: np.ndarray, scoring: str) -> np.ndarray:
    """The population value of ``scoring`` for the classifier trained on each full table ``(n, cells)``."""
    m = setup.table
    if scoring in RANK_SCORINGS:
        proba, _ = naive_bayes_proba(full, m.arities, m.K, setup.nb.alpha_exact)
        return population_scores(m.p, m.K, scoring, None, proba)  # type: ignore[arg-type]
    return population_scores(m.p, m.K, scoring, m.predictions(full))


def scoring_setup(model: CellModel, classifier: Any = None, scoring: str | None = None) -> _Setup:
    """The table model (and naive Bayes form) :func:`fold_scores` and :func:`full_scores` use for a
    model and classifier, without a simulation (the count tables come from the caller)."""
    from momentbound.splitters.basic import KFold

    return _setup(model, 2, KFold(2), classifier, 200, 0.95, np.random.default_rng(0), scoring, None)[2]


def _chunk_scores(setup: _Setup, N: int, scoring: str, r: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``r`` datasets: the mean of their fold scores (``nan`` with an undefined fold) and the
    population value of the classifier trained on all ``N`` points."""
    test, train, full = setup.sampler(setup.table.p, setup.table.K, N, r, rng)
    return fold_scores(setup, test, train, scoring, rng).mean(axis=1), full_scores(setup, full, scoring)


def _stats_fields(score: np.ndarray, pop: np.ndarray, confidence: float) -> dict[str, Any]:
    """The moments of the scores and of their deviation from the population values, with intervals."""
    from momentbound.estimators.simulation import (correlation_interval, draw_covariance, draw_mean, draw_variance,
                                                   interval_sqrt)

    variance, gvar = draw_variance(score, confidence), draw_variance(pop, confidence)
    cov = draw_covariance(score, pop, confidence)
    msq = draw_mean((score - pop) ** 2, confidence)
    return {
        "mean": draw_mean(score, confidence), "variance": variance, "std": interval_sqrt(variance),
        "ge_full_mean": draw_mean(pop, confidence), "ge_full_variance": gvar,
        "bias": draw_mean(score - pop, confidence, -1.0, 1.0),
        "deviation_variance": draw_variance(score - pop, confidence), "mean_square": msq, "rms": interval_sqrt(msq),
        "covariance_with_ge": cov, "correlation_with_ge": correlation_interval(cov, variance, gvar),
    }


def monte_carlo_scores(
    model: CellModel,
    N: int,
    estimator: Any,
    *,
    scoring: str,
    classifier: Any = None,
    draws: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    max_seconds: float | None = 120.0,
    multimetric: bool = False,
) -> ScoreMoments:
    """Moments of ``cross_val_score(clf, X, y, cv=estimator, scoring=scoring).mean()`` over datasets
    of ``N`` i.i.d. points, and of its deviation from the population value of the metric for the
    classifier trained on all ``N`` points, with confidence intervals.

    Parameters
    ----------
    model:
        The data distribution (:class:`~momentbound.model.cells.CellModel`).
    N:
        Dataset size.
    estimator:
        ``KFold(v)``, ``StratifiedKFold(v)`` (``cv=v`` of a classifier), ``HoldOut(...)``, ``LeaveOneOut()``,
        ``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``, ``StratifiedShuffleSplit`` (finite
        repetitions; the score is the mean over the folds of every repetition): any splitter with ``score_folds``.
    scoring:
        A scikit-learn scorer name of :data:`SCORINGS` (semantics in the module docstring), or
        :data:`POOLED_AUC` (``"roc_auc_pooled"``): ``roc_auc_score(y, cross_val_predict(clf, X, y, cv=estimator,
        method="predict_proba")[:, 1])``, one AUC of the out-of-fold probabilities (splitters that test
        every point once).
    classifier:
        ``NaiveBayes(...)`` (default ``NaiveBayes()``) or a scikit-learn classifier;
        ``NaiveBayes(ties="sklearn", alpha=a)`` is ``CategoricalNB(alpha=a)``. The AUC scorers need
        naive Bayes (its probabilities).
    draws, confidence, rng:
        Number of datasets (``>= 200``), interval level, ``numpy.random.Generator``.
    max_seconds:
        Refuse (before any work) a run estimated to take longer; ``None`` disables it.
    multimetric:
        ``True``: ``recall``, ``precision`` and ``f1`` as ``cross_validate(..., scoring=[...])`` computes
        them when a scorer without ``pos_label`` (``accuracy``, ``balanced_accuracy``, a ``_macro`` one)
        comes first in the list: they reuse its cached predictions and skip the check that class 1 was
        fitted, so a fold trained without class 1 scores its predictions (0) instead of ``nan``.

    Returns
    -------
    ScoreMoments

    Examples
    --------
    >>> from momentbound import CellModel
    >>> from momentbound.splitters import StratifiedKFold
    >>> r = monte_carlo_scores(CellModel((2,), ["3/10", "1/10", "1/5", "2/5"]), 20, StratifiedKFold(2),
    ...                        scoring="f1", draws=1000, rng=np.random.default_rng(0))
    >>> r.mean.lower <= r.mean.estimate <= r.mean.upper, r.undefined.estimate < 0.5
    (True, True)
    """
    from momentbound.bounds.result import Kind

    start = time.perf_counter()
    if not isinstance(multimetric, bool):
        raise InvalidArgument(f"multimetric must be True or False, got {multimetric!r}")
    estimator, clf, setup = _setup(model, N, estimator, classifier, draws, confidence, rng, scoring, max_seconds)
    if multimetric:
        setup = replace(setup, multimetric=True)
    N = estimator.split(N).N
    R = int(draws)
    v = setup.folds
    inputs = setup.table.p.size // setup.table.K  # the AUC compares every pair of inputs of a fold
    per = max(1, v * max(setup.table.p.size * setup.table.K, inputs * inputs))
    if scoring == POOLED_AUC:  # the sorted (fold, input) scores of a dataset
        per = max(per, 8 * v * inputs)
    chunk = max(1, _CHUNK_ENTRIES // per)
    scores, pops = [], []
    for lo in range(0, R, chunk):
        s, g = _chunk_scores(setup, N, scoring, min(chunk, R - lo), rng)
        scores.append(s)
        pops.append(g)
    score, pop = np.concatenate(scores), np.concatenate(pops)
    defined = ~np.isnan(score)
    used = int(defined.sum())
    if used < 2:
        raise InvalidArgument(
            f"{scoring!r} was undefined (a nan fold in cross_val_score) on {R - used} of {R} datasets of "
            f"N = {N} points: there is nothing to average; use a larger N or fewer folds")
    from momentbound.estimators.simulation import draw_mean

    undefined = draw_mean((~defined).astype(float), float(confidence))
    return ScoreMoments(
        scoring=scoring, estimator=estimator, N=N, classifier=clf,
        **_stats_fields(score[defined], pop[defined], float(confidence)),
        undefined=undefined, undefined_draws=R - used, folds=v, draws=R, confidence=float(confidence),
        kind=Kind.ESTIMATE, seconds=time.perf_counter() - start,
    )


def statistic_folds(model: CellModel, N: int, estimator: Any, statistic: Any, *, classifier: Any = None,
                    draws: object = 10_000, confidence: object = 0.95, rng: np.random.Generator,
                    max_seconds: float | None = 120.0) -> tuple[np.ndarray, np.ndarray]:
    """The value of a statistic on every fold of ``draws`` datasets of ``N`` points, ``(draws, folds)``
    (``nan`` where scikit-learn's scorer gives ``nan``), and its population value for the classifier
    trained on all ``N`` points, ``(draws,)``.

    ``statistic``: a scorer name of :data:`SCORINGS`, or a
    :class:`~momentbound.estimators.metrics.LinearMetric` (each fold's value as scikit-learn scores that
    test set, :meth:`~momentbound.estimators.metrics.LinearMetric.test_set_weights`: the mean loss over its
    test points, or for ``recall(a)``, ``class_error_rate(a)`` and ``balanced_error()`` the rates of its
    own class counts; the population value ``sum L[y, k] P[Y = y, prediction = k]``)."""
    from momentbound.estimators.metrics import LinearMetric

    if isinstance(statistic, LinearMetric):
        linear = statistic
        loss = np.array(linear.matrix(model), dtype=float)
        name = "accuracy"  # a statistic of the predictions: the checks of a prediction scorer
    else:
        name = check_scoring(statistic)
    _, _, setup = _setup(model, N, estimator, classifier, draws, confidence, rng, name, max_seconds)
    m = setup.table
    test, train, full = setup.sampler(m.p, m.K, N, int(draws), rng)  # type: ignore[arg-type]
    if not isinstance(statistic, LinearMetric):
        return fold_scores(setup, test, train, name, rng), full_scores(setup, full, name)
    n, v, C = test.shape
    conf = _predicted_counts(test.reshape(n * v, C), m.predictions(train.reshape(n * v, C)), m.K, rng)
    values = linear_fold_values(linear, conf, conf.sum(axis=2)).reshape(n, v)
    rates = np.einsum("xy,nxk->nyk", m.p.reshape(-1, m.K), m.predictions(full))
    return values, (rates * loss).sum(axis=(1, 2))


def linear_fold_values(linear: Any, conf: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The statistic of each test set as scikit-learn scores it: ``conf`` ``(M, K, K)`` its confusion
    counts (true class, prediction), ``counts`` ``(M, K)`` its class counts; the vectorised
    :meth:`~momentbound.estimators.metrics.LinearMetric.test_set_weights`."""
    K = conf.shape[1]
    per_class = (conf * np.array(linear.base_matrix(K), dtype=float)).sum(axis=2)  # (M, K)
    if not linear.prior_weighted:
        return per_class.sum(axis=1) / counts.sum(axis=1)
    inverse = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
    if linear.rule in ("recall", "class_error_rate"):
        (a,) = linear.classes
        values = per_class[:, a] * inverse[:, a]
        return values + (counts[:, a] == 0) if linear.rule == "class_error_rate" else values
    return (per_class * inverse).sum(axis=1) / (counts > 0).sum(axis=1)


def check_scoring_run(model: CellModel, N: int, estimator: Any, scoring: object, *, classifier: Any = None,
                      draws: object = 10_000, confidence: object = 0.95, max_seconds: float | None = 120.0) -> str:
    """Every refusal :func:`monte_carlo_scores` would raise for these arguments, without any work (a sweep or
    a ranking checks each of its rows first); returns the scorer name."""
    name = check_scoring(scoring)
    _setup(model, N, estimator, classifier, draws, confidence, np.random.default_rng(0), name, max_seconds)
    return name


def scored_moments(model: CellModel, N: int, estimator: Any, scoring: object, *, classifier: Any, backend: Any,
                   covariance: str = "exact", engine: Any = None, max_seconds: float | None = 120.0,
                   options: dict[str, Any]) -> ScoreMoments:
    """The ``scoring=`` route of ``estimator_moments`` and ``estimator_accuracy``: checks the backend
    and the options, then :func:`monte_carlo_scores`."""
    from momentbound._validate import as_seed

    name = check_scoring(scoring)
    if not (isinstance(backend, str) and backend == "montecarlo"):
        if name == "accuracy":
            raise InvalidArgument(
                f"scoring='accuracy' with backend={backend!r} is one minus the error estimate: omit scoring= for "
                "the exact error moments (mean accuracy = 1 - mean error, the same variance), or use "
                "backend='montecarlo' for the simulated fold scores")
        raise InvalidArgument(f"scoring={name!r} is computed by simulation: use backend='montecarlo' "
                              f"(with rng=np.random.default_rng(seed)), not backend={backend!r}")
    if covariance != "exact" or engine is not None:
        raise InvalidArgument("scoring= simulates the real procedure: use covariance='exact' and engine=None")
    unknown = sorted(set(options) - {"draws", "confidence", "rng", "multimetric"})
    if unknown:
        raise InvalidArgument(f"unknown option(s) {unknown} with scoring=; it takes draws, confidence, rng and "
                              "multimetric")
    kwargs = {k: options[k] for k in ("draws", "confidence", "multimetric") if k in options}
    return monte_carlo_scores(model, N, estimator, scoring=name, classifier=classifier,
                              rng=as_seed(options.get("rng"), "rng"), max_seconds=max_seconds, **kwargs)


# ----------------------------------------------------------------------------- the ROC band
@dataclass(frozen=True, kw_only=True)
class RocBand:
    """The population ROC curve of the classifier trained on ``N`` points, over datasets
    (result of :func:`roc_band`).

    Attributes
    ----------
    N, classifier:
        Dataset size and classifier (naive Bayes; scores are its probabilities of class 1).
    fpr:
        The grid of false positive rates (``points`` values from 0 to 1).
    tpr_mean:
        Mean over datasets of the true positive rate at each grid point.
    quantiles, tpr_quantiles:
        The levels and, one row per level, the pointwise quantiles of the true positive rate.
    auc_mean, auc_variance:
        Moments of the population AUC (intervals at level ``confidence``).
    draws, confidence, seconds:
        Datasets drawn, interval level, wall-clock seconds.
    """

    N: int
    classifier: Any
    fpr: np.ndarray
    tpr_mean: np.ndarray
    quantiles: tuple[float, ...]
    tpr_quantiles: np.ndarray
    auc_mean: Interval
    auc_variance: Interval
    draws: int
    confidence: float
    seconds: float = field(default=0.0, compare=False)


def population_roc(p: np.ndarray, proba1: np.ndarray, fpr: np.ndarray) -> np.ndarray:
    """True positive rates at the false positive rates ``fpr`` of the population ROC curves of the
    scores ``proba1 (n, inputs)`` (two classes, flat cell probabilities ``p``): ``(n, len(fpr))``.

    The curve joins ``(0, 0)`` and the points ``(P[s >= t | Y = 0], P[s >= t | Y = 1])`` of the score
    levels ``t`` (as ``sklearn.metrics.roc_curve``) by segments; where it is vertical the upper end
    is taken."""
    cells = np.asarray(p, dtype=float).reshape(-1, 2)
    neg, pos = cells[:, 0] / cells[:, 0].sum(), cells[:, 1] / cells[:, 1].sum()
    s = np.asarray(proba1, dtype=float)
    n = s.shape[0]
    above = (s[:, None, :] >= s[:, :, None]).astype(float)  # [r, level of input x, input x']
    F = np.concatenate([np.zeros((n, 1)), above @ neg], axis=1)
    T = np.concatenate([np.zeros((n, 1)), above @ pos], axis=1)
    F[F > 1 - 1e-12], T[T > 1 - 1e-12] = 1.0, 1.0  # the lowest level: every point (rounding of the sum)
    order = np.lexsort((T, F))
    F, T = np.take_along_axis(F, order, axis=1), np.take_along_axis(T, order, axis=1)
    out = np.empty((n, fpr.size))
    step = max(1, 2_000_000 // max(1, fpr.size * F.shape[1]))
    for lo in range(0, n, step):
        f, t = F[lo:lo + step], T[lo:lo + step]
        count = (f[:, None, :] <= fpr[None, :, None]).sum(axis=2)  # points at or left of each grid value
        j, nxt = count - 1, np.minimum(count, f.shape[1] - 1)
        fj, tj = np.take_along_axis(f, j, axis=1), np.take_along_axis(t, j, axis=1)
        fn, tn = np.take_along_axis(f, nxt, axis=1), np.take_along_axis(t, nxt, axis=1)
        width = fn - fj
        frac = np.where(width > 0, (fpr - fj) / np.where(width > 0, width, 1), 0.0)
        out[lo:lo + step] = np.where(fj == fpr, tj, tj + frac * (tn - tj))
    return out


def roc_band(
    model: CellModel,
    N: int,
    classifier: Any = None,
    draws: int = 10_000,
    quantiles: tuple[float, ...] = (0.05, 0.5, 0.95),
    *,
    points: int = 101,
    confidence: float = 0.95,
    rng: np.random.Generator,
    max_seconds: float | None = 120.0,
) -> RocBand:
    """The population ROC curve of naive Bayes trained on ``N`` points as a band over datasets:
    mean and pointwise quantiles of the true positive rate on a grid of false positive rates, and the
    moments of the population AUC (two classes, class 1 positive).

    Parameters
    ----------
    model:
        A two-class :class:`~momentbound.model.cells.CellModel`.
    N:
        Dataset size (the classifier is trained on all ``N`` points).
    classifier:
        Naive Bayes with ``alpha > 0`` (or ``CategoricalNB``); its scores are the probabilities of
        class 1 as ``CategoricalNB.predict_proba`` computes them.
    draws:
        Number of datasets (``>= 200``).
    quantiles:
        Levels in ``[0, 1]`` of the pointwise quantiles of the true positive rate.
    points:
        Grid points of the false positive rate, from 0 to 1.
    confidence, rng, max_seconds:
        Interval level of the AUC moments, the ``numpy.random.Generator``, the work guard.

    Returns
    -------
    RocBand

    Examples
    --------
    >>> from momentbound import CellModel
    >>> from momentbound.classifiers import NaiveBayes
    >>> band = roc_band(CellModel((3,), ["1/5", "1/10", "1/10", "1/10", "1/10", "2/5"]), 20,
    ...                 NaiveBayes("sklearn", 1), draws=500, rng=np.random.default_rng(0), points=5)
    >>> band.fpr.tolist(), bool(band.tpr_mean[-1] == 1.0)
    ([0.0, 0.25, 0.5, 0.75, 1.0], True)
    """
    from momentbound import guard
    from momentbound.estimators.simulation import draw_mean, draw_variance
    from momentbound.splitters.basic import GE

    start = time.perf_counter()
    q = _check_quantiles(quantiles)
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or not 2 <= int(points) <= 10_001:
        raise InvalidArgument(f"points must be an integer number of grid points in [2, 10001], got {points!r}")
    estimator, clf, setup = _setup(model, N, GE(), classifier, draws, confidence, rng, None, max_seconds)
    if model.n_classes != 2:
        raise InvalidArgument(f"roc_band needs a model with two classes (class 1 positive), got {model.n_classes}")
    guard.check(f"{int(draws)} ROC curves at {int(points)} points", seconds=3e-4 * int(draws),
                max_seconds=max_seconds, fix=f"use fewer {guard.option('draws')}")
    m, R = setup.table, int(draws)
    fpr = np.linspace(0.0, 1.0, int(points))
    T = m.draw(rng, estimator.split(N).N, (R,))
    proba, _ = naive_bayes_proba(T, m.arities, 2, setup.nb.alpha_exact)
    tpr = population_roc(m.p, proba[..., 1], fpr)
    auc = population_scores(m.p, 2, "roc_auc", None, proba)  # type: ignore[arg-type]
    return RocBand(N=estimator.split(N).N, classifier=clf, fpr=fpr, tpr_mean=tpr.mean(axis=0), quantiles=q,
                   tpr_quantiles=np.quantile(tpr, q, axis=0), auc_mean=draw_mean(auc, float(confidence)), auc_variance=draw_variance(auc, float(confidence)),
                   draws=R, confidence=float(confidence), seconds=time.perf_counter() - start)


def _check_quantiles(quantiles: object) -> tuple[float, ...]:
    try:
        q = tuple(float(x) for x in quantiles)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        q = ()
    if not q or not all(0.0 <= x <= 1.0 for x in q) or any(math.isnan(x) for x in q):
        raise InvalidArgument(f"quantiles must be a non-empty sequence of levels in [0, 1] such as "
                              f"(0.05, 0.5, 0.95), got {quantiles!r}")
    return q
