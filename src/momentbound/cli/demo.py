"""`momentbound demo`: the main job in under two minutes.

1. exact moments of the naive Bayes statistic Z of the paper's 2x2x2 model (N = 10, 100, 1000);
2. the cross-validation study (Figs. 5-9) at a small N, exact, with the paper's claims checked;
3. every cdf-bound method side by side on P[Z > 0] at a small N (Tables 4-6), against the exact value.
Tables are printed (or, with ``--json``, one JSON document); plots and CSVs are written to a
folder whose path is printed.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import click

from momentbound.cli._common import emit_json, library_errors, limit_options, print_table
from momentbound.cli._files import claim_output_folder, force_option, write_errors


def _check_arguments(order: int, n_cv: int, n_cdf: int) -> list[int]:
    """Validate every argument before anything is printed; return the CV study's folds."""
    if order < 2:
        raise click.BadParameter(
            f"must be at least 2 (section 1 shows the variance and the standardized moments), got {order}",
            param_hint="--order",
        )
    if n_cdf < 1:
        raise click.BadParameter(f"must be a positive integer, got {n_cdf}", param_hint="--cdf-N")
    if n_cv < 1:
        raise click.BadParameter(f"must be a positive integer, got {n_cv}", param_hint="--N")
    _check_work(order, n_cv, n_cdf, 2)  # before the divisors, which take sqrt(N) steps
    divisors = _divisors(n_cv)
    _check_work(order, n_cv, n_cdf, len(divisors))
    if len(divisors) < 2:
        raise click.BadParameter(
            f"the CV study draws a curve over the divisors v >= 2 of N (equal folds), so N needs at "
            f"least two of them, e.g. 12, 20 or 40; got {n_cv}, which has {len(divisors)}",
            param_hint="--N",
        )
    return divisors


#: CPU seconds of the CV study per point and fold count (measured: N = 40, 7 fold counts, 3.7 s
#: with the compilation; N = 360, 23 fold counts, 12.8 s)
_CV_SECONDS = 4e-3
#: the demo's fixed cost: two studies' figures, CSVs and claim checks (measured: 4 s of CPU at
#: N = 4, --cdf-N 1, order 2, compilation included)
_DEMO_SECONDS = 3.0


def _divisors(n: int) -> list[int]:
    """The divisors v >= 2 of n, in increasing order (sqrt(n) steps)."""
    small, large = [], []
    v = 1
    while v * v <= n:
        if n % v == 0:
            small.append(v)
            if v * v != n:
                large.append(n // v)
        v += 1
    return [d for d in small + large[::-1] if d >= 2]


def _check_work(order: int, n_cv: int, n_cdf: int, n_folds: int) -> None:
    """The demo's time estimate (CV study, cdf-method table, moments) against --max-seconds."""
    from types import SimpleNamespace

    from momentbound import guard
    from momentbound.bounds.cost import methods_seconds
    from momentbound.bounds.cost import SECONDS_PER_SQUARED_ORDER
    from momentbound.exact.zlaw import estimated_seconds
    from momentbound.model.paper import equal_cells_model
    from momentbound.studies.method_comparison import MAX_N

    seconds = _DEMO_SECONDS + _CV_SECONDS * float(n_cv) * n_folds
    if n_cdf <= MAX_N:  # beyond it the table refuses by itself
        seconds += 2.0 * estimated_seconds(equal_cells_model((2, 2)), n_cdf)
    seconds += methods_seconds(SimpleNamespace(order=order), SECONDS_PER_SQUARED_ORDER)
    guard.check(f"the demo (CV study at N = {n_cv} over {n_folds}+ fold counts, cdf methods at N = {n_cdf} "
                f"from {order} moments)", seconds=seconds,
                fix="use a smaller --N, --cdf-N or --order")


def _study_document(result: Any) -> dict[str, Any]:
    """A study's description, claim checks and data rows (one object per row)."""
    return {**result.to_document(), "rows": result.data.to_dict("records")}


def _moments_table(order: int, as_json: bool) -> list[dict[str, Any]]:
    from momentbound.model.paper import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments import raw_moments

    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, (0, 0))
    rows, records = [], []
    for N in (10, 100, 1000):
        t0 = time.perf_counter()
        ms = raw_moments(z, model, N, order)
        lo, hi = z.support(N)
        sec = time.perf_counter() - t0
        std = ms.standardized()
        records.append({
            "N": N, "support": [lo, hi], "moments": [float(v) for v in ms.values],
            "moments_exact": [str(v) for v in ms.values], "seconds": sec,
        })
        rows.append((
            N, f"+-{hi:.3g}" if hi >= 10**6 else f"+-{hi}", f"{float(ms.mean):.3g}",
            f"{float(ms.variance):.4g}", f"{std[3]:.3g}" if order >= 3 else "-",
            f"{std[4]:.4f}" if order >= 4 else "-", f"{float(ms.values[-1]):.4g}",
            f"{sec * 1000:.1f}",
        ))
    if not as_json:
        print_table(
            f"1. Exact moments of {z.name}, 2x2x2 model, all cells 1/8 (order {order})",
            ["N", "support", "mean", "variance", "skewness", "kurtosis", f"E[Z^{order}]", "ms"],
            rows,
        )
    return records


@click.command("demo")
@click.option("--order", type=int, default=6, show_default=True, help="Highest moment (sections 1 and 3).")
@click.option("--N", "n_cv", type=int, default=40, show_default=True, help="Dataset size of the CV study.")
@click.option("--cdf-N", "n_cdf", type=int, default=10, show_default=True, help="N of the cdf-method comparison.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for plots and CSVs (default: a new temporary folder); must be empty or new "
              "unless --force.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (the three sections' data and claim checks) instead of tables.")
@force_option
@limit_options
@library_errors
@write_errors
def command(order: int, n_cv: int, n_cdf: int, out: Path | None, as_json: bool, force: bool) -> None:
    """Moments of Z, the CV-folds study and the cdf-method comparison, with plots."""
    from momentbound.studies.cv import cv_study
    from momentbound.studies.tables import tables_study

    start = time.perf_counter()
    divisors = _check_arguments(order, n_cv, n_cdf)
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="momentbound-demo-"))
    dest = claim_output_folder(folder, force=force, studies=2)

    moments = _moments_table(order, as_json)

    cv = cv_study(N=n_cv, folds=divisors)
    rows = [
        (int(r.folds), f"{r.mean:.5f}", f"{r.fold_variance:.5f}", f"{r.fold_covariance:.6f}",
         f"{r.variance:.6f}", f"{r.mean_plus_std:.5f}")
        for r in cv.data.itertuples()
    ]
    if not as_json:
        print_table(
            f"2. {n_cv}-point cross-validation, input independent of the class, prior 0.4 (exact, "
            f"{cv.seconds:.1f} s)",
            ["folds", "E[CE]", "Var(HE_i)", "Cov(HE_i,HE_j)", "Var(CE)", "E+Std"],
            rows,
        )
        for c in cv.checks:
            click.echo("   " + c.line())
    dest.record(*cv.save(folder).paths)

    tab = tables_study(sizes=(n_cdf,), order=order, draws=(100, 1000))
    main = tab.data[tab.data["table"] == "4/6"]
    rows = [
        (r.method, r.kind, r.status, f"{r.lower:.4f}", f"{r.upper:.4f}",
         "-" if r.contains_exact is None else ("yes" if r.contains_exact else "NO"), f"{r.seconds:.3f}")
        for r in main.itertuples()
    ]
    if not as_json:
        print_table(
            f"3. P[Z > 0] of the 2x2x2 model (all cells 1/8), N = {n_cdf}, from {order} moments: every method",
            ["method", "kind", "status", "lower", "upper", "holds exact", "seconds"],
            rows,
        )
        for c in tab.checks:
            click.echo("   " + c.line())
    dest.record(*tab.save(folder).paths)
    for res in (cv, tab):
        res.figure.clear()
    dest.write_manifest(command="demo", order=order, N=n_cv, cdf_N=n_cdf)  # last: marks the run complete
    if as_json:
        emit_json({"moments": moments, "cv": _study_document(cv), "tables": _study_document(tab),
                   "folder": str(folder), "seconds": time.perf_counter() - start})
        return
    click.echo(f"\nPlots and CSVs written to {folder} ({time.perf_counter() - start:.1f} s in total)")
