"""Bounds from a sample worth having: the betting moment intervals, their coverage and width.

Witnesses: the capital process of Waudby-Smith and Ramdas recomputed from its definition in
exact rational arithmetic at the interval's ends; simulations of the coverage of the true
moments (exact rationals of each law) and of the true probability, against the binomial
spread of the count (at least ``0.95 - 3 sigma``); the previous intervals (``auto``) on the
same samples for the width; the sharp bound from the exact moments as the floor no valid box
bound can go below when the box holds.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import run_in_process
from scipy import stats

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.bounds.uncertain import betting_interval, moment_box_from_sample, read_sample
from momentbound.cli import main
from momentbound.errors import InvalidArgument

BET_CAP = F(3, 4)


def _binom(n, k, p):
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _law_moments(pmf, order):
    return [sum((p * F(x) ** j for x, p in pmf.items()), F(0)) for j in range(1, order + 1)]


BINOMIAL = {k: _binom(20, k, F(3, 10)) for k in range(21)}
THREE_POINT = {0: F(1, 2), 1: F(3, 10), 2: F(1, 5)}
_GEO = {k: F(1, 2**k) for k in range(11)}
GEOMETRIC = {k: w / sum(_GEO.values()) for k, w in _GEO.items()}
BETA_MOMENTS = [F(2, 7), F(2 * 3, 7 * 8), F(2 * 3 * 4, 7 * 8 * 9)]  # E[X^k] = prod_{i<k} (2 + i) / (7 + i)
UNIFORM_MOMENTS = [F(1, 2), F(1, 3), F(1, 4)]


def _discrete(pmf):
    xs = np.array(sorted(pmf), dtype=float)
    ps = np.array([float(pmf[k]) for k in sorted(pmf)])
    return lambda rng, n: rng.choice(xs, size=n, p=ps / ps.sum())


# (name, support, draw, exact E[X^1..X^3])
LAWS = [
    ("beta(2,5)", Support.interval(0, 1), lambda rng, n: rng.beta(2, 5, n), BETA_MOMENTS),
    ("uniform", Support.interval(0, 1), lambda rng, n: rng.random(n), UNIFORM_MOMENTS),
    ("binomial(20,0.3)", Support.grid(0, 20), _discrete(BINOMIAL), _law_moments(BINOMIAL, 3)),
    ("three-point", Support.grid(0, 2), _discrete(THREE_POINT), _law_moments(THREE_POINT, 3)),
    ("geometric", Support.grid(0, 10), _discrete(GEOMETRIC), _law_moments(GEOMETRIC, 3)),
]


def _max_log_capital_exact(y, m, delta, sign):
    """max_t log K_t(m) of the hedged capital process, the bets from their definition, products exact."""
    n = len(y)
    ss, var_before = F(0), [F(1, 4)]
    for t, v in enumerate(y, start=1):
        mu_t = (F(1, 2) + sum(y[:t], F(0))) / (t + 1)
        ss += (v - mu_t) ** 2
        var_before.append((F(1, 4) + ss) / (t + 1))
    room = m if sign > 0 else 1 - m
    cap, best = F(1), -math.inf
    for i, v in enumerate(y):
        lam = F(math.sqrt(2 * math.log(2 / delta) / (n * float(var_before[i]))))
        bet = min(lam, BET_CAP / room) if room > 0 else lam
        cap *= 1 + sign * bet * (v - m)
        best = max(best, math.log(cap) if cap > 0 else -math.inf)
    return best


def test_betting_ends_are_where_the_exact_capital_crosses():
    rng = np.random.default_rng(5)
    y = [F(int(v), 16) for v in rng.integers(0, 17, 40)]
    delta = 0.1
    lo, hi = betting_interval(np.array([float(v) for v in y]), delta)
    threshold = math.log(2 / delta)
    assert 0 < lo < float(sum(y) / len(y)) < hi < 1
    # the reported ends are rejected (on the conservative side); within the bisection tolerance
    # (1e-3 of the distance to the mean) inside they are not
    mean = sum(y) / len(y)
    assert _max_log_capital_exact(y, F(lo), delta, +1) >= threshold
    assert _max_log_capital_exact(y, F(lo) + F(1001, 10**6) * (mean - F(lo)), delta, +1) < threshold
    assert _max_log_capital_exact(y, F(hi), delta, -1) >= threshold
    assert _max_log_capital_exact(y, F(hi) - F(1001, 10**6) * (F(hi) - mean), delta, -1) < threshold


def test_betting_interval_is_the_whole_range_when_nothing_is_rejected():
    assert betting_interval(np.array([0.0, 1.0]), 0.05) == (0.0, 1.0)
    with pytest.raises(InvalidArgument, match=r"values in \[0, 1\]"):
        betting_interval(np.array([0.5, 1.5]), 0.05)
    with pytest.raises(InvalidArgument, match="delta"):
        betting_interval(np.array([0.5]), 1.0)


@pytest.mark.parametrize("name, support, draw, moments", LAWS, ids=[law[0] for law in LAWS])
def test_box_covers_the_true_moments_and_is_narrower(name, support, draw, moments):
    """Simultaneous coverage of E[X], E[X^2] at 0.95 on 100 samples of 200, and the width
    against the previous intervals on the same samples (measured at n = 400: 0.26-0.64)."""
    rng = np.random.default_rng(2026)
    reps, covered, widths = 100, 0, {"betting": np.zeros(2), "auto": np.zeros(2)}
    for _ in range(reps):
        x = draw(rng, 200)
        for method in widths:
            box = moment_box_from_sample(x, support, 2, 0.95, method, rng=rng)
            widths[method] += [float(h - lo) for lo, h in zip(box.lo, box.hi)]
            if method == "betting":
                covered += all(lo <= m <= h for lo, m, h in zip(box.lo, moments, box.hi))
    assert covered >= reps * (0.95 - 3 * math.sqrt(0.95 * 0.05 / reps))
    ratio = widths["betting"] / widths["auto"]
    assert np.all(ratio < 0.7), ratio


def test_sorted_sample_is_read_in_a_random_order():
    """Betting in the order of a sorted file covers far too rarely (about half the time at 0.9,
    measured); the box reads the draws in a random order and covers as promised."""
    rng = np.random.default_rng(8)
    reps, covered, covered_in_file_order = 100, 0, 0
    for _ in range(reps):
        x = np.sort(rng.beta(2, 5, 200))
        box = moment_box_from_sample(x, Support.interval(0, 1), 1, 0.9, rng=rng)
        covered += box.lo[0] <= BETA_MOMENTS[0] <= box.hi[0]
        lo, hi = betting_interval(x, 0.1)
        covered_in_file_order += lo <= 2 / 7 <= hi
    assert covered >= reps * (0.9 - 3 * math.sqrt(0.9 * 0.1 / reps))
    assert covered_in_file_order < reps * 0.75


def test_bound_covers_and_is_narrower_on_the_same_samples():
    """Beta(2, 5), n = 400, P(X >= 1/2) = 7/64: every bound holds; betting's mean width is below
    0.85 of the previous intervals' (measured 0.78 over 250 samples); whenever the box holds,
    the bound is no tighter than the sharp bound from the exact moments (0.357143)."""
    rng = np.random.default_rng(11)
    support, event, truth = Support.interval(0, 1), Event.ge(F(1, 2)), 7 / 64
    sharp = bound(MomentProblem((1, *BETA_MOMENTS[:2]), support, event), "sdp").upper
    reps, covered, widths = 30, 0, {"betting": [], "auto": []}
    for _ in range(reps):
        x = rng.beta(2, 5, 400)
        for method in widths:
            box = moment_box_from_sample(x, support, 2, 0.95, method, rng=rng)
            r = bound(MomentProblem.from_box((1, *box.lo), (1, *box.hi), support, event), "sos")
            widths[method].append(r.upper - r.lower)
            if method == "betting":
                covered += r.certified and r.lower <= truth <= r.upper
                if all(lo <= m <= h for lo, m, h in zip(box.lo, BETA_MOMENTS, box.hi)):
                    assert r.upper >= sharp - 1e-7
    assert covered >= reps * (0.95 - 3 * math.sqrt(0.95 * 0.05 / reps))
    assert np.mean(widths["betting"]) < 0.85 * np.mean(widths["auto"])


# measured over 250 samples of 400 (benchmarks/bench_sample_bounds.py): mean width of the default
# (betting, 4 moments) over that of the previous default (auto, 2 moments) on the same samples
DEFAULT_VS_PREVIOUS = {"beta(2,5)": 0.79, "uniform": 0.72, "binomial(20,0.3)": 0.71, "three-point": 0.42,
                       "geometric": 0.76}
EVENTS = {"beta(2,5)": (Event.ge(F(1, 2)), 7 / 64), "uniform": (Event.ge(F(9, 10)), 0.1),
          "binomial(20,0.3)": (Event.ge(10), float(sum(p for k, p in BINOMIAL.items() if k >= 10))),
          "three-point": (Event.ge(2), 0.2), "geometric": (Event.ge(4), float(sum(p for k, p in GEOMETRIC.items() if k >= 4)))}


@pytest.mark.parametrize("name, support, draw, moments", LAWS, ids=[law[0] for law in LAWS])
def test_default_bound_against_the_previous_default(name, support, draw, moments):
    """Same samples (20 of 400): the default's bound covers the truth as often as a 0.95 bound may
    (at least 0.95 - 3 sigma), and its mean width is below the measured ratio + 0.1 of the
    previous default's."""
    rng = np.random.default_rng(4)
    event, truth = EVENTS[name]
    reps, covered, widths = 20, 0, {("betting", 4): [], ("auto", 2): []}
    for _ in range(reps):
        x = draw(rng, 400)
        for method, order in widths:
            box = moment_box_from_sample(x, support, order, 0.95, method, rng=rng)
            r = bound(MomentProblem.from_box((1, *box.lo), (1, *box.hi), support, event), "sos")
            if method == "betting":
                covered += r.certified and r.lower <= truth <= r.upper
            widths[(method, order)].append(r.upper - r.lower)
    assert covered >= reps * (0.95 - 3 * math.sqrt(0.95 * 0.05 / reps))
    ratio = np.mean(widths[("betting", 4)]) / np.mean(widths[("auto", 2)])
    assert ratio < DEFAULT_VS_PREVIOUS[name] + 0.1, ratio


def test_moment_count_and_float_range_are_checked_first():
    sup = Support.interval(0, 1)
    with pytest.raises(InvalidArgument, match=r"integer in 1\.\.20, got 21"):
        moment_box_from_sample([0.1, 0.2], sup, 21)
    with pytest.raises(InvalidArgument, match="leave the float range"):
        moment_box_from_sample([1e150, 2e150], Support.interval(0, F(10) ** 160), 2)
    with pytest.raises(InvalidArgument, match="leave the float range"):
        moment_box_from_sample([0.0, 1e-201], Support.interval(0, F(1, 10**200)), 2)


def test_sizes_are_checked_before_reading(tmp_path, monkeypatch):
    from momentbound.bounds import uncertain

    monkeypatch.setattr(uncertain, "MAX_BETTING_DRAWS", 100)
    with pytest.raises(InvalidArgument, match="bernstein"):
        moment_box_from_sample(np.full(101, 0.5), Support.interval(0, 1), 1)
    assert moment_box_from_sample(np.full(101, 0.5), Support.interval(0, 1), 1, method="bernstein").n == 101
    f = tmp_path / "big.txt"
    f.write_text("0.5\n" * 100)
    monkeypatch.setattr(uncertain, "MAX_SAMPLE_FILE_BYTES", 399)
    with pytest.raises(InvalidArgument, match="400 B|subsample"):
        read_sample(f)


def test_rng_is_validated():
    with pytest.raises(InvalidArgument, match="rng"):
        moment_box_from_sample([0.1, 0.2, 0.3], Support.interval(0, 1), 1, rng=-1)


# ----------------------------------------------------------------------------- CLI
def _cli_json(args):
    # in this process, file descriptors included (bound runs as a real process in test_cli_subprocess.py)
    out = run_in_process(["bound", *args, "--json"])
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    return json.loads(out.stdout)


def test_cli_sample_bound_is_tighter_and_reports_its_box(tmp_path):
    """`bound --sample FILE --confidence 0.95 --sample-bound moments`: the bound holds, the JSON names the moment box it
    came from (the library's box of 4 moments for the same file and seed) and the draws' own
    binomial interval, and the bound is narrower than the previous default's (auto intervals,
    2 moments) on the same file."""
    f = tmp_path / "beta.txt"
    f.write_text("\n".join(repr(float(v)) for v in np.random.default_rng(0).beta(2, 5, 400)))
    common = ["--sample", str(f), "--support", "interval:0:1", "--event", "ge:0.5", "--confidence", "0.95",
              "--sample-bound", "moments"]
    new = _cli_json(common)
    old = _cli_json([*common, "--sample-intervals", "auto", "--sample-moments", "2"])  # the previous default
    (row,), (old_row,) = new["results"], old["results"]
    assert row["method"] == "sos" and row["certified"] and row["lower"] <= 7 / 64 <= row["upper"]
    box = moment_box_from_sample(read_sample(f), Support.interval(0, 1), 4, 0.95, "betting", rng=0)
    count = new["sample"].pop("count")
    assert new["sample"] == {"bound": "moments", "confidence": 0.95, "intervals": "betting", "seed": 0,
                             "lower": row["lower"], "upper": row["upper"], "empty": False,
                             "split": {"moment_box": 0.95, "count": None},
                             "moment_bound": {"lower": row["lower"], "upper": row["upper"], "confidence": 0.95},
                             "moment_box": [[float(lo), float(hi)] for lo, hi in zip(box.lo, box.hi)]}
    assert count["confidence"] == 0.95 and count["in_bound"] is False
    # the draws' own count, with scipy's exact binomial interval as the witness
    hits = int(np.sum(read_sample(f) >= 0.5))
    ci = stats.binomtest(hits, 400).proportion_ci(0.95, method="exact")
    assert count["hits"] == hits and count["n"] == 400
    assert count["clopper_pearson"] == pytest.approx([ci.low, ci.high], abs=1e-12)
    assert row["upper"] - row["lower"] < 0.85 * (old_row["upper"] - old_row["lower"])


def test_cli_three_point_sample(tmp_path):
    """A three-point law on grid:0:2, 100 draws, P(X >= 2) = 1/5: a bound containing the truth,
    narrower than the previous default's on the same file."""
    f = tmp_path / "three.txt"
    f.write_text("\n".join(str(v) for v in np.random.default_rng(1).choice([0, 1, 2], 100, p=[0.5, 0.3, 0.2])))
    common = ["--sample", str(f), "--support", "grid:0:2", "--event", "ge:2"]
    (row,) = _cli_json(common)["results"]
    (old_row,) = _cli_json([*common, "--sample-intervals", "auto", "--sample-moments", "2", "--seed", "3"])["results"]
    assert row["lower"] <= 0.2 <= row["upper"] < old_row["upper"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sample-intervals", "bootstrap"], "--sample-intervals"),
        (["--seed", "-1"], "--seed must be an integer >= 0"),
        (["--sample-moments", "1000000000"], "--sample-moments must be an integer in 1..20"),
    ],
)
def test_cli_sample_options_errors_are_one_line(tmp_path, args, message):
    f = tmp_path / "x.txt"
    f.write_text("0.1\n0.5\n0.9\n")
    res = CliRunner().invoke(main, ["bound", "--sample", str(f), "--support", "interval:0:1", "--event", "ge:0.5",
                                    *args, "--json"])
    assert res.exit_code != 0 and message in res.output and "Traceback" not in res.output


def test_cli_sample_options_without_a_sample_are_refused():
    """`--confidence` (and the other sample options) without `--sample` changed nothing; now refused
    before any work, as a one-line usage error on stderr and nothing on stdout."""
    out = run_in_process(["bound", "--moments", "1,0,1", "--support", "real", "--event", "ge:2", "--confidence", "0.9",
                          "--json"])
    assert out.returncode == 2 and out.stdout == ""
    assert "--confidence only applies to bounds from a sample: add --sample FILE or drop it" in out.stderr
    assert "Traceback" not in out.stderr
    res = CliRunner().invoke(main, ["bound", "--moments", "1,0,1", "--support", "real", "--event", "ge:2",
                                    "--sample-moments", "3", "--sample-intervals", "auto"])
    assert res.exit_code == 2 and "--sample-moments, --sample-intervals only apply" in res.output
