"""estimator_moments (exact backend) agrees with simulations of the real procedures.

Witnesses (tests/oracles):
* ``simulation``: a vectorised numpy simulation of many datasets at once, running hold-out,
  v-fold CV, LOO and GE literally (exact integer naive Bayes scores; the ``random`` rule draws
  a uniform class among the tied top classes at every single prediction);
* ``sklearn_runs``: scikit-learn ``CategoricalNB(alpha, force_alpha=True, min_categories)`` with
  ``KFold`` / ``ShuffleSplit`` / ``LeaveOneOut`` for the ``first`` rule.

Statistics: datasets are iid, so the sample mean, the sample variance (delta-method standard
error from the fourth central moment) and the sample (co)variances of the per-fold errors have
normal-approximation standard errors; a check passes when the exact value is within Z = 4
standard errors (fixed seeds: the tests are deterministic). Each check also asserts its own
power: Z standard errors must be below a stated fraction of the exact value (a few percent
for means and variances), so a wrong formula off by more than that fails.

Floating-point ties in sklearn: every sklearn prediction is compared with the exact ``first``
rule (integer scores) and the tests require zero differences while counting the exactly tied
predictions. With ``alpha = 0`` sklearn's float logs do flip exact ties (see test_oracles.py),
so sklearn runs use ``alpha = 1``, where the ties that occur are symmetric (identical float
computations); ``alpha = 0`` with the ``first`` rule is covered by the vectorised simulation,
whose classifier equals sklearn at every non-tied prediction and the scalar oracle everywhere.
"""

from __future__ import annotations

import functools
from fractions import Fraction as F

import numpy as np
import pytest
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import LeaveOneOut as SkLeaveOneOut
from sklearn.model_selection import ShuffleSplit

from momentbound import CellModel
from momentbound.model import independent_1d_model, second_nb_model
from oracles import simulation as sim
from oracles.estimators import kfold_sizes
from oracles.sklearn_runs import run_sklearn

Z = 4.0

MODELS = {
    "paper1d": independent_1d_model("2/5"),  # Figs. 2-10: input independent of the class
    "1d": CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    "2x2x2": second_nb_model(),
    "3class": CellModel((2,), [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)], 3),
}


def api():
    from momentbound.estimators import GE, HoldOut, KFold, LeaveOneOut, estimator_moments
    from momentbound.exact import NaiveBayes

    return GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes


@functools.lru_cache(maxsize=None)
def exact(name, n, estimator, ties, alpha, covariance="exact"):
    *_, estimator_moments, NaiveBayes = api()
    return estimator_moments(
        MODELS[name], n, estimator, classifier=NaiveBayes(ties=ties, alpha=alpha),
        covariance=covariance,
    )


def agree(label, estimate: sim.Estimate, truth, precision: float) -> None:
    truth = float(truth)
    assert estimate.contains(truth, Z), f"{label}: simulation {estimate} vs exact {truth:.6g}"
    assert Z * estimate.se <= precision * abs(truth), (
        f"{label}: the simulation ({estimate}) cannot detect a {precision:.0%} error of {truth:.6g}"
    )


def fold_estimates(he: np.ndarray) -> tuple[sim.Estimate, sim.Estimate]:
    """Mean over folds of Var(HE_i) and mean over ordered pairs i != j of Cov(HE_i, HE_j)."""
    r, v = he.shape
    dev = he - he.mean(axis=0)
    w = (dev**2).mean(axis=1) * r / (r - 1)
    s = dev.sum(axis=1)
    u = (s * s - (dev**2).sum(axis=1)) / (v * (v - 1)) * r / (r - 1)
    return sim.mean_estimate(w), sim.mean_estimate(u)


def simulate(name, n, estimator, ties, alpha, r, rng):
    """The real procedure on r datasets: returns the per-dataset estimates and per-fold errors."""
    GE, HoldOut, KFold, LeaveOneOut, *_ = api()
    model = sim.SimModel.from_model(MODELS[name])
    if isinstance(estimator, GE):
        return sim.simulate_ge(model, n, r, rng, ties=ties, alpha=alpha), None
    if isinstance(estimator, HoldOut):
        n_test = estimator.test_size
        return sim.simulate_holdout(model, n - n_test, n_test, r, rng, ties=ties, alpha=alpha), None
    v = n if isinstance(estimator, LeaveOneOut) else estimator.v
    run = sim.simulate_folds(model, kfold_sizes(n, v), r, rng, ties=ties, alpha=alpha)
    return run.ce, run.he


def check_estimator(name, n, estimator, ties, alpha, r, seed, *, precision=0.05, fold_precision=0.1):
    rng = np.random.default_rng(seed)
    values, he = simulate(name, n, estimator, ties, alpha, r, rng)
    res = exact(name, n, estimator, ties, alpha)
    label = f"{name} N={n} {estimator} {ties} alpha={alpha}"
    agree(f"{label} mean", sim.mean_estimate(values), res.mean, 0.02)
    agree(f"{label} variance", sim.variance_estimate(values), res.variance, precision)
    if he is not None:
        v = he.shape[1]
        if n % v == 0:  # the identities of docs/mathematics.md hold to rounding for equal folds
            assert abs(float(res.mean) - float(res.ge_mean)) <= 1e-12
            ident = float(res.fold_variance) / v + (v - 1) / v * float(res.fold_covariance)
            assert abs(float(res.variance) - ident) <= 1e-12
        fold_var, fold_cov = fold_estimates(he)
        agree(f"{label} fold variance", fold_var, res.fold_variance, fold_precision)
        if he.shape[1] <= 20:  # with many folds the pair covariance is tiny: checked via Var(CE)
            agree(f"{label} fold covariance", fold_cov, res.fold_covariance, fold_precision)
    return res


# ------------------------------------------------------------------ random rule, vectorised
def test_paper_model_ge_and_holdout_random_rule():
    GE, HoldOut, *_ = api()
    check_estimator("paper1d", 50, GE(), "random", 0, 40_000, 1)
    check_estimator("paper1d", 50, HoldOut(test_size=10), "random", 0, 40_000, 2)
    check_estimator("paper1d", 50, HoldOut(test_size=25), "random", 0, 40_000, 3)


@pytest.mark.parametrize("v", [2, 3, 7])
def test_cv_random_rule(v):
    _, _, KFold, *_ = api()
    # N = 30 with 7 folds: sizes 5, 5, 4, 4, 4, 4, 4
    check_estimator("1d", 30, KFold(v), "random", 0, 40_000, 10 + v)


def test_loo_random_rule():
    *_, LeaveOneOut, _, _ = api()
    check_estimator("1d", 20, LeaveOneOut(), "random", 1, 40_000, 20)


@pytest.mark.slow
def test_paper_model_n100_cv_and_loo():
    _, _, KFold, LeaveOneOut, *_ = api()
    check_estimator("paper1d", 100, KFold(10), "random", 0, 20_000, 30, fold_precision=0.2)
    check_estimator("paper1d", 100, LeaveOneOut(), "random", 0, 30_000, 31, precision=0.08)


def test_2x2x2_random_rule():
    GE, HoldOut, KFold, *_ = api()
    check_estimator("2x2x2", 40, GE(), "random", 0, 40_000, 40)
    check_estimator("2x2x2", 40, HoldOut(test_size=10), "random", 0, 40_000, 41)
    check_estimator("2x2x2", 20, KFold(2), "random", 0, 40_000, 42)


def test_three_classes_random_rule():
    GE, HoldOut, KFold, *_ = api()
    check_estimator("3class", 20, GE(), "random", 1, 40_000, 50)
    check_estimator("3class", 20, HoldOut(test_size=5), "random", 1, 40_000, 51)
    check_estimator("3class", 20, KFold(2), "random", 1, 40_000, 52)


# ------------------------------------------------------------------ first rule
def test_first_rule_alpha0_vectorised():
    """alpha = 0: exact ties are frequent and sklearn's float logs can flip them, so the real
    procedure is simulated with the exact-score classifier (equal to sklearn off ties)."""
    _, HoldOut, KFold, LeaveOneOut, *_ = api()
    check_estimator("1d", 30, KFold(3), "first", 0, 40_000, 60)
    check_estimator("1d", 30, HoldOut(test_size=10), "first", 0, 40_000, 61)
    check_estimator("2x2x2", 40, HoldOut(test_size=20), "first", 0, 40_000, 62)


SKLEARN_CASES = [
    # name, N, estimator factory, sklearn splitter, datasets
    ("1d", 20, lambda a: a[2](5), SkKFold(n_splits=5), 60),
    ("1d", 20, lambda a: a[1](test_fraction=0.3), ShuffleSplit(n_splits=1, test_size=0.3, random_state=0), 250),
    ("paper1d", 21, lambda a: a[3](), SkLeaveOneOut(), 30),
    ("3class", 20, lambda a: a[2](2), SkKFold(n_splits=2), 80),
    ("2x2x2", 20, lambda a: a[1](test_fraction=0.5), ShuffleSplit(n_splits=1, test_size=0.5, random_state=0), 200),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(SKLEARN_CASES)))
def test_first_rule_sklearn(case):
    """The real scikit-learn procedure (first rule, alpha = 1) against the exact moments.

    1. every sklearn prediction equals the exact `first`-rule prediction (zero differences;
       exact ties are counted and must occur, so the tie rule is exercised: with two classes
       that needs even training sizes, N_0 = N_1, which the cases below have);
    2. a coarse statistical check of sklearn's own estimates (few datasets: sklearn is slow);
    3. the precise check: the vectorised simulation of the same rule with 40,000 datasets.
    """
    name, n, make, splitter, r = SKLEARN_CASES[case]
    a = api()
    estimator = make(a)
    res = exact(name, n, estimator, "first", 1)
    model = sim.SimModel.from_model(MODELS[name])
    rng = np.random.default_rng(100 + case)
    if isinstance(splitter, ShuffleSplit):
        splitter = ShuffleSplit(n_splits=1, test_size=splitter.test_size,
                                random_state=int(rng.integers(2**31)))
    run = run_sklearn(model, sim.draw_points(model, r, n, rng), splitter, alpha=1)
    assert run.n_disagreements == 0, f"sklearn flipped {run.n_disagreements} exact ties"
    assert run.n_exact_ties > 0
    values = run.ce if len(run.test_sizes) > 1 else run.he[:, 0]
    assert sim.mean_estimate(values).contains(float(res.mean), Z)
    assert sim.variance_estimate(values).contains(float(res.variance), Z)
    # the precise check of the same procedure
    _, HoldOut, *_ = a
    if isinstance(estimator, HoldOut):
        estimator = HoldOut(test_size=run.test_sizes[0])
        assert exact(name, n, estimator, "first", 1).variance == res.variance
    check_estimator(name, n, estimator, "first", 1, 40_000, 200 + case, fold_precision=0.15)


# ------------------------------------------------------------------ the printed Lemma 2
def test_printed_lemma2_disagrees_with_real_two_fold_cv():
    """2-fold CV: the simulated covariance of the two fold errors is clearly positive, equal to
    the exact covariance, and far from the printed Lemma 2's zero (docs/mathematics.md, section 'Cross-validation')."""
    _, _, KFold, *_ = api()
    n = 30
    est = KFold(2)
    paper = exact("1d", n, est, "random", 0, covariance="paper")
    real = exact("1d", n, est, "random", 0)
    rng = np.random.default_rng(77)
    _, he = simulate("1d", n, est, "random", 0, 40_000, rng)
    cov = sim.covariance_estimate(he[:, 0], he[:, 1])
    agree("2-fold covariance", cov, real.fold_covariance, 0.1)
    assert float(paper.fold_covariance) == 0.0
    assert not cov.contains(float(paper.fold_covariance), Z)
    assert cov.value > 10 * Z * cov.se
    var_ce = sim.variance_estimate(he.mean(axis=1))
    agree("2-fold Var(CE)", var_ce, real.variance, 0.05)
    assert not var_ce.contains(float(paper.variance), Z)


@pytest.mark.slow
def test_printed_lemma2_disagrees_with_sklearn_two_fold_cv():
    _, _, KFold, *_ = api()
    n = 20
    est = KFold(2)
    paper = exact("1d", n, est, "first", 1, covariance="paper")
    real = exact("1d", n, est, "first", 1)
    model = sim.SimModel.from_model(MODELS["1d"])
    rng = np.random.default_rng(78)
    run = run_sklearn(model, sim.draw_points(model, 200, n, rng), SkKFold(n_splits=2), alpha=1)
    assert run.n_disagreements == 0
    cov = sim.covariance_estimate(run.he[:, 0], run.he[:, 1])
    assert cov.contains(float(real.fold_covariance), Z)
    assert not cov.contains(float(paper.fold_covariance), Z)


# ------------------------------------------------------------------ the sampling backend
@pytest.mark.parametrize("ties, alpha", [("random", 0), ("first", 1)])
def test_sampling_backend_intervals_contain_enumeration(ties, alpha):
    """The Monte Carlo backend's intervals (per-term confidence 0.9999, fixed seed) contain the
    brute-force values of the terms and of the propagated estimator moments, and are narrow
    enough to mean something."""
    from momentbound.probability.sampling_backend import SamplingBackend
    from oracles.estimators import BruteForce

    GE, HoldOut, KFold, LeaveOneOut, estimator_moments, NaiveBayes = api()
    model = MODELS["1d"]
    clf = NaiveBayes(ties=ties, alpha=alpha)
    bf = BruteForce.from_model(model, ties, alpha)
    backend = SamplingBackend(draws=20_000, confidence=0.9999, rng=np.random.default_rng(5))
    single = backend.single(model, 6, (0,), clf)
    assert single.draws == 20_000
    for k, want in enumerate(bf.single(6, (0,))):
        assert single.lower[k] <= want <= single.upper[k]
        assert single.upper[k] - single.lower[k] < 0.05
    n = 8
    for est, want in [
        (GE(), bf.ge_moments(n)),
        (HoldOut(test_size=3), bf.holdout_moments(5, 3)),
        (KFold(2), bf.kfold_moments(n, 2)),
        (LeaveOneOut(), bf.loo_moments(n)),
    ]:
        res = estimator_moments(model, n, est, classifier=clf, backend=backend)
        assert res.mean.lower <= want.mean <= res.mean.upper, (est, res.mean, float(want.mean))
        assert res.variance.lower <= want.variance <= res.variance.upper, (est, res.variance)
        assert res.mean.upper - res.mean.lower < 0.05
