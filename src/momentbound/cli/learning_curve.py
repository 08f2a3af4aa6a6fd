"""`momentbound learning-curve`: E[GE_n] and Std[GE_n] against n, and the sample size that reaches a target."""

from __future__ import annotations

from typing import Any

import click

from momentbound.cli._common import UserError, check_plot_path, emit_json, limit_options, print_table, user_errors
from momentbound.cli.advise import data_arguments, resolve


@click.command("learning-curve")
@data_arguments
@click.option("--estimator", default=None, metavar="KEY",
              help="The estimator whose RMS is reported at N, 2N, 4N, 8N (a key of `advise`) [default: advise's best].")
@click.option("--target-excess", type=float, default=None, metavar="EPS",
              help="The smallest n with E[GE_n] - Bayes error <= EPS.")
@click.option("--target-rms", type=float, default=None, metavar="R",
              help="The smallest n at which the estimator's RMS against GE_n is <= R.")
@click.option("--plot", default=None, metavar="FILE.png", help="Save the learning curve with the Bayes error marked.")
@limit_options
def command(data: str, target: str, features: str | None, bins: str | None, prior: str, count_column: str | None,
            missing: str, fit: str, N: int | None, classifier_name: str, alpha: str | None, ties: str | None,
            seed: int, as_json: bool, estimator: str | None, target_excess: float | None,
            target_rms: float | None, plot: str | None) -> None:
    """E[GE_n] and Std[GE_n] of the classifier for data like yours, with the Bayes error, the RMS of an
    estimator at N, 2N, 4N, 8N, and the smallest n that reaches a target.

    Example: momentbound learning-curve --data titanic.csv --target Survived --N 200 --target-excess 0.02
    """
    from momentbound.data.learning import learning_curve

    for flag, value in (("--target-excess", target_excess), ("--target-rms", target_rms)):
        if value is not None and not value > 0:
            raise UserError(f"{flag} must be a positive number, got {value:g}")
    check_plot_path(plot)
    model, n, clf = resolve(data, target, features, bins, prior, count_column, missing, fit, N, classifier_name,
                            alpha, ties, seed)
    with user_errors("the plot"):
        lc = learning_curve(model, n, estimator=estimator, classifier=clf, target_excess=target_excess,
                            target_rms=target_rms, seed=seed)
        if plot is not None:
            lc.plot(plot)
    if as_json:
        emit_json({**lc.as_dict(), "fitted_model": model.describe()})
        return
    rows = [(p["n"], f"{p['mean']:.4f}", f"{p['std']:.4f}", f"{p['mean'] - lc.bayes_error:+.4f}", p["kind"])
            for p in lc.points]
    print_table(f"Learning curve (Bayes error {lc.bayes_error:.4f})", ["n", "E[GE_n]", "Std[GE_n]", "excess", "how"],
                rows)
    print_table(f"RMS of {lc.estimator} against GE_n", ["n", "RMS", "95% interval", "how"],
                [(r["n"], f"{r['rms']:.4f}", f"[{r['rms_lower']:.4f}, {r['rms_upper']:.4f}]", r["kind"])
                 for r in lc.rms])
    for name, key, t in (("E[GE_n] - Bayes error", "eps", lc.target_excess), (f"RMS of {lc.estimator}", "r", lc.target_rms)):
        if t is None:
            continue
        if t["reached"]:
            click.echo(f"smallest n with {name} <= {t[key]:g}: {t['n']}")
        else:
            click.echo(f"{name} <= {t[key]:g} is not reached up to n = {t['searched_up_to']} "
                       f"(there: {t['at_largest']})")
