"""Sanity tests of the test oracles themselves (tests/oracles), independent of momentbound.

Witnesses: scikit-learn's CategoricalNB (the classifier), a literal enumeration of point
sequences and coin outcomes (the count-table enumeration), closed forms of docs/mathematics.md
(hold-out second moment, E[CE] = E[GE at N - s]) and simulation (the vectorised simulator).
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB

from oracles.estimators import BruteForce, kfold_sizes
from oracles.naive_bayes import (
    all_tables,
    cells_of,
    class_scores,
    points_from_table,
    predict_distribution,
    table_probability,
    top_is_tied,
)
from oracles import simulation as sim

MODELS = {
    "1d": ((2,), 2, [F(1, 5), F(3, 10), F(1, 5), F(3, 10)]),
    "1d3": ((3,), 2, [F(1, 10), F(1, 5), F(1, 5), F(1, 10), F(1, 5), F(1, 5)]),
    "2x2": ((2, 2), 2, [F(1, 10), F(3, 20)] * 4),
    "3class": ((2,), 3, [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)]),
    "2x3_3class": ((2, 3), 3, [F(1, 18)] * 18),
}


def sklearn_predict(X, y, arities, alpha, queries):
    """CategoricalNB predictions; log(0) with alpha = 0 is intended (score 0 = -inf)."""
    with np.errstate(divide="ignore"), warnings.catch_warnings():
        clf = CategoricalNB(alpha=alpha, force_alpha=True, min_categories=list(arities))
        clf.fit(X, y)
        return clf.predict(queries)


# ---------------------------------------------------------------- the scalar classifier
def test_scores_by_hand():
    # 1-D, two values, two classes; points: (0,0) twice, (0,1) once, (1,1) once
    pts = [((0,), 0), ((0,), 0), ((0,), 1), ((1,), 1)]
    assert class_scores(pts, (2,), 2, (0,), 0) == [F(2, 4), F(1, 4)]
    assert class_scores(pts, (2,), 2, (1,), 0) == [F(0), F(1, 4)]
    # alpha = 1: (N_k/N) (N_xk + 1)/(N_k + 2)
    assert class_scores(pts, (2,), 2, (1,), 1) == [F(2, 4) * F(1, 4), F(2, 4) * F(2, 4)]
    # an absent class has score 0 (also for alpha > 0) and is never a `first` candidate
    only1 = [((0,), 1)]
    assert class_scores(only1, (2,), 2, (1,), 0) == [0, 0]
    assert predict_distribution(only1, (2,), 2, (1,), "first", 0) == (0, 1)
    assert predict_distribution(only1, (2,), 2, (1,), "random", 0) == (F(1, 2), F(1, 2))
    assert predict_distribution(only1, (2,), 2, (1,), "random", 1) == (0, 1)
    # empty training set: `first` predicts class 0, `random` is uniform over all classes
    assert predict_distribution([], (2,), 3, (0,), "first", 0) == (1, 0, 0)
    assert predict_distribution([], (2,), 3, (0,), "random", 0) == (F(1, 3),) * 3
    # a 3-way tie among present classes for `random`, lowest index for `first`
    tie3 = [((0,), 0), ((0,), 1), ((0,), 2)]
    assert predict_distribution(tie3, (2,), 3, (0,), "random", 1) == (F(1, 3),) * 3
    assert predict_distribution(tie3, (2,), 3, (0,), "first", 1) == (1, 0, 0)
    tie12 = [((0,), 1), ((0,), 2), ((1,), 0), ((1,), 0)]
    assert predict_distribution(tie12, (2,), 3, (0,), "first", 0) == (0, 1, 0)
    assert predict_distribution(tie12, (2,), 3, (0,), "random", 0) == (0, F(1, 2), F(1, 2))


def test_paper_two_class_rule_is_z_sign():
    """With alpha = 0 and K = 2, class 0 wins iff Z_x > 0 (docs/mathematics.md, section 'The decision statistic Z')."""
    arities = (2, 2)
    cells = cells_of(arities, 2)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(300):
        table = tuple(int(c) for c in rng.multinomial(int(rng.integers(1, 10)), [1 / 8] * 8))
        pts = points_from_table(table, arities, 2)
        n_k = [sum(t for t, (x, y) in zip(table, cells) if y == k) for k in range(2)]
        for x in itertools.product(range(2), range(2)):
            marg = [
                [sum(t for t, (xx, y) in zip(table, cells) if y == k and xx[j] == x[j]) for j in range(2)]
                for k in range(2)
            ]
            z = n_k[1] * marg[0][0] * marg[0][1] - n_k[0] * marg[1][0] * marg[1][1]
            g = predict_distribution(pts, arities, 2, x, "random", 0)
            if n_k[0] and n_k[1]:
                assert g == ((1, 0) if z > 0 else (0, 1) if z < 0 else (F(1, 2), F(1, 2)))
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("alpha", [0, 1])
def test_first_rule_matches_sklearn_except_float_ties(name, alpha):
    """The `first` oracle equals CategoricalNB.predict wherever the exact scores do not tie.

    At exact ties sklearn compares sums of float logarithms, which can differ in the last bit
    and flip the prediction; those cases are counted, never compared.
    """
    arities, k_cls, _ = MODELS[name]
    rng = np.random.default_rng(1000 + 7 * alpha + len(name))
    queries = np.array(list(itertools.product(*(range(a) for a in arities))))
    compared = ties = 0
    for _ in range(80):
        n = int(rng.integers(1, 14))
        X = np.stack([rng.integers(0, a, size=n) for a in arities], axis=1)
        y = rng.integers(0, k_cls, size=n)
        pred = sklearn_predict(X, y, arities, alpha, queries)
        pts = [(tuple(int(v) for v in X[i]), int(y[i])) for i in range(n)]
        for x, label in zip(queries, pred):
            x = tuple(int(v) for v in x)
            if top_is_tied(pts, arities, k_cls, x, alpha):
                ties += 1
                continue
            g = predict_distribution(pts, arities, k_cls, x, "first", alpha)
            assert g[int(label)] == 1, (pts, x, label, g)
            compared += 1
    assert compared > 100 and ties > 0


def test_sklearn_float_ties_really_flip():
    """Why the sklearn simulation needs a guard: exact ties that sklearn breaks wrongly exist."""
    # class 0: 3 points, class 1: 1 point; at x = 1 both have one point: exact scores 1/4 = 1/4
    pts = [((0,), 0), ((0,), 0), ((1,), 0), ((1,), 1)]
    assert class_scores(pts, (2,), 2, (1,), 0) == [F(1, 4), F(1, 4)]
    flips = 0
    rng = np.random.default_rng(5)
    for _ in range(500):
        if flips:
            break
        n = int(rng.integers(2, 12))
        Xr = rng.integers(0, 3, size=(n, 1))
        yr = rng.integers(0, 2, size=n)
        p = [(tuple(int(v) for v in Xr[i]), int(yr[i])) for i in range(n)]
        pred = sklearn_predict(Xr, yr, (3,), 0, np.array([[0], [1], [2]]))
        for x, label in zip(range(3), pred):
            g = predict_distribution(p, (3,), 2, (x,), "first", 0)
            flips += g[int(label)] != 1
    assert flips > 0


# ---------------------------------------------------------------- the vectorised classifier
@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("alpha", [0, 1])
@pytest.mark.parametrize("ties", ["random", "first"])
def test_vectorised_classifier_equals_scalar_oracle(name, alpha, ties):
    arities, k_cls, cells = MODELS[name]
    model = sim.SimModel.make(arities, k_cls, cells)
    rng = np.random.default_rng(3)
    tables = np.array([rng.multinomial(int(rng.integers(0, 9)), model.p) for _ in range(120)])
    g = sim.predicted_probabilities(sim.top_sets(model, tables, alpha, ties))
    for r, table in enumerate(tables):
        pts = points_from_table(tuple(table), arities, k_cls)
        for xi, x in enumerate(model.inputs):
            want = predict_distribution(pts, arities, k_cls, tuple(x), ties, alpha)
            assert [F(v).limit_denominator(10) for v in g[r, xi]] == list(want)


# ---------------------------------------------------------------- enumeration oracle
def test_tables_and_probabilities():
    cells = MODELS["3class"][2]
    tabs = list(all_tables(4, 6))
    assert len(tabs) == len(set(tabs)) == 126  # C(4 + 5, 5)
    assert sum(table_probability(t, cells) for t in tabs) == 1
    assert table_probability((2, 0, 0, 0, 0, 0), cells) == F(1, 36)
    assert table_probability((1, 1, 0, 0, 0, 0), cells) == 2 * F(1, 36)


def literal_cv(arities, k_cls, cells, sizes, ties, alpha):
    """Run CV literally on every sequence of points and every coin outcome (tiny N only).

    Returns E[CE], E[CE^2], E[HE_1 HE_2] (if two folds or more), E[HE_1], E[HE_1^2].
    """
    cl = cells_of(arities, k_cls)
    n = sum(sizes)
    bounds = np.cumsum((0,) + tuple(sizes))
    acc = [F(0)] * 5
    for seq in itertools.product(range(len(cl)), repeat=n):
        w = F(1)
        for c in seq:
            w *= F(cells[c])
        # each prediction: the probability of each predicted class, enumerated jointly
        per_pred = []  # (fold, true class, distribution over predicted class)
        for i in range(len(sizes)):
            train = [cl[c] for j, c in enumerate(seq) if not bounds[i] <= j < bounds[i + 1]]
            for j in range(bounds[i], bounds[i + 1]):
                x, y = cl[seq[j]]
                per_pred.append((i, y, predict_distribution(train, arities, k_cls, x, ties, alpha)))
        for choice in itertools.product(range(k_cls), repeat=len(per_pred)):
            wc = w
            errs = [0] * len(sizes)
            for (i, y, g), pred in zip(per_pred, choice):
                wc *= g[pred]
                errs[i] += pred != y
            if wc == 0:
                continue
            ce = F(sum(errs), n)
            he = [F(e, s) for e, s in zip(errs, sizes)]
            acc[0] += wc * ce
            acc[1] += wc * ce * ce
            acc[2] += wc * (he[0] * he[1] if len(sizes) > 1 else 0)
            acc[3] += wc * he[0]
            acc[4] += wc * he[0] * he[0]
    return acc


@pytest.mark.parametrize(
    "name, sizes, ties, alpha",
    [
        ("1d", (2, 2), "random", 0),
        ("1d", (2, 1), "random", 1),
        ("1d", (1, 1, 1), "first", 0),
        ("1d3", (2, 1), "random", 0),
        ("3class", (1, 1, 1), "random", 0),
        ("3class", (2, 1), "first", 1),
    ],
)
def test_table_enumeration_equals_literal_procedure(name, sizes, ties, alpha):
    arities, k_cls, cells = MODELS[name]
    lit = literal_cv(arities, k_cls, cells, sizes, ties, alpha)
    bf = BruteForce(arities, k_cls, cells, ties, alpha)
    for symmetric in (True, False):
        cv = bf.cv_moments(sizes, symmetric=symmetric)
        assert cv.mean == lit[0]
        assert cv.variance == lit[1] - lit[0] ** 2
        # fold 0 is a largest fold: its moments are those of any fold of its size
        assert cv.fold_means[0] == lit[3]
        assert cv.fold_second[0] == lit[4]
        if len(set(sizes)) == 1:
            assert cv.pair_second_sum / (len(sizes) * (len(sizes) - 1)) == lit[2]
    # a hold-out split is one tested fold: the last fold of size sizes[-1]
    ho = bf.holdout_moments(sum(sizes) - sizes[0], sizes[0])
    assert ho.mean == lit[3] and ho.variance == lit[4] - lit[3] ** 2


@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1), ("first", 0)])
def test_symmetric_enumeration_equals_product(ties, alpha):
    arities, k_cls, cells = MODELS["1d"]
    bf = BruteForce(arities, k_cls, cells, ties, alpha)
    for sizes in [(2, 2, 1), (2, 2), (1, 1, 1, 1)]:
        a = bf.cv_moments(sizes, symmetric=True)
        b = bf.cv_moments(sizes, symmetric=False)
        assert (a.mean, a.variance, a.fold_variance, a.fold_covariance) == (
            b.mean, b.variance, b.fold_variance, b.fold_covariance)


@pytest.mark.parametrize("name", ["1d", "3class"])
@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1)])
def test_oracle_identities_of_spec_section_3(name, ties, alpha):
    arities, k_cls, cells = MODELS[name]
    bf = BruteForce(arities, k_cls, cells, ties, alpha)
    n = 6 if name == "1d" else 4
    for n_test in (1, 2, 3):
        ge_t = bf.ge_moments(n - n_test)
        ge2 = ge_t.variance + ge_t.mean**2
        ho = bf.holdout_moments(n - n_test, n_test)
        assert ho.mean == ge_t.mean
        he2 = ge_t.mean / n_test + F(n_test - 1, n_test) * ge2
        assert ho.variance == he2 - ge_t.mean**2
    for v in sorted({2, n // 2, n}):
        cv = bf.kfold_moments(n, v)
        s = n // v
        ge_t = bf.ge_moments(n - s)
        assert cv.mean == ge_t.mean
        # Var(CE) = Var(HE_i)/v + (v-1)/v Cov(HE_i, HE_j) for equal folds
        assert cv.variance == cv.fold_variance / v + F(v - 1, v) * cv.fold_covariance
        # a fold's own moments are those of a hold-out with the same sizes
        ho = bf.holdout_moments(n - s, s)
        assert cv.fold_variance == ho.variance
    assert kfold_sizes(7, 3) == (3, 2, 2) and kfold_sizes(8, 8) == (1,) * 8


def test_two_fold_covariance_is_not_the_printed_lemma():
    """For 2-fold CV the printed Lemma 2 gives Cov = E[GE_1 GE_2] - E[GE]^2 = 0 (independent
    training sets); the enumeration of the real procedure gives a clearly positive value."""
    arities, k_cls, cells = MODELS["1d"]
    bf = BruteForce(arities, k_cls, cells, "random", 0)
    cv = bf.kfold_moments(8, 2)
    assert cv.fold_covariance > F(1, 100)


# ---------------------------------------------------------------- simulation vs enumeration
@pytest.mark.parametrize(
    "name, ties, alpha", [("1d", "random", 0), ("2x2", "first", 1), ("3class", "random", 1)]
)
def test_simulation_agrees_with_enumeration(name, ties, alpha):
    arities, k_cls, cells = MODELS[name]
    model = sim.SimModel.make(arities, k_cls, cells)
    bf = BruteForce(arities, k_cls, cells, ties, alpha)
    rng = np.random.default_rng(2024)
    r = 20_000
    z = 4.0
    n = 4
    ge = sim.simulate_ge(model, n, r, rng, ties=ties, alpha=alpha)
    truth = bf.ge_moments(n)
    assert sim.mean_estimate(ge).contains(float(truth.mean), z)
    assert sim.variance_estimate(ge).contains(float(truth.variance), z)
    he = sim.simulate_holdout(model, 3, 2, r, rng, ties=ties, alpha=alpha)
    truth = bf.holdout_moments(3, 2)
    assert sim.mean_estimate(he).contains(float(truth.mean), z)
    assert sim.variance_estimate(he).contains(float(truth.variance), z)
    run = sim.simulate_folds(model, (2, 1, 1), r, rng, ties=ties, alpha=alpha)
    truth = bf.cv_moments((2, 1, 1))
    assert sim.mean_estimate(run.ce).contains(float(truth.mean), z)
    assert sim.variance_estimate(run.ce).contains(float(truth.variance), z)
    run = sim.simulate_folds(model, (2, 2), r, rng, ties=ties, alpha=alpha)
    truth = bf.cv_moments((2, 2))
    cov = sim.covariance_estimate(run.he[:, 0], run.he[:, 1])
    assert cov.contains(float(truth.fold_covariance), z)
    assert sim.variance_estimate(run.he[:, 1]).contains(float(truth.fold_variance), z)


def test_estimates_standard_errors():
    rng = np.random.default_rng(9)
    x = rng.normal(size=200_000)
    v = sim.variance_estimate(x)
    assert abs(v.se - np.sqrt(2 / 200_000)) < 1e-4
    c = sim.covariance_estimate(x, x)
    assert abs(c.value - v.value) < 1e-12
    m = sim.mean_estimate(x)
    assert m.contains(0.0, 4) and not m.contains(0.05, 4)
