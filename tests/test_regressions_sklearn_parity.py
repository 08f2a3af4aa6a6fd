"""Parity with scikit-learn's own objects: its splitters, ``cross_val_score`` and ``CategoricalNB``.

Each test runs the real scikit-learn object (or enumerates every dataset and compares with exact
arithmetic) against the toolkit's law of the same quantity.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import pytest
from conftest import run_in_process
from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit

from momentbound.exact.shuffle_split import stratified_holdout_compositions
from momentbound.exact.allocation import approximate_mode_law
from momentbound.splitters.repeated import _approximate_mode


# ----------------------------------------------------------------------------- StratifiedShuffleSplit
def _three_class_counts(N):
    for a in range(N + 1):
        for b in range(N + 1 - a):
            yield (a, b, N - a - b)


def _sklearn_test_compositions(counts, test_size, n_splits):
    y = np.repeat(np.arange(3), counts)
    splitter = SkStratifiedShuffleSplit(n_splits, test_size=test_size, random_state=0)
    try:
        return Counter(tuple(int(x) for x in np.bincount(y[test], minlength=3))
                       for _, test in splitter.split(np.zeros((len(y), 1)), y))
    except ValueError:  # scikit-learn refuses these class counts
        return Counter()


@pytest.mark.parametrize("share, sizes", [(0.2, range(3, 31)), (0.3, (20, 30))])
def test_stratified_shuffle_split_compositions_equal_scikit_learn_three_classes(share, sizes):
    """For every class-count vector of three classes at N <= 30, the test compositions the exact backend
    sums over are those the real StratifiedShuffleSplit produces (float remainders decide; a true tie is
    a coin): the same support, and a tie's probability within 5 standard errors over 24 splits."""
    ties = differ = 0
    for N in sizes:
        ns = math.ceil(share * N)
        if not 1 <= ns <= N - 1:
            continue
        for counts in _three_class_counts(N):
            law = dict(stratified_holdout_compositions(counts, ns))
            R = 24 if len(law) > 1 else 1
            seen = _sklearn_test_compositions(counts, ns, R)
            assert set(seen) == set(law), (counts, ns, law, seen)
            if len(law) > 1:
                ties += 1
                for comp, p in law.items():
                    sd = math.sqrt(float(p * (1 - p)) / R)
                    assert abs(seen[comp] / R - float(p)) <= 5 * sd
            if law and N in (20, 30) and share == 0.2:
                rational = _rational_law(counts, N - ns)
                differ += rational != law
    assert ties > 0
    if share == 0.2:  # the class-count vectors where rational remainders would decide otherwise
        assert differ == 24 + 48


def _rational_law(counts, n_train):
    """Test compositions if remainders were compared as exact rationals (ties by a coin)."""
    N = sum(counts)
    floor = [c * n_train // N for c in counts]
    rem = [c * n_train - f * N for c, f in zip(counts, floor)]
    need = n_train - sum(floor)
    present = [k for k, c in enumerate(counts) if c]
    import itertools
    from fractions import Fraction

    order = sorted({rem[k] for k in present}, reverse=True)
    chosen = []
    for value in order:
        group = [k for k in present if rem[k] == value]
        if len(group) <= need:
            chosen += group
            need -= len(group)
            if not need:
                break
            continue
        out = {}
        for extra in itertools.combinations(group, need):
            train = [f + (k in chosen or k in extra) for k, f in enumerate(floor)]
            out[tuple(c - t for c, t in zip(counts, train))] = Fraction(1, math.comb(len(group), need))
        return out
    train = [f + (k in chosen) for k, f in enumerate(floor)]
    return {tuple(c - t for c, t in zip(counts, train)): Fraction(1)}


def test_stratified_shuffle_split_issue_example():
    """Class counts (2, 6, 12) at N = 20, test size 4: scikit-learn always tests (0, 1, 3)."""
    assert dict(stratified_holdout_compositions((2, 6, 12), 4)) == {(0, 1, 3): 1}
    assert set(_sklearn_test_compositions((2, 6, 12), 4, 50)) == {(0, 1, 3)}


def test_monte_carlo_allocation_follows_the_float_law():
    """The Monte Carlo sampler's training compositions follow approximate_mode_law on vectors where the
    float and rational rules differ and on vectors with a true float tie."""
    rng = np.random.default_rng(1)
    cases = [((2, 6, 12), 16), ((3, 3, 0), 3), ((2, 2, 2), 4), ((4, 6, 10), 16), ((5, 7, 18), 24)]
    for counts, n in cases:
        law = dict(approximate_mode_law(counts, n))
        R = 4000
        got = Counter(map(tuple, _approximate_mode(np.tile(np.array(counts), (R, 1)), n, rng).tolist()))
        assert set(got) == set(law)
        for comp, p in law.items():
            assert abs(got[comp] / R - float(p)) <= 5 * math.sqrt(float(p * (1 - p)) / R) + 1e-12


# ----------------------------------------------------------------------------- the mean of the fold scores
def _ordered_datasets(cells, N):
    """Every ordered dataset of N points of a one-attribute model (cells: ((x, y), p)), with its probability."""
    import itertools
    from fractions import Fraction

    for seq in itertools.product(range(len(cells)), repeat=N):
        prob = Fraction(1)
        for c in seq:
            prob *= cells[c][1]
        if prob:
            yield seq, prob


def _categorical_nb_errors(cells, train, test, cache):
    """Misclassified points of ``test`` by scikit-learn's CategoricalNB fitted on ``train`` (cell indices);
    fits cached by training count table."""
    import warnings as _w

    from sklearn.naive_bayes import CategoricalNB

    key = tuple(sorted(train))
    if key not in cache:
        X = np.array([[cells[c][0][0]] for c in key])
        y = np.array([cells[c][0][1] for c in key])
        clf = CategoricalNB(alpha=1, min_categories=2)
        with _w.catch_warnings():
            _w.simplefilter("ignore")
            clf.fit(X, y)
        cache[key] = {x: int(clf.predict(np.array([[x]]))[0]) for x in range(2)}
    pred = cache[key]
    return sum(pred[cells[c][0][0]] != cells[c][0][1] for c in test)


def _one_attribute_model():
    from fractions import Fraction as F

    # one binary attribute, two classes, prior of class 1: 3/20 (cells P[X=x, Y=y], class fastest)
    probs = [F(51, 100), F(3, 100), F(34, 100), F(12, 100)]
    cells = [((x, y), probs[2 * x + y]) for x in range(2) for y in range(2)]
    return cells, probs


@pytest.mark.parametrize("N, v", [(5, 2), (5, 3)])
def test_stratified_fold_mean_equals_cross_val_score_exactly(N, v):
    """E[1 - mean(cross_val_score(CategoricalNB(alpha=1), X, y, cv=StratifiedKFold(v)))] over every ordered
    dataset (scikit-learn's own splitter and classifier, exact Fractions; datasets it cannot split left out)
    equals the exact backend's default statistic, and differs from the pooled error (unequal folds). The
    repeated form has the same mean."""
    from fractions import Fraction

    from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    from momentbound import CellModel
    from momentbound.estimators import estimator_moments
    from momentbound.exact import NaiveBayes
    from momentbound.splitters import RepeatedStratifiedKFold, StratifiedKFold

    cells, probs = _one_attribute_model()
    cache: dict = {}
    mass = folds_mean = pooled = Fraction(0)
    checked = 0
    for seq, prob in _ordered_datasets(cells, N):
        y = np.array([cells[c][0][1] for c in seq])
        X = np.array([[cells[c][0][0]] for c in seq])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a class with fewer than v members: scikit-learn warns
                parts = list(SkStratifiedKFold(v).split(X, y))
        except ValueError:  # v exceeds every class count: scikit-learn refuses
            continue
        errors = [_categorical_nb_errors(cells, [seq[i] for i in tr], [seq[i] for i in te], cache)
                  for tr, te in parts]
        sizes = [len(te) for _, te in parts]
        fm = sum(Fraction(e, s) for e, s in zip(errors, sizes)) / v
        if checked < 40 and prob > Fraction(1, 10**4):  # the witness is cross_val_score itself
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = cross_val_score(CategoricalNB(alpha=1, min_categories=2), X, y, cv=SkStratifiedKFold(v))
            assert abs((1 - scores.mean()) - float(fm)) < 1e-12
            checked += 1
        mass += prob
        folds_mean += prob * fm
        pooled += prob * Fraction(sum(errors), N)
    model = CellModel((2,), probs)
    clf = NaiveBayes(ties="first", alpha=1)
    default = estimator_moments(model, N, StratifiedKFold(v), classifier=clf)
    assert default.mean == folds_mean / mass
    assert estimator_moments(model, N, StratifiedKFold(v, average="pooled"), classifier=clf).mean == pooled / mass
    assert folds_mean != pooled
    assert estimator_moments(model, N, RepeatedStratifiedKFold(v, 3), classifier=clf).mean == folds_mean / mass
    assert default.split_probability == mass


# ----------------------------------------------------------------------------- GE_N beside stratified CV
def _run_json(*args):
    # in this process, file descriptors included (estimate runs as a real process in test_cli_subprocess.py)
    import json

    proc = run_in_process([*args, "--json"])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_stratified_ge_mean_is_one_quantity_in_both_backends():
    """``ge_mean`` beside stratified-cv is E[GE_n] of i.i.d. training sets of n = train_size points in every
    backend: the exact 0.457174 (= --estimator ge --N 16) and Monte Carlo within 4 standard errors (it used
    to report the GE of the stratified fold's classifier, 0.4555 +- 0.0003). The statistic is named."""
    cells = ["--cells", "1/5,3/10,1/5,3/10", "--N", "20", "--estimator", "stratified-cv", "--folds", "5"]
    exact = _run_json("estimate", *cells)
    ge16 = _run_json("estimate", "--cells", "1/5,3/10,1/5,3/10", "--N", "16", "--estimator", "ge")
    assert exact["ge_mean"] == pytest.approx(0.457174, abs=5e-7) and exact["ge_mean"] == ge16["mean"]
    assert exact["ge_variance"] == ge16["variance"]
    assert exact["average"] == "folds" and exact["splitter"]["params"]["average"] == "folds"
    mc = _run_json("estimate", *cells, "--backend", "montecarlo", "--draws", "50000", "--seed", "3")
    se = math.sqrt(exact["ge_variance"] / 50000)
    assert abs(mc["ge_mean"] - exact["ge_mean"]) < 4 * se
    assert mc["average"] == "folds"


def test_stratified_ge_full_equals_categorical_nb_enumeration():
    """--against ge-full under StratifiedKFold: E[GE_N] and Var(GE_N) conditional on a dataset scikit-learn can
    split, equal (exact Fractions) to an enumeration of every count table of two binary attributes at N = 6
    with scikit-learn's CategoricalNB trained on all points (datasets with no class of 4 points left out);
    the unconditional moments differ."""
    import itertools
    from fractions import Fraction as F

    from sklearn.naive_bayes import CategoricalNB

    from momentbound import CellModel
    from momentbound.estimators import estimator_accuracy, estimator_moments
    from momentbound.exact import NaiveBayes
    from momentbound.splitters import GE, StratifiedKFold

    probs = [F(1, 5), F(1, 20), F(1, 10), F(3, 20), F(1, 10), F(1, 10), F(1, 20), F(1, 4)]
    cells = [(a, b, y) for a in range(2) for b in range(2) for y in range(2)]
    N, v = 6, 4
    mass = m1 = m2 = F(0)
    for t in itertools.product(range(N + 1), repeat=8):
        if sum(t) != N:
            continue
        if max(sum(t[i] for i in range(8) if cells[i][2] == c) for c in range(2)) < v:
            continue  # StratifiedKFold(4) refuses
        pr = F(math.factorial(N))
        for i in range(8):
            pr = pr * probs[i] ** t[i] / math.factorial(t[i])
        idx = [i for i in range(8) for _ in range(t[i])]
        clf = CategoricalNB(alpha=1, min_categories=[2, 2]).fit(np.array([cells[i][:2] for i in idx]),
                                                                  np.array([cells[i][2] for i in idx]))
        pred = clf.predict(np.array([[a, b] for a in range(2) for b in range(2)]))
        ge = sum((probs[4 * a + 2 * b + y] for a in range(2) for b in range(2) for y in range(2)
                  if pred[2 * a + b] != y), F(0))
        mass += pr
        m1 += pr * ge
        m2 += pr * ge * ge
    model = CellModel((2, 2), probs)
    clf = NaiveBayes(ties="first", alpha=1)
    acc = estimator_accuracy(model, N, StratifiedKFold(v), classifier=clf)
    assert acc.ge_full_mean == m1 / mass
    assert acc.ge_full_variance == m2 / mass - (m1 / mass) ** 2
    assert 0 < mass < 1 and estimator_moments(model, N, GE(), classifier=clf).mean != acc.ge_full_mean


def test_stratified_ge_full_same_in_both_backends():
    """The stratified --against ge-full: Monte Carlo (datasets scikit-learn refuses redrawn) within 4 standard
    errors of the exact E[GE_N] and Var(GE_N) conditional on a split."""
    args = ["estimate", "--arities", "2,2", "--cells", "1/5,1/20,1/10,3/20,1/10,1/10,1/20,1/4", "--N", "6",
            "--estimator", "stratified-cv", "--folds", "4", "--ties", "first", "--alpha", "1", "--against", "ge-full"]
    exact = _run_json(*args)
    assert exact["ge_full_mean_exact"] == "360928809/891880400"
    mc = _run_json(*args, "--backend", "montecarlo", "--draws", "20000", "--seed", "2")
    se = math.sqrt(exact["ge_full_variance"] / 20000)
    assert abs(mc["ge_full_mean"] - exact["ge_full_mean"]) < 4 * se
    assert mc["ge_full_variance_lower"] - 1e-4 <= exact["ge_full_variance"] <= mc["ge_full_variance_upper"] + 1e-4


# ----------------------------------------------------------------------------- CategoricalNB
def test_ties_first_is_not_categorical_nb_on_float_decided_ties():
    """The documented difference: with alpha = 0 both classes score 1/7 at x = 0 (counts (1, 1), class totals
    2 and 5); ties='first' predicts class 0, CategoricalNB's float argmax class 1. On the same table with
    equal class totals (the same float operations) they agree."""
    from sklearn.naive_bayes import CategoricalNB

    from momentbound.exact import NaiveBayes

    def sk(table, x):
        X = np.repeat(np.arange(3), table.sum(axis=1))[:, None]
        y = np.concatenate([[0] * table[i, 0] + [1] * table[i, 1] for i in range(3)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # log(0) of an unseen category with alpha = 0
            return int(CategoricalNB(alpha=0, force_alpha=True, min_categories=3).fit(X, y).predict([[x]])[0])

    nb = NaiveBayes("first", 0)
    table = np.array([[1, 1], [1, 0], [0, 4]])
    assert nb.predict_proba(table, 0) == (1, 0) and nb.predict(table, 0) == 0
    assert sk(table, 0) == 1
    even = np.array([[1, 1], [1, 0], [0, 1]])
    assert nb.predict(even, 0) == sk(even, 0) == 0


def test_categorical_nb_without_min_categories_is_refused_with_the_reason(paper, capfd):
    """CategoricalNB() without min_categories gives NaN fold scores in cross_val_score whenever a test fold holds
    a category unseen in training (a rare category, p = 0.05, N = 20: a good share of datasets); it is refused
    with the reason, and min_categories equal to the arities is accepted (another value refused)."""
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    from momentbound.errors import InvalidArgument
    from momentbound.estimators import estimator_moments
    from momentbound.splitters import KFold, StratifiedKFold

    rng = np.random.default_rng(0)
    nan_runs = 0
    for _ in range(40):
        x = (rng.random(20) < 0.05).astype(int)  # category 1 is rare
        y = rng.integers(0, 2, 20)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                scores = cross_val_score(CategoricalNB(), x[:, None], y, cv=5)
            except ValueError:
                continue
        nan_runs += bool(np.isnan(scores).any())
    assert nan_runs > 0  # scikit-learn's own NaN folds: what the exact law would have to model

    model = paper
    with pytest.raises(InvalidArgument, match="without min_categories.*NaN fold score.*min_categories=\\[2\\]"):
        estimator_moments(model, 6, StratifiedKFold(2), classifier=CategoricalNB(alpha=1))
    with pytest.raises(InvalidArgument, match="does not match the model's arities"):
        estimator_moments(model, 6, StratifiedKFold(2), classifier=CategoricalNB(alpha=1, min_categories=3))
    ok = estimator_moments(model, 6, StratifiedKFold(2), classifier=CategoricalNB(alpha=1, min_categories=[2]))
    assert ok.classifier.ties == "first"
    # KFold too, and the refusal comes alone: no warning (every one shown, as in a fresh interpreter) and
    # nothing written to file descriptors 1 and 2
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(InvalidArgument) as err:
            estimator_moments(model, 6, KFold(2), classifier=CategoricalNB())
    assert str(err.value).startswith("CategoricalNB() without min_categories") and not seen, (err.value, seen)
    assert capfd.readouterr() == ("", "")


# ----------------------------------------------------------------------------- work estimates of the class-count routes
def _run_error(*args):
    import json

    proc = run_in_process([*args, "--json"])
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout[:200])
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    _ = json
    return proc.stderr


@pytest.mark.parametrize("args", [
    ["--arities", "4", "--classes", "3", "--N", "30", "--estimator", "shuffle-split"],
    ["--arities", "4", "--classes", "3", "--N", "30", "--estimator", "repeated-stratified-cv", "--folds", "5"],
    ["--arities", "2,2", "--classes", "3", "--N", "30", "--estimator", "repeated-stratified-cv", "--folds", "5"],
])
def test_class_count_routes_refused_before_work(args):
    """Inputs measured at 186 s to over 600 s (the first two; the third, on binary attributes, estimated at
    over 300 s: at N = 20 it now runs in about 30 s) are refused by the work guard (estimate > 120 s) at
    once, naming the Monte Carlo backend."""
    cells = ",".join(["1/12"] * 12)
    err = _run_error("estimate", "--cells", cells, *args)
    assert "would take" in err and "montecarlo" in err and "limit 120 s" in err


def test_class_count_work_estimate_grows_with_the_work(paper):
    """The estimate counts the terms the exact routes compute: more classes, inputs, repetitions or
    compositions cost more, and a small run is well under the guard."""
    from momentbound import CellModel
    from momentbound.estimators import estimator_moments
    from momentbound.exact.shuffle_split import shuffle_split_seconds
    from momentbound.exact.stratified import stratified_seconds
    from momentbound.splitters import StratifiedKFold

    one = paper
    three = CellModel((4,), ["1/12"] * 12, 3)
    assert stratified_seconds(one, 12, 3) < stratified_seconds(one, 24, 3) < stratified_seconds(three, 24, 3)
    assert stratified_seconds(three, 20, 5) < stratified_seconds(three, 20, 5, repeated=True)
    assert shuffle_split_seconds(three, 20, 2, stratified=True) < shuffle_split_seconds(three, 20, 2)
    assert stratified_seconds(one, 12, 3) < 1
    assert estimator_moments(one, 12, StratifiedKFold(3)).split_probability == 1


def test_fold_mean_is_the_default_of_the_cli_with_unequal_folds():
    """One binary attribute, prior 0.15, N = 12, 5 and 10 stratified folds: the CLI's default statistic is the
    mean of the fold errors (JSON 'average': 'folds'), equal to the API's average='folds', and --average pooled
    gives the pooled error, which is larger here."""
    from fractions import Fraction

    from momentbound import CellModel
    from momentbound.estimators import estimator_moments
    from momentbound.exact import NaiveBayes
    from momentbound.splitters import StratifiedKFold

    cells = "51/80,3/80,17/80,9/80"
    model = CellModel((2,), cells.split(","))
    clf = NaiveBayes(ties="first", alpha=1)
    for v in (5, 10):
        base = ["estimate", "--cells", cells, "--N", "12", "--estimator", "stratified-cv", "--folds", str(v),
                "--ties", "first", "--alpha", "1"]
        default, pooled = _run_json(*base), _run_json(*base, "--average", "pooled")
        assert default["average"] == "folds" and pooled["average"] == "pooled"
        want = estimator_moments(model, 12, StratifiedKFold(v, average="folds"), classifier=clf).mean
        assert Fraction(default["mean_exact"]) == want
        assert Fraction(pooled["mean_exact"]) == estimator_moments(
            model, 12, StratifiedKFold(v, average="pooled"), classifier=clf).mean
        assert pooled["mean"] > default["mean"] + 0.01


def test_kfold_fold_mean_monte_carlo_agrees_with_exact():
    """KFold(3) at N = 7 (folds 3, 2, 2): the Monte Carlo fold mean within 4 standard errors of the exact one,
    which differs from the pooled error by more than that."""
    from momentbound import CellModel
    from momentbound.estimators import estimator_moments
    from momentbound.splitters import KFold

    model = CellModel((2,), ["1/5", "3/10", "1/10", "2/5"])
    exact = estimator_moments(model, 7, KFold(3))
    pooled = estimator_moments(model, 7, KFold(3, average="pooled"))
    mc = estimator_moments(model, 7, KFold(3), backend="montecarlo", draws=40000, rng=5)
    se = (float(mc.mean.upper) - float(mc.mean.lower)) / (2 * 1.96)
    assert abs(float(mc.mean.estimate) - float(exact.mean)) < 4 * se
    assert abs(float(exact.mean) - float(pooled.mean)) > 4 * se
