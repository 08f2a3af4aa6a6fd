"""`momentbound sweep`: estimator moments over hold-out sizes, numbers of folds, or N."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from momentbound.cli._common import emit_json, parse_str_list, print_table
from momentbound.cli._files import claim_output_file, force_option, write_errors
from momentbound.cli.estimate import (
    ESTIMATOR_CHOICES,
    build_backend,
    build_classifier,
    build_model,
    fmt,
    library_errors,
    model_options,
    result_document,
)


def _parse_values(over: str, text: str) -> list[Any]:
    out: list[Any] = []
    for token in parse_str_list(text):
        if over == "folds" and token.lower() == "loo":
            out.append("loo")
            continue
        if over == "holdout" and any(c in token for c in ".eE"):
            try:
                out.append(float(token))
            except ValueError as exc:
                raise click.BadParameter(f"bad hold-out share {token!r}", param_hint="--values") from exc
            continue
        if "-" in token[1:] or ".." in token:
            lo, _, hi = token.replace("..", "-").partition("-")
            try:
                out.extend(range(int(lo), int(hi) + 1))
            except ValueError as exc:
                raise click.BadParameter(f"bad range {token!r} (use A-B)", param_hint="--values") from exc
            continue
        try:
            out.append(int(token))
        except ValueError as exc:
            raise click.BadParameter(
                f"{token!r} is not an integer" + (" or 'loo'" if over == "folds" else ""),
                param_hint="--values",
            ) from exc
    if not out:
        raise click.BadParameter("give at least one value", param_hint="--values")
    return out


@click.command("sweep")
@model_options
@click.option("--over", type=click.Choice(["holdout", "folds", "N"]), required=True,
              help="What to vary: hold-out test size, number of folds, or dataset size N.")
@click.option("--values", required=True,
              help="Comma-separated values; ranges A-B allowed (e.g. 2-20,50,loo). Hold-out: test "
              "sizes, or shares like 0.1,0.5.")
@click.option("--N", "N", type=int, default=None, help="Dataset size (for --over holdout|folds).")
@click.option("--estimator", type=click.Choice(ESTIMATOR_CHOICES), default="ge", show_default=True,
              help="Estimator for --over N (with --folds or --test-size/--test-fraction).")
@click.option("--folds", type=int, default=None, help="Folds for --over N --estimator cv.")
@click.option("--test-size", type=int, default=None, help="For --over N --estimator holdout.")
@click.option("--test-fraction", type=float, default=None, help="For --over N --estimator holdout.")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the rows to this CSV file (an existing file needs --force).")
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document.")
@click.option("--no-progress", is_flag=True, help="Do not draw the progress bar (stderr).")
@click.option("--dask", "use_dask", is_flag=True, help="Run the rows on a local Dask cluster (2 workers).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the rows on an existing Dask cluster, e.g. tcp://host:8786 (implies --dask).")
@library_errors
@write_errors
def command(
    arities: str, cells: str, n_classes: int | None, ties: str, alpha: str, backend: str,
    seed: int | None, covariance: str, over: str, values: str, N: int | None, estimator: str, folds: int | None,
    test_size: int | None, test_fraction: float | None, out: Path | None, as_json: bool,
    no_progress: bool, use_dask: bool, scheduler: str | None, force: bool,
) -> None:
    """Sweep an estimator's moments; print a table (or JSON) and write CSV.

    Example: momentbound sweep --cells 0.2,0.3,0.2,0.3 --N 100 --over folds --values 2-20,loo --out cv.csv
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from momentbound.cli.estimate import build_estimator
    from momentbound.estimators import sweep

    model = build_model(arities, cells, n_classes)
    vals = _parse_values(over, values)
    est = None
    if over == "N":
        est = build_estimator(estimator, max(v for v in vals if isinstance(v, int)), folds, test_size,
                              test_fraction)
    elif estimator != "ge" or folds is not None or test_size is not None or test_fraction is not None:
        raise click.UsageError("--estimator/--folds/--test-size/--test-fraction only apply to --over N")
    if over != "N" and N is None:
        raise click.UsageError(f"--over {over} needs --N")
    if over == "N" and N is not None:
        raise click.UsageError("--over N takes the dataset sizes from --values; drop --N")
    csv = None if out is None else claim_output_file(out, force=force)
    with Progress(
        TextColumn(f"[bold]sweep over {over}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=no_progress or as_json,
    ) as bars:
        task = bars.add_task("sweep", total=len(vals))
        tick = lambda done, total: bars.update(task, completed=done, total=total)  # noqa: E731
        if use_dask or scheduler is not None:
            from momentbound.studies.distributed import dask_sweep

            result = dask_sweep(model, over, vals, N=N, estimator=est, classifier=build_classifier(ties, alpha),
                                backend=build_backend(backend, seed), covariance=covariance, scheduler=scheduler, progress=tick)
        else:
            result = sweep(
                model, over, vals, N=N, estimator=est, classifier=build_classifier(ties, alpha),
                backend=build_backend(backend, seed), covariance=covariance, progress=tick,
            )
    frame = result.to_frame()
    if csv is not None:
        csv.write_csv(frame)
    if as_json:
        emit_json({"over": over, "values": [str(v) for v in vals], "seconds": result.seconds,
                   "csv": None if out is None else str(out),
                   "rows": [result_document(r) for r in result.rows]})
        return
    cv = over == "folds" or (est is not None and est.name in ("cv", "loo"))
    columns = ["value", "N", "train", "mean", "variance", "std", "mean+std"]
    if cv:
        columns += ["fold var", "fold cov"]
    rows = []
    for v, r in zip(vals, result.rows):
        row = [v, r.N, r.train_size, fmt(r.mean), fmt(r.variance), fmt(r.std), fmt(r.mean_plus_std)]
        if cv:
            row += [fmt(r.fold_variance), fmt(r.fold_covariance)]
        rows.append(row)
    print_table(f"sweep over {over} ({result.rows[0].backend}, {result.seconds:.2f} s)", columns, rows)
    if out is not None:
        click.echo(f"wrote {out}")
