"""``momentbound bound``: certified bounds on P(X in E) from moments, or on P[Z_x > 0] of a model."""

from __future__ import annotations

from typing import Any

import click

from momentbound.cli._common import emit_json, parse_int_list, parse_str_list, print_table


def _fmt(v: object) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _model_problem(arities: str, cells: str, N: int, at: str, order: int, event: str) -> tuple[Any, Any]:
    """MomentProblem for Z_x of a naive Bayes model and the exact P[Z_x > 0] (or None)."""
    from momentbound.bounds import Event, MomentProblem, Support
    from momentbound.model.cells import CellModel
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = CellModel(parse_int_list(arities, name="--arities"), parse_str_list(cells))
    x = parse_int_list(at, name="--at")
    z = naive_bayes_statistic(model, x)
    mom = raw_moments(z, model, N, order).values
    lo, hi = z.support(N)
    ev = Event.parse(event)
    problem = MomentProblem(tuple(mom), Support.grid(lo, hi), ev, name=f"Z_{x} N={N}")
    exact = None
    if ev == Event.gt(0):
        import time

        from momentbound.exact import prob_z_positive

        start = time.perf_counter()
        value = prob_z_positive(model, N, x).positive
        exact = (value, time.perf_counter() - start)
    return problem, exact


@click.command("bound")
@click.option("--moments", default=None, help="Raw moments m0,m1,...,mk (integers, decimals or fractions like 1/3).")
@click.option("--support", default=None, help="grid:LO:HI | interval:A:C | finite:x1,x2,... | real")
@click.option("--event", default="gt:0", show_default=True,
              help="gt:T | ge:T | lt:T | le:T | between:A:B | outside:A:B")
@click.option("--method", default="all", show_default=True, help="A registered method name, or 'all'.")
@click.option("--arities", default=None, help="Model form: attribute arities, e.g. 2,2,2.")
@click.option("--cells", default=None, help="Model form: P[X=x, Y=k], comma-separated, class fastest.")
@click.option("--N", "N", type=int, default=None, help="Model form: dataset size.")
@click.option("--at", default=None, help="Model form: the input x, e.g. 0,0.")
@click.option("--order", type=int, default=6, show_default=True, help="Model form: number of moments.")
@click.option("--solver", default=None,
              help="Solve lp, lp-dual, sqp and sdp through cvxpy with this installed solver (CLARABEL, SCS, HIGHS, ...); "
                   "results are verified in exact arithmetic as on the default path.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
def command(
    moments: str | None, support: str | None, event: str, method: str, arities: str | None, cells: str | None,
    N: int | None, at: str | None, order: int, as_json: bool, solver: str | None = None,
) -> None:
    """Certified bounds on P(X in E) from the moments of X (or of Z_x for a naive Bayes model)."""
    from momentbound.bounds import MomentProblem, Support, Event, bound
    from momentbound.bounds.problem import as_exact
    from momentbound.errors import MomentboundError

    model_form = any(v is not None for v in (arities, cells, N, at))
    if solver is not None:
        from momentbound.bounds.formulations import check_solver

        try:
            solver = check_solver(solver)
        except MomentboundError as exc:
            raise click.BadParameter(str(exc), param_hint="--solver") from exc
    try:
        if model_form:
            if moments is not None or support is not None:
                raise click.UsageError("use either --moments/--support or the model form (--arities/--cells/--N/--at)")
            missing = [n for n, v in (("--arities", arities), ("--cells", cells), ("--N", N), ("--at", at)) if v is None]
            if missing:
                raise click.UsageError(f"the model form needs {', '.join(missing)}")
            problem, exact = _model_problem(arities, cells, N, at, order, event)  # type: ignore[arg-type]
        else:
            if moments is None or support is None:
                raise click.UsageError("give --moments and --support (or the model form --arities/--cells/--N/--at)")
            mom = tuple(as_exact(t, "--moments") for t in parse_str_list(moments))
            problem = MomentProblem(mom, Support.parse(support), Event.parse(event))
            exact = None
        out = bound(problem, method, solver=solver)
    except MomentboundError as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc
    results = out if isinstance(out, tuple) else (out,)
    rows = [r.summary() for r in results]
    if solver is not None:
        for r, row in zip(results, rows):
            row["solver"] = r.diagnostics.solver
    if exact is not None:
        v = float(exact[0])
        rows.append({"method": "exact", "kind": "exact", "lower": v, "upper": v, "certified": True,
                     "status": "exact", "seconds": exact[1], **({"solver": ""} if solver else {})})
    if as_json:
        doc: dict[str, Any] = {"results": rows}
        if exact is not None:
            doc["exact"] = float(exact[0])
        emit_json(doc)
        return
    cols = ["method", "kind", "lower", "upper", "certified", "status", "seconds"] + (["solver"] if solver else [])
    table = [[_fmt(r[c]) for c in cols] for r in rows]
    title = f"P(X in {problem.event}) from {problem.order} moments on {problem.support}"
    if exact is not None:
        title += f"  (exact: {float(exact[0]):.6g})"
    print_table(title, cols, table)
