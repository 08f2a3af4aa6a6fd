"""``momentbound mvbound``: sharp bounds on P(X in C) for X in R^n from its mean and covariance."""

from __future__ import annotations

import math

import click

from momentbound.cli._common import user_errors, check_plot_path, emit_json, limit_options, print_table
from momentbound.cli._files import force_option


def _floats(text: str, name: str) -> list[float]:
    from momentbound.bounds.problem import as_exact

    return [float(as_exact(t, name)) for t in text.split(",") if t.strip()]


def _square(values: list[float], n: int, name: str) -> list[list[float]]:
    from momentbound.errors import InvalidArgument

    if len(values) != n * n:
        raise InvalidArgument(f"{name} needs {n * n} numbers (an {n}x{n} matrix, row by row), got {len(values)}")
    return [values[i * n : (i + 1) * n] for i in range(n)]


@click.command("mvbound")
@click.option("--mean", required=True, help="Mean vector, e.g. 0,0.")
@click.option("--cov", required=True, help="Covariance matrix row by row, e.g. 1,0.3,0.3,2.")
@click.option("--polyhedron", default=None,
              help="C = {x : A x <= b}, one face per ';': a1,...,an,b (e.g. '1,0,1.5;0,1,1.5').")
@click.option("--ellipsoid", default=None, help="C = {x : (x-c)^T P (x-c) <= r^2} as c1,...,cn:r (P from --shape).")
@click.option("--shape", default=None, help="The ellipsoid's P row by row [default: identity].")
@click.option("--box", default=None, help="Support box lo1,...,lon:hi1,...,hin (X in the box almost surely).")
@click.option("--solver", default=None, help="A cvxpy solver name [default: CLARABEL].")
@click.option("--plot", "plot_path", default=None, help="Two dimensions: draw C and the extremal distributions to a PNG.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (with the extremal distributions).")
@force_option
@limit_options
def command(mean: str, cov: str, polyhedron: str | None, ellipsoid: str | None, shape: str | None,
            box: str | None, solver: str | None, plot_path: str | None, as_json: bool, force: bool) -> None:
    """Sharp lower and upper bounds on P(X in C) for a polyhedron or an ellipsoid C (Vandenberghe-Boyd-Comanor)."""
    from momentbound.bounds.multivariate import multivariate_bound
    from momentbound.errors import InvalidArgument

    check_plot_path(plot_path, force=force)
    with user_errors():
        mu = _floats(mean, "--mean")
        n = len(mu)
        sigma = _square(_floats(cov, "--cov"), n, "--cov")
        poly = ell = supp = None
        if (polyhedron is None) == (ellipsoid is None):
            raise InvalidArgument("give exactly one of --polyhedron or --ellipsoid")
        if shape is not None and ellipsoid is None:
            raise InvalidArgument("--shape is the ellipsoid's matrix; give it with --ellipsoid")
        if polyhedron is not None:
            rows = [_floats(r, "--polyhedron") for r in polyhedron.split(";") if r.strip()]
            if not rows or any(len(r) != n + 1 for r in rows):
                raise InvalidArgument(f"--polyhedron needs faces of {n + 1} numbers a1,...,a{n},b separated by ';', "
                                      f"got {polyhedron!r}")
            poly = ([r[:n] for r in rows], [r[n] for r in rows])
        if ellipsoid is not None:
            centre, sep, radius = ellipsoid.partition(":")
            if not sep:
                raise InvalidArgument(f"--ellipsoid must look like c1,...,cn:r, got {ellipsoid!r}")
            P = _square(_floats(shape, "--shape"), n, "--shape") if shape else [
                [1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
            ell = (P, _floats(centre, "--ellipsoid"), _floats(radius, "--ellipsoid")[0])
        if box is not None:
            lo, sep, hi = box.partition(":")
            if not sep:
                raise InvalidArgument(f"--box must look like lo1,...,lon:hi1,...,hin, got {box!r}")
            supp = (_floats(lo, "--box"), _floats(hi, "--box"))
        if plot_path is not None and n != 2:
            raise InvalidArgument(f"--plot draws two-dimensional problems only; this one has dimension {n}")
        result = multivariate_bound(mu, sigma, polyhedron=poly, ellipsoid=ell, support=supp, solver=solver)
        if plot_path is not None:
            result.plot(plot_path)
    if as_json:
        doc = result.summary()
        if plot_path is not None:
            doc["plot"] = plot_path
        emit_json(doc)
        return
    cols = ["bound", "value", "status", "atoms", "seconds"]
    rows = [
        ["lower", f"{result.lower:.6g}", result.status.value, str(len(result.lower_law.weights)), f"{result.seconds:.3g}"],
        ["upper", f"{result.upper:.6g}", result.status.value, str(len(result.upper_law.weights)), ""],
    ]
    worst = max(result.checks.values()) if result.checks else math.nan
    print_table(f"P(X in C), X in R^{n}, solver {result.solver} (largest check error {worst:.2g})", cols, rows)
    click.echo(result.message)
    if plot_path is not None:
        click.echo(f"plot: {plot_path}")
