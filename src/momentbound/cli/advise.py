"""`momentbound advise`: which error estimator to use for data like yours, at your N."""

from __future__ import annotations

from typing import Any

import click

from momentbound.cli._common import (UserError, check_plot_path, check_statistic, emit_json, limit_options, print_table,
                                     statistic_options, user_errors)
from momentbound.cli._data import fit_options, load_fitted


def data_arguments(func: Any) -> Any:
    """The data options of `advise` and `learning-curve` (``--data`` required)."""
    options = [
        *fit_options(required=True, target_name="target"),
        click.option("--N", "N", type=int, default=None, help="The dataset size to plan for [default: the data's rows]."),
        click.option("--classifier", "classifier_name", default="naive-bayes", show_default=True,
                     help="naive-bayes | histogram | majority (the exact classifiers)."),
        click.option("--alpha", default=None, help="Laplace smoothing alpha >= 0 (naive-bayes).  [default: 0]"),
        click.option("--ties", type=click.Choice(["random", "first", "sklearn"]), default=None,
                     help="Tie rule: the paper's fair coin, the lowest class index among exactly tied scores, or "
                     "(naive-bayes) sklearn: exactly CategoricalNB's float argmax.  [default: random]"),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the Monte Carlo draws."),
        click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def resolve(data: str, target: str, features: str | None, bins: str | None, prior: str, count_column: str | None,
            missing: str, fit: str, N: int | None, classifier_name: str, alpha: str | None, ties: str | None,
            seed: int) -> tuple[Any, int, Any]:
    """The fitted model, N and the classifier (all checked before any work)."""
    from momentbound.cli._common import build_classifier

    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0, got {seed}")
    if classifier_name not in ("naive-bayes", "histogram", "majority"):
        raise UserError(f"--classifier must be naive-bayes, histogram or majority (the exact classifiers), "
                        f"got {classifier_name}")
    if N is not None and N < 2:
        raise UserError(f"--N must be an integer >= 2, got {N}")
    model = load_fitted(data, target, features, bins, prior, count_column, missing, fit)
    clf = build_classifier(ties, alpha, classifier_name)
    return model, (model.n_data if N is None else N), clf


@click.command("advise")
@data_arguments
@click.option("--posterior", type=int, default=0, show_default=True, metavar="M",
              help="Also rank under M draws from the Dirichlet posterior of the cells: how often the best stays best, "
              "and the median and 90% interval of every RMS.")
@click.option("--precision", type=float, default=0.02, show_default=True,
              help="Monte Carlo rows: relative half-width of the 95% interval on the RMS.")
@click.option("--candidates", default=None, metavar="KEY,...",
              help="Only these candidates (keys as in the JSON output) [default: the whole set].")
@click.option("--no-coverage", is_flag=True, help="Skip the coverage of the usual intervals.")
@click.option("--plot", default=None, metavar="FILE.png", help="Save the figure RMS against cost in fits.")
@click.option("--progress/--no-progress", default=None,
              help="A progress bar on stderr (default: when stderr is a terminal and the run is long).")
@statistic_options("Rank by its RMS against its GE_N counterpart: exact rows only (candidates without its exact route "
                   "are listed as not possible).",
                   "Rank by its RMS against the population value (Monte Carlo rows; the bootstrap family, and "
                   "leave-one-out for roc_auc, are listed as not possible).")
@limit_options
def command(data: str, target: str, features: str | None, bins: str | None, prior: str, count_column: str | None,
            missing: str, fit: str, N: int | None, classifier_name: str, alpha: str | None, ties: str | None,
            seed: int, as_json: bool, posterior: int, precision: float,
            candidates: str | None, no_coverage: bool, plot: str | None, progress: bool | None, metric: str | None,
            scoring: str | None) -> None:
    """Rank hold-out, k-fold, stratified, repeated, leave-one-out and bootstrap estimators by how far
    their estimate falls from GE_N, the error of the classifier trained on all N rows, for data like yours.

    Example: momentbound advise --data titanic.csv --target Survived --N 200
    """
    from momentbound.cli._common import parse_str_list
    from momentbound.data.plan import advise

    if posterior < 0:
        raise UserError(f"--posterior must be an integer >= 0, got {posterior}")
    if not (0.001 <= precision <= 0.5):
        raise UserError(f"--precision must be in [0.001, 0.5], got {precision:g}")
    check_plot_path(plot)
    linear, scoring = check_statistic(metric, scoring)
    keys = parse_str_list(candidates, name="--candidates") if candidates is not None else None
    model, n, clf = resolve(data, target, features, bins, prior, count_column, missing, fit, N, classifier_name,
                            alpha, ties, seed)
    with user_errors("the plot"):
        a = advise(model, n, classifier=clf, candidates=keys, precision=precision, coverage=not no_coverage,
                   posterior=posterior, seed=seed, progress=progress, metric=linear, scoring=scoring)
        if plot is not None:
            a.plot(plot)
    if as_json:
        emit_json(a.as_dict())
        return
    rows = []
    for r in a.rows:
        how = "exact" if r.kind == "exact" else f"MC {r.draws} (+-{100 * r.precision:.1f}%)"
        cov = "-" if r.coverage is None else f"{r.coverage:.3f} ({r.interval})"
        rms = f"{r.rms:.4f}" if r.kind == "exact" else f"{r.rms:.4f} [{r.rms_lower:.4f}, {r.rms_upper:.4f}]"
        corr = "-" if r.correlation is None else f"{r.correlation:.3f}"
        rows.append((r.label, f"{r.bias:+.4f}", f"{r.std:.4f}", rms, corr, cov, r.fits, how))
    what = (f"Error estimators against GE_{a.N}" if a.statistic == "error"
            else f"Estimators of {a.statistic} against its population value (n={a.N})")
    print_table(f"{what}, {a.classifier}, ranked by RMS",
                ["estimator", "bias", "std", "RMS", "corr with GE_N", "coverage (95%)", "fits", "how"], rows)
    for key, reason in a.skipped:
        click.echo(f"not possible at N = {a.N}: {key} ({reason})")
    if a.posterior is not None:
        p = a.posterior
        prow = [(r.label, f"{r.rms:.4f}", f"{p['rms'][r.key]['median']:.4f}",
                 f"[{p['rms'][r.key]['lower_90']:.4f}, {p['rms'][r.key]['upper_90']:.4f}]", p["best_counts"][r.key])
                for r in a.rows]
        print_table(f"RMS under {p['draws']} posterior draws (Monte Carlo at +-{100 * p['precision']:.0f}%)",
                    ["estimator", "plug-in", "median", "90% interval", "times best"], prow)
    click.echo(a.sentence)
    click.echo(f"({a.seconds:.1f} s; Monte Carlo rows at a relative precision of {100 * a.precision:.0f}% or better "
               f"on the RMS, 95% intervals)")
