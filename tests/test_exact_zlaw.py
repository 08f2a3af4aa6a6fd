"""The exact law of the naive Bayes statistic Z_x against brute force and simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from momentbound.errors import InvalidArgument
from momentbound.exact.zlaw import prob_z_positive, z_distribution
from momentbound.model import CellModel, equal_cells_model, second_nb_model
from momentbound.model.enumeration import count_tables, multinomial_pmf


def direct_z(table: np.ndarray, x: tuple[int, ...], k: int, l: int) -> int:
    """Z_x^{k,l} = N_l^(d-1) prod_j N^j_{x^j,k} - N_k^(d-1) prod_j N^j_{x^j,l} from a count table."""
    d = table.ndim - 1
    nk, nl = int(table[..., k].sum()), int(table[..., l].sum())
    prod_k = prod_l = 1
    for j in range(d):
        sel = [slice(None)] * d
        sel[j] = x[j]
        prod_k *= int(table[tuple(sel) + (k,)].sum())
        prod_l *= int(table[tuple(sel) + (l,)].sum())
    return nl ** (d - 1) * prod_k - nk ** (d - 1) * prod_l


def brute_pmf(model: CellModel, N: int, x, k=0, l=1) -> dict[int, Fraction]:
    shape = model.arities + (model.n_classes,)
    out: dict[int, Fraction] = {}
    for counts in count_tables(model.n_cells, N):
        z = direct_z(np.array(counts).reshape(shape), x, k, l)
        out[z] = out.get(z, Fraction(0)) + multinomial_pmf(counts, model.cells)
    return {z: p for z, p in out.items() if p != 0}


MODELS = [
    ("2x2-equal", equal_cells_model((2, 2)), (0, 1), 5),
    ("2x2-second", second_nb_model(), (1, 1), 5),
    ("1d", CellModel((3,), ["1/5", "1/10", "1/10", "1/5", "1/20", "7/20"], 2), (2,), 6),
    ("2x2x2-3attr", CellModel((2, 2, 2), ["1/32", "3/32"] * 4 + ["1/16"] * 8, 2), (0, 1, 1), 3),
]


@pytest.mark.parametrize("name,model,x,N", MODELS, ids=[m[0] for m in MODELS])
def test_z_pmf_equals_brute_force(name, model, x, N):
    z = z_distribution(model, N, x)
    assert z.exact
    assert dict(z.pmf()) == brute_pmf(model, N, x)
    assert sum(z.probs) == 1


def test_z_pmf_three_classes_pair_of_classes():
    model = CellModel((2,), ["1/6", "1/12", "1/12", "1/6", "1/4", "1/4"], 3)
    for k, l in [(0, 2), (2, 1)]:
        z = z_distribution(model, 5, (1,), classes=(k, l))
        assert dict(z.pmf()) == brute_pmf(model, 5, (1,), k, l)


def test_prob_z_positive_rational_and_float_agree():
    model = second_nb_model()
    r = prob_z_positive(model, 9, (0, 1))
    f = prob_z_positive(model, 9, (0, 1), arithmetic="float", tail=0)
    assert r.exact and isinstance(r.positive, Fraction)
    assert r.positive + r.zero + r.negative == 1
    pmf = brute_pmf(model, 6, (0, 1))
    assert prob_z_positive(model, 6, (0, 1)).positive == sum(p for z, p in pmf.items() if z > 0)
    for a, b in [(r.positive, f.positive), (r.zero, f.zero), (r.negative, f.negative)]:
        assert abs(float(a) - b) < 1e-12


def test_float_z_pmf_matches_rational():
    model = second_nb_model()
    exact = z_distribution(model, 8, (1, 0))
    fl = z_distribution(model, 8, (1, 0), arithmetic="float")
    assert fl.values == exact.values
    np.testing.assert_allclose(fl.probs, [float(p) for p in exact.probs], rtol=1e-11, atol=1e-15)


def test_tail_truncation_reports_a_bound_that_covers_the_difference():
    model = second_nb_model()
    full = prob_z_positive(model, 60, (0, 0), arithmetic="float", tail=0)
    cut = prob_z_positive(model, 60, (0, 0), arithmetic="float", tail=1e-3)
    assert full.dropped_mass_bound == 0
    assert 0 < cut.dropped_mass_bound <= 1e-3
    for a, b in [(full.positive, cut.positive), (full.zero, cut.zero), (full.negative, cut.negative)]:
        assert abs(a - b) <= cut.dropped_mass_bound + 1e-12


def test_large_n_against_simulation():
    """P[Z > 0] at N = 150 (float path, DFT powers) against a simulation of count tables."""
    model = second_nb_model()
    x = (0, 1)
    got = prob_z_positive(model, 150, x, arithmetic="float")
    rng = np.random.default_rng(20261122)
    reps = 20000
    tables = rng.multinomial(150, np.array(model.cells, dtype=float), size=reps).reshape((reps, 2, 2, 2))
    nk, nl = tables[..., 0].sum(axis=(1, 2)), tables[..., 1].sum(axis=(1, 2))
    a0 = tables[:, 0, :, 0].sum(axis=1) * tables[:, :, 1, 0].sum(axis=1)
    a1 = tables[:, 0, :, 1].sum(axis=1) * tables[:, :, 1, 1].sum(axis=1)
    z = nl * a0 - nk * a1
    for value, event in [(got.positive, z > 0), (got.zero, z == 0)]:
        est = event.mean()
        se = math.sqrt(max(est * (1 - est), 1e-4) / reps)
        assert abs(est - value) < 5 * se


def test_symmetry_of_equal_cells_model():
    r = prob_z_positive(equal_cells_model((2, 2)), 200, (1, 0))
    assert abs(r.positive - r.negative) < 1e-11
    assert r.dropped_mass_bound < 1e-12


def test_moments_of_the_pmf_match_the_moment_engine_when_available():
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments import raw_moments

    model = second_nb_model()
    z = z_distribution(model, 7, (0, 1))
    ms = raw_moments(naive_bayes_statistic(model, (0, 1)), model, 7, 4)
    assert [z.moment(k) for k in range(5)] == list(ms.values)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(N=-1), "N must be an integer"),
        (dict(classes=(0, 0)), "two different classes"),
        (dict(classes=(0, 5)), "classes\\[1\\]"),
        (dict(x=(0, 2)), "x\\[1\\]"),
        (dict(arithmetic="decimal"), "arithmetic must be one of"),
    ],
)
def test_invalid_arguments(kwargs, match):
    args = dict(model=second_nb_model(), N=3, x=(0, 0))
    args.update(kwargs)
    with pytest.raises(InvalidArgument, match=match):
        z_distribution(**args)


def test_invalid_tail_and_rational_on_float_model():
    with pytest.raises(InvalidArgument, match="tail must be"):
        prob_z_positive(second_nb_model(), 30, (0, 0), arithmetic="float", tail=2.0)
    with pytest.raises(InvalidArgument, match="needs an exact model"):
        prob_z_positive(second_nb_model().to_float(), 3, (0, 0), arithmetic="rational")


def test_support_cap_is_reported():
    with pytest.raises(InvalidArgument, match="use prob_z_positive"):
        z_distribution(equal_cells_model((2, 2)), 40, (0, 0), arithmetic="float", max_pairs=1000)


def test_split_law_in_floats_matches_the_rational_one_and_survives_large_N():
    # three classes: the float class-count law (log space) against exact Fractions
    from momentbound.exact.zlaw import _split_probs

    model = equal_cells_model((2,), n_classes=3)
    exact = _split_probs(model, 30, (0, 1), "rational")
    floats = _split_probs(model, 30, (0, 1), "float")
    assert exact.keys() == floats.keys()
    assert max(abs(float(exact[s]) - floats[s]) for s in exact) < 1e-15
    # N = 5000 overflowed float(math.comb(...)) before: now a proper law that sums to 1
    big = _split_probs(second_nb_model(), 5000, (0, 1), "float")
    assert abs(sum(big.values()) - 1.0) < 1e-9


@pytest.mark.parametrize(
    ("model", "N", "match"),
    [
        (CellModel((2,), ["3/10", "1/5", "1/5", "3/10"]), 5000, "state pairs"),
        (second_nb_model(), 1000, "per-class laws"),
        (equal_cells_model((2, 2, 2)), 5000, "per-class laws"),
    ],
)
def test_z_pmf_refuses_out_of_reach_sizes_with_the_route_to_take(model, N, match):
    with pytest.raises(InvalidArgument, match=match) as info:
        z_distribution(model, N, (0,) * model.d)
    assert "prob_z_positive" in str(info.value)


def test_prob_z_positive_refuses_before_work_beyond_max_seconds():
    from momentbound.exact.zlaw import estimated_seconds

    model = second_nb_model()
    assert estimated_seconds(model, 10**6) > 300
    with pytest.raises(InvalidArgument, match="max_seconds=300") as info:
        prob_z_positive(model, 10**6, (0, 0))
    assert "momentbound.bound" in str(info.value)
    with pytest.raises(InvalidArgument, match="max_seconds must be"):
        prob_z_positive(model, 100, (0, 0), max_seconds=0)
    # below the limit, the result is the usual one
    small = prob_z_positive(model, 100, (0, 0), max_seconds=60)
    assert small.positive == prob_z_positive(model, 100, (0, 0), max_seconds=None).positive


def test_time_estimate_grows_with_N_and_attributes():
    from momentbound.exact.zlaw import estimated_seconds

    one = CellModel((2,), ["3/10", "1/5", "1/5", "3/10"])
    times = [estimated_seconds(one, N) for N in (100, 1000, 10_000, 100_000)]
    assert all(a < b for a, b in zip(times, times[1:]))
    assert estimated_seconds(equal_cells_model((2, 2, 2)), 1000) > estimated_seconds(second_nb_model(), 1000)
