"""Moment boxes from a sample, their coverage by simulation, and the CLI for the new problem forms.

Witnesses: the Hoeffding and Maurer-Pontil formulas evaluated by hand; a simulation of the
whole procedure (draw a Beta(2, 5) sample, build the box, bound P(X >= 1/2)) against the
true probability (scipy); the closed forms of the half-line, Gauss and Chebyshev bounds for
the CLI.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from momentbound.bounds import Event, Support, bound
from momentbound.bounds.uncertain import moment_box_from_sample, read_sample, sample_problem
from momentbound.cli import main
from momentbound.errors import InvalidArgument


def test_hoeffding_and_bernstein_widths_by_hand():
    x = np.linspace(0, 1, 101)
    n, delta = x.size, (1 - 0.9) / 2
    hoeff = moment_box_from_sample(x, Support.interval(0, 1), 2, 0.9, "hoeffding")
    eps = math.sqrt(math.log(2 / delta) / (2 * n))
    assert float(hoeff.lo[0]) == pytest.approx(0.5 - eps, abs=3e-12) and float(hoeff.hi[0]) == pytest.approx(0.5 + eps, abs=3e-12)
    bern = moment_box_from_sample(x, Support.interval(0, 1), 2, 0.9, "bernstein")
    v = float(np.var(x**2, ddof=1))
    eps2 = math.sqrt(2 * v * math.log(4 / delta) / n) + 7 * math.log(4 / delta) / (3 * (n - 1))
    assert float(bern.hi[1]) == pytest.approx(min(1.0, float(np.mean(x**2)) + eps2), abs=3e-12)
    auto = moment_box_from_sample(x, Support.interval(0, 1), 2, 0.9, "auto")
    assert all(a >= min(h, b) - 1e-15 for a, h, b in zip(auto.lo, hoeff.lo, bern.lo))


def test_sample_validation(tmp_path):
    sup = Support.interval(0, 1)
    with pytest.raises(InvalidArgument, match="outside the support"):
        moment_box_from_sample([0.5, 1.5], sup, 2)
    with pytest.raises(InvalidArgument, match="bounded support"):
        moment_box_from_sample([0.5, 0.7], Support.real(), 2)
    with pytest.raises(InvalidArgument, match="confidence"):
        moment_box_from_sample([0.5, 0.7], sup, 2, confidence=1.0)
    bad = tmp_path / "bad.txt"
    bad.write_text("0.1\nabc\n")
    with pytest.raises(InvalidArgument, match="bad.txt:2"):
        read_sample(bad)
    good = tmp_path / "good.txt"
    good.write_text("# draws\n0.1\n\n0.25  # second\n")
    assert read_sample(good).tolist() == [0.1, 0.25]


def test_coverage_by_simulation():
    """The 95% bound covers the true P(X >= 1/2) of Beta(2, 5) in >= 95% of 200 simulated samples."""
    rng = np.random.default_rng(12)
    truth = stats.beta.sf(0.5, 2, 5)
    event = Event.ge(F(1, 2))
    covered, moments_covered, widths = 0, 0, []
    true_m = [stats.beta.moment(k, 2, 5) for k in (1, 2)]
    for _ in range(200):
        sample = rng.beta(2, 5, 400)
        p = sample_problem(sample, Support.interval(0, 1), event, order=2, confidence=0.95)
        moments_covered += all(float(lo) <= m <= float(hi) for (lo, hi), m in zip(p.moment_box, true_m))
        r = bound(p, "sos")
        covered += r.certified and r.lower <= truth <= r.upper
        widths.append(r.upper - r.lower)
    assert covered >= 190 and moments_covered >= 190
    assert np.mean(widths) < 0.8  # not the trivial [0, 1]


# ----------------------------------------------------------------------------- CLI
def _run(args):
    return CliRunner().invoke(main, ["bound", *args])


def _rows(res):
    assert res.exit_code == 0, res.output
    return {r["method"]: r for r in json.loads(res.output)["results"]}


def test_cli_half_line_and_deviation():
    rows = _rows(_run(["--moments", "1,1,4", "--support", "halfline:0", "--event", "ge:2", "--json"]))
    assert rows["closed-form"]["upper"] == 0.5 and abs(rows["sdp"]["upper"] - 0.5) < 1e-7
    assert "lp" not in rows
    rows = _rows(_run(["--moments", "1,0,1", "--support", "real", "--event", "dev:0:2", "--method", "sdp", "--json"]))
    assert abs(rows["sdp"]["upper"] - 0.25) < 1e-7


def test_cli_shapes():
    rows = _rows(_run(["--moments", "1,0,1", "--support", "real", "--event", "dev:0:2", "--mode", "0", "--json"]))
    assert sorted(rows) == ["shape-closed-form", "sos"] and rows["sos"]["certified"]
    assert abs(rows["sos"]["upper"] - 1 / 9) < 1e-6 and abs(rows["shape-closed-form"]["upper"] - 1 / 9) < 1e-15
    rows = _rows(_run(["--moments", "1,0,1", "--support", "real", "--event", "ge:2", "--shape", "symmetric", "--json"]))
    assert abs(rows["sos"]["upper"] - 1 / 8) < 1e-6


def test_cli_box_and_sample(tmp_path):
    rows = _rows(_run(["--moments-lo", "1,0.9,3.9", "--moments-hi", "1,1.1,4.1", "--support", "halfline:0",
                       "--event", "ge:2", "--json"]))
    assert abs(rows["sos"]["upper"] - 0.55) < 1e-7
    f = tmp_path / "x.txt"
    f.write_text("\n".join(str(v) for v in np.random.default_rng(0).beta(2, 5, 500)))
    rows = _rows(_run(["--sample", str(f), "--support", "interval:0:1", "--event", "ge:0.5", "--confidence", "0.9",
                       "--json"]))
    assert rows["sos"]["lower"] <= stats.beta.sf(0.5, 2, 5) <= rows["sos"]["upper"] < 0.9


@pytest.mark.parametrize(
    "args, message",
    [
        (["--moments", "1,0,1", "--moments-lo", "0", "--moments-hi", "1", "--support", "real"], "give only one of"),
        (["--moments", "1,0,1", "--support", "real", "--shape", "symmetric", "--mode", "0"], "--mode applies"),
        (["--moments", "1,0,1", "--support", "halfline", "--event", "ge:1"], "halfline:A"),
        (["--moments", "1,0,1", "--support", "real", "--event", "union:"], "union:le:1,ge:5"),
    ],
)
def test_cli_errors_are_one_line(args, message):
    res = _run(args)
    assert res.exit_code != 0 and message in res.output and "Traceback" not in res.output


def test_cli_subprocess_json_is_one_document():
    exe = [sys.executable, "-c", "from momentbound.cli import main; main()"]
    out = subprocess.run([*exe, "bound", "--moments", "1,0,1", "--support", "real", "--event", "dev:0:2",
                          "--mode", "0", "--json"], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert abs(doc["results"][0]["upper"] - 1 / 9) < 1e-6
