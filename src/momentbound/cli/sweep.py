"""`momentbound sweep`: a splitter's moments over hold-out sizes, numbers of folds, or N."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sys

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import (
    UserError,
    build_backend,
    build_classifier,
    build_model,
    build_splitter,
    splitter_fields,
    SCORE_FIELDS,
    check_dask_options,
    check_statistic,
    check_montecarlo,
    dask_options,
    emit_json,
    fmt,
    library_errors,
    limit_options,
    model_options,
    parse_str_list,
    print_table,
    result_document,
    score_document,
    split_params,
    statistic_options,
    splitter_options,
)
from momentbound.cli._files import claim_output_file, force_option, write_errors


#: most rows one sweep may have (a longer list asks for a coarser sweep)
MAX_ROWS = 1000


def _check_fold_template(splitter: tuple[str, dict[str, str]], split_values: dict[str, Any]) -> None:
    """``--over folds --splitter NAME``: a splitter with folds ``v``, which ``--values`` gives."""
    from momentbound.splitters import SPLITTERS

    name, given = splitter
    field = next((f for f in splitter_fields(SPLITTERS[name]) if f.name == "v"), None)
    if field is None:
        raise click.UsageError(f"--over folds sweeps the folds v of its splitter; {name} has none: use cv, "
                               "stratified-cv, repeated-cv or repeated-stratified-cv (or --over N)")
    flags = [flag for flag in given if flag in field.metadata.get("flags", ())]
    if "v" in split_values or flags:
        raise click.UsageError(f"--over folds takes the folds from --values; drop {(flags or ['--param v'])[0]}")


def _parse_values(over: str, text: str, N: int | None) -> list[Any]:
    """The swept values, checked (ranges by their ends, before expanding) against N and MAX_ROWS."""
    tokens = parse_str_list(text, name="--values")
    top = None if N is None else (N if over == "folds" else N - 1)  # folds <= N, test size < N
    what = {"folds": "numbers of folds", "holdout": "hold-out test sizes", "N": "dataset sizes"}[over]
    low = {"folds": 2, "holdout": 1, "N": 1}[over]
    out: list[Any] = []
    for i, token in enumerate(tokens, start=1):
        if over == "folds" and token.lower() == "loo":
            out.append("loo")
            continue
        if over == "holdout" and any(c in token for c in ".eE"):
            try:
                share = float(token)
            except ValueError:
                raise UserError(f"--values entry {i} must be a hold-out share in (0, 1), got {token!r}") from None
            if not 0 < share < 1:
                raise UserError(f"--values entry {i} must be a hold-out share in (0, 1), got {token!r}")
            out.append(share)
            continue
        if "-" in token[1:] or ".." in token:
            lo_text, _, hi_text = token.replace("..", "-").partition("-")
            try:
                lo, hi = int(lo_text), int(hi_text)
            except ValueError:
                raise UserError(f"--values entry {i} is a bad range {token!r}; use A-B with integers A <= B") from None
            if lo > hi:
                raise UserError(f"--values entry {i}: the range {token!r} is empty (its start is above its end); "
                                f"write it as {hi}-{lo}")
            values = (lo, hi)
        else:
            try:
                values = (int(token),)
            except ValueError:
                raise UserError(
                    f"--values entry {i} must be an integer{' or loo' if over == 'folds' else ''}"
                    f"{' or a share like 0.2' if over == 'holdout' else ''}, got {token!r}"
                ) from None
        if min(values) < low:
            raise UserError(f"--values entry {i}: {what} must be at least {low}, got {token!r}")
        if top is not None and max(values) > top:
            raise UserError(f"--values entry {i}: {what} must be at most {top} at --N {N}, got {token!r}")
        count = values[-1] - values[0] + 1
        if len(out) + count > MAX_ROWS:
            raise UserError(f"--values asks for more than {MAX_ROWS} rows; use a coarser sweep "
                            f"(e.g. a few values such as 2,5,10,20)")
        out.extend(range(values[0], values[-1] + 1))
    return out


@click.command("sweep")
@data_options
@model_options
@click.option("--over", type=click.Choice(["holdout", "folds", "N"]), required=True,
              help="What to vary: hold-out test size, number of folds, or dataset size N.")
@click.option("--values", required=True,
              help="Comma-separated values; ranges A-B allowed (e.g. 2-20,50,loo). Hold-out: test "
              "sizes, or shares like 0.1,0.5.")
@click.option("--N", "N", type=int, default=None, help="Dataset size (for --over holdout|folds).")
@splitter_options("ge", " for --over N, or for --over folds the splitter whose folds are swept (default cv)")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the rows to this CSV file (an existing file needs --force).")
@force_option
@statistic_options("Every row: exact-route backends; each splitter takes what estimate --metric lists for it (rows "
                   "--over folds are cv's unless --splitter says otherwise; cv and stratified-cv take every "
                   "statistic).",
                   "Every row: needs --backend montecarlo (with --draws and --seed); hold-out, cross-validation, "
                   "leave-one-out (not roc_auc), repeated and shuffle-split rows.")
@click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document.")
@click.option("--progress/--no-progress", "progress", default=None,
              help="Progress bar on stderr (default: only when stderr is a terminal; --progress draws it anyway).")
@click.option("--dask", "use_dask", is_flag=True, help="Run the rows on a local Dask cluster (2 workers); with "
              "--backend montecarlo, the fits of a sklearn: classifier.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the rows on an existing Dask cluster, e.g. tcp://host:8786 (implies --dask); with --backend "
              "montecarlo the fits of a sklearn: classifier run there (or on local, threads, processes).")
@click.option("--draws", type=int, default=None,
              help="Sampled table draws per row for --backend montecarlo (default 10000).")
@click.option("--workers", type=int, default=None,
              help="Workers for --backend montecarlo with --dask or --scheduler local|threads|processes.  "
              "[default: 2]")
@click.option("--timeout", type=float, default=None, metavar="SECONDS",
              help="Seconds to wait for the scheduler at --scheduler ADDRESS to answer before giving up "
              "with an error.  [default: 5]")
@limit_options
@library_errors
@write_errors
def command(
    arities: str, cells: str, n_classes: int | None, classifier_name: str, params: tuple[str, ...], ties: str,
    alpha: str, backend: str, seed: int | None, covariance: str, over: str, values: str, N: int | None,
    splitter: tuple[str, dict[str, str]], out: Path | None, metric: str | None, scoring: str | None, as_json: bool,
    progress: bool | None, use_dask: bool, scheduler: str | None, draws: int | None, workers: int | None,
    timeout: float | None, force: bool,
) -> None:
    """Sweep a splitter's moments; print a table (or JSON) and write CSV.

    Example: momentbound sweep --cells 0.2,0.3,0.2,0.3 --N 100 --over folds --values 2-20,loo --out cv.csv
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from momentbound.estimators import sweep

    if over != "N" and N is None:
        raise click.UsageError(f"--over {over} needs --N")
    if over == "N" and N is not None:
        raise click.UsageError("--over N takes the dataset sizes from --values; drop --N")
    if N is not None and N < 1:
        raise UserError(f"--N must be a positive integer, got {N}")
    split_values, params = split_params(splitter[0], params)
    chosen = splitter[0] != "ge" or splitter[1] or split_values
    if over == "holdout" and chosen:
        raise click.UsageError("--splitter (--estimator) and its options (--folds, --repeats, --average, --splits, "
                               "--test-size, --test-fraction, --bootstraps, --param of its fields) apply to "
                               "--over folds and --over N; --over holdout sweeps HoldOut's test size")
    if over == "folds" and chosen:
        _check_fold_template(splitter, split_values)
    check_montecarlo(backend, covariance, draws)
    linear, scoring = check_statistic(metric, scoring, backend)
    if scoring is not None and (use_dask or scheduler is not None or workers is not None or covariance != "exact"):
        raise click.UsageError("--scoring takes --draws and --seed; drop --dask, --scheduler, --workers and "
                               "--covariance")
    if linear is not None and (use_dask or scheduler is not None):
        raise click.UsageError("--metric runs in this process: drop --dask and --scheduler")
    if workers is not None and backend != "montecarlo":
        raise click.UsageError("--workers only applies to --backend montecarlo (rows on --dask use 2 workers)")
    check_dask_options(scheduler or ("local" if use_dask else None), workers, timeout)
    vals = _parse_values(over, values, N)
    model = build_model(arities, cells, n_classes)
    est = None
    if over == "folds" and chosen:  # the template whose v is swept (a placeholder v until then)
        est = build_splitter(splitter, {**split_values, "v": 2})
    if over == "N":
        est = build_splitter(splitter, split_values)
        for v in vals:
            est.split(v)  # ImpossibleSplit for a size the splitter cannot split, before any work
    sweep_backend = build_backend(backend, seed)
    classifier = build_classifier(ties, alpha, classifier_name, params)
    csv = None if out is None else claim_output_file(out, force=force)
    with Progress(
        TextColumn(f"[bold]sweep over {over}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not (progress if progress is not None else (sys.stderr.isatty() and not as_json)),
    ) as bars:
        task = bars.add_task("sweep", total=len(vals))
        tick = lambda done, total: bars.update(task, completed=done, total=total)  # noqa: E731
        if scoring is not None:  # one seeded simulation of the scorer per row
            result = sweep(model, over, vals, N=N, estimator=est, classifier=classifier, backend="montecarlo",
                           scoring=scoring, progress=tick, seed=seed, **({} if draws is None else {"draws": draws}))
        elif backend == "montecarlo":  # one seeded run per row; the fits of a sklearn: classifier on Dask
            options: dict[str, Any] = {"seed": seed, **dask_options(workers, timeout)}
            if draws is not None:
                options["draws"] = draws
            if use_dask or scheduler is not None:
                options["scheduler"] = scheduler or "local"
            result = sweep(model, over, vals, N=N, estimator=est, classifier=classifier, backend="montecarlo",
                           covariance=covariance, progress=tick, **options)
        elif use_dask or scheduler is not None:
            from momentbound.studies.distributed import dask_sweep

            result = dask_sweep(model, over, vals, N=N, estimator=est, classifier=classifier,
                                backend=sweep_backend, covariance=covariance, scheduler=scheduler, progress=tick,
                                **({} if timeout is None else {"timeout": timeout}))
        else:
            result = sweep(
                model, over, vals, N=N, estimator=est, classifier=classifier,
                backend=sweep_backend, covariance=covariance, progress=tick, metric=linear,
            )
    frame = result.to_frame()
    if csv is not None:
        csv.write_csv(frame)
    if as_json:
        rows_json = ([score_document(r) for r in result.rows] if scoring is not None
                     else [{**result_document(r), "metric": getattr(r, "metric", "error")} for r in result.rows])
        emit_json({"over": over, "values": [str(v) for v in vals], "seconds": result.seconds,
                   "csv": None if out is None else str(out), "metric": None if linear is None else linear.name,
                   "scoring": scoring, "rows": rows_json})
        return
    if scoring is not None:
        fields = [f for f in SCORE_FIELDS if f in ("mean", "variance", "ge_full_mean", "bias", "rms", "undefined")]
        print_table(f"{scoring} over {over} (montecarlo, {result.seconds:.2f} s), against the population value",
                    ["value", "N", "folds", *fields],
                    [[v, r.N, r.folds, *(fmt(getattr(r, f)) for f in fields)] for v, r in zip(vals, result.rows)])
        if out is not None:
            click.echo(f"wrote {out}")
        return
    cv = any(r.fold_variance is not None for r in result.rows)  # fold columns where the splitter has folds
    columns = ["value", "N", "train", "mean", "variance", "std", "mean+std"]
    if cv:
        columns += ["fold var", "fold cov"]
    rows = []
    for v, r in zip(vals, result.rows):
        row = [v, r.N, r.train_size, fmt(r.mean), fmt(r.variance), fmt(r.std), fmt(r.mean_plus_std)]
        if cv:
            row += [fmt(r.fold_variance), fmt(r.fold_covariance)]
        rows.append(row)
    what = "" if linear is None else f" of {linear.name}"
    print_table(f"sweep{what} over {over} ({result.rows[0].backend}, {result.seconds:.2f} s)", columns, rows)
    if out is not None:
        click.echo(f"wrote {out}")
