"""cvxpy formulations of the bound methods and the solver= route.

Witnesses: the brute-force LP over every basis (``brute_force_lp``) for the LP formulations,
the known-answer catalogue (sharp intervals and true probabilities from closed forms and
exact laws) for every method under every installed solver, and the direct (HiGHS /
Clarabel) route for agreement.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import cvxpy as cp
import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.bounds import Event, MomentProblem, Status, Support, bound, formulation, installed_solvers
from momentbound.bounds.formulations import (
    SOLVER_METHODS,
    check_solver,
    lp_dual_formulation,
    lp_formulation,
    sdp_formulation,
    sdp_solvers,
    sqp_formulation,
)
from momentbound.bounds.joint import joint_sdp, joint_sdp_formulation
from momentbound.bounds.solver_compare import DIRECT, compare_solvers
from momentbound.cli import main
from momentbound.errors import InvalidArgument, SolverFailed, UnknownMethod

from test_bounds_catalogue import CATALOGUE, SLOW, TOL
from test_bounds_lp import brute_force_lp

ORACLE7 = MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5))
SOS37 = MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5))
FIRST_ORDER = {"SCS", "OSQP"}  # first-order solvers: answers accurate to ~1e-6, not 1e-9
FAST_SOLVERS = {"CLARABEL", "HIGHS"}


def test_formulations_name_their_variables_and_constraints() -> None:
    assert set(lp_formulation(ORACLE7).variables) == {"q"} and set(lp_formulation(ORACLE7).constraints) == {"moments"}
    assert set(lp_dual_formulation(ORACLE7).constraints) == {"dominance"}
    f = sqp_formulation(ORACLE7)
    assert set(f.variables) == {"y"} and set(f.constraints) == {"dominance", "box"}
    assert f["y"].name() == "y"
    s = sdp_formulation(SOS37)
    assert "y" in s.variables and any(k.startswith("gram[") for k in s.variables)
    assert {"psd", "identity"} <= {k.split("[")[0] for k in s.constraints} <= {"psd", "identity", "point"}
    assert all(s.variables[k].name() == k for k in s.variables)
    assert len(s.problem.constraints) == len(s.constraints)
    with pytest.raises(KeyError, match="neither a variable"):
        s["nope"]


@pytest.mark.parametrize("solver", ["CLARABEL", "HIGHS"])
def test_lp_formulations_solve_to_the_brute_force_bounds(solver: str) -> None:
    lo, hi = brute_force_lp(range(7), ORACLE7.moments, ORACLE7.event)
    assert (lo, hi) == (F(1, 20), F(4, 15))
    for build in (lp_formulation, lp_dual_formulation):
        up, down = build(ORACLE7, "upper"), build(ORACLE7, "lower")
        assert up.solve(solver) == "optimal" and down.solve(solver) == "optimal"
        assert abs(float(up.problem.value) - float(hi)) < 1e-7
        assert abs(float(down.problem.value) - float(lo)) < 1e-7


def test_a_user_constraint_changes_the_lp_like_a_smaller_support() -> None:
    f = lp_formulation(ORACLE7)
    five = f.points.index(F(5))
    extended = cp.Problem(f.problem.objective, f.problem.constraints + [f["q"][five] == 0])  # no atom at 5
    extended.solve(solver="HIGHS")
    _, hi = brute_force_lp([0, 1, 2, 3, 4, 6], ORACLE7.moments, ORACLE7.event)
    assert abs(float(extended.value) - float(hi)) < 1e-8
    assert hi != F(4, 15)  # the constraint matters


def test_dual_values_are_the_weights_and_the_certificate() -> None:
    f = lp_dual_formulation(ORACLE7)
    f.solve("HIGHS")
    q = np.asarray(f["dominance"].dual_value)
    assert np.all(q >= -1e-12) and abs(q.sum() - 1) < 1e-9
    xs = np.array([float(x) for x in f.points])
    assert abs(q @ xs - 3) < 1e-8 and abs(q @ xs**2 - 11) < 1e-7 and abs(q @ xs**3 - 45) < 1e-6
    primal = lp_formulation(ORACLE7)
    primal.solve("HIGHS")
    y_primal = np.asarray(primal["moments"].dual_value)
    assert np.allclose(y_primal, f["y"].value, atol=1e-7)


def test_sdp_and_sqp_formulations_reach_the_known_values() -> None:
    up, down = sdp_formulation(SOS37, "upper"), sdp_formulation(SOS37, "lower")
    assert up.solve("CLARABEL") == "optimal" and down.solve("CLARABEL") == "optimal"
    assert abs(float(up.problem.value) - 1 / 37) < 1e-7 and abs(float(down.problem.value)) < 1e-7
    f = sqp_formulation(ORACLE7, "lower")
    assert f.solve("HIGHS") == "optimal" and -float(f.problem.value) <= 1 / 20 + 1e-9


def test_joint_sdp_formulation_and_solver_route() -> None:
    mx = [sum(F(x) ** k for x in range(-2, 3)) / 5 for k in range(5)]
    table = [[mx[i] * mx[j] for j in range(5)] for i in range(5)]
    f = joint_sdp_formulation(table, (-2, 2), (-2, 2))
    assert {"moments", "moment_matrix[0]", "localizing_u[0]", "localizing_v[0]"} <= set(f.constraints)
    assert f.solve("CLARABEL") == "optimal" and float(f.problem.value) >= 4 / 25 - 1e-7
    direct = joint_sdp(table, (-2, 2), (-2, 2), degree=1, points=200)
    via_scs = joint_sdp(table, (-2, 2), (-2, 2), degree=1, solver="SCS", points=200)
    for r in (direct, via_scs):
        assert r.certified and r.exact_lower <= F(4, 25) <= r.exact_upper
    assert abs(direct.upper - via_scs.upper) < 1e-4 and abs(direct.lower - via_scs.lower) < 1e-4
    assert via_scs.diagnostics.solver == "scs(cvxpy)"
    with pytest.raises(SolverFailed, match="no semidefinite cone"):
        joint_sdp(table, (-2, 2), (-2, 2), degree=1, solver="HIGHS")


def test_solver_names_are_checked_before_any_work() -> None:
    with pytest.raises(InvalidArgument, match="installed: " + ", ".join(installed_solvers())):
        bound(ORACLE7, "lp", solver="NO_SUCH_SOLVER")
    with pytest.raises(InvalidArgument, match="applies to lp, lp-dual, sqp, sdp"):
        bound(ORACLE7, "prekopa", solver="HIGHS")
    with pytest.raises(UnknownMethod, match="no cvxpy formulation"):
        formulation(ORACLE7, "prekopa")
    with pytest.raises(InvalidArgument, match="side must be"):
        formulation(ORACLE7, "lp", side="both")
    assert check_solver("clarabel") == "CLARABEL"
    assert set(sdp_solvers()) <= set(installed_solvers()) and "CLARABEL" in sdp_solvers()


def test_all_methods_with_a_solver_fail_only_where_it_lacks_a_cone() -> None:
    out = {r.method: r for r in bound(ORACLE7, "all", solver="HIGHS")}
    assert out["lp"].diagnostics.solver == "cvxpy:HIGHS" and out["lp"].status is Status.OPTIMAL
    assert out["prekopa"].status is Status.OPTIMAL  # no solver: unchanged
    assert out["sdp"].status is Status.FAILED and "semidefinite" in out["sdp"].message


def _contains(lower: float, upper: float, entry) -> bool:
    ok = True
    if entry.sharp is not None:
        ok &= lower <= float(entry.sharp[0]) + TOL and float(entry.sharp[1]) - TOL <= upper
    if entry.truth is not None:
        ok &= lower <= float(entry.truth) + TOL and float(entry.truth) - TOL <= upper
    return ok


CASES = [
    pytest.param(e, s, marks=[pytest.mark.slow] if (e.name in SLOW or s not in FAST_SOLVERS) else [], id=f"{e.name}-{s}")
    for e in CATALOGUE
    for s in installed_solvers()
    if e.name not in SLOW
]


@pytest.mark.parametrize("entry, solver", CASES)
def test_cvxpy_route_equals_the_direct_route(entry, solver: str) -> None:
    table = compare_solvers(entry.problem, solvers=[solver])
    rows = {(r.method, r.solver): r for r in table.rows}
    for method in {r.method for r in table.rows}:
        direct, via = rows[(method, DIRECT)], rows[(method, solver)]
        assert direct.finished and _contains(direct.lower, direct.upper, entry)
        if not via.finished:
            # the table says why: an error note, or a stopped iteration with a still valid bound
            assert via.note or "stopped" in via.solver_status or "inaccurate" in via.solver_status or not via.certified
            if method == "sdp" and solver not in sdp_solvers():
                assert "no semidefinite cone" in via.note
            if via.certified:
                assert _contains(via.lower, via.upper, entry)
            continue
        assert via.certified and _contains(via.lower, via.upper, entry), (method, via)
        if via.agrees:
            continue
        # only first-order solvers on a continuum may differ, and only in the sixth digit
        assert solver in FIRST_ORDER and not entry.problem.support.is_discrete, (method, via, direct)
        assert abs(via.upper - direct.upper) < 1e-4 and abs(via.lower - direct.lower) < 1e-4
    if entry.problem.support.is_discrete:
        for method in ("lp", "lp-dual"):
            if (method, solver) in rows and rows[(method, solver)].status is Status.OPTIMAL:
                assert rows[(method, solver)].agrees is True


def test_cli_bound_solver() -> None:
    runner = CliRunner()
    args = ["bound", "--moments", "1,3,11,45", "--support", "grid:0:6", "--event", "ge:5"]
    res = runner.invoke(main, args + ["--method", "lp", "--solver", "highs", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["results"]
    assert row["solver"] == "cvxpy:HIGHS" and row["status"] == "optimal" and abs(row["upper"] - 4 / 15) < 1e-12
    res = runner.invoke(main, args + ["--solver", "nonsense"])
    assert res.exit_code == 2 and "installed:" in res.output and "Traceback" not in res.output


def test_cli_compare_solvers_table() -> None:
    res = CliRunner().invoke(main, ["compare", "--solvers", "CLARABEL,HIGHS", "--methods", "lp,sdp", "--moments",
                                    "1,3,11,45", "--support", "grid:0:6", "--event", "ge:5", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    rows = {(r["method"], r["solver"]): r for r in doc["rows"]}
    assert set(rows) == {(m, s) for m in ("lp", "sdp") for s in ("direct", "CLARABEL", "HIGHS")}
    assert rows[("sdp", "HIGHS")]["finished"] is False and "semidefinite" in rows[("sdp", "HIGHS")]["note"]
    assert rows[("lp", "CLARABEL")]["agrees"] is True and rows[("lp", "HIGHS")]["status"] == "optimal"
    assert all(abs(rows[("lp", s)]["upper"] - 4 / 15) < 1e-12 for s in ("direct", "CLARABEL", "HIGHS"))
    bad = CliRunner().invoke(main, ["compare", "--solvers", "NOPE"])
    assert bad.exit_code == 2 and "installed" in bad.output


def test_solver_methods_declare_the_solver_option() -> None:
    from momentbound.bounds import METHODS

    assert {name for name, cls in METHODS.items() if "solver" in cls.options} == set(SOLVER_METHODS)


def test_moment_boxes_are_pairs_of_inequalities_with_a_matching_dual() -> None:
    from momentbound.bounds.formulations import MomentRows, restricted_dual, restricted_primal

    xs = np.arange(7.0)
    A = np.vstack([xs**k for k in range(4)])  # raw monomials are fine on 0..6
    c = (xs >= 5).astype(float)
    tau = np.array([1.0, 3.0, 11.0, 45.0])
    for delta in (0.0, 0.5):
        rows = MomentRows(tau - delta * np.r_[0, 1, 1, 1], tau + delta * np.r_[0, 1, 1, 1])
        primal, dual = restricted_primal(A, c, rows), restricted_dual(A, c, rows)
        assert primal.solve("HIGHS") == "optimal" and dual.solve("HIGHS") == "optimal"
        assert abs(float(primal.problem.value) - float(dual.problem.value)) < 1e-7  # strong duality
        if delta == 0:
            assert set(primal.constraints) == {"moments"} and abs(float(primal.problem.value) - 4 / 15) < 1e-8
        else:
            assert set(primal.constraints) == {"moments_lo", "moments_hi"} and set(dual.variables) == {"y_hi", "y_lo"}
            assert float(primal.problem.value) > 4 / 15 + 1e-3  # a box admits more laws
            y = dual["y"].value  # the dual polynomial dominates the indicator at the points
            assert np.all(A.T @ y >= c - 1e-7)
