"""``scoring=`` on the Monte Carlo route, its refusals, and the ROC band against exact enumeration."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import multinomial
from sklearn.metrics import roc_curve

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.classifiers.histogram import HistogramRule
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_accuracy, estimator_moments
from momentbound.estimators.scoring import (SCORINGS, ScoreMoments, monte_carlo_scores, naive_bayes_proba,
                                            population_roc, roc_band)
from momentbound.splitters import HoldOut, KFold, LeaveOneOut, StratifiedKFold
from momentbound.splitters.bootstrap import Resubstitution

MODEL = CellModel((2,), ["3/10", "1/10", "1/5", "2/5"])
THREE = CellModel((2,), ["1/5", "1/10", "1/10", "1/10", "1/5", "3/10"])


def test_estimator_moments_routes_scoring_to_the_simulation():
    a = estimator_moments(MODEL, 12, KFold(3), backend="montecarlo", scoring="f1", draws=1000, rng=3)
    b = monte_carlo_scores(MODEL, 12, KFold(3), scoring="f1", draws=1000, rng=np.random.default_rng(3))
    assert isinstance(a, ScoreMoments) and a.scoring == "f1" and a.folds == 3
    assert (a.mean, a.variance, a.undefined) == (b.mean, b.variance, b.undefined)
    assert a.mean.lower <= a.mean.estimate <= a.mean.upper


def test_estimator_accuracy_reports_the_deviation_from_the_population_value():
    r = estimator_accuracy(MODEL, 20, StratifiedKFold(5), backend="montecarlo", scoring="balanced_accuracy",
                           draws=2000, rng=np.random.default_rng(1))
    assert r.bias.estimate == pytest.approx(r.mean.estimate - r.ge_full_mean.estimate, abs=1e-12)
    assert r.mean_square.estimate == pytest.approx(r.bias.estimate**2 + r.deviation_variance.estimate, rel=1e-3)
    assert r.as_row()["scoring"] == "balanced_accuracy"


@pytest.mark.parametrize("splitter", [KFold(3), HoldOut(test_size=4)], ids=["kfold", "holdout"])
def test_accuracy_agrees_with_the_exact_error_moments(splitter):
    """Mean fold accuracy = 1 - the fold-averaged error: the exact backend's moments (random tie
    coins drawn per test point) lie in the intervals."""
    clf = NaiveBayes("random", 0)
    exact = estimator_moments(MODEL, 10, splitter, classifier=clf)
    r = monte_carlo_scores(MODEL, 10, splitter, scoring="accuracy", classifier=clf, draws=20_000,
                           confidence=0.99, rng=np.random.default_rng(2))
    assert r.mean.lower <= 1 - float(exact.mean) <= r.mean.upper
    assert r.variance.lower <= float(exact.variance) <= r.variance.upper
    assert r.undefined.estimate == 0


def test_the_classifier_plug_ins_score_through_their_predictions():
    r = monte_carlo_scores(MODEL, 12, KFold(2), scoring="recall_macro", classifier=HistogramRule(), draws=500,
                           rng=np.random.default_rng(0))
    assert 0 <= r.mean.estimate <= 1


@pytest.mark.parametrize("kwargs, words", [
    (dict(scoring="auc"), ["scoring must be one of", "balanced_accuracy", "roc_auc_ovr", "'auc'"]),
    (dict(scoring="f1", backend="exact"), ["backend='montecarlo'", "'f1'"]),
    (dict(scoring="accuracy", backend="exact"), ["omit scoring=", "1 - mean error"]),
    (dict(scoring="f1", backend="montecarlo", covariance="paper"), ["covariance='exact'"]),
    (dict(scoring="f1", backend="montecarlo", workers=2), ["unknown option", "workers"]),
])
def test_estimator_moments_refusals(kwargs, words):
    with pytest.raises(InvalidArgument) as err:
        estimator_moments(MODEL, 10, KFold(2), **kwargs)
    assert all(w in str(err.value) for w in words), str(err.value)


@pytest.mark.parametrize("model, splitter, kwargs, words", [
    (THREE, KFold(2), dict(scoring="recall"), ["binary", "3 classes", "'recall_macro'"]),
    (THREE, KFold(2), dict(scoring="roc_auc"), ["'roc_auc_ovr'"]),
    (MODEL, Resubstitution(), dict(scoring="f1"), ["KFold, StratifiedKFold, HoldOut", "Resubstitution()"]),
    (MODEL, LeaveOneOut(), dict(scoring="roc_auc"), ["one test point", "'roc_auc_pooled'"]),
    (MODEL, HoldOut(test_size=3), dict(scoring="roc_auc_pooled"), ["not a partition", "cross_val_predict"]),
    (MODEL, KFold(2, average="pooled"), dict(scoring="f1"), ["average='folds'"]),
    (MODEL, KFold(2), dict(scoring="roc_auc", classifier=HistogramRule()), ["probabilities", "'roc_auc'"]),
    (MODEL, KFold(2), dict(scoring="f1", draws=10), ["draws must be an integer >= 200"]),
])
def test_monte_carlo_scores_refusals(model, splitter, kwargs, words):
    with pytest.raises(InvalidArgument) as err:
        monte_carlo_scores(model, 10, splitter, rng=np.random.default_rng(0), **kwargs)
    assert all(w in str(err.value) for w in words), str(err.value)


def test_a_score_undefined_on_every_dataset_is_refused_not_averaged():
    with pytest.raises(InvalidArgument, match="undefined .* on 300 of 300 datasets"):
        monte_carlo_scores(CellModel((2,), ["1/2", "0", "1/2", "0"]), 6, KFold(3), scoring="f1", draws=300,
                           rng=np.random.default_rng(0))  # class 1 is never fitted: pos_label=1 raises in every fold


def test_every_scorer_name_runs_on_its_class_count():
    for name in SCORINGS:
        model = MODEL if name in ("recall", "precision", "f1", "roc_auc") else THREE
        r = monte_carlo_scores(model, 15, StratifiedKFold(3), scoring=name, classifier=NaiveBayes("sklearn", 1),
                               draws=300, rng=np.random.default_rng(0))
        assert 0 <= r.mean.estimate <= 1 and 0 <= r.undefined.estimate <= 1


# ----------------------------------------------------------------------------- ROC band
ROC_MODEL = CellModel((3,), ["1/5", "1/10", "1/10", "3/20", "1/20", "2/5"])


def test_population_roc_is_scikit_learns_weighted_roc_curve():
    p = np.array([float(c) for c in ROC_MODEL.cells])
    x, y = np.repeat(np.arange(3), 2), np.tile([0, 1], 3)
    tables = np.array([np.bincount(c, minlength=6) for c in itertools.combinations_with_replacement(range(6), 5)])
    proba, fitted = naive_bayes_proba(tables, (3,), 2, 1)
    for t, s, f in zip(tables, proba[..., 1], fitted):
        if not f.all():
            continue
        fpr, tpr, _ = roc_curve(y, s[x], sample_weight=p, drop_intermediate=False)
        ours = population_roc(p, s[None, :], fpr)[0]
        top = np.array([tpr[fpr == v].max() for v in fpr])
        np.testing.assert_allclose(ours, top, atol=1e-12)


def test_roc_band_against_exact_enumeration():
    N = 6
    p = np.array([float(c) for c in ROC_MODEL.cells])
    tables = np.array([np.bincount(c, minlength=6) for c in itertools.combinations_with_replacement(range(6), N)])
    weights = multinomial(N, p).pmf(tables)
    proba, _ = naive_bayes_proba(tables, (3,), 2, Fraction(1))
    band = roc_band(ROC_MODEL, N, NaiveBayes("sklearn", 1), draws=20_000, quantiles=(0.1, 0.5, 0.9),
                    points=11, rng=np.random.default_rng(4))
    tpr = population_roc(p, proba[..., 1], band.fpr)
    exact_tpr = weights @ tpr
    R = band.draws
    sd = np.sqrt(np.maximum(weights @ (tpr - exact_tpr) ** 2, 0))
    assert np.all(np.abs(band.tpr_mean - exact_tpr) <= 4 * sd / math.sqrt(R) + 1e-12)
    from momentbound.estimators.scoring import population_scores

    auc = population_scores(p, 2, "roc_auc", None, proba)
    exact_auc = float(weights @ auc)
    assert band.auc_mean.lower <= exact_auc <= band.auc_mean.upper
    exact_var = float(weights @ (auc - exact_auc) ** 2)
    assert band.auc_variance.lower <= exact_var <= band.auc_variance.upper
    assert band.tpr_quantiles.shape == (3, 11)
    assert np.all(np.diff(band.tpr_quantiles, axis=0) >= 0)
    assert band.tpr_mean[0] >= 0 and band.tpr_mean[-1] == 1


@pytest.mark.parametrize("kwargs, words", [
    (dict(quantiles=()), ["quantiles must be"]),
    (dict(quantiles=(0.5, 2)), ["quantiles must be"]),
    (dict(points=1), ["points must be"]),
    (dict(classifier=HistogramRule()), ["roc_band", "probabilities"]),
    (dict(classifier=NaiveBayes("sklearn", 0)), ["alpha > 0"]),
])
def test_roc_band_refusals(kwargs, words):
    with pytest.raises(InvalidArgument) as err:
        roc_band(ROC_MODEL, 10, **{"classifier": NaiveBayes("sklearn", 1), "rng": np.random.default_rng(0),
                                   "draws": 200, **kwargs})
    assert all(w in str(err.value) for w in words), str(err.value)


def test_roc_band_refuses_three_classes():
    with pytest.raises(InvalidArgument, match="two classes"):
        roc_band(THREE, 10, NaiveBayes("sklearn", 1), draws=200, rng=np.random.default_rng(0))


def test_docstring_examples_run():
    import doctest

    import momentbound.estimators.scoring as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_naive_bayes_proba_is_categorical_nb_bit_for_bit_with_two_attributes():
    from sklearn.naive_bayes import CategoricalNB

    model = CellModel((3, 2), ["1/24", "1/8"] * 6)
    K, ar = 2, (3, 2)
    inputs = np.array(list(np.ndindex(*ar)))
    rng = np.random.default_rng(0)
    tables = rng.multinomial(9, [float(c) for c in model.cells], size=60)
    for alpha in (1, 0.5):
        proba, fitted = naive_bayes_proba(tables, ar, K, alpha)
        for t, pr, f in zip(tables, proba, fitted):
            X = np.repeat(np.repeat(inputs, K, axis=0), t, axis=0)
            y = np.repeat(np.tile(np.arange(K), len(inputs)), t)
            clf = CategoricalNB(alpha=alpha, force_alpha=True, min_categories=list(ar)).fit(X, y)
            assert np.array_equal(clf.classes_, np.flatnonzero(f))
            assert np.array_equal(clf.predict_proba(inputs), pr[:, f])


def test_huge_n_is_refused_before_any_work():
    from momentbound.errors import MemoryLimitExceeded

    with pytest.raises(MemoryLimitExceeded, match="counts up to N = 10000000000"):
        roc_band(ROC_MODEL, 10**10, NaiveBayes("sklearn", 1), draws=200, rng=np.random.default_rng(0))
