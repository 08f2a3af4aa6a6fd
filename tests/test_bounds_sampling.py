"""Tests of the Monte Carlo method (bounds/sampling.py).

Witnesses: the statistic's exact scalar ``evaluate`` (vectorised evaluator), the
exact law of Z by brute-force enumeration of count tables (estimates), scipy's own exact
binomial interval (Clopper-Pearson), the paper's Table 5 widths (Chebyshev interval), and
coverage frequencies over many seeds.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from scipy.stats import binomtest

from momentbound.bounds import Event, Kind, MomentProblem, Status, Support, bound
from momentbound.bounds.sampling import (
    chebyshev_interval,
    clopper_pearson,
    estimate_probability,
    event_mask,
)
from momentbound.errors import InvalidArgument
from momentbound.model import CellModel, equal_cells_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.model.z_sampler import naive_bayes_sampler, naive_bayes_z
from momentbound.model.enumeration import count_tables, multinomial_pmf


@pytest.mark.parametrize(
    "arities,K,x,classes",
    [((2, 2), 2, (0, 0), (0, 1)), ((2, 2), 2, (1, 0), (1, 0)), ((3,), 2, (2,), (0, 1)), ((2, 3), 3, (1, 2), (2, 0)), ((2, 2, 2), 2, (0, 1, 1), (0, 1))],
)
def test_vectorised_z_equals_statistic(arities: tuple[int, ...], K: int, x: tuple[int, ...], classes: tuple[int, int]) -> None:
    model = CellModel.uniform(arities, K)
    stat = naive_bayes_statistic(model, x, classes)
    rng = np.random.default_rng(sum(arities) + K)
    counts = rng.multinomial(17, np.full(model.n_cells, 1 / model.n_cells), size=200)
    got = naive_bayes_z(model, counts, x, classes)
    want = [stat.evaluate(tuple(int(v) for v in row)) for row in counts]
    assert got.tolist() == want


def test_big_counts_use_exact_integers() -> None:
    model = equal_cells_model((2, 2, 2))  # degree 5: N = 10^5 overflows int64
    stat = naive_bayes_statistic(model, (0, 0, 0))
    counts = np.random.default_rng(0).multinomial(100_000, np.full(16, 1 / 16), size=3)
    got = naive_bayes_z(model, counts, (0, 0, 0))
    assert got.dtype == object
    assert got.tolist() == [stat.evaluate(tuple(int(v) for v in row)) for row in counts]


def exact_prob_positive(model: CellModel, N: int, x: tuple[int, ...]) -> F:
    stat = naive_bayes_statistic(model, x)
    return sum((multinomial_pmf(c, model.cells) for c in count_tables(model.n_cells, N) if stat.evaluate(c) > 0), F(0))


def test_estimate_agrees_with_enumeration() -> None:
    model = CellModel((2, 2), ["1/10", "3/20"] * 4)
    N = 6
    truth = float(exact_prob_positive(model, N, (0, 0)))
    p = MomentProblem((1,), Support.grid(-1000, 1000), Event.gt(0), statistic_sampler=naive_bayes_sampler(model, N, (0, 0)))
    r = bound(p, method="sampling", draws=40_000, rng=np.random.default_rng(5), confidence=0.999)
    assert r.kind is Kind.ESTIMATE and r.status is Status.ESTIMATED and not r.certified
    assert r.samples == 40_000 and r.confidence == 0.999
    assert r.lower <= truth <= r.upper
    assert r.width < 0.03


def test_clopper_pearson_matches_scipy() -> None:
    for k, n in [(0, 10), (3, 10), (10, 10), (47, 100), (500, 1000)]:
        ci = binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
        assert clopper_pearson(k, n, 0.9) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_chebyshev_interval_reproduces_table5_widths() -> None:
    # Table 5 (95%): about 0.47 wide with 100 samples, 0.14 with 1000, 0.045 with 10000
    for n, width in [(100, 0.447), (1000, 0.1414), (10_000, 0.0447)]:
        lo, hi = chebyshev_interval(n // 2, n, 0.95)
        assert hi - lo == pytest.approx(width, abs=1e-3)
    assert chebyshev_interval(0, 10) == (0.0, 0.0)


def test_coverage_over_seeds() -> None:
    """Clopper-Pearson covers at least its level (Bernoulli(0.3), 400 repetitions)."""
    sampler = lambda rng, n: (rng.random(n) < 0.3).astype(np.int64)  # noqa: E731
    covered = 0
    for seed in range(400):
        est = estimate_probability(sampler, Event.gt(0), 200, rng=seed, confidence=0.9)
        covered += est.clopper_pearson[0] <= 0.3 <= est.clopper_pearson[1]
    assert covered / 400 >= 0.88


def test_reproducible_and_batched() -> None:
    s = naive_bayes_sampler(equal_cells_model((2, 2)), 20, (0, 0))
    a = estimate_probability(s, Event.gt(0), 2500, rng=np.random.default_rng(11), batch=1000)
    b = estimate_probability(s, Event.gt(0), 2500, rng=np.random.default_rng(11), batch=1000)
    assert a == b
    assert a.draws == 2500 and 0 <= a.hits <= 2500


def test_event_mask_exact_thresholds() -> None:
    v = np.array([-2, -1, 0, 1, 2])
    assert event_mask(Event.gt(F(1, 2)), v).tolist() == [False, False, False, True, True]
    assert event_mask(Event.ge(1), v).tolist() == [False, False, False, True, True]
    assert event_mask(Event.lt(0), v).tolist() == [True, True, False, False, False]
    assert event_mask(Event.le(F(-1, 3)), v).tolist() == [True, True, False, False, False]
    assert event_mask(Event.between(-1, 1), v).tolist() == [False, True, True, True, False]
    assert event_mask(Event.outside(-1, 1), v).tolist() == [True, False, False, False, True]
    assert event_mask(Event.gt(0), np.array([-0.5, 0.5])).tolist() == [False, True]
    big = np.array([10**30, -(10**30)], dtype=object)
    assert event_mask(Event.gt(0), big).tolist() == [True, False]


def test_interval_option_and_message() -> None:
    p = MomentProblem((1,), Support.grid(-200, 200), Event.gt(0), statistic_sampler=naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0)))
    a = bound(p, method="sampling", draws=1000, rng=3)
    b = bound(p, method="sampling", draws=1000, rng=3, interval="chebyshev")
    assert "chebyshev" in a.message and "clopper-pearson" in b.message
    assert (a.lower, a.upper) != (b.lower, b.upper)


def test_errors() -> None:
    no_sampler = MomentProblem((1, 0, 1), Support.grid(-3, 3), Event.gt(0))
    with pytest.raises(InvalidArgument, match="needs problem.statistic_sampler"):
        bound(no_sampler, method="sampling")
    p = MomentProblem((1,), Support.grid(-200, 200), Event.gt(0), statistic_sampler=naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0)))
    with pytest.raises(InvalidArgument, match="draws must be a positive integer"):
        bound(p, method="sampling", draws=0)
    with pytest.raises(InvalidArgument, match="confidence must be in"):
        bound(p, method="sampling", confidence=1.5)
    with pytest.raises(InvalidArgument, match="interval must be one of"):
        bound(p, method="sampling", interval="wald")
    with pytest.raises(InvalidArgument, match="rng must be"):
        bound(p, method="sampling", rng="x")
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        naive_bayes_sampler(equal_cells_model((2, 2)), -1, (0, 0))
    with pytest.raises(InvalidArgument, match="classes must be two different"):
        naive_bayes_z(equal_cells_model((2, 2)), np.zeros((1, 8), dtype=int), (0, 0), (1, 1))
    with pytest.raises(InvalidArgument, match="counts must have shape"):
        naive_bayes_z(equal_cells_model((2, 2)), np.zeros((1, 7), dtype=int), (0, 0))
    with pytest.raises(InvalidArgument, match="hits must be in"):
        clopper_pearson(11, 10)
    bad = MomentProblem((1,), Support.grid(-2, 2), Event.gt(0), statistic_sampler=lambda rng, n: np.zeros(n + 1))
    with pytest.raises(InvalidArgument, match="must return"):
        bound(bad, method="sampling", draws=10)
