"""Argument validation of the classifier, the backend interface and the registry; the
classifier against scikit-learn's CategoricalNB."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound.errors import InvalidArgument, InvalidModel, UnknownMethod
from momentbound.exact import NaiveBayes
from momentbound.model import independent_1d_model, second_nb_model
from momentbound.probability import get_backend
from momentbound.probability.base import ProbabilityInterval
from momentbound.probability.exact_backend import ExactBackend


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(ties="last"), "ties must be one of"),
        (dict(alpha=-1), "alpha must be >= 0"),
        (dict(alpha=float("nan")), "alpha must be a finite number"),
        (dict(alpha=float("inf")), "alpha must be a finite number"),
        (dict(alpha="abc"), "alpha must be a finite number"),
        (dict(alpha=True), "alpha must be a finite number"),
        (dict(alpha=None), "alpha must be a finite number"),
    ],
)
def test_naive_bayes_validation(kwargs, match):
    with pytest.raises(InvalidArgument, match=match):
        NaiveBayes(**kwargs)


def test_naive_bayes_alpha_is_exact():
    assert NaiveBayes(alpha=0.5).alpha_exact == Fraction(1, 2)
    assert NaiveBayes(alpha="1/3").alpha_exact == Fraction(1, 3)
    assert NaiveBayes(alpha=0.1).alpha_exact == Fraction(0.1)  # the float's exact binary value


def test_predict_proba_validation_and_predict():
    nb = NaiveBayes("first")
    with pytest.raises(InvalidArgument, match="integer array"):
        nb.predict_proba(np.array([[0.5, 1.0], [1.0, 0.0]]), 0)
    with pytest.raises(InvalidArgument, match="non-negative"):
        nb.predict_proba(np.array([[-1, 1], [1, 0]]), 0)
    with pytest.raises(InvalidArgument, match="x must be an input"):
        nb.predict_proba(np.array([[1, 1], [1, 0]]), 2)
    assert nb.predict(np.array([[1, 1], [1, 0]]), 0) == 0  # tie -> lowest present class
    assert nb.predict(np.array([[0, 0], [0, 3]]), 0) == 1  # all scores 0, class 0 absent
    assert nb.predict(np.array([[0, 0], [0, 0]]), 0) == 0  # empty training set
    with pytest.raises(InvalidArgument, match="ties='first'"):
        NaiveBayes("random").predict(np.array([[1, 1], [1, 0]]), 0)


def test_random_rule_gives_coin_over_all_tied_classes():
    nb = NaiveBayes("random")
    assert nb.predict_proba(np.array([[0, 0, 0], [1, 2, 0]]), 0) == (Fraction(1, 3),) * 3
    assert nb.predict_proba(np.array([[0, 0], [0, 0]]), 1) == (Fraction(1, 2),) * 2


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_classifier_matches_sklearn_categorical_nb(alpha):
    """scikit-learn CategoricalNB(force_alpha=True, min_categories=arities), `first` rule.

    Floating-point ties in sklearn's log-probabilities could flip predictions where exact
    scores tie; such inputs are skipped (detected with our exact scores), every other
    prediction must agree.
    """
    sklearn = pytest.importorskip("sklearn.naive_bayes")
    rng = np.random.default_rng(2026)
    arities = (2, 3)
    nb = NaiveBayes("first", alpha)
    checked = 0
    for _ in range(30):
        n = int(rng.integers(3, 12))
        X = np.stack([rng.integers(0, a, size=n) for a in arities], axis=1)
        y = rng.integers(0, 2, size=n)
        if len(set(y.tolist())) < 2:
            continue
        clf = sklearn.CategoricalNB(alpha=alpha, force_alpha=True, min_categories=list(arities)).fit(X, y)
        table = np.zeros(arities + (2,), dtype=np.int64)
        for row, label in zip(X, y):
            table[tuple(row) + (label,)] += 1
        for x in np.ndindex(*arities):
            scores = [nb.class_score(int(table[..., k].sum()), [int(table[(x[0], slice(None), k)].sum()), int(table[(slice(None), x[1], k)].sum())], arities, n) for k in range(2)]
            if scores[0] == scores[1]:
                continue
            assert nb.predict(table, x) == int(clf.predict(np.array([x]))[0])
            checked += 1
    assert checked > 90


def test_registry():
    assert get_backend("exact").name == "exact"
    b = ExactBackend()
    assert get_backend(b) is b
    for bad in ("exakt", "bound", "exact:x", 3):
        with pytest.raises(UnknownMethod, match="backend"):
            get_backend(bad)


def test_backend_argument_validation():
    b = ExactBackend()
    m = independent_1d_model("2/5")
    with pytest.raises(InvalidArgument, match="n_train must be an integer >= 0"):
        b.single(m, -1, (0,))
    with pytest.raises(InvalidArgument, match="n_train must be an integer"):
        b.single(m, 2.5, (0,))
    with pytest.raises(InvalidModel, match="x\\[0\\] must be in 0..1"):
        b.single(m, 2, (2,))
    with pytest.raises(InvalidModel, match="x2 must have one value per attribute"):
        b.pair(m, 2, (0,), (0, 1))
    with pytest.raises(InvalidArgument, match="classifier must be a NaiveBayes"):
        b.single(m, 2, (0,), classifier="nb")
    with pytest.raises(InvalidArgument, match="model must be a CellModel"):
        b.single([0.5, 0.5], 2, (0,))
    with pytest.raises(InvalidArgument, match="point_a must be a pair"):
        b.cross(m, 1, 1, 1, (0,), ((0,), 1))
    with pytest.raises(InvalidModel, match="point_b\\[1\\] must be a class index"):
        b.cross(m, 1, 1, 1, ((0,), 0), ((0,), 2))
    with pytest.raises(InvalidArgument, match="n_common must be"):
        b.cross(m, -1, 1, 1, ((0,), 0), ((0,), 1))
    with pytest.raises(InvalidArgument, match="arithmetic must be one of"):
        ExactBackend(arithmetic="decimal")
    with pytest.raises(InvalidArgument, match="rational_max_n"):
        ExactBackend(rational_max_n=-2)
    with pytest.raises(InvalidArgument, match="needs an exact model"):
        ExactBackend(arithmetic="rational").single(m.to_float(), 2, (0,))


def test_probability_interval():
    r = ProbabilityInterval(np.array([0.1, 0.2]), np.array([0.3, 0.4]))
    assert r.contains([0.2, 0.3]) and not r.contains([0.05, 0.3])
    np.testing.assert_allclose(r.width, [0.2, 0.2])
    with pytest.raises(InvalidArgument, match="same shape"):
        ProbabilityInterval(np.zeros(2), np.zeros(3))


def test_auto_arithmetic_switches_to_float():
    m = second_nb_model()
    small = ExactBackend(rational_max_n=5).single(m, 5, (0, 0))
    big = ExactBackend(rational_max_n=5).single(m, 6, (0, 0))
    assert isinstance(small[0], Fraction) and big.dtype == float


def test_hopeless_generic_computations_are_refused():
    b = ExactBackend()
    with pytest.raises(InvalidArgument, match="use backend='montecarlo'.*backend='sampling'"):
        b.cross(second_nb_model(), 80, 9, 9, ((0, 0), 0), ((1, 1), 1))
    with pytest.raises(InvalidArgument, match="max_work must be"):
        ExactBackend(max_work=0)
    small = ExactBackend(max_work=10)
    with pytest.raises(InvalidArgument, match="state combinations"):
        small.pair(second_nb_model(), 6, (0, 0), (1, 1), NaiveBayes("random", 1))
