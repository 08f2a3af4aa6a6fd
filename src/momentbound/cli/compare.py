"""``momentbound compare``: the paper's Tables 4-6 (every cdf method on P[Z > 0], 2x2x2 equal cells)."""

from __future__ import annotations

from pathlib import Path

from typing import Any

import click

from momentbound.cli._common import (UserError, fmt, emit_json, library_error, limit_options, parse_int_list, parse_str_list,
                                     print_table)
from momentbound.cli._files import claim_output_file, force_option, write_errors


@click.command("compare")
@click.option("--N", "Ns", default="10,100,1000", show_default=True, help="Comma-separated dataset sizes.")
@click.option("--order", default=6, show_default=True, type=int, help="Number of moments.")
@click.option("--methods", default="", help="Comma-separated method names (default: every applicable method).")
@click.option("--draws", default=1000, show_default=True, type=int, help="Samples for the sampling method.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed (an integer >= 0) for gdts and sampling.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the rows as CSV (an existing file needs --force).")
@click.option("--solvers", default=None,
              help="Compare cvxpy solvers instead (comma-separated, e.g. CLARABEL,SCS,HIGHS, or 'all'): each of "
                   "lp, lp-dual, sqp, sdp (or --methods) directly and through each solver.")
@click.option("--moments", default=None, help="With --solvers: raw moments m0,m1,... of your own problem.")
@click.option("--support", default=None, help="With --solvers and --moments: grid:LO:HI | interval:A:C | finite:... | real")
@click.option("--event", default="gt:0", show_default=True, help="With --solvers and --moments: the event.")
@force_option
@limit_options
@write_errors
def command(Ns: str, order: int, methods: str, draws: int, seed: int, as_json: bool, out: Path | None,
            solvers: str | None, moments: str | None, support: str | None, event: str, force: bool) -> None:
    """Time and accuracy of every cdf method for P[Z_(0,0) > 0] (paper Tables 4-6), or of every
    optimisation method under every cvxpy solver (--solvers)."""
    from momentbound.studies.method_comparison import MAX_N, compare_methods
    from momentbound.errors import MomentboundError

    event_given = click.get_current_context().get_parameter_source("event") is not click.core.ParameterSource.DEFAULT
    if event_given and (solvers is None or moments is None):
        raise click.UsageError(
            f"--event {event} applies only to your own problem (--solvers with --moments and --support); compare's "
            "tables are the paper's P[Z > 0]: drop --event, or use `momentbound bound --arities ... --event "
            f"{event}` for that event of a model")
    if solvers is not None:
        _solver_table(Ns, order, methods, solvers, moments, support, event, as_json,
                      None if out is None else claim_output_file(out, force=force))
        return
    if moments is not None or support is not None:
        raise click.UsageError("--moments and --support go with --solvers")
    sizes = parse_int_list(Ns, name="--N")
    if any(n < 1 for n in sizes):
        raise UserError(f"--N must list positive integers, got {Ns!r}")
    if max(sizes) > MAX_N:
        raise UserError(f"--N {max(sizes)} is above {MAX_N:,}: the exact column (the law of Z) would need "
                        f"gigabytes; use sizes up to {MAX_N:,} (the paper's tables use 10, 100, 1000), or "
                        f"`momentbound bound` with a single method at larger N")
    if order < 1:
        raise UserError(f"--order must be a positive integer, got {order}")
    if draws < 1:
        raise UserError(f"--draws must be a positive integer (samples of the sampling method), got {draws}")
    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")
    names = parse_str_list(methods, name="--methods") if methods.strip() else None
    try:
        _check_work(sizes, order, names, draws)
    except MomentboundError as exc:
        raise UserError(f"{type(exc).__name__}: {exc}") from exc
    csv = None if out is None else claim_output_file(out, force=force)
    try:
        table = compare_methods(sizes, order, methods=names, rng=seed, draws=draws)
    except MomentboundError as exc:
        raise library_error(exc) from exc
    if csv is not None:
        csv.write_text(table.to_csv())
    if as_json:
        emit_json({"order": table.order, "event": table.event, "model": table.model, "rows": [r.as_dict() for r in table.rows]})
        return
    cols = ("method", "N", "kind", "status", "seconds", "lower", "upper", "width", "exact", "contains_exact")
    rows = [[fmt(r.as_dict()[c]) for c in cols] for r in table.rows]
    print_table(f"P[Z > 0], {table.model}, {table.order} moments", cols, rows)


def _check_work(sizes: list[int], order: int, names: list[str] | None, draws: int) -> None:
    """The table's time estimate (the exact column, every method at every N) against --max-seconds."""
    from types import SimpleNamespace

    from momentbound import guard
    from momentbound.bounds.cost import SECONDS_PER_SQUARED_ORDER, methods_seconds
    from momentbound.exact.zlaw import estimated_seconds
    from momentbound.model.paper import equal_cells_model

    model = equal_cells_model((2, 2))
    chosen = names if names is not None else [m for m in SECONDS_PER_SQUARED_ORDER if m != "exact"]
    problem = SimpleNamespace(order=order, support=None,
                              statistic_sampler=SimpleNamespace(seconds_per_draw=2e-7 * model.n_cells))
    # the exact column's estimate is a lower one: measured 2.0-2.3x on one core (N = 1000, 2000)
    seconds = sum(2.3 * estimated_seconds(model, n) + methods_seconds(problem, chosen, {"draws": draws})
                  for n in sizes)
    guard.check(f"the comparison at N = {','.join(map(str, sizes))} from {order} moments", seconds=seconds,
                fix="use fewer or smaller --N, a smaller --order or fewer --methods")


def _solver_table(Ns: str, order: int, methods: str, solvers: str, moments: str | None, support: str | None,
                  event: str, as_json: bool, out: Any) -> None:
    """``compare --solvers``: one row per method and solver (``direct`` = the default path)."""
    import csv
    import io

    from momentbound.bounds import Event, MomentProblem, Support
    from momentbound.studies.method_comparison import table4_problem
    from momentbound.bounds.formulations import installed_solvers
    from momentbound.bounds.problem import as_exact
    from momentbound.bounds.solver_compare import SolverTable, compare_solvers
    from momentbound.errors import MomentboundError

    names = list(installed_solvers()) if solvers.strip().lower() == "all" else parse_str_list(solvers, name="--solvers")
    if not names:
        raise click.BadParameter("--solvers must list cvxpy solver names (or 'all')", param_hint="--solvers")
    chosen = parse_str_list(methods, name="--methods") if methods.strip() else None
    try:
        if moments is not None or support is not None:
            if moments is None or support is None:
                raise click.UsageError("give both --moments and --support (or neither, for the paper's P[Z > 0])")
            mom = tuple(as_exact(t, "--moments") for t in parse_str_list(moments, name="--moments"))
            problems = [(None, MomentProblem(mom, Support.parse(support), Event.parse(event)))]
        else:
            sizes = parse_int_list(Ns, name="--N")
            if not sizes or any(n < 1 for n in sizes):
                raise click.BadParameter(f"--N must list positive integers, got {Ns!r}")
            problems = [(n, table4_problem(n, order)[0]) for n in sizes]
        tables: list[tuple[int | None, SolverTable]] = [
            (n, compare_solvers(p, methods=chosen, solvers=names)) for n, p in problems
        ]
    except MomentboundError as exc:
        raise library_error(exc) from exc
    cols = ("N",) + SolverTable.COLUMNS
    records = [{"N": n, **r.as_dict()} for n, t in tables for r in t.rows]
    if out is not None:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for rec in records:
            w.writerow([rec[c] for c in cols])
        out.write_text(buf.getvalue())
    if as_json:
        emit_json({"solvers": names, "problems": [t.problem for _, t in tables], "rows": records})
        return
    show = ("N", "method", "solver", "finished", "status", "solver_status", "lower", "upper", "seconds", "agrees", "note")
    rows = [[fmt(rec[c]) for c in show] for rec in records]
    print_table(f"solvers {', '.join(names)}: {tables[0][1].problem if len(tables) == 1 else 'P[Z > 0], 2x2x2 equal cells'}",
                show, rows)
