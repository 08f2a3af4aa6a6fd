"""Bounds that tell the truth: shapes on grids, modes, infeasible moments, huge numbers, moment lists.

Every number is witnessed independently: an explicit law that attains or violates a bound (exact
Fractions), or scipy's ``linprog`` on a different formulation of the same discrete problem (the
mixture of discrete uniforms for unimodal laws, the pmf with equal mirror weights for symmetric
ones).  The inputs of the command line run with ``--json`` in this process (``run_in_process``, which also
reads file descriptors 1 and 2); ``bound`` and ``compare`` run as real subprocesses in
``test_cli_subprocess.py``.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.optimize import linprog

from momentbound.bounds import METHODS, Event, MomentProblem, Shape, Support, bound, check_feasible
from momentbound.bounds.api import no_method_reason
from momentbound.errors import InfeasibleMoments, InvalidArgument


def _moments(pmf: dict[int, F], order: int) -> tuple[F, ...]:
    return tuple(sum((p * F(x) ** k for x, p in pmf.items()), F(0)) for k in range(order + 1))


def _prob(pmf: dict[int, F], event: Event) -> F:
    return sum((p for x, p in pmf.items() if event.indicator(x)), F(0))


# ----------------------------------------------------------------------------- independent witnesses
def _mixture_lp(mom: tuple[F, ...], lo: int, hi: int, event: Event, mode: int) -> tuple[float, float] | None:
    """sup and inf of P(event) over mixtures of discrete uniforms on ranges {a..b} with a <= mode <= b."""
    comps = [(a, b) for a in range(lo, mode + 1) for b in range(mode, hi + 1)]
    scale = max(abs(lo), abs(hi), 1)
    rows = np.array([[np.mean([(x / scale) ** k for x in range(a, b + 1)]) for a, b in comps]
                     for k in range(len(mom))])
    rhs = np.array([float(m) / scale**k for k, m in enumerate(mom)])
    c = np.array([np.mean([float(event.indicator(x)) for x in range(a, b + 1)]) for a, b in comps])
    out = []
    for sign in (-1, 1):
        res = linprog(sign * c, A_eq=rows, b_eq=rhs, bounds=(0, None), method="highs")
        if res.status == 2:
            return None
        assert res.status == 0, res.message
        out.append(-res.fun if sign == -1 else res.fun)
    return out[0], out[1]


def _symmetric_lp(mom: tuple[F, ...], lo: int, hi: int, event: Event) -> tuple[float, float] | None:
    """sup and inf of P(event) over pmfs on lo..hi with p(c - t) = p(c + t), c the mean."""
    c2 = 2 * mom[1]
    xs = list(range(lo, hi + 1))
    scale = max(abs(lo), abs(hi), 1)
    rows = [[(x / scale) ** k for x in xs] for k in range(len(mom))]
    rhs = [float(m) / scale**k for k, m in enumerate(mom)]
    for i, x in enumerate(xs):  # mirror weights equal; a point without a mirror on the grid has weight 0
        mirror = c2 - x
        row = [0.0] * len(xs)
        row[i] += 1.0
        if mirror.denominator == 1 and lo <= mirror <= hi:
            row[xs.index(int(mirror))] -= 1.0
        rows.append(row)
        rhs.append(0.0)
    c = np.array([float(event.indicator(x)) for x in xs])
    out = []
    for sign in (-1, 1):
        res = linprog(sign * c, A_eq=np.array(rows), b_eq=np.array(rhs), bounds=(0, None), method="highs")
        if res.status == 2:
            return None
        assert res.status == 0, res.message
        out.append(-res.fun if sign == -1 else res.fun)
    return out[0], out[1]


def _random_unimodal(rng: random.Random, lo: int, hi: int, mode: int) -> dict[int, F]:
    pmf: dict[int, F] = {}
    weights = [F(rng.randint(1, 6)) for _ in range(rng.randint(1, 3))]
    total = sum(weights)
    for w in weights:
        a, b = rng.randint(lo, mode), rng.randint(mode, hi)
        for x in range(a, b + 1):
            pmf[x] = pmf.get(x, F(0)) + w / total / (b - a + 1)
    return pmf


EVENTS = (Event.ge(2), Event.le(1), Event.deviation(2, 2), Event.between(1, 3), Event.gt(4))


# ----------------------------------------------------------------------------- 1. shapes on grids
def test_gauss_is_not_a_bound_on_a_grid_and_the_discrete_analogue_is_attained():
    law = {-2: F(1, 10), -1: F(1, 10), 0: F(6, 10), 1: F(1, 10), 2: F(1, 10)}  # unimodal about 0
    assert _moments(law, 2) == (1, 0, 1) and _prob(law, Event.deviation(0, 2)) == F(1, 5) > F(1, 9)
    p = MomentProblem((1, 0, 1), Support.grid(-2, 2), Event.deviation(0, 2), shape=Shape.unimodal(0))
    with pytest.raises(InvalidArgument, match="continuous laws.*shape-grid"):
        bound(p, "shape-closed-form")
    assert [r.method for r in bound(p, "all")] == ["shape-grid"]
    r = bound(p, "shape-grid")
    assert r.certified and r.exact_upper >= F(1, 5) and r.upper - 0.2 < 1e-9  # sound and sharp
    # lower side: a unimodal law with P = 1/10 (t = 1/10 mass on +-2 is the least, see the LP)
    low = {-2: F(1, 20), -1: F(3, 10), 0: F(3, 10), 1: F(3, 10), 2: F(1, 20)}
    assert _moments(low, 2) == (1, 0, 1) and r.exact_lower <= _prob(low, p.event) == F(1, 10)
    assert abs(r.lower - 0.1) < 1e-9
    assert r.lower == pytest.approx(_mixture_lp((1, 0, 1), -2, 2, p.event, 0)[1], abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_grid_unimodal_known_mode_equals_the_mixture_lp_and_contains_the_truth(seed):
    rng = random.Random(seed)
    lo, hi = 0, rng.randint(4, 7)
    mode = rng.randint(lo, hi)
    law = _random_unimodal(rng, lo, hi, mode)
    order = rng.randint(1, 3)
    event = rng.choice(EVENTS)
    p = MomentProblem(_moments(law, order), Support.grid(lo, hi), event, shape=Shape.unimodal(mode))
    r = bound(p, "shape-grid")
    truth = _prob(law, event)
    assert r.certified and r.exact_lower <= truth <= r.exact_upper
    ref_up, ref_low = _mixture_lp(p.exact_moments, lo, hi, event, mode)
    assert abs(r.upper - ref_up) < 1e-7 and abs(r.lower - ref_low) < 1e-7


@pytest.mark.parametrize("seed", range(4))
def test_grid_unimodal_unknown_mode_is_the_maximum_over_modes(seed):
    rng = random.Random(100 + seed)
    lo, hi = -1, rng.randint(3, 5)
    law = _random_unimodal(rng, lo, hi, rng.randint(lo, hi))
    event = rng.choice(EVENTS)
    mom = _moments(law, 2)
    p = MomentProblem(mom, Support.grid(lo, hi), event, shape=Shape.unimodal())
    r = bound(p, "shape-grid")
    per_mode = [v for m in range(lo, hi + 1) if (v := _mixture_lp(mom, lo, hi, event, m)) is not None]
    assert r.certified and r.exact_lower <= _prob(law, event) <= r.exact_upper
    assert abs(r.upper - max(v[0] for v in per_mode)) < 1e-7
    assert abs(r.lower - min(v[1] for v in per_mode)) < 1e-7


def test_grid_mode_between_two_points_is_the_union_of_its_neighbours():
    mom = _moments({1: F(1, 4), 2: F(1, 4), 3: F(1, 2)}, 2)
    ev = Event.ge(3)
    r = bound(MomentProblem(mom, Support.grid(0, 5), ev, shape=Shape.unimodal(F(5, 2))), "shape-grid")
    sides = [v for m in (2, 3) if (v := _mixture_lp(mom, 0, 5, ev, m)) is not None]
    assert abs(r.upper - max(v[0] for v in sides)) < 1e-7 and abs(r.lower - min(v[1] for v in sides)) < 1e-7


@pytest.mark.parametrize("seed", range(5))
def test_grid_symmetric_equals_the_mirror_lp_and_contains_the_truth(seed):
    rng = random.Random(200 + seed)
    lo, hi = 0, rng.randint(4, 8)
    c2 = rng.randint(2 * lo + 2, 2 * hi - 2)  # twice the centre
    law: dict[int, F] = {}
    for _ in range(rng.randint(1, 3)):
        x = rng.randint(max(lo, c2 - hi), c2 // 2)
        w = F(rng.randint(1, 5))
        law[x] = law.get(x, F(0)) + w
        law[c2 - x] = law.get(c2 - x, F(0)) + w
    total = sum(law.values())
    law = {x: w / total for x, w in law.items()}
    event = rng.choice(EVENTS)
    p = MomentProblem(_moments(law, rng.randint(2, 4)), Support.grid(lo, hi), event, shape=Shape.symmetric())
    r = bound(p, "shape-grid")
    assert r.certified and r.exact_lower <= _prob(law, event) <= r.exact_upper
    ref_up, ref_low = _symmetric_lp(p.exact_moments, lo, hi, event)
    assert abs(r.upper - ref_up) < 1e-7 and abs(r.lower - ref_low) < 1e-7


def test_grid_shapes_refuse_impossible_moments():
    # mean 1/3 cannot be the centre of a symmetric law on the integers
    with pytest.raises(InfeasibleMoments, match="half-integer"):
        bound(MomentProblem((1, F(1, 3), 1), Support.grid(-2, 2), Event.ge(1), shape=Shape.symmetric()), "shape-grid")
    # a point mass at 2 is not unimodal about 0; the mixture LP agrees that no law exists
    assert _mixture_lp((F(1), F(2), F(4)), 0, 3, Event.ge(1), 0) is None
    with pytest.raises(InfeasibleMoments, match="unimodal"):
        bound(MomentProblem((1, 2, 4), Support.grid(0, 3), Event.ge(1), shape=Shape.unimodal(0)), "shape-grid")


# ----------------------------------------------------------------------------- 2. modes and empty results
def test_a_mode_outside_the_support_is_an_error_and_no_problem_gives_an_empty_table():
    for support in (Support.interval(-3, 3), Support.grid(-3, 3), Support.halfline(6)):
        with pytest.raises(InvalidArgument, match="outside the support"):
            MomentProblem((1, 0, 1) if support.lo != 6 else (1, 7, 50), support, Event.ge(2), shape=Shape.unimodal(5))
    finite = MomentProblem((1, 5, 30), Support.finite([0, 5, 10]), Event.ge(8), shape=Shape.unimodal(5))
    with pytest.raises(InvalidArgument, match="no method applies.*shape-grid.*sos"):
        bound(finite, "all")
    assert "grid support" in no_method_reason(finite)


# ----------------------------------------------------------------------------- 4. infeasible moments
INFEASIBLE = [
    ((1, 0, 1), Support.halfline(0)),  # X >= 0 with E[X] = 0 is X = 0, so E[X^2] = 0
    ((1, 0, 0, 0, 1), Support.real()),  # E[X^2] = 0 is X = 0, so E[X^4] = 0
    ((1, 0, 1, 0, 1, 0, 5), Support.real()),  # E[(X^2 - 1)^2] = 0 confines X to +-1, so E[X^6] = 1
    ((1, 0, 0, 1), Support.halfline(0)),
    ((1, 0, 2), Support.interval(-1, 1)),  # E[X^2] <= 1 on [-1, 1]
    ((1, F(1, 2), F(1, 3)), Support.grid(0, 1)),  # on {0, 1}: E[X^2] = E[X]
    ((1, 5), Support.interval(0, 1)),
]


@pytest.mark.parametrize("moments, support", INFEASIBLE)
def test_infeasible_moments_are_infeasible_for_every_method(moments, support):
    p = MomentProblem(moments, support, Event.ge(1))
    if support.is_discrete:  # independent witness: linprog finds no pmf on the grid
        xs = range(int(support.lo), int(support.hi) + 1)
        res = linprog(np.zeros(len(xs)), A_eq=[[float(x) ** k for x in xs] for k in range(len(moments))],
                      b_eq=[float(m) for m in moments], bounds=(0, None), method="highs")
        assert res.status == 2
    applicable = [name for name, cls in METHODS.items() if cls().unsupported(p) is None]
    assert applicable
    for name in applicable:
        with pytest.raises(InfeasibleMoments):
            bound(p, name)
    with pytest.raises(InfeasibleMoments):
        bound(p, "all")


@pytest.mark.parametrize("seed", range(30))
def test_moments_of_a_few_atoms_are_never_called_infeasible(seed):
    """Boundary sequences (singular moment matrices) of real laws pass the exact checks."""
    rng = random.Random(300 + seed)
    atoms = {F(rng.randint(-6, 6), rng.choice([1, 2])): F(rng.randint(1, 4)) for _ in range(rng.randint(1, 3))}
    total = sum(atoms.values())
    order = rng.randint(2, 7)
    mom = tuple(sum((w / total * x**k for x, w in atoms.items()), F(0)) for k in range(order + 1))
    low = min(atoms)
    for support in (Support.real(), Support.halfline(low), Support.halfline(low - 1),
                    Support.interval(low, max(atoms) + rng.randint(0, 2))):
        check_feasible(MomentProblem(mom, support, Event.ge(0)))


# ----------------------------------------------------------------------------- the command line
CLI_CASES = {
    "gauss-grid": ["bound", "--moments", "1,0,1", "--support", "grid:-2:2", "--event", "dev:0:2", "--mode", "0",
                   "--json"],
    "mode-outside": ["bound", "--moments", "1,0,1", "--support", "interval:-3:3", "--event", "ge:2", "--mode", "5",
                     "--json"],
    "grid-mode-4": ["bound", "--moments", "1,5,30", "--support", "grid:0:10", "--event", "ge:8", "--mode", "4",
                    "--json"],
    "grid-mode-4-sos": ["bound", "--moments", "1,5,30", "--support", "grid:0:10", "--event", "ge:8", "--mode", "4",
                        "--method", "sos", "--json"],
    "halfline-sdp": ["bound", "--moments", "1,0,1", "--support", "halfline:0", "--event", "ge:1", "--method", "sdp",
                     "--json"],
    "halfline-all": ["bound", "--moments", "1,0,1", "--support", "halfline:0", "--event", "ge:1", "--json"],
    "grid-infeasible-all": ["bound", "--moments", "1,1/2,1/3", "--support", "grid:0:1", "--event", "ge:1", "--json"],
}


@pytest.fixture(scope="module")
def cli(cli_in_process) -> dict[str, subprocess.CompletedProcess[str]]:
    return {key: cli_in_process(args) for key, args in CLI_CASES.items()}


def _refused(res: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert res.returncode == 2 and res.stdout == "", (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in res.stderr, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_cli_gauss_on_a_grid_is_the_discrete_bound(cli):
    res = cli["gauss-grid"]
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["results"]
    assert [r["method"] for r in rows] == ["shape-grid"] and rows[0]["certified"]
    assert F(rows[0]["upper_exact"]) >= F(1, 5) and rows[0]["upper"] == pytest.approx(0.2, abs=1e-9)


def test_cli_mode_outside_and_empty_tables(cli):
    _refused(cli["mode-outside"], "mode 5", "outside the support", "[-3, 3]")
    res = cli["grid-mode-4"]
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["results"]
    assert [r["method"] for r in rows] == ["shape-grid"]
    ref_up, ref_low = _mixture_lp((F(1), F(5), F(30)), 0, 10, Event.ge(8), 4)
    assert abs(rows[0]["upper"] - ref_up) < 1e-7 and abs(rows[0]["lower"] - ref_low) < 1e-7
    _refused(cli["grid-mode-4-sos"], "methods that apply: shape-grid")


def test_cli_infeasible_moments(cli):
    for key in ("halfline-sdp", "halfline-all", "grid-infeasible-all"):
        _refused(cli[key], "InfeasibleMoments")


# ----------------------------------------------------------------------------- 5. numbers
def test_huge_moments_are_solved_in_scaled_exact_arithmetic_or_refused():
    # kurtosis 1 forces the two-point law +-1e150 (each 1/2): P(X >= 1) = 1/2 exactly
    p = MomentProblem((1, 0, F(10) ** 300, 0, F(10) ** 600), Support.real(), Event.ge(1))
    from momentbound.bounds.series import SeriesWarning

    with pytest.warns(SeriesWarning):  # the Edgeworth density of a two-point law goes negative
        results = bound(p, "all")
    for r in results:
        assert r.lower - 1e-9 <= 0.5 <= r.upper + 1e-9, r
    with pytest.raises(InvalidArgument, match="scale.*floating-point range.*rescale"):
        MomentProblem((1, 0, F(10) ** 700), Support.real(), Event.ge(1))
    with pytest.raises(InvalidArgument, match="standardized moment.*4.*1e\\+400"):
        MomentProblem((1, 0, 1, 0, F(10) ** 400), Support.real(), Event.ge(1))


CLI_CASES.update({
    "overflow-moments": ["bound", "--moments", "1,0,1e300,0,1e600", "--support", "real", "--event", "ge:1", "--json"],
    "overflow-scale": ["bound", "--moments", "1,0,1e700", "--support", "real", "--event", "ge:1", "--json"],
    "huge-variance": ["bound", "--moments", "1,0,1e300", "--support", "real", "--event", "ge:1", "--json"],
    "mv-ellipsoid": ["mvbound", "--mean", "0,0", "--cov", "1,0,0,1", "--ellipsoid", "0,0:1e300", "--json"],
    "mv-mean": ["mvbound", "--mean", "1e200,0", "--cov", "1,0,0,1", "--ellipsoid", "0,0:2", "--json"],
})


def test_cli_huge_numbers(cli):
    res = cli["overflow-moments"]
    assert res.returncode == 0, res.stderr
    for row in json.loads(res.stdout)["results"]:
        assert row["lower"] - 1e-9 <= 0.5 <= row["upper"] + 1e-9
    _refused(cli["overflow-scale"], "floating-point range")
    # mean 0, variance 1e300: Cantelli's sharp upper bound on P(X >= 1) is 1e300 / (1e300 + 1), the lower 0;
    # the Chebyshev-Markov-Stieltjes nodes are then too far apart for 60 digits (a traceback before)
    res = cli["huge-variance"]
    assert res.returncode == 0 and res.stderr == "", res.stderr
    rows = [row for row in json.loads(res.stdout)["results"] if row["kind"] == "bound"]
    assert rows and all(row["lower"] <= 1e-12 and row["upper"] >= 1 - 1e-12 for row in rows), rows
    for key in ("mv-ellipsoid", "mv-mean"):
        _refused(cli[key], "InvalidArgument", "overflows a double")


# ----------------------------------------------------------------------------- 6. one list convention
def test_moment_boxes_count_from_m0_like_the_moments():
    # Cantelli, attained by {5: 1/17, 3/4: 16/17} (mean 1, E[X^2] = 2): P(X >= 5) <= 1/17
    law = {F(5): F(1, 17), F(3, 4): F(16, 17)}
    assert tuple(sum((p * x**k for x, p in law.items()), F(0)) for k in range(3)) == (1, 1, 2)
    exact = bound(MomentProblem((1, 1, 2), Support.real(), Event.ge(5)), "closed-form")
    box = bound(MomentProblem.from_box((1, 1, 2), (1, 1, 2), Support.real(), Event.ge(5)), "sos")
    assert exact.exact_upper == F(1, 17) and abs(box.upper - 1 / 17) < 1e-7 and box.exact_upper >= F(1, 17)
    with pytest.raises(InvalidArgument, match="count from m0.*lo = \\(1, 0.9"):
        MomentProblem.from_box((0.9, 3.9), (1.1, 4.1), Support.halfline(0), Event.ge(2))


CLI_CASES.update({
    "box-m0": ["bound", "--moments-lo", "1,1,2", "--moments-hi", "1,1,2", "--support", "real", "--event", "ge:5",
               "--json"],
    "box-old-convention": ["bound", "--moments-lo", "0.9,3.9", "--moments-hi", "1.1,4.1", "--support", "halfline:0",
                           "--event", "ge:2", "--json"],
})


def test_cli_moment_boxes_count_from_m0(cli):
    res = cli["box-m0"]
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["results"]
    assert rows and all(abs(r["upper"] - 1 / 17) < 1e-7 for r in rows)
    _refused(cli["box-old-convention"], "count from m0", "--moments-lo 1,0.9,3.9 --moments-hi 1,1.1,4.1")


# ----------------------------------------------------------------------------- 7. options and messages
CLI_CASES.update({
    "compare-event": ["compare", "--event", "dev:0:1", "--json"],
    "compare-infeasible": ["compare", "--solvers", "CLARABEL", "--moments", "1,0,1", "--support", "halfline:0",
                           "--event", "ge:1", "--json"],
    "band-exact": ["band", "--truth", "binomial:10:3/10", "--order", "3", "--support", "grid:0:10", "--method", "exact",
                   "--json"],
    "m0-fraction": ["bound", "--moments", "2,0,1", "--support", "real", "--json"],
    "dev-negative": ["bound", "--moments", "1,0,1", "--support", "real", "--event", "dev:0:-2", "--json"],
    "grid-not-integer": ["bound", "--moments", "1,0,1", "--support", "grid:0.5:3", "--event", "ge:1", "--json"],
})


def test_cli_compare_refuses_an_event_it_would_ignore_and_maps_errors_like_bound(cli):
    _refused(cli["compare-event"], "--event dev:0:1", "P[Z > 0]")
    # the same infeasible moments exit 2 in compare and in bound (one mapping of library errors)
    assert cli["compare-infeasible"].returncode == cli["halfline-all"].returncode == 2
    _refused(cli["compare-infeasible"], "InfeasibleMoments")


def test_cli_messages_show_no_internals(cli):
    internals = ("pmf is None", "Fraction(", "invalid literal", "Traceback")
    for key, needle in (("band-exact", "law of X"), ("m0-fraction", "got 2;"), ("dev-negative", "t=-2;"),
                        ("grid-not-integer", "integer ends")):
        line = _refused(cli[key], needle)
        assert not any(bad in line for bad in internals), line


# ----------------------------------------------------------------------------- 3. unknown mode, continuous
def test_unknown_mode_envelope_is_the_maximum_over_modes():
    """Brute force: maximise the known-mode bound over the mode (a grid, then scipy's bounded search)."""
    from scipy.optimize import minimize_scalar

    from momentbound.bounds.shape import mode_range

    mom, sup, ev = (1, 2, 5), Support.interval(0, 6), Event.ge(4)
    p = MomentProblem(mom, sup, ev, shape=Shape.unimodal())
    env = bound(p, "sos")

    def at(m: float) -> float:
        try:
            return bound(MomentProblem(mom, sup, ev, shape=Shape.unimodal(F(m))), "sos").upper
        except InfeasibleMoments:
            return 0.0

    lo, hi = (float(v) for v in mode_range(p))
    grid = np.linspace(lo, hi, 13)
    best = int(np.argmax([at(m) for m in grid]))
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    res = minimize_scalar(lambda m: -at(m), bounds=(a, b), method="bounded", options={"xatol": 1e-4})
    brute = max(-res.fun, at(grid[best]))
    # each single-mode number is itself a certified upper bound, sharp up to its solver's ~1e-6
    assert env.certified and abs(env.upper - brute) <= 3e-6
    # the one-sided unimodal theorem (mode unknown): (3 - l^2) / (3 (1 + l^2)) at l = 1/2 is 11/15
    one_sided = bound(MomentProblem((1, 0, 1), Support.real(), Event.ge(F(1, 2)), shape=Shape.unimodal()), "sos")
    assert F(11, 15) <= one_sided.exact_upper <= F(11, 15) + F(2, 10**6)
