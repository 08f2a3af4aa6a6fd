"""``momentbound bound``: certified bounds on P(X in E) from moments, or on P[Z_x > 0] of a model."""

from __future__ import annotations

import time
from typing import Any

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import (UserError, fmt, emit_json, exact_text, library_error, limit_options,
                                     parse_int_list, parse_str_list, print_table)

#: the model form's exact value comes from the law of Z_x (z_distribution) below this N for
#: events other than the sign of Z; P[Z > 0], P[Z = 0] and P[Z < 0] exist for every N
_EXACT_PMF_MAX_N = 200


def _is_sign_event(ev: Any) -> bool:
    from momentbound.bounds.problem import EventKind

    return ev.a == 0 and ev.kind in (EventKind.GT, EventKind.GE, EventKind.LT, EventKind.LE)


def _exact_feasible(N: int, ev: Any, method: str, d: int = 1) -> bool:
    """Whether the model form adds the exact row; ``--method exact`` refuses (before any work)
    an exact value that would take minutes (sign events beyond ``MAX_N`` of the comparison
    table) or need the whole law of Z at a large N, or per-class laws of ``d`` agreement counts
    beyond the memory limit of :func:`momentbound.exact.zlaw.prob_z_in`."""
    from momentbound.exact.zlaw import MAX_LAW_CELLS
    from momentbound.studies.method_comparison import MAX_N

    if _is_sign_event(ev) and N > MAX_N:
        if method == "exact":
            raise UserError(f"the exact P(Z in {ev}) at N = {N} would take minutes (it is offered up to N = "
                            f"{MAX_N:,}); use a smaller --N, or a bound --method (lp, sdp, ...) or sampling")
        return False
    if _is_sign_event(ev):
        return True
    law_cells = 2 * (N + 2) ** (d + 1) / (d + 1)
    if N <= _EXACT_PMF_MAX_N and law_cells <= MAX_LAW_CELLS:
        return True
    if N <= _EXACT_PMF_MAX_N:
        if method == "exact":
            raise UserError(
                f"the exact value of P(Z in {ev}) with {d} attributes at N = {N} needs per-class laws of about "
                f"{law_cells:.1e} cells (limit {MAX_LAW_CELLS:.1e}); use a smaller --N, a sign event (gt:0, ge:0, "
                f"lt:0, le:0), or a --method other than exact"
            )
        return False
    if method == "exact":
        raise UserError(
            f"the exact value of P(Z in {ev}) needs the whole law of Z (N <= {_EXACT_PMF_MAX_N}); "
            f"at N = {N} it is available for sign events (gt:0, ge:0, lt:0, le:0): use one of "
            f"those, a smaller --N, or a --method other than exact"
        )
    return False


def _exact_row(model: Any, N: int, x: tuple[int, ...], ev: Any) -> dict[str, Any]:
    """The exact P(Z_x in E) as a table row (a model-form method like the others)."""
    from momentbound.bounds.problem import EventKind
    from momentbound.exact import prob_z_positive
    from momentbound.exact.zlaw import prob_z_in

    start = time.perf_counter()
    if _is_sign_event(ev):
        sign = prob_z_positive(model, N, x)
        pos, zero, neg = sign.positive, sign.zero, sign.negative
        exact = {EventKind.GT: pos, EventKind.GE: pos + zero, EventKind.LT: neg, EventKind.LE: neg + zero}[ev.kind]
    else:
        exact = prob_z_in(model, N, x, ev)
    value = float(exact)
    return {"method": "exact", "kind": "exact", "lower": value, "upper": value, "certified": True,
            "status": "exact", "seconds": time.perf_counter() - start, "lower_exact": exact_text(exact),
            "upper_exact": exact_text(exact), "solver": ""}


def _check_work(problem: Any, method: str, options: dict[str, Any], model_form: bool) -> None:
    """Refuse before any solve when the methods to run are estimated beyond --max-seconds."""
    from momentbound import guard
    from momentbound.bounds import available_methods
    from momentbound.bounds.cost import methods_seconds

    names = list(available_methods(problem)) if method == "all" else [method]
    fewer = "a smaller --order" if model_form else "fewer moments"
    guard.check(f"{'every method' if method == 'all' else 'method ' + method} on {problem.order} moments",
                seconds=methods_seconds(problem, names, options),
                fix=f"use {fewer}" + (", fewer --draws" if "sampling" in names and model_form else "")
                + (" or one --method (e.g. lp)" if method == "all" else "")
                + (" or the default solver (no --solver)" if options.get("solver") else ""))


def _row(result: Any) -> dict[str, Any]:
    """A result's summary with the exact rationals of its bounds (``None`` when they are floats) and
    the solver that produced it."""
    return {**result.summary(), "lower_exact": exact_text(result.exact_lower),
            "upper_exact": exact_text(result.exact_upper), "solver": str(result.diagnostics.solver or "")}


def _model_problem(model: Any, N: int, x: tuple[int, ...], order: int, ev: Any) -> Any:
    """MomentProblem for Z_x of a naive Bayes model, with a sampler for the sampling method."""
    from momentbound.bounds import MomentProblem, Support
    from momentbound.model.z_sampler import naive_bayes_sampler
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    z = naive_bayes_statistic(model, x)
    mom = raw_moments(z, model, N, order).values
    lo, hi = z.support(N)
    return MomentProblem(tuple(mom), Support.grid(lo, hi), ev, statistic_sampler=naive_bayes_sampler(model, N, x),
                         name=f"Z_{x} N={N}")


def _moment_problem(
    moments: str | None, support: str | None, event: str, shape: str | None, mode_: str | None,
    moments_lo: str | None, moments_hi: str | None, sample: str | None, confidence: float, sample_moments: int,
    sample_intervals: str = "betting", seed: int | None = None, sample_bound: str = "combined",
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
        mom = tuple(as_exact(t, "--moments") for t in parse_str_list(moments, name="--moments"))
        return MomentProblem(mom, sup, ev, shape=form)
    if sample is not None:
        from momentbound.bounds.uncertain import MAX_SAMPLE_MOMENTS

        if not 1 <= sample_moments <= MAX_SAMPLE_MOMENTS:
            raise UserError(f"--sample-moments must be an integer in 1..{MAX_SAMPLE_MOMENTS}, got {sample_moments}; "
                            "more moments only split the error probability further")
        from momentbound.bounds.uncertain import split_confidence

        return sample_problem(read_sample(sample), sup, ev, sample_moments,
                              split_confidence(confidence, sample_bound)[0], sample_intervals,
                              0 if seed is None else seed, shape=form)
    if moments_lo is None or moments_hi is None:
        raise click.UsageError("--moments-lo and --moments-hi go together")
    lo = [as_exact(t, "--moments-lo") for t in parse_str_list(moments_lo, name="--moments-lo")]
    hi = [as_exact(t, "--moments-hi") for t in parse_str_list(moments_hi, name="--moments-hi")]
    if lo[0] != 1 or hi[0] != 1:
        raise UserError(
            f"--moments-lo and --moments-hi count from m0 like --moments (1,E[X],E[X^2],...): their first entry "
            f"is m0 = 1, got {moments_lo.split(',')[0].strip()} and {moments_hi.split(',')[0].strip()}; for E[X] in "
            f"[{lo[0]}, {hi[0]}] write --moments-lo 1,{moments_lo.strip()} --moments-hi 1,{moments_hi.strip()}")
    return MomentProblem.from_box(lo, hi, sup, ev, shape=form)


@click.command("bound")
@data_options(model_required=False)
@click.option("--moments", default=None, help="Raw moments m0,m1,...,mk (integers, decimals or fractions like 1/3).")
@click.option("--support", default=None, help="grid:LO:HI | interval:A:C | finite:x1,x2,... | halfline:A | real")
@click.option("--event", default="gt:0", show_default=True,
              help="gt:T | ge:T | lt:T | le:T | between:A:B | outside:A:B | dev:MU:T (|X-MU| >= T) | "
                   "union:PART,PART,... (parts: the simple events, open:A:B, lopen:A:B, ropen:A:B)")
@click.option("--shape", default=None, type=click.Choice(["unimodal", "symmetric"]),
              help="Shape constraint: unimodal (mode unknown unless --mode) or symmetric about the mean.")
@click.option("--mode", "mode_", default=None, help="Known mode M of a unimodal law (implies --shape unimodal).")
@click.option("--moments-lo", default=None,
              help="Lower ends of moment intervals, counted from m0 like --moments: 1,lo1,...,lok (with --moments-hi).")
@click.option("--moments-hi", default=None,
              help="Upper ends of moment intervals, counted from m0 like --moments: 1,hi1,...,hik (with --moments-lo).")
@click.option("--sample", "sample", default=None, type=click.Path(dir_okay=False),
              help="File with one observation per line: bound from moment confidence intervals.")
@click.option("--confidence", type=float, default=0.95, show_default=True,
              help="With --sample: probability that the bound from the sample holds.")
@click.option("--sample-bound", "sample_bound", default="combined", show_default=True,
              type=click.Choice(["combined", "moments"]),
              help="With --sample: combined = the moment bound intersected with the exact binomial interval of the "
                   "count of draws in the event, each at half of 1 - confidence (Bonferroni); moments = the "
                   "moment bound alone, its box at the full confidence.")
@click.option("--sample-moments", type=int, default=4, show_default=True,
              help="With --sample: number of moments estimated from the sample.")
@click.option("--sample-intervals", default="betting", show_default=True,
              type=click.Choice(["betting", "auto", "hoeffding", "bernstein"]),
              help="With --sample: how each moment's interval is made (all valid for every sample size; betting is "
                   "the narrowest, auto the narrower of hoeffding and bernstein).")
@click.option("--method", default="all", show_default=True,
              help="A registered method name, or 'all'. The model form also runs exact and sampling, and adds "
              "the exact row (sign events such as gt:0 for N <= 5000, other events for N <= 200 with up to two "
              "attributes, smaller N with more: the per-class laws must fit in memory).")
@click.option("--arities", default=None, help="Model form: attribute arities, e.g. 2,2,2.")
@click.option("--cells", default=None, help="Model form: P[X=x, Y=k], comma-separated, class fastest.")
@click.option("--N", "N", type=int, default=None, help="Model form: dataset size.")
@click.option("--at", default=None, help="Model form: the input x, e.g. 0,0.")
@click.option("--order", type=int, default=None, help="Model form: number of moments [default: 6].")
@click.option("--draws", type=int, default=None, help="Model form, sampling method: sampled tables [default: 1000].")
@click.option("--seed", type=int, default=None,
              help="Model form: seed (an integer >= 0) of the sampling and gdts methods; with --sample: of the "
                   "random order the betting intervals read the sample in [default: 0].")
@click.option("--solver", default=None,
              help="Solve lp, lp-dual, sqp and sdp through cvxpy with this installed solver (CLARABEL, SCS, HIGHS, ...); "
                   "results are verified in exact arithmetic as on the default path.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@limit_options
def command(
    moments: str | None, support: str | None, event: str, shape: str | None, mode_: str | None,
    moments_lo: str | None, moments_hi: str | None, sample: str | None, confidence: float, sample_moments: int,
    sample_intervals: str, sample_bound: str, method: str, arities: str | None, cells: str | None,
    N: int | None, at: str | None, order: int | None, draws: int | None, seed: int | None, solver: str | None,
    as_json: bool,
) -> None:
    """Certified bounds on P(X in E) from the moments of X (or of Z_x for a naive Bayes model)."""
    from momentbound.bounds import Event, available_methods, bound, get_method
    from momentbound.errors import MomentboundError

    model_form = any(v is not None for v in (arities, cells, N, at))
    if sample is None:  # the sample's options change nothing without a sample: refuse, never ignore
        from click.core import ParameterSource

        ctx = click.get_current_context()
        given = [f"--{name.replace('_', '-')}" for name in ("confidence", "sample_moments", "sample_intervals",
                                                               "sample_bound")
                 if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]
        if given:
            raise click.UsageError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} to bounds from "
                                   f"a sample: add --sample FILE or drop {'it' if len(given) == 1 else 'them'}")
    if solver is not None:
        from momentbound.bounds.formulations import check_solver

        try:
            solver = check_solver(solver)
        except MomentboundError as exc:
            raise click.BadParameter(str(exc), param_hint="--solver") from exc
    try:
        ev = Event.parse(event)
        if method != "all":
            get_method(method)  # an unknown name fails before any work
        if model_form:
            from momentbound.model.cells import CellModel

            if any(v is not None for v in (moments, support, shape, mode_, moments_lo, moments_hi, sample)):
                raise click.UsageError("use either the moments form (--moments/--support, shapes, boxes, samples) "
                                       "or the model form (--arities/--cells/--N/--at)")
            missing = [n for n, v in (("--arities", arities), ("--cells", cells), ("--N", N), ("--at", at)) if v is None]
            if missing:
                raise click.UsageError(f"the model form needs {', '.join(missing)}")
            order = 6 if order is None else order
            if order < 1:
                raise UserError(f"--order must be a positive integer (number of moments), got {order}")
            if draws is not None and draws < 1:
                raise UserError(f"--draws must be a positive integer, got {draws}")
            if seed is not None and seed < 0:
                raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")
            if N < 1:  # type: ignore[operator]
                raise UserError(f"--N must be a positive integer, got {N}")
            model = CellModel(parse_int_list(arities, name="--arities"),  # type: ignore[arg-type]
                              parse_str_list(cells, name="--cells"))  # type: ignore[arg-type]
            x = model.check_input(parse_int_list(at, name="--at"), name="--at")  # type: ignore[arg-type]
            with_exact = _exact_feasible(N, ev, method, model.d)  # type: ignore[arg-type]
            problem = _model_problem(model, N, x, order, ev)  # type: ignore[arg-type]
            options: dict[str, Any] = {"rng": 0 if seed is None else seed, "draws": 1000 if draws is None else draws}
        else:
            if seed is not None and seed < 0:
                raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")
            for flag, value in (("--order", order), ("--draws", draws), ("--seed", None if sample else seed)):
                if value is not None:
                    raise click.UsageError(f"{flag} belongs to the model form; with --moments the number of "
                                           f"moments is the length of the list")
            problem = _moment_problem(moments, support, event, shape, mode_, moments_lo, moments_hi, sample,
                                      confidence, sample_moments, sample_intervals, seed, sample_bound)
            options = {}
        if solver is not None:
            options["solver"] = solver
        rows: list[dict[str, Any]] = []
        exact_row = None
        _check_work(problem, method, options, model_form)
        if model_form and with_exact:
            exact_row = _exact_row(model, N, x, ev)  # type: ignore[arg-type]
        results: list[Any] = []
        if method == "all":
            results = list(bound(problem, "all", **options))  # type: ignore[arg-type]
            rows = [_row(r) for r in results]
        elif not (model_form and method == "exact"):
            inst = get_method(method)
            reason = inst.unsupported(problem)
            if reason is not None:
                if method in ("exact", "sampling"):
                    reason = ("it needs the law of X (exact) or a model to draw from (sampling), which "
                              "--moments does not give: use the model form --arities/--cells/--N/--at")
                usable = ", ".join(available_methods(problem))
                if not usable:
                    from momentbound.bounds.api import no_method_reason

                    raise UserError(f"method {method!r} does not apply here, and {no_method_reason(problem)}")
                raise UserError(f"method {method!r} does not apply here: {reason}; methods that apply: {usable}")
            mine = {k: v for k, v in options.items() if k in inst.options}
            results = [bound(problem, method, **mine)]
            rows = [_row(r) for r in results]
    except MomentboundError as exc:
        raise library_error(exc) from exc
    if exact_row is not None:
        rows.append(exact_row)
    sample_box = None
    if sample is not None:  # the headline: the moment bound of the box, with the count interval when combined
        from momentbound.bounds.uncertain import combine_with_count, read_sample

        certified = [r for r in results if r.certified and r.kind.value == "bound"]
        moment = (max((r.lower for r in certified), default=0.0), min((r.upper for r in certified), default=1.0))
        joined = combine_with_count(moment, problem.moment_box, read_sample(sample), problem.event, confidence,
                                    sample_bound)
        sample_box = {**joined.summary(), "intervals": sample_intervals, "seed": 0 if seed is None else seed}
    if as_json:
        doc = {"results": rows, "exact": None if exact_row is None else exact_row["lower"]}
        if sample_box is not None:
            doc["sample"] = sample_box
        emit_json(doc)
        return
    cols = ["method", "kind", "lower", "upper", "certified", "status", "seconds"] + (["solver"] if solver else [])
    table = [[fmt(r[c]) for c in cols] for r in rows]
    title = f"P(X in {problem.event}) from {problem.order} moments on {problem.support}"
    if sample_box is not None:
        title += (f"  (moment intervals from the sample, jointly at confidence {joined.moment_confidence:g}: "
                  f"{sample_intervals})")
    if exact_row is not None:
        title += f"  (exact: {exact_row['lower']:.6g})"
    if sample_box is not None:
        _echo_sample_bound(joined)
    print_table(title, cols, table)


def _echo_sample_bound(sb: Any) -> None:
    """The bound from the sample and the parts it is made of, in words."""
    m_lo, m_hi = sb.moment_bound
    c_lo, c_hi = sb.count_interval
    count = (f"the draws themselves: {sb.hits} of {sb.n} in the event, exact binomial (Clopper-Pearson) interval "
             f"[{c_lo:.6g}, {c_hi:.6g}] at confidence {sb.count_confidence:g}")
    moments = f"moment bound [{m_lo:.6g}, {m_hi:.6g}] (box at confidence {sb.moment_confidence:g})"
    if sb.how == "moments":
        click.echo(f"Bound from the sample (moments, confidence {sb.confidence:g}): {moments}. For reference, "
                   f"not part of the bound: {count}.")
    elif sb.empty:
        click.echo(f"Bound from the sample (combined, confidence {sb.confidence:g}): empty - the {moments} and "
                   f"{count} exclude each other (at this confidence the draws contradict the support).")
    else:
        click.echo(f"Bound from the sample (combined, confidence {sb.confidence:g}): [{sb.lower:.6g}, {sb.upper:.6g}]"
                   f" = {moments} intersected with {count} (error probability split evenly, Bonferroni).")
