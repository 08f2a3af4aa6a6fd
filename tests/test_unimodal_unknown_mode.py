"""With the mode unknown, a unimodal bound is the maximum over the modes of the known-mode bounds (sharp).

Checked through the CLI (``--json``) against a sweep of ``--mode``; Vysochanskij-Petunin's second branch,
which is valid but above that maximum, is not reported.
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

import pytest

from conftest import run_in_process


def _bound(*args: str) -> subprocess.CompletedProcess:
    return run_in_process(["bound", *args, "--json"])


def _uppers(*args: str) -> dict[str, float]:
    proc = _bound(*args)
    assert proc.returncode == 0, proc.stderr
    return {r["method"]: r["upper"] for r in json.loads(proc.stdout)["results"]}


@pytest.mark.parametrize("event, best_mode, expected", [
    ("dev:0:1.5", "0", 16 / 81),  # Vysochanskij-Petunin's second branch would say 7/27 = 0.259
    ("ge:1/2", "1/2", 11 / 15),   # the one-sided unimodal bound (3 - l^2) / (3 (1 + l^2))
])
def test_unknown_mode_is_the_maximum_over_the_modes(event, best_mode, expected):
    """mean 0, variance 1 on the real line: every unknown-mode upper bound reported equals (to 1e-5) the largest
    known-mode bound of a sweep of modes, which the best mode reaches; none is above it."""
    common = ["--moments", "1,0,1", "--support", "real", "--event", event, "--shape", "unimodal"]
    unknown = _uppers(*common)
    assert unknown and all(v <= expected + 1e-5 for v in unknown.values()), unknown
    from momentbound.bounds import Event, MomentProblem, Shape, Support, bound

    ev = Event.parse(event)
    sweep = {m: bound(MomentProblem((1, 0, 1), Support.real(), ev, shape=Shape.unimodal(Fraction(m))), "sos").upper
             for m in ("-1", "-1/2", best_mode, "1", "3/2")}
    assert max(sweep.values()) == pytest.approx(expected, abs=1e-6)
    assert all(v == pytest.approx(max(sweep.values()), abs=1e-5) for v in unknown.values())


def test_loose_closed_form_is_refused_with_the_reason():
    proc = _bound("--moments", "1,0,1", "--support", "real", "--event", "dev:0:1.5", "--shape", "unimodal",
                  "--method", "shape-closed-form")
    assert proc.returncode == 2 and "not the maximum over the modes" in proc.stderr and "sos" in proc.stderr
    assert "Traceback" not in proc.stderr
    # above sqrt(8/3) standard deviations the closed form is the maximum (Gauss's bound at the mode = mean)
    cf = _uppers("--moments", "1,0,1", "--support", "real", "--event", "dev:0:2", "--shape", "unimodal",
                 "--method", "shape-closed-form")
    assert Fraction(cf["shape-closed-form"]).limit_denominator(1000) == Fraction(1, 9)
