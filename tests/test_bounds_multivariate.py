"""P(X in C) in R^n from the mean and covariance: one-dimensional closed forms, random laws, extremal laws."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.bounds import Event, MomentProblem, Status, Support, bound
from momentbound.bounds.multivariate import multivariate_bound
from momentbound.cli import main
from momentbound.errors import InvalidArgument

TOL = 1e-6


@pytest.mark.parametrize("mean,var", [(0.0, 1.0), (1.0, 4.0)])
@pytest.mark.parametrize("s", [-2.5, -0.5, 0.5, 1.0, 3.0])
def test_one_dimension_is_cantelli(mean, var, s):
    t = mean + s * np.sqrt(var)  # P(X <= t)
    r = multivariate_bound([mean], [[var]], polyhedron=([[1.0]], [t]))
    cantelli_low = s * s / (1 + s * s) if s > 0 else 0.0
    cantelli_up = 1.0 if s > 0 else 1 / (1 + s * s)
    assert abs(r.lower - cantelli_low) < TOL and abs(r.upper - cantelli_up) < TOL
    one = bound(MomentProblem((1, mean, var + mean * mean), Support.real(), Event.le(t)), "closed-form")
    assert abs(r.lower - one.lower) < TOL and abs(r.upper - one.upper) < TOL
    assert r.status is Status.OPTIMAL and r.certified


@pytest.mark.parametrize("k", [1.5, 2.0, 3.0])
def test_one_dimension_two_sided_is_chebyshev(k):
    poly = multivariate_bound([0.0], [[1.0]], polyhedron=([[1.0], [-1.0]], [k, k]))  # |X| <= k
    ell = multivariate_bound([0.0], [[1.0]], ellipsoid=([[1.0]], [0.0], k))
    for r in (poly, ell):
        assert abs(r.lower - (1 - 1 / k**2)) < TOL and abs(r.upper - 1.0) < TOL
        assert r.status is Status.OPTIMAL
    one = bound(MomentProblem((1, 0, 1), Support.real(), Event.between(-k, k)), "closed-form")
    assert abs(poly.lower - one.lower) < TOL


def test_marshall_olkin_upper_bound_for_a_half_plane():
    mu, sigma = np.array([0.5, -1.0]), np.array([[2.0, 0.6], [0.6, 1.0]])
    a, b = np.array([1.0, 2.0]), 3.0  # C = {a.x >= b}, written as -a.x <= -b
    r = multivariate_bound(mu, sigma, polyhedron=([-a], [-b]))
    d2 = (b - a @ mu) ** 2 / (a @ sigma @ a)
    assert abs(r.upper - 1 / (1 + d2)) < TOL and r.lower < TOL


@pytest.mark.parametrize("r", [1.5, 2.0, 3.0])
def test_ball_around_the_mean_is_markov_on_the_squared_norm(r):
    sigma = np.array([[1.0, 0.3], [0.3, 0.5]])
    res = multivariate_bound([1.0, -1.0], sigma, ellipsoid=(np.eye(2), [1.0, -1.0], r))
    assert abs(res.lower - max(0.0, 1 - np.trace(sigma) / r**2)) < TOL and abs(res.upper - 1) < TOL


def _random_law(rng, k=9):
    atoms = rng.normal(size=(k, 2)) * rng.uniform(0.5, 2.0, size=2) + rng.normal(size=2)
    weights = rng.dirichlet(np.ones(k))
    mean = weights @ atoms
    d = atoms - mean
    return atoms, weights, mean, (d * weights[:, None]).T @ d


def test_random_discrete_laws_in_the_plane_lie_within_the_bounds():
    rng = np.random.default_rng(11)
    for trial in range(6):
        atoms, weights, mean, cov = _random_law(rng)
        if trial % 2 == 0:
            A = rng.normal(size=(3, 2))
            b = A @ mean + rng.uniform(-0.5, 1.5, size=3)
            r = multivariate_bound(mean, cov, polyhedron=(A, b))
            inside = np.all(atoms @ A.T <= b, axis=1)
        else:
            P = np.array([[1.5, 0.4], [0.4, 0.8]])
            c, rad = mean + rng.normal(scale=0.5, size=2), rng.uniform(0.5, 2.5)
            r = multivariate_bound(mean, cov, ellipsoid=(P, c, rad))
            inside = np.einsum("ij,jk,ik->i", atoms - c, P, atoms - c) <= rad**2
        p = float(weights[inside].sum())
        assert r.lower - TOL <= p <= r.upper + TOL, (trial, r.lower, p, r.upper)
        assert r.status is Status.OPTIMAL, r.message
        for law in (r.lower_law, r.upper_law):
            assert np.allclose(law.mean, mean, atol=1e-5) and np.allclose(law.covariance, cov, atol=1e-5)


def test_support_box_tightens_and_stays_valid():
    rng = np.random.default_rng(5)
    atoms = rng.uniform(-1, 1, size=(12, 2))
    weights = rng.dirichlet(np.ones(12))
    mean = weights @ atoms
    cov = ((atoms - mean) * weights[:, None]).T @ (atoms - mean)
    A, b = np.array([[1.0, 1.0]]), np.array([mean.sum() + 0.4])
    free = multivariate_bound(mean, cov, polyhedron=(A, b))
    boxed = multivariate_bound(mean, cov, polyhedron=(A, b), support=([-1, -1], [1, 1]))
    p = float(weights[atoms @ A[0] <= b[0]].sum())
    assert boxed.lower - TOL <= p <= boxed.upper + TOL
    assert boxed.lower >= free.lower - TOL and boxed.upper <= free.upper + TOL


def test_solver_choice_agrees():
    a = multivariate_bound([0, 0], [[1, 0.2], [0.2, 1]], ellipsoid=(np.eye(2), [0.3, 0], 1.8))
    b = multivariate_bound([0, 0], [[1, 0.2], [0.2, 1]], ellipsoid=(np.eye(2), [0.3, 0], 1.8), solver="scs")
    assert b.solver == "SCS" and abs(a.lower - b.lower) < 1e-3 and abs(a.upper - b.upper) < 1e-3


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        (dict(mean=[0, 0], cov=[[1, 2], [2, 1]], polyhedron=([[1, 0]], [1])), "positive semidefinite"),
        (dict(mean=[0, 0], cov=[[1, 0], [0, 1]], polyhedron=([[1, 0, 0]], [1])), "shape"),
        (dict(mean=[0, 0], cov=[[1, 0], [0, 1]]), "exactly one of"),
        (dict(mean=[0], cov=[[1]], ellipsoid=([[1]], [0], -1)), "radius"),
        (dict(mean=[0], cov=[[1]], polyhedron=([[1]], [1]), solver="nope"), "installed cvxpy solvers"),
        (dict(mean=[0], cov=[[1]], polyhedron=([[1]], [1]), support=([1], [2])), "lo <= mean <= hi"),
        (dict(mean=[0, np.nan], cov=[[1, 0], [0, 1]], polyhedron=([[1, 0]], [1])), "finite"),
    ],
)
def test_bad_inputs(kwargs, msg):
    with pytest.raises(InvalidArgument, match=msg):
        multivariate_bound(**kwargs)


def test_cli_json_and_errors():
    run = lambda *a: CliRunner().invoke(main, ["mvbound", *a])  # noqa: E731
    res = run("--mean", "0", "--cov", "1", "--polyhedron", "1,2;-1,2", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert abs(doc["lower"] - 0.75) < TOL and doc["status"] == "optimal" and doc["lower_law"]["weights"]
    res = run("--mean", "0,0", "--cov", "1,0,0,1", "--ellipsoid", "0,0:2")
    # the ball of radius 2 around the mean: Markov on |X - mu|^2 gives 1 - tr(Sigma) / r^2 = 1/2
    assert res.exit_code == 0 and "lower" in res.output and "0.5 " in res.output
    for args, msg in [
        (("--mean", "0,0", "--cov", "1,0,0", "--ellipsoid", "0,0:2"), "needs 4 numbers"),
        (("--mean", "0", "--cov", "1", "--polyhedron", "1"), "faces of 2 numbers"),
        (("--mean", "0", "--cov", "1"), "exactly one of"),
    ]:
        res = run(*args)
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output, res.output


def test_extremal_distribution_plot(tmp_path):
    r = multivariate_bound([0, 0], [[1, 0.3], [0.3, 2]], polyhedron=([[-1, -1], [-1, 0.5]], [-2, -0.5]))
    # Marshall-Olkin: the nearest point of C in the Mahalanobis metric is the vertex (1, 1)
    assert abs(r.upper - 1 / (1 + 2.4 / 1.91)) < TOL
    heavy = r.upper_law.atoms[np.argmax(r.upper_law.weights)]
    assert np.allclose(heavy, [1, 1], atol=1e-5)
    out = r.plot(tmp_path / "law.png")
    assert out.read_bytes()[:4] == b"\x89PNG" and [p.name for p in tmp_path.iterdir()] == ["law.png"]
    res = CliRunner().invoke(main, ["mvbound", "--mean", "0,0", "--cov", "1,0,0,1", "--ellipsoid", "0,0:2",
                                    "--plot", str(tmp_path / "cli.png"), "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["plot"].endswith("cli.png") and (tmp_path / "cli.png").exists()
    one = multivariate_bound([0], [[1]], polyhedron=([[1]], [1]))
    with pytest.raises(InvalidArgument, match="two dimensions"):
        one.figure()
    res = CliRunner().invoke(main, ["mvbound", "--mean", "0", "--cov", "1", "--polyhedron", "1,1", "--plot", "x.png"])
    assert res.exit_code == 2 and "two-dimensional" in res.output


def test_reported_bounds_are_verified_certificate_values(monkeypatch):
    from fractions import Fraction

    from momentbound.bounds import multivariate as mv

    r = multivariate_bound([0.0], [[1.0]], polyhedron=([[1.0], [-1.0]], [2.0, 2.0]))
    assert isinstance(r.exact_lower, Fraction) and r.exact_lower <= Fraction(3, 4) and r.lower <= r.exact_lower
    assert Fraction(3, 4) - r.exact_lower < Fraction(1, 10**7)  # the dual quadratic is Chebyshev's, barely shifted
    boxed = multivariate_bound([0, 0], [[1, 0.3], [0.3, 1]], polyhedron=([[1, 1], [1, -1]], [1, 1.5]),
                               support=([-2, -2], [2, 2]))
    assert boxed.certified and boxed.status in (Status.OPTIMAL, Status.VALID)
    monkeypatch.setattr(mv, "_exact_pd", lambda S: False)  # a certificate that fails its exact check
    bad = multivariate_bound([0.0], [[1.0]], polyhedron=([[1.0]], [2.0]))
    assert bad.status is Status.UNVERIFIED and not bad.certified and bad.exact_lower is None
    assert "could not be verified" in bad.message
