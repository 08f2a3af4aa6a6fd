"""``momentbound bound``: certified bounds on P(X in E) from moments, or on P[Z_x > 0] of a model."""

from __future__ import annotations

from typing import Any

import click

from momentbound.cli._common import emit_json, exact_text, parse_int_list, parse_str_list, print_table


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


def _moment_problem(
    moments: str | None, support: str | None, event: str, shape: str | None, mode_: str | None,
    moments_lo: str | None, moments_hi: str | None, sample: str | None, confidence: float, sample_moments: int,
) -> Any:
    """The MomentProblem of the moments form: exact moments, a moment box, or a sample."""
    from momentbound.bounds import Event, MomentProblem, Shape, Support
    from momentbound.bounds.problem import as_exact
    from momentbound.bounds.uncertain import read_sample, sample_problem

    sources = [name for name, v in (("--moments", moments), ("--moments-lo/--moments-hi", moments_lo or moments_hi),
                                    ("--sample", sample)) if v is not None]
    if len(sources) > 1:
        raise click.UsageError(f"give only one of {', '.join(sources)}")
    if support is None or not sources:
        raise click.UsageError("give --moments and --support (or --moments-lo/--moments-hi or --sample with --support, "
                               "or the model form --arities/--cells/--N/--at)")
    if shape == "symmetric" and mode_ is not None:
        raise click.UsageError("--mode applies to unimodal laws; drop --mode or use --shape unimodal")
    form = None
    if mode_ is not None:
        form = Shape.unimodal(as_exact(mode_, "--mode"))
    elif shape is not None:
        form = Shape.parse(shape)
    sup, ev = Support.parse(support), Event.parse(event)
    if moments is not None:
        mom = tuple(as_exact(t, "--moments") for t in parse_str_list(moments))
        return MomentProblem(mom, sup, ev, shape=form)
    if sample is not None:
        return sample_problem(read_sample(sample), sup, ev, sample_moments, confidence, shape=form)
    if moments_lo is None or moments_hi is None:
        raise click.UsageError("--moments-lo and --moments-hi go together")
    lo = [as_exact(t, "--moments-lo") for t in parse_str_list(moments_lo)]
    hi = [as_exact(t, "--moments-hi") for t in parse_str_list(moments_hi)]
    return MomentProblem.from_box(lo, hi, sup, ev, shape=form)


@click.command("bound")
@click.option("--moments", default=None, help="Raw moments m0,m1,...,mk (integers, decimals or fractions like 1/3).")
@click.option("--support", default=None, help="grid:LO:HI | interval:A:C | finite:x1,x2,... | halfline:A | real")
@click.option("--event", default="gt:0", show_default=True,
              help="gt:T | ge:T | lt:T | le:T | between:A:B | outside:A:B | dev:MU:T (|X-MU| >= T) | "
                   "union:PART,PART,... (parts: the simple events, open:A:B, lopen:A:B, ropen:A:B)")
@click.option("--shape", default=None, type=click.Choice(["unimodal", "symmetric"]),
              help="Shape constraint: unimodal (mode unknown unless --mode) or symmetric about the mean.")
@click.option("--mode", "mode_", default=None, help="Known mode M of a unimodal law (implies --shape unimodal).")
@click.option("--moments-lo", default=None, help="Lower ends of moment intervals E[X^1..X^k] (with --moments-hi).")
@click.option("--moments-hi", default=None, help="Upper ends of moment intervals E[X^1..X^k] (with --moments-lo).")
@click.option("--sample", "sample", default=None, type=click.Path(dir_okay=False),
              help="File with one observation per line: bound from moment confidence intervals.")
@click.option("--confidence", type=float, default=0.95, show_default=True,
              help="With --sample: joint coverage probability of the moment intervals.")
@click.option("--sample-moments", type=int, default=2, show_default=True,
              help="With --sample: number of moments estimated from the sample.")
@click.option("--method", default="all", show_default=True, help="A registered method name, or 'all'.")
@click.option("--arities", default=None, help="Model form: attribute arities, e.g. 2,2,2.")
@click.option("--cells", default=None, help="Model form: P[X=x, Y=k], comma-separated, class fastest.")
@click.option("--N", "N", type=int, default=None, help="Model form: dataset size.")
@click.option("--at", default=None, help="Model form: the input x, e.g. 0,0.")
@click.option("--order", type=int, default=6, show_default=True, help="Model form: number of moments.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
def command(
    moments: str | None, support: str | None, event: str, shape: str | None, mode_: str | None,
    moments_lo: str | None, moments_hi: str | None, sample: str | None, confidence: float, sample_moments: int,
    method: str, arities: str | None, cells: str | None, N: int | None, at: str | None, order: int, as_json: bool,
) -> None:
    """Certified bounds on P(X in E) from the moments of X (or of Z_x for a naive Bayes model)."""
    from momentbound.bounds import bound
    from momentbound.errors import MomentboundError

    model_form = any(v is not None for v in (arities, cells, N, at))
    try:
        if model_form:
            if moments is not None or support is not None:
                raise click.UsageError("use either --moments/--support or the model form (--arities/--cells/--N/--at)")
            missing = [n for n, v in (("--arities", arities), ("--cells", cells), ("--N", N), ("--at", at)) if v is None]
            if missing:
                raise click.UsageError(f"the model form needs {', '.join(missing)}")
            problem, exact = _model_problem(arities, cells, N, at, order, event)  # type: ignore[arg-type]
        else:
            problem = _moment_problem(moments, support, event, shape, mode_, moments_lo, moments_hi, sample,
                                      confidence, sample_moments)
            exact = None
        out = bound(problem, method)
    except MomentboundError as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc
    results = out if isinstance(out, tuple) else (out,)
    rows = [{**r.summary(), "lower_exact": exact_text(r.exact_lower), "upper_exact": exact_text(r.exact_upper)}
            for r in results]
    if exact is not None:
        v = float(exact[0])
        rows.append({"method": "exact", "kind": "exact", "lower": v, "upper": v, "certified": True,
                     "status": "exact", "seconds": exact[1], "lower_exact": exact_text(exact[0]),
                     "upper_exact": exact_text(exact[0])})
    if as_json:
        emit_json({"results": rows, "exact": None if exact is None else float(exact[0])})
        return
    cols = ["method", "kind", "lower", "upper", "certified", "status", "seconds"]
    table = [[_fmt(r[c]) for c in cols] for r in rows]
    title = f"P(X in {problem.event}) from {problem.order} moments on {problem.support}"
    if exact is not None:
        title += f"  (exact: {float(exact[0]):.6g})"
    print_table(title, cols, table)
