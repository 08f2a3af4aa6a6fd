"""Monte Carlo of the bootstrap family and of accuracy against GE_N, against independent witnesses.

* The real procedures, written directly: datasets of iid points, bootstrap samples drawn with
  scikit-learn's ``sklearn.utils.resample``, the classifier of tests/oracles/simulation.py (exact
  integer score comparison), Err(1), .632, .632+ (Efron & Tibshirani 1997, eq. 32) and the
  out-of-bag vote computed point by point. Their means, variances and covariances with GE_N must
  agree with ``estimator_accuracy(..., backend="montecarlo")`` within 4 standard errors of the
  difference.
* The exact backend (itself checked against brute force in test_accuracy_bruteforce.py) for the
  ideal bootstrap, .632, .632+ and cross-validation at sizes where enumeration is out of reach.
"""

from __future__ import annotations

import math
import zlib
from fractions import Fraction as F
from statistics import NormalDist

import numpy as np
import pytest
from sklearn.utils import resample

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import (
    Bootstrap,
    HoldOut,
    KFold,
    OutOfBag,
    Point632,
    Point632Plus,
    Resubstitution,
    estimator_accuracy,
)
from momentbound.splitters.repeated import RepeatedKFold, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold
from oracles.simulation import SimModel, count_tables, predicted_probabilities, top_sets

MODEL = CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)])
PAPER = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
Z95 = NormalDist().inv_cdf(0.975)


def se_of(interval) -> float:
    return (interval.upper - interval.lower) / (2 * Z95)


def agree(interval, truth, se_other=0.0, k=4.0) -> bool:
    se = math.hypot(se_of(interval), se_other)
    return abs(interval.estimate - float(truth)) <= k * se + 1e-12


# ----------------------------------------------------------------------------- direct procedures
def direct_bootstrap(model, n, B, R, alpha, seed):
    """Per dataset: GE_N, resubstitution, Err(1)_B, .632, .632+ and the out-of-bag error, by the
    literal procedure (ties='first', so every loss is 0 or 1). Bootstrap indices come from
    ``sklearn.utils.resample`` (one call per sample index ``b`` draws the ``N`` indices of every
    dataset at once: ``R N`` iid uniform draws). Datasets whose samples leave no point out are
    dropped (the estimate is undefined there)."""
    sim = SimModel.from_model(model)
    rng = np.random.default_rng(seed)
    K, C, X = sim.n_classes, len(sim.p), len(sim.inputs)
    w_err = np.array([[float(sum(model.p(sim.inputs[x], k2) for k2 in range(K) if k2 != k)) for k in range(K)]
                      for x in range(X)])  # P[X = x, Y != k]
    pts = rng.choice(C, size=(R, n), p=sim.p)
    y, xin = sim.cell_y[pts], sim.cell_input[pts]
    rows = np.arange(R)[:, None]

    def predict(points):  # predicted class at every input of the classifier trained on each row
        return top_sets(sim, count_tables(points, C), alpha, "first").argmax(axis=-1)  # (R, X)

    pred_full = predict(pts)
    ge = w_err[np.arange(X)[None, :], pred_full].sum(axis=1)
    resub = (pred_full[rows, xin] != y).mean(axis=1)
    losses = np.zeros((R, n))
    counts = np.zeros((R, n))
    votes = np.zeros((R, n, K))
    for b in range(B):
        idx = resample(np.arange(n), replace=True, n_samples=n * R, random_state=int(rng.integers(2**31)))
        idx = idx.reshape(R, n)
        pred = predict(pts[rows, idx])
        left = np.ones((R, n), dtype=bool)
        left[rows, idx] = False  # points drawn into sample b
        guess = pred[rows, xin]  # (R, n): sample b's prediction at every point
        losses += left * (guess != y)
        counts += left
        votes[np.nonzero(left)[0], np.nonzero(left)[1], guess[left]] += 1
    keep = (counts > 0).any(axis=1)
    valid = counts > 0
    n_valid = valid.sum(axis=1)
    err1 = np.where(valid, losses / np.maximum(counts, 1), 0.0).sum(axis=1) / np.maximum(n_valid, 1)
    oob = ((votes.argmax(axis=2) != y) & valid).sum(axis=1) / np.maximum(n_valid, 1)
    at_points = pred_full[rows, xin]  # the full-data classifier at every training input
    gamma = (at_points[:, None, :] != y[:, :, None]).mean(axis=(1, 2))  # every label with every prediction
    a = 0.632
    e1 = np.minimum(err1, gamma)
    ok = (err1 > resub) & (gamma > resub)
    rel = np.where(ok, (e1 - resub) / np.where(ok, gamma - resub, 1.0), 0.0)
    p632 = (1 - a) * resub + a * err1
    plus = p632 + (e1 - resub) * (1 - a) * a * rel / (1 - (1 - a) * rel)
    out = {"ge": ge, "resub": resub, "err1": err1, "632": p632, "632plus": plus, "oob": oob}
    return {k: v[keep] for k, v in out.items()}


@pytest.fixture(scope="module")
def direct():
    return direct_bootstrap(MODEL, 8, 6, 6000, 1, seed=5)


def stats(x, ge):
    R = len(x)
    mean, var = x.mean(), x.var(ddof=1)
    cov = np.cov(x, ge)[0, 1]
    se_mean = x.std(ddof=1) / math.sqrt(R)
    se_var = ((x - mean) ** 2).std(ddof=1) / math.sqrt(R)
    se_cov = ((x - mean) * (ge - ge.mean())).std(ddof=1) / math.sqrt(R)
    return (mean, se_mean), (var, se_var), (cov, se_cov)


@pytest.mark.parametrize(
    "name, est",
    [("resub", Resubstitution()), ("err1", Bootstrap(6)), ("632", Point632(6)),
     ("632plus", Point632Plus(6)), ("oob", OutOfBag(6))],
)
def test_finite_b_against_sklearn_resample(direct, name, est):
    acc = estimator_accuracy(MODEL, 8, est, classifier=NaiveBayes(ties="first", alpha=1), backend="montecarlo",
                             draws=6000, rng=np.random.default_rng(zlib.crc32(name.encode())))
    (m, sm), (v, sv), (c, sc) = stats(direct[name], direct["ge"])
    assert agree(acc.mean, m, sm)
    assert agree(acc.variance, v, sv)
    assert agree(acc.covariance_with_ge, c, sc)
    assert agree(acc.ge_full_mean, direct["ge"].mean(), direct["ge"].std(ddof=1) / math.sqrt(len(direct["ge"])))
    assert se_of(acc.mean) < 0.005


def test_finite_b_differs_from_ideal():
    """Err(1) with B = 2 is not the ideal estimate (the procedures are distinguished)."""
    clf = NaiveBayes(ties="first", alpha=1)
    ideal = estimator_accuracy(MODEL, 8, Bootstrap(), classifier=clf)
    mc = estimator_accuracy(MODEL, 8, Bootstrap(2), classifier=clf, backend="montecarlo", draws=20_000,
                            rng=np.random.default_rng(3))
    assert not agree(mc.variance, ideal.variance)


# ----------------------------------------------------------------------------- exact vs Monte Carlo
@pytest.mark.parametrize("ties", ["random", "first"])
def test_ideal_family_montecarlo_matches_exact_n30(ties):
    clf = NaiveBayes(ties=ties)
    for est in (Bootstrap(), Point632(), Point632Plus(), Resubstitution()):
        exact = estimator_accuracy(PAPER, 30, est, classifier=clf)
        assert isinstance(exact.mean, float)
        mc = estimator_accuracy(PAPER, 30, est, classifier=clf, backend="montecarlo", draws=20_000,
                                rng=np.random.default_rng(7))
        for field in ("mean", "variance", "bias", "covariance_with_ge", "deviation_variance", "mean_square"):
            assert agree(getattr(mc, field), getattr(exact, field)), (est, field)
        assert exact.correlation_with_ge is not None and mc.correlation_with_ge is not None
        assert mc.correlation_with_ge.lower - 1e-9 <= exact.correlation_with_ge <= mc.correlation_with_ge.upper + 1e-9


def test_ideal_bootstrap_generic_draws_match_exact():
    """alpha = 1 has no per-table closed form: the simulation uses two bootstrap draws per table."""
    clf = NaiveBayes(ties="random", alpha=1)
    for est in (Bootstrap(), Point632()):
        exact = estimator_accuracy(MODEL, 6, est, classifier=clf)
        mc = estimator_accuracy(MODEL, 6, est, classifier=clf, backend="montecarlo", draws=30_000,
                                rng=np.random.default_rng(8))
        for field in ("mean", "variance", "covariance_with_ge", "deviation_variance"):
            assert agree(getattr(mc, field), getattr(exact, field)), (est, field)


@pytest.mark.parametrize("est", [KFold(10), HoldOut(test_size=10), KFold(3), StratifiedKFold(5),
                                 StratifiedShuffleSplit(3, 10)])
def test_splitter_accuracy_montecarlo_matches_exact_n40(est):
    exact = estimator_accuracy(PAPER, 40, est)
    mc = estimator_accuracy(PAPER, 40, est, backend="montecarlo", draws=20_000, rng=np.random.default_rng(9))
    for field in ("mean", "variance", "bias", "covariance_with_ge", "deviation_variance", "mean_square"):
        assert agree(getattr(mc, field), getattr(exact, field)), field
    if isinstance(est, HoldOut):
        for field in ("ge_train_mean", "covariance_with_train_ge", "deviation_variance_train"):
            assert agree(getattr(mc, field), getattr(exact, field)), field


def test_repeated_once_is_kfold():
    exact = estimator_accuracy(MODEL, 12, KFold(3))
    mc = estimator_accuracy(MODEL, 12, RepeatedKFold(3, repeats=1), backend="montecarlo", draws=20_000,
                            rng=np.random.default_rng(12))
    for field in ("mean", "variance", "covariance_with_ge", "deviation_variance"):
        assert agree(getattr(mc, field), getattr(exact, field)), field


def test_point632plus_approximation_is_separate():
    exact = estimator_accuracy(PAPER, 20, Point632Plus())
    approx = exact.approximation
    assert approx is not None and approx.kind == "approximation" and approx.method == "delta"
    row = exact.as_row()
    assert row["approximation_kind"] == "approximation" and row["mean"] == float(exact.mean)
    assert row["approximation_mean"] != row["mean"]


def test_montecarlo_needs_rng_and_known_backend():
    from momentbound.errors import InvalidArgument, UnknownMethod

    with pytest.raises(InvalidArgument, match="rng"):
        estimator_accuracy(MODEL, 6, KFold(2), backend="montecarlo")
    with pytest.raises(UnknownMethod, match="backend"):
        estimator_accuracy(MODEL, 6, KFold(2), backend="nope")


def test_shuffle_split_once_is_holdout():
    from momentbound.splitters.repeated import ShuffleSplit

    exact = estimator_accuracy(MODEL, 12, HoldOut(test_size=4))
    mc = estimator_accuracy(MODEL, 12, ShuffleSplit(splits=1, test_size=4), backend="montecarlo", draws=20_000,
                            rng=np.random.default_rng(13))
    for field in ("mean", "variance", "covariance_with_ge", "deviation_variance", "bias"):
        assert agree(getattr(mc, field), getattr(exact, field)), field


@pytest.mark.parametrize("rule", ["majority", "histogram"])
def test_exact_forms_through_montecarlo(rule):
    """The histogram and majority rules: exact (naive Bayes form) against the simulation of the rule."""
    from momentbound.classifiers import HistogramRule, MajorityRule

    clf = MajorityRule() if rule == "majority" else HistogramRule(ties="first")
    model = CellModel((3,), [0.1, 0.2, 0.15, 0.15, 0.25, 0.15])
    for est in (Resubstitution(), Bootstrap(), Point632(), KFold(4)):
        exact = estimator_accuracy(model, 16, est, classifier=clf)
        mc = estimator_accuracy(model, 16, est, classifier=clf, backend="montecarlo", draws=20_000,
                                rng=np.random.default_rng(14))
        for field in ("mean", "variance", "covariance_with_ge", "deviation_variance"):
            assert agree(getattr(mc, field), getattr(exact, field)), (rule, est, field)


def test_monte_carlo_moments_of_the_new_estimators():
    from momentbound.estimators import estimator_moments, monte_carlo_moments

    exact = estimator_moments(PAPER, 20, Point632())
    mc = monte_carlo_moments(PAPER, 20, Point632(), draws=20_000, rng=np.random.default_rng(15))
    assert agree(mc.mean, exact.mean) and agree(mc.variance, exact.variance)
    oob = monte_carlo_moments(PAPER, 20, OutOfBag(25), draws=2_000, rng=np.random.default_rng(16))
    assert 0.3 < oob.mean.estimate < 0.6


def test_point632plus_ideal_simulation_needs_the_closed_form():
    from momentbound.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="finite B"):
        estimator_accuracy(MODEL, 6, Point632Plus(), classifier=NaiveBayes(alpha=1), backend="montecarlo",
                           draws=200, rng=np.random.default_rng(0))


@pytest.mark.parametrize("alpha", [0, 1])
def test_bootstrap_extra_variance_is_the_difference(alpha):
    """Paired extra variance = Var(Err(1)_B) (simulated) - Var(Err(1)_ideal) (exact)."""
    from momentbound.estimators import bootstrap_extra_variance

    model = PAPER if alpha == 0 else MODEL
    clf = NaiveBayes(ties="random", alpha=alpha)
    n, B = 12, 3
    ideal = estimator_accuracy(model, n, Bootstrap(), classifier=clf)
    finite = estimator_accuracy(model, n, Bootstrap(B), classifier=clf, backend="montecarlo", draws=30_000,
                                rng=np.random.default_rng(21))
    extra = bootstrap_extra_variance(model, n, B, classifier=clf, draws=30_000, rng=np.random.default_rng(22))
    assert agree(extra, float(finite.variance.estimate) - float(ideal.variance), se_of(finite.variance))
    assert extra.lower > 0  # three samples add variance
    if alpha == 0:  # the ideal Err(1) is exact per table: pairing pays
        assert se_of(extra) < se_of(finite.variance)
