"""The combined bound from a sample: the moment bound of the box intersected with the exact
binomial interval of the count of draws in the event, the error probability split between them.

Witnesses: the exact probabilities of the laws (coverage against the binomial spread of the
count of covering samples); scipy's exact binomial interval (``binomtest``) at the reported
level of the count part; the library's moment box recomputed at the reported level of the box
part; the two parts' own intervals for the intersection.
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
from momentbound.bounds.uncertain import (combine_with_count, moment_box_from_sample, sample_bound,
                                          split_confidence)
from momentbound.cli import main
from momentbound.errors import InvalidArgument

THREE_POINT = ([0.0, 1.0, 2.0], [0.5, 0.3, 0.2])


def _three_point(rng, n):
    return rng.choice(THREE_POINT[0], size=n, p=THREE_POINT[1])


def test_split_is_bonferroni_and_stated():
    assert split_confidence(0.95) == pytest.approx((0.975, 0.975))
    assert split_confidence(0.9, count_share=0.2) == pytest.approx((0.92, 0.98))
    assert split_confidence(0.95, "moments") == (0.95, None)
    for bad in (dict(how="both"), dict(count_share=0.0), dict(count_share=1.5)):
        with pytest.raises(InvalidArgument):
            split_confidence(0.95, **bad)


@pytest.mark.parametrize("share", [0.5, 0.2])
def test_reported_parts_are_what_they_say(share):
    """The reported box is the library's box at the box's share of the level, the reported count
    interval scipy's exact interval at the count's share, and the headline their intersection."""
    x = np.random.default_rng(5).beta(2, 5, 300)
    sup, ev = Support.interval(0, 1), Event.ge(F(1, 2))
    sb = sample_bound(x, sup, ev, 3, 0.95, count_share=share, rng=7)
    box_conf, count_conf = 1 - 0.05 * (1 - share), 1 - 0.05 * share
    doc = sb.summary()
    assert doc["bound"] == "combined" and doc["confidence"] == 0.95
    assert doc["split"] == pytest.approx({"moment_box": box_conf, "count": count_conf})
    box = moment_box_from_sample(x, sup, 3, box_conf, "betting", rng=7)
    assert doc["moment_box"] == [[float(lo), float(hi)] for lo, hi in zip(box.lo, box.hi)]
    r = bound(MomentProblem.from_box((1, *box.lo), (1, *box.hi), sup, ev), "sos")
    assert (doc["moment_bound"]["lower"], doc["moment_bound"]["upper"]) == (r.lower, r.upper)
    hits = int(np.sum(x >= 0.5))
    ci = stats.binomtest(hits, 300).proportion_ci(count_conf, method="exact")
    assert doc["count"]["hits"] == hits and doc["count"]["in_bound"] is True
    assert doc["count"]["clopper_pearson"] == pytest.approx([ci.low, ci.high], abs=1e-12)
    lo, hi = doc["count"]["clopper_pearson"]
    assert (doc["lower"], doc["upper"]) == (max(r.lower, lo), min(r.upper, hi))
    assert doc["empty"] is False and doc["lower"] <= 7 / 64 <= doc["upper"]


def test_moments_only_is_the_box_at_full_confidence():
    x = _three_point(np.random.default_rng(2), 200)
    sb = sample_bound(x, Support.grid(0, 2), Event.ge(2), 2, 0.9, how="moments")
    assert sb.moment_confidence == 0.9 and sb.count_share is None and sb.summary()["split"]["count"] is None
    assert (sb.lower, sb.upper) == sb.moment_bound
    assert sb.summary()["count"]["in_bound"] is False and sb.count_confidence == 0.9


def test_combined_covers_and_is_never_wider_than_either_part():
    """120 samples of n = 150 of two laws at confidence 0.9: the combined bound contains the exact
    probability at least 0.9 - 3 sigma of the time, and on every sample it lies inside both parts."""
    rng = np.random.default_rng(11)
    cases = [(_three_point, Support.grid(0, 2), Event.ge(2), 0.2),
             (lambda r, n: r.beta(2, 5, n), Support.interval(0, 1), Event.ge(F(1, 2)), 7 / 64)]
    reps, conf = 60, 0.9
    for draw, sup, ev, truth in cases:
        covered = 0
        for _ in range(reps):
            sb = sample_bound(draw(rng, 150), sup, ev, 2, conf, rng=int(rng.integers(2**31)))
            m_lo, m_hi = sb.moment_bound
            c_lo, c_hi = sb.count_interval
            assert not sb.empty
            assert max(m_lo, c_lo) == sb.lower <= sb.upper == min(m_hi, c_hi)
            assert sb.upper - sb.lower <= min(m_hi - m_lo, c_hi - c_lo)
            covered += sb.lower <= truth <= sb.upper
        assert covered >= reps * conf - 3 * math.sqrt(reps * conf * (1 - conf))


def test_disjoint_parts_are_reported_empty():
    """A count interval far from the moment bound: no law fits both, and that is what is reported."""
    x = np.ones(400)
    sb = combine_with_count((0.0, 0.1), [], x, Event.ge(1), 0.95)
    assert sb.empty and sb.lower is None and sb.upper is None and sb.count_interval[0] > 0.98
    assert sb.summary()["empty"] is True
    same = combine_with_count((0.0, 0.1), [], x, Event.ge(1), 0.95, how="moments")
    assert not same.empty and (same.lower, same.upper) == (0.0, 0.1)


def test_cli_json_names_both_parts_and_the_split(tmp_path):
    """`bound --sample` (in this process, fds 1 and 2 included; ``bound`` runs as a real process in
    test_cli_subprocess.py): the headline is the combined interval, the JSON names the
    moment bound, the count interval and the split; `--sample-bound moments` gives the moment
    bound at the full level, the count for reference only."""
    f = tmp_path / "three.txt"
    f.write_text("\n".join(str(v) for v in _three_point(np.random.default_rng(3), 300)))
    out = run_in_process(["bound", "--sample", str(f), "--support", "grid:0:2", "--event", "ge:2", "--json"])
    assert out.returncode == 0 and out.stderr == "", out.stderr
    doc = json.loads(out.stdout)["sample"]
    assert doc["bound"] == "combined" and doc["split"] == {"moment_box": 0.975, "count": 0.975}
    (row,) = json.loads(out.stdout)["results"]
    assert doc["moment_bound"] == {"lower": row["lower"], "upper": row["upper"], "confidence": 0.975}
    c_lo, c_hi = doc["count"]["clopper_pearson"]
    assert doc["lower"] == max(row["lower"], c_lo) and doc["upper"] == min(row["upper"], c_hi)
    assert doc["lower"] <= 0.2 <= doc["upper"]
    res = CliRunner().invoke(main, ["bound", "--sample", str(f), "--support", "grid:0:2", "--event", "ge:2",
                                    "--sample-bound", "moments", "--json"])
    moments = json.loads(res.output)
    assert moments["sample"]["split"] == {"moment_box": 0.95, "count": None}
    assert (moments["sample"]["lower"], moments["sample"]["upper"]) == (moments["results"][0]["lower"],
                                                                         moments["results"][0]["upper"])
    text = CliRunner().invoke(main, ["bound", "--sample", str(f), "--support", "grid:0:2", "--event", "ge:2"])
    assert text.output.startswith(f"Bound from the sample (combined, confidence 0.95): [{doc['lower']:.6g}, "
                                  f"{doc['upper']:.6g}]")
    bad = CliRunner().invoke(main, ["bound", "--moments", "1,0,1", "--support", "real", "--sample-bound", "moments"])
    assert bad.exit_code == 2 and "--sample-bound only applies to bounds from a sample" in bad.output
