"""Resubstitution, the ideal bootstrap, .632 and accuracy against GE_N equal brute force exactly.

Witness: tests/oracles/bootstrap.py enumerates every count table of the data, every bootstrap
sample (as multiplicities over the explicit list of the other points) and every product of fold
tables, with the classifier computed from its list of training points (tests/oracles/naive_bayes.py).
The stratified splitters are checked against tests/oracles/stratified.py, an enumeration of every
ordered dataset run through scikit-learn's own ``StratifiedKFold`` (exactly for the exact backend,
within 4 standard errors for Monte Carlo).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.classifiers import HistogramRule, NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import (
    GE,
    Bootstrap,
    HoldOut,
    KFold,
    LeaveOneOut,
    OutOfBag,
    Point632,
    Point632Plus,
    Resubstitution,
    estimator_accuracy,
    estimator_moments,
)
from momentbound.splitters.stratified import StratifiedKFold
from momentbound.exact.tables import TableLaw, table_rank, tables_of_size
from momentbound.splitters.repeated import RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit
from oracles.bootstrap import BootstrapBruteForce
from oracles.estimators import BruteForce, Moments
from oracles.stratified import (
    approximate_mode_law,
    stratified_accuracy_bruteforce,
    stratified_shuffle_split_bruteforce,
)

MODELS = {
    "1d": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    "3class": CellModel((2,), [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)], 3),
}


@functools.lru_cache(maxsize=None)
def oracle(name: str, ties: str, alpha: int) -> BootstrapBruteForce:
    return BootstrapBruteForce(BruteForce.from_model(MODELS[name], ties, alpha))


def accuracy_wants(name, ties, alpha, n, kind):
    bb = oracle(name, ties, alpha)
    got = bb.moments(n, kind)
    ge = bb.bf.ge_moments(n)
    return got, ge


def check_accuracy(acc, mean, second, joint, ge):
    """Every field of an exact accuracy result against brute-force E[est], E[est^2], E[est GE_N]."""
    g2 = ge.variance + ge.mean**2
    assert isinstance(acc.mean, F) and isinstance(acc.covariance_with_ge, F)
    assert acc.mean == mean
    assert acc.variance == second - mean**2
    assert (acc.ge_full_mean, acc.ge_full_variance) == (ge.mean, ge.variance)
    assert acc.covariance_with_ge == joint - mean * ge.mean
    assert acc.bias == mean - ge.mean
    assert acc.mean_square == second - 2 * joint + g2
    assert acc.deviation_variance == acc.mean_square - acc.bias**2
    assert math.isclose(acc.rms, math.sqrt(acc.mean_square), rel_tol=1e-12)
    var = float(second - mean**2)
    if var > 0 and ge.variance > 0:
        want = float(joint - mean * ge.mean) / math.sqrt(var * float(ge.variance))
        assert math.isclose(acc.correlation_with_ge, want, rel_tol=1e-9, abs_tol=1e-12)


RULES = [("random", 0), ("first", 0), ("random", 1), ("first", 1)]


@pytest.mark.parametrize("ties, alpha", RULES)
@pytest.mark.parametrize("n", [2, 5])
def test_resubstitution_bootstrap_632_one_attribute(ties, alpha, n):
    clf = NaiveBayes(ties=ties, alpha=alpha)
    for est, kind in [(Resubstitution(), "resub"), (Bootstrap(), "err1"), (Point632(), "632")]:
        got, ge = accuracy_wants("1d", ties, alpha, n, kind)
        acc = estimator_accuracy(MODELS["1d"], n, est, classifier=clf)
        check_accuracy(acc, got["mean"], got["second"], got["joint"], ge)
        res = estimator_moments(MODELS["1d"], n, est, classifier=clf)
        assert (res.mean, res.variance) == (got["mean"], got["second"] - got["mean"] ** 2)


@pytest.mark.parametrize("ties", ["random", "first"])
def test_bootstrap_three_classes(ties):
    clf = NaiveBayes(ties=ties, alpha=1)
    for est, kind in [(Resubstitution(), "resub"), (Bootstrap(), "err1"), (Point632(), "632")]:
        got, ge = accuracy_wants("3class", ties, 1, 4, kind)
        check_accuracy(estimator_accuracy(MODELS["3class"], 4, est, classifier=clf), got["mean"], got["second"], got["joint"], ge)


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["random", "first"])
def test_bootstrap_one_attribute_n7(ties):
    clf = NaiveBayes(ties=ties, alpha=0)
    for est, kind in [(Resubstitution(), "resub"), (Bootstrap(), "err1"), (Point632(), "632")]:
        got, ge = accuracy_wants("1d", ties, 0, 7, kind)
        check_accuracy(estimator_accuracy(MODELS["1d"], 7, est, classifier=clf), got["mean"], got["second"], got["joint"], ge)


SPLITS = [
    (GE(), None),
    (HoldOut(test_size=2), ((2, 3), 1)),
    (KFold(2, average="pooled"), ((3, 2), 2)),
    (KFold(3, average="pooled"), ((2, 2, 1), 3)),
    (LeaveOneOut(), ((1,) * 5, 5)),
]


@pytest.mark.parametrize("ties, alpha", RULES)
def test_splitters_against_ge_full(ties, alpha):
    """GE_N, and Cov(est, GE_N) of GE, hold-out, KFold and LOO (N = 5)."""
    clf = NaiveBayes(ties=ties, alpha=alpha)
    bb = oracle("1d", ties, alpha)
    n = 5
    ge = bb.bf.ge_moments(n)
    for est, layout in SPLITS:
        acc = estimator_accuracy(MODELS["1d"], n, est, classifier=clf)
        res = estimator_moments(MODELS["1d"], n, est, classifier=clf)
        second = res.variance + res.mean**2
        joint = ge.variance + ge.mean**2 if layout is None else bb.split_joint(*layout)
        check_accuracy(acc, res.mean, second, joint, ge)
        if isinstance(est, HoldOut):
            tr = bb.bf.ge_moments(3)
            assert (acc.ge_train_mean, acc.ge_train_variance) == (tr.mean, tr.variance)
            assert acc.covariance_with_train_ge == tr.variance and acc.bias_train == 0
            assert acc.deviation_variance_train == res.variance - tr.variance


@pytest.mark.slow
def test_splitters_against_ge_full_n7():
    clf = NaiveBayes(ties="random", alpha=0)
    bb = oracle("1d", "random", 0)
    ge7 = bb.bf.ge_moments(7)
    for est, layout in [(LeaveOneOut(), ((1,) * 7, 7)), (KFold(3, average="pooled"), ((3, 2, 2), 3)), (HoldOut(test_size=3), ((3, 4), 1))]:
        acc = estimator_accuracy(MODELS["1d"], 7, est, classifier=clf)
        res = estimator_moments(MODELS["1d"], 7, est, classifier=clf)
        check_accuracy(acc, res.mean, res.variance + res.mean**2, bb.split_joint(*layout), ge7)


def test_histogram_rule_three_inputs():
    """The histogram rule (naive Bayes on the flattened input) through the same exact route."""
    model = CellModel((3,), [F(1, 8), F(1, 8), F(1, 4), F(1, 16), F(1, 16), F(3, 8)])
    bb = BootstrapBruteForce(BruteForce.from_model(model, "random", 0))
    for est, kind in [(Resubstitution(), "resub"), (Point632(), "632")]:
        got = bb.moments(4, kind)
        ge = bb.bf.ge_moments(4)
        acc = estimator_accuracy(model, 4, est, classifier=HistogramRule())
        check_accuracy(acc, got["mean"], got["second"], got["joint"], ge)
    acc = estimator_accuracy(model, 4, KFold(2, average="pooled"), classifier=HistogramRule())
    res = estimator_moments(model, 4, KFold(2, average="pooled"), classifier=HistogramRule())
    check_accuracy(acc, res.mean, res.variance + res.mean**2, bb.split_joint((2, 2), 2), bb.bf.ge_moments(4))


def test_fast_routes_equal_the_generic_sums():
    """The one-attribute routes (trinomial bootstrap law; additive GE) equal the generic sums."""
    for ties in ("random", "first"):
        model = CellModel((3,), [0.1, 0.2, 0.15, 0.15, 0.25, 0.15])
        law = TableLaw(model, NaiveBayes(ties=ties), exact=False)
        generic = TableLaw(model, NaiveBayes(ties=ties), exact=False)
        generic._fast_applies = lambda: False
        n = 7
        assert np.allclose(law.bootstrap(n), generic.bootstrap(n), atol=1e-13)
        for s in (1, 3, 6):
            assert math.isclose(law.full_product(n, s), generic.full_product(n, s), rel_tol=1e-12)
    exact = TableLaw(MODELS["1d"], NaiveBayes(), exact=True)
    flt = TableLaw(MODELS["1d"].to_float(), NaiveBayes(), exact=False)
    assert math.isclose(float(exact.expect(8, exact.bootstrap(8))), flt.expect(8, flt.bootstrap(8)), rel_tol=1e-12)


def test_table_ranks():
    for n, cells in [(0, 3), (5, 1), (6, 4), (4, 6)]:
        t = tables_of_size(n, cells)
        assert len(t) == math.comb(n + cells - 1, cells - 1) and (t.sum(axis=1) == n).all()
        assert (table_rank(t, n) == np.arange(len(t))).all()
        assert len({tuple(r) for r in t.tolist()}) == len(t)


def test_point632plus_exact_is_the_table_function():
    """Ideal .632+ = eq. 32 applied to each table's err, Err(1) and gamma (computed by the oracle)."""
    bb = oracle("1d", "first", 0)
    a = F(632, 1000)
    m1 = m2 = F(0)
    n = 5
    for t, pr in bb.bf.tables(n):
        r, _ = bb.resub(t)
        e = bb.err1(t)
        g_by_x = {}
        for (x, y) in bb.bf.cell_list:
            g_by_x.setdefault(x, bb.bf.g(t, x))
        labels = [y for (x, y), c in zip(bb.bf.cell_list, t) for _ in range(c)]
        inputs = [x for (x, y), c in zip(bb.bf.cell_list, t) for _ in range(c)]
        gamma = sum((1 - g_by_x[xj][yi] for yi in labels for xj in inputs), F(0)) / (n * n)
        e1 = min(e, gamma)
        rel = (e1 - r) / (gamma - r) if (e > r and gamma > r) else F(0)
        value = (1 - a) * r + a * e + (e1 - r) * (1 - a) * a * rel / (1 - (1 - a) * rel)
        m1 += pr * value
        m2 += pr * value * value
    acc = estimator_accuracy(MODELS["1d"], n, Point632Plus(), classifier=NaiveBayes(ties="first"))
    assert acc.mean == m1 and acc.variance == m2 - m1 * m1
    assert acc.approximation is not None and acc.approximation.kind == "approximation"
    assert isinstance(acc.approximation.mean, float)


def test_intractable_table_sums_refuse_before_work():
    from momentbound.model import second_nb_model

    for est in (KFold(10, average="pooled"), Bootstrap()):
        with pytest.raises(InvalidArgument, match="montecarlo"):
            estimator_accuracy(second_nb_model(), 100, est)
    with pytest.raises(InvalidArgument, match="montecarlo"):  # past the sufficient-statistic route's work limit
        estimator_accuracy(second_nb_model(), 400, Resubstitution())
    # alpha = 1: the generic bootstrap sum is above its limit and no sufficient-statistic route applies (alpha = 0
    # takes the rows route, against the simulation in tests/test_632plus_delta_halves.py)
    with pytest.raises(InvalidArgument, match="montecarlo"):
        estimator_accuracy(MODELS["3class"], 40, Bootstrap(), classifier=NaiveBayes(alpha=1))


def test_finite_b_and_oob_need_montecarlo():
    for est in (Bootstrap(10), Point632(10), Point632Plus(5), OutOfBag(7)):
        with pytest.raises(InvalidArgument, match="montecarlo"):
            estimator_accuracy(MODELS["1d"], 5, est)
    with pytest.raises(InvalidArgument, match="B must be"):
        Bootstrap(0)
    with pytest.raises(InvalidArgument, match="B must be"):
        OutOfBag(None)


# ----------------------------------------------------------------------------- stratified
def stratified_bruteforce(model, n, v, ties, alpha=0):
    """``(E[CE], E[CE^2], E[CE GE_N])`` of StratifiedKFold(v) over every ordered dataset."""
    t = stratified_accuracy_bruteforce(BruteForce.from_model(model, ties, alpha), n, v)
    return t.mean, t.second, t.joint


def check_stratified(model, n, v, ties, alpha, *, classifier=None, oracle_model=None):
    """Exact accuracy of StratifiedKFold(v) and RepeatedStratifiedKFold(v, 3) against enumeration."""
    bf = BruteForce.from_model(oracle_model or model, ties, alpha)
    t = stratified_accuracy_bruteforce(bf, n, v)
    ge = Moments(t.ge_mean, t.ge_second - t.ge_mean**2)
    clf = classifier or NaiveBayes(ties=ties, alpha=alpha)
    acc = estimator_accuracy(model, n, StratifiedKFold(v, average="pooled"), classifier=clf)
    check_accuracy(acc, t.mean, t.second, t.joint, ge)
    rep = estimator_accuracy(model, n, RepeatedStratifiedKFold(v, 3, average="pooled"), classifier=clf)
    assert (rep.mean, rep.ge_full_mean, rep.ge_full_variance) == (t.mean, ge.mean, ge.variance)
    assert rep.covariance_with_ge == acc.covariance_with_ge  # each repetition has one partition's joint law
    return t


@pytest.mark.parametrize("ties, alpha", RULES)
def test_stratified_accuracy_equals_enumeration(ties, alpha):
    """E[CE], Var, E[GE_N], Var(GE_N), Cov(CE, GE_N), bias, RMS: StratifiedKFold(2) and (3) at N = 5."""
    for v in (2, 3):
        t = check_stratified(MODELS["1d"], 5, v, ties, alpha)
        assert t.prob_possible == 1


def test_stratified_accuracy_conditional_on_a_split():
    """Three classes, N = 4, v = 3: datasets without a class of 3 members cannot be split; E[GE_N] and
    the joint term are conditional on a split, as the CV moments are."""
    t = check_stratified(MODELS["3class"], 4, 3, "first", 1)
    assert 0 < t.prob_possible < 1
    plain = BruteForce.from_model(MODELS["3class"], "first", 1).ge_moments(4)
    assert t.ge_mean != plain.mean  # conditioning changes E[GE_N]


def test_stratified_accuracy_histogram_rule():
    """The histogram rule on two attributes: the enumeration runs naive Bayes on the flattened input
    (one attribute: the majority class of the input's cell)."""
    model = CellModel((2, 2), [F(1, 8), F(1, 16), F(1, 16), F(3, 16), F(3, 16), F(1, 16), F(1, 8), F(3, 16)])
    flat = CellModel((4,), model.cells)
    check_stratified(model, 4, 2, "random", 0, classifier=HistogramRule(), oracle_model=flat)


def test_repeated_stratified_joint_equals_every_shuffled_partition():
    """RepeatedStratifiedKFold: E[mean of the repetitions x GE_N], the estimate averaged over every
    partition StratifiedKFold(shuffle=True) can draw, equals the exact joint term."""
    model = MODELS["1d"]
    t = stratified_accuracy_bruteforce(BruteForce.from_model(model, "random", 0), 5, 2, shuffled=True)
    rep = estimator_accuracy(model, 5, RepeatedStratifiedKFold(2, math.inf, average="pooled"))
    assert rep.mean == t.mean
    assert rep.covariance_with_ge == t.joint - t.mean * t.ge_mean


@pytest.mark.parametrize("v", [2, 3])
def test_stratified_accuracy_equals_enumeration_n7(v):
    check_stratified(MODELS["1d"], 7, v, "random", 0)


def test_approximate_mode_law_against_scikit_learn():
    """The oracle's law of the training composition against scikit-learn's own _approximate_mode
    (support exactly, frequencies within 4 standard errors), and the library's test compositions."""
    from sklearn.model_selection._split import _approximate_mode

    from momentbound.exact.shuffle_split import stratified_holdout_compositions

    for counts, n_train in [((3, 3), 3), ((2, 3, 4), 4), ((5, 2), 4), ((2, 2, 2, 3), 5), ((4, 6), 5)]:
        law = approximate_mode_law(counts, n_train)
        R = 400
        draws = [tuple(int(v) for v in _approximate_mode(np.array(counts), n_train, np.random.RandomState(seed)))
                 for seed in range(R)]
        assert set(draws) == set(law)
        for comp, pr in law.items():
            hits = draws.count(comp) / R
            assert abs(hits - float(pr)) <= 4 * math.sqrt(float(pr * (1 - pr)) / R) + 1e-12
        lib = dict(stratified_holdout_compositions(counts, sum(counts) - n_train))
        assert lib == {tuple(c - t for c, t in zip(counts, comp)): pr for comp, pr in law.items()}


@pytest.mark.parametrize("name, n, ns, ties, alpha", [("1d", 5, 2, "random", 0), ("1d", 6, 3, "first", 1),
                                                      ("3class", 5, 3, "first", 1)])
def test_stratified_shuffle_split_equals_enumeration(name, n, ns, ties, alpha):
    """StratifiedShuffleSplit: moments, repetition covariance and accuracy against GE_N, conditional on a
    dataset scikit-learn splits, against every ordered dataset and every test subset."""
    model = MODELS[name]
    clf = NaiveBayes(ties=ties, alpha=alpha)
    t = stratified_shuffle_split_bruteforce(BruteForce.from_model(model, ties, alpha), n, ns)
    ge = Moments(t["ge_mean"], t["ge_second"] - t["ge_mean"] ** 2)
    one = estimator_accuracy(model, n, StratifiedShuffleSplit(1, ns), classifier=clf)
    check_accuracy(one, t["mean"], t["second"], t["joint"], ge)
    res = estimator_moments(model, n, StratifiedShuffleSplit(3, ns), classifier=clf)
    cov = t["between"] - t["mean"] ** 2
    assert res.variance == (t["second"] - t["mean"] ** 2) / 3 + F(2, 3) * cov
    assert res.split_probability == t["prob_possible"]
    if name == "1d":
        assert 0 < t["prob_possible"] < 1  # a class with a single member is refused
    many = estimator_accuracy(model, n, StratifiedShuffleSplit(3, ns), classifier=clf)
    assert many.covariance_with_ge == one.covariance_with_ge


def test_shuffle_split_joint_is_the_holdout_joint():
    """Each ShuffleSplit split is a uniformly random hold-out: its joint term with GE_N is hold-out's."""
    for ties, alpha in RULES[:2]:
        clf = NaiveBayes(ties=ties, alpha=alpha)
        ss = estimator_accuracy(MODELS["1d"], 5, ShuffleSplit(4, 2), classifier=clf)
        ho = estimator_accuracy(MODELS["1d"], 5, HoldOut(test_size=2), classifier=clf)
        assert (ss.covariance_with_ge, ss.ge_full_mean, ss.ge_full_variance) == (
            ho.covariance_with_ge, ho.ge_full_mean, ho.ge_full_variance)
        assert ss.mean == ho.mean and ss.variance < ho.variance


def within(interval, truth, confidence, k=4.0):
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    se = (interval.upper - interval.lower) / (2 * z)
    return abs(interval.estimate - float(truth)) <= k * se + 1e-12


def test_stratified_accuracy_monte_carlo_against_enumeration():
    model = MODELS["1d"]
    m1, m2, joint = stratified_bruteforce(model, 5, 2, "random")
    ge = BruteForce.from_model(model, "random", 0).ge_moments(5)
    acc = estimator_accuracy(model, 5, StratifiedKFold(2, average="pooled"), backend="montecarlo", draws=40_000,
                             rng=np.random.default_rng(11))
    assert within(acc.mean, m1, acc.confidence)
    assert within(acc.variance, m2 - m1 * m1, acc.confidence)
    assert within(acc.covariance_with_ge, joint - m1 * ge.mean, acc.confidence)
    assert within(acc.bias, m1 - ge.mean, acc.confidence)
    assert acc.covariance_with_ge.upper - acc.covariance_with_ge.lower < 0.002
    # stratification changes the answer (the plain KFold value is outside the interval)
    plain = estimator_accuracy(model, 5, KFold(2, average="pooled"))
    assert not within(acc.mean, plain.mean, acc.confidence)
