"""Exact linear metrics of the ideal bootstrap family and of RepeatedKFold against brute force.

* ``RepeatedKFold``: every ordered dataset of ``N <= 6`` points and every partition scikit-learn's
  shuffled ``KFold`` can draw (every arrangement of the fold labels: checked against its own draws),
  a real ``CategoricalNB(alpha=1)`` fitted on each training part and scored by scikit-learn
  (``recall_score``, ``balanced_accuracy_score``, ``confusion_matrix``): one partition, the limit of
  many (``E[m(D)^2] - E^2`` with ``m(D)`` the mean over the partitions) and the joint term with the
  population value, in Fractions.
* Resubstitution, the ideal bootstrap ``Err(1)`` and .632: every ordered dataset and every one of the
  ``N^N`` bootstrap resamples (index draws), the classifier fitted on each; ``Err(1)`` averages each
  point's loss over the resamples that leave it out, weighed as the metric divides by the data's
  class counts.
* Monte Carlo: scikit-learn's own ``RepeatedKFold`` splits with ``CategoricalNB`` and its scorers on
  simulated datasets against the exact mean and variance (z within 3).
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import RepeatedKFold as SkRepeatedKFold

from test_stratified_metrics import BINARY, NB, THREE, Scorer, _datasets, _metrics

from momentbound import CellModel
from momentbound.errors import InvalidArgument
from momentbound.estimators import KFold, LinearMetric, estimator_accuracy, estimator_moments
from momentbound.splitters.bootstrap import WEIGHT_632, Bootstrap, OutOfBag, Point632, Point632Plus, Resubstitution
from momentbound.splitters.repeated import RepeatedKFold


def _arrangements(N: int, v: int) -> list[np.ndarray]:
    """Every fold labelling of scikit-learn's shuffled KFold: its unshuffled labels in every order."""
    base = np.empty(N, dtype=int)
    for i, (_, test) in enumerate(SkKFold(v).split(np.zeros(N))):
        base[test] = i
    return [np.array(p) for p in sorted(set(itertools.permutations(base.tolist())))]


def test_shuffled_kfold_draws_every_arrangement():
    N, v = 5, 2
    drawn = set()
    for seed in range(300):
        lab = np.empty(N, dtype=int)
        for i, (_, test) in enumerate(SkKFold(v, shuffle=True, random_state=seed).split(np.zeros(N))):
            lab[test] = i
        drawn.add(tuple(lab))
    assert drawn == {tuple(a) for a in _arrangements(N, v)}


@pytest.mark.parametrize("model, N, v, average", [
    (BINARY, 5, 2, "folds"),
    (BINARY, 5, 2, "pooled"),  # folds of 3 and 2: the pooled statistic differs
    (THREE, 4, 2, "folds"),  # three classes: folds and training parts without a class
], ids=["binary-folds", "binary-pooled", "three-folds"])
def test_repeated_kfold_metrics_equal_every_shuffled_partition(model, N, v, average):
    scorer = Scorer(model)
    metrics = _metrics(model.n_classes)
    metrics["error"] = LinearMetric.error()
    parts = _arrangements(N, v)
    acc = {name: [Fraction(0)] * 4 for name in metrics}  # E[m], E[mean of CE^2], E[m^2], E[m GE]
    for seq, w in _datasets(model, N):
        per_partition = []
        for lab in parts:
            folds = [(seq[lab != i], seq[lab == i]) for i in range(v)]
            if average == "folds":
                scores = [scorer.scores([f]) for f in folds]
                per_partition.append({n: sum((s[n] for s in scores), Fraction(0)) / v for n in scores[0]})
            else:
                per_partition.append(scorer.scores(folds))
        for name, metric in metrics.items():
            if name == "error":
                values = [1 - _accuracy(scorer, seq, lab, v, average) for lab in parts]
            else:
                values = [s[name] for s in per_partition]
            ge = scorer.population(seq, metric)
            m = sum(values, Fraction(0)) / len(values)
            m2 = sum((x * x for x in values), Fraction(0)) / len(values)
            for k, x in enumerate((m, m2, m * m, m * ge)):
                acc[name][k] += w * x
    for name, metric in metrics.items():
        mean, second, limit, joint = acc[name]
        var1, cov = second - mean * mean, limit - mean * mean
        one = estimator_moments(model, N, RepeatedKFold(v, 1, average=average), classifier=NB, metric=metric)
        inf = estimator_moments(model, N, RepeatedKFold(v, math.inf, average=average), classifier=NB, metric=metric)
        three = estimator_accuracy(model, N, RepeatedKFold(v, 3, average=average), classifier=NB, metric=metric)
        assert isinstance(one.mean, Fraction), name
        assert (one.mean, one.variance, inf.variance) == (mean, var1, cov), name
        assert three.variance == var1 / 3 + Fraction(2, 3) * cov, name
        assert three.covariance_with_ge == joint - mean * three.ge_full_mean, name
        assert inf.repetition_covariance == cov and inf.single_variance == var1, name


def _accuracy(scorer: Scorer, seq: np.ndarray, lab: np.ndarray, v: int, average: str) -> Fraction:
    """The accuracy of one partition (the 0-1 error's witness), from the predictions themselves."""
    hits = []
    for i in range(v):
        pred = scorer.predictions(seq[lab != i])[seq[lab == i]]
        hits.append((Fraction(int((pred == scorer.y[seq[lab == i]]).sum())), int((lab == i).sum())))
    if average == "folds":
        return sum((h / n for h, n in hits), Fraction(0)) / v
    return sum((h for h, _ in hits), Fraction(0)) / len(seq)


def test_one_repetition_is_kfold_and_a_wrong_value_is_caught():
    """One shuffled partition has KFold's law on i.i.d. data: equal in Fractions, metrics included."""
    for metric in (None, LinearMetric.confusion_entry(1, 0), LinearMetric([[0, 3], [1, 0]])):
        for average in ("folds", "pooled"):
            a = estimator_moments(BINARY, 7, KFold(3, average=average), classifier=NB, metric=metric)
            b = estimator_moments(BINARY, 7, RepeatedKFold(3, 1, average=average), classifier=NB, metric=metric)
            assert (a.mean, a.variance, a.fold_variance, a.fold_covariance) == (
                b.mean, b.variance, b.fold_variance, b.fold_covariance)
    many = estimator_moments(BINARY, 7, RepeatedKFold(3, 5), classifier=NB)
    assert many.variance < a.variance and many.variance != a.variance / 5


# ----------------------------------------------------------------------------- the bootstrap family
def _bootstrap_rows(model: CellModel, N: int) -> list[tuple[Fraction, np.ndarray, np.ndarray, np.ndarray]]:
    """Per ordered dataset: its probability, its cells, the full-data predictions at its points and
    ``P[prediction_i = k | i left out]`` over the resamples that leave point ``i`` out, ``(N, K)``."""
    scorer = Scorer(model)
    K = model.n_classes
    samples = np.array(list(itertools.product(range(N), repeat=N)))  # every resample, equally likely
    rows = []
    for seq, w in _datasets(model, N):
        preds = np.array([scorer.predictions(seq[s])[seq] for s in samples])  # (resamples, N) predictions
        out = np.array([[i not in s for i in range(N)] for s in samples])
        q = np.array([[Fraction(int(((preds[:, i] == k) & out[:, i]).sum()), int(out[:, i].sum()))
                       for k in range(K)] for i in range(N)], dtype=object)
        rows.append((w, seq, scorer.predictions(seq)[seq], q))
    return rows


def _rate(y: np.ndarray, hit: np.ndarray, name: str, K: int) -> Fraction:
    """A statistic from the per-point probability ``hit[i, k]`` of predicting ``k``: the shares of the
    points, the recall of a class (0 without it), the balanced error over the classes present."""
    N = len(y)
    if name == "confusion[1,0]":
        return sum((hit[i, 0] for i in range(N) if y[i] == 1), Fraction(0)) / N
    if name == "error":
        return sum((1 - hit[i, y[i]] for i in range(N)), Fraction(0)) / N

    def recall(a: int) -> Fraction:
        members = [i for i in range(N) if y[i] == a]
        return sum((hit[i, a] for i in members), Fraction(0)) / len(members) if members else Fraction(0)

    if name == "balanced_error":
        present = sorted(set(y.tolist()))
        return 1 - sum((recall(a) for a in present), Fraction(0)) / len(present)
    kind, a = name.rstrip("]").split("[")
    return recall(int(a)) if kind == "recall" else 1 - recall(int(a))


@pytest.mark.parametrize("model, N", [(BINARY, 4), (THREE, 3)], ids=["binary", "three"])
def test_ideal_bootstrap_metrics_equal_every_resample(model, N):
    K = model.n_classes
    scorer = Scorer(model)
    rows = _bootstrap_rows(model, N)
    metrics = dict(_metrics(K), error=LinearMetric.error())
    for name, metric in metrics.items():
        acc = {key: [Fraction(0)] * 3 for key in ("resub", "err1", "632")}
        ge1 = Fraction(0)
        for w, seq, full_pred, q in rows:
            y = scorer.y[seq]
            resub = _rate(y, np.array([[Fraction(int(p == k)) for k in range(K)] for p in full_pred], dtype=object),
                          name, K)
            if name.startswith(("recall", "balanced")):  # resubstitution is scikit-learn's score on the data
                assert resub == scorer.scores([(seq, seq)])[name]
            err1 = _rate(y, q, name, K)
            ge = scorer.population(seq, metric)
            ge1 += w * ge
            for key, x in (("resub", resub), ("err1", err1), ("632", (1 - WEIGHT_632) * resub + WEIGHT_632 * err1)):
                acc[key][0] += w * x
                acc[key][1] += w * x * x
                acc[key][2] += w * x * ge
        for key, est in (("resub", Resubstitution()), ("err1", Bootstrap()), ("632", Point632())):
            m, s2, joint = acc[key]
            got = estimator_accuracy(model, N, est, classifier=NB, metric=metric)
            assert isinstance(got.mean, Fraction), (name, key)
            assert (got.mean, got.variance) == (m, s2 - m * m), (name, key)
            assert got.ge_full_mean == ge1 and got.covariance_with_ge == joint - m * ge1, (name, key)


def test_the_fast_one_attribute_route_weighs_a_loss_matrix():
    """alpha = 0, two classes: the float route's closed form of a left-out point's loss agrees with the
    exact sum over every bootstrap table for a cost matrix and a recall."""
    from momentbound.classifiers import NaiveBayes

    clf = NaiveBayes(ties="random")
    for metric in (LinearMetric([[0, 3], [1, 0]]), LinearMetric.recall(1)):
        exact = estimator_moments(BINARY, 6, Point632(), classifier=clf, metric=metric)
        fast = estimator_moments(CellModel((2,), [0.3, 0.1, 0.2, 0.4]), 6, Point632(), classifier=clf, metric=metric)
        assert abs(float(exact.mean) - fast.mean) < 1e-12 and abs(float(exact.variance) - fast.variance) < 1e-12
    wrong = estimator_moments(BINARY, 6, Point632(), classifier=clf, metric=LinearMetric([[0, 1], [3, 0]]))
    assert abs(float(wrong.mean) - float(exact.mean)) > 1e-3


@pytest.mark.parametrize("estimator, fragment", [
    (Point632Plus(), "no-information"),
    (Bootstrap(30), "B=None"),
    (Point632(30), "B=None"),
    (OutOfBag(30), "majority vote"),
])
def test_bootstrap_members_that_are_not_linear_say_why(estimator, fragment):
    for metric in (LinearMetric.recall(0), LinearMetric.confusion_entry(0, 1)):
        with pytest.raises(InvalidArgument) as err:
            estimator_moments(BINARY, 5, estimator, metric=metric)
        assert fragment in str(err.value) and "Point632()" in str(err.value)


# ----------------------------------------------------------------------------- Monte Carlo, real scikit-learn
def test_repeated_kfold_balanced_error_against_scikit_learn_simulation():
    """scikit-learn's RepeatedKFold(3, 2) with CategoricalNB and 1 - balanced_accuracy_score per fold, on
    4,000 simulated datasets of 9 points (scikit-learn's balanced_accuracy_score and recall_score, cached by the
    fold's (label, prediction) pairs): the mean and the variance of the estimate within 3 standard errors
    of the exact ones (which are those of the real procedure: a wrong covariance term would be caught)."""
    model = THREE
    N, v, R, draws = 9, 3, 2, 4000
    scorer = Scorer(model)
    rng = np.random.default_rng(7)
    p = np.array([float(c) for c in model.cells])
    values = {"balanced_error": np.empty(draws), "recall[2]": np.empty(draws)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes absent from a fold
        for d in range(draws):
            seq = rng.choice(len(p), size=N, p=p)
            splits = SkRepeatedKFold(n_splits=v, n_repeats=R, random_state=int(rng.integers(2**31))).split(seq)
            scores = {name: [] for name in values}
            for train, test in splits:  # scikit-learn's scores of the fold (cached by its (label, prediction) pairs)
                fold = scorer.scores([(seq[train], seq[test])])
                for name in values:
                    scores[name].append(float(fold[name]))
            for name in values:
                values[name][d] = np.mean(scores[name])
    for name, metric in (("balanced_error", LinearMetric.balanced_error()), ("recall[2]", LinearMetric.recall(2))):
        exact = estimator_moments(model, N, RepeatedKFold(v, R), classifier=NB, metric=metric)
        x = values[name]
        z_mean = (x.mean() - float(exact.mean)) / (x.std(ddof=1) / math.sqrt(draws))
        dev = (x - x.mean()) ** 2
        z_var = (dev.mean() * draws / (draws - 1) - float(exact.variance)) / (dev.std(ddof=1) / math.sqrt(draws))
        assert abs(z_mean) < 3 and abs(z_var) < 3, (name, z_mean, z_var)
        # one partition's variance (RepeatedKFold(v, 1).variance: equal, test_repeated_kfold_metrics_equal_every_
        # shuffled_partition) is caught: the simulation tells the two repetitions' law from one partition's
        assert abs(x.var(ddof=1) - float(exact.single_variance)) > 3 * dev.std(ddof=1) / math.sqrt(draws), name


def test_repeated_kfold_work_is_guarded_before_any_work():
    """The dry run of the class-count route refuses a long run, the agreement-law estimate a large cache."""
    model = CellModel((2,), ["9/50", "2/25", "1/50", "18/25"])
    with pytest.raises(InvalidArgument, match="backend='montecarlo'.*max_seconds=None"):
        estimator_moments(model, 400, RepeatedKFold(5, 10), max_seconds=5, metric="balanced_error")
    two = CellModel.normalized((3, 2), [2, 2, 3, 2, 2, 4, 4, 3, 2, 4, 6, 4])  # a 3-valued attribute: agreement laws
    with pytest.raises(InvalidArgument, match="GiB"):
        estimator_moments(two, 60, RepeatedKFold(5, 10))


@pytest.mark.parametrize("estimator", [Point632(), Bootstrap(), RepeatedKFold(2, 3)], ids=["632", "err1", "rkf"])
def test_confusion_moments_of_the_new_routes_add_up_to_the_error(estimator):
    """The off-diagonal entries of the confusion matrix sum to the error: their means and covariances add up."""
    from momentbound.estimators import confusion_moments

    model = CellModel((2,), ["1/5", "3/10", "7/20", "3/20"])
    r = confusion_moments(model, 5, estimator)
    e = estimator_moments(model, 5, estimator)
    assert r.mean[0][1] + r.mean[1][0] == e.mean
    assert sum(r.covariance[i][j] for i in (1, 2) for j in (1, 2)) == e.variance
    assert r.covariance[1][1] != e.variance


def test_tie_coins_of_resubstitution_and_632_with_a_class_rate():
    """NaiveBayes with random ties (alpha = 0): each point's prediction is an independent coin. Every
    ordered dataset, every coin outcome of its points (resubstitution) and every resample (Err(1), the
    coins averaged over infinitely many resamples): the recall's and the balanced error's moments equal
    the exact ones, coin variance included."""
    from momentbound.classifiers import NaiveBayes

    model, N = BINARY, 4
    clf = NaiveBayes(ties="random")
    K, C = model.n_classes, len(model.cells)
    samples = list(itertools.product(range(N), repeat=N))

    cache: dict[tuple[int, ...], np.ndarray] = {}

    def g(rows: np.ndarray) -> np.ndarray:  # P[predict k] at every input (halves: exact), for these rows' table
        key = tuple(np.bincount(rows, minlength=C))
        if key not in cache:
            probs = clf.predict_tables(model, np.array(key)[None, :])[0]
            cache[key] = np.array([[Fraction(v).limit_denominator(2) for v in row] for row in probs], dtype=object)
        return cache[key]

    rows = []
    for seq, w in _datasets(model, N):
        x = seq // K
        q = np.empty((N, K), dtype=object)
        for i in range(N):
            left_out = [s for s in samples if i not in s]
            q[i] = [sum((g(seq[list(s)])[x[i], k] for s in left_out), Fraction(0)) / len(left_out) for k in range(K)]
        rows.append((seq, w, g(seq), q))
    for name, metric in (("recall[1]", LinearMetric.recall(1)), ("balanced_error", LinearMetric.balanced_error())):
        acc = {"resub": [Fraction(0)] * 2, "632": [Fraction(0)] * 2}
        for seq, w, full, q in rows:
            x, y = seq // K, seq % K
            err1 = _rate(y, q, name, K)
            for outcome in itertools.product(range(K), repeat=N):  # every coin of every point
                prob = math.prod((full[x[i], outcome[i]] for i in range(N)), start=Fraction(1))
                if not prob:
                    continue
                hit = np.array([[Fraction(int(outcome[i] == k)) for k in range(K)] for i in range(N)], dtype=object)
                resub = _rate(y, hit, name, K)
                for key, value in (("resub", resub), ("632", (1 - WEIGHT_632) * resub + WEIGHT_632 * err1)):
                    acc[key][0] += w * prob * value
                    acc[key][1] += w * prob * value * value
        for key, est in (("resub", Resubstitution()), ("632", Point632())):
            m, s2 = acc[key]
            got = estimator_moments(model, N, est, classifier=clf, metric=metric)
            assert (got.mean, got.variance) == (m, s2 - m * m), (name, key)
