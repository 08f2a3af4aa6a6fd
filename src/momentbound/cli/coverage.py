"""`momentbound coverage`: how often a user's confidence interval covers the error it estimates."""

from __future__ import annotations

from typing import Any

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import (UserError, build_classifier, build_model, check_statistic, emit_json, fmt,
                                     library_errors, limit_options, print_table, seed_generator, statistic_options)

METHODS = ("clopper-pearson", "wald", "naive-cv", "nadeau-bengio")
TARGETS = ("ge-full", "expected-ge-full", "ge-train")


def model_and_run_options(func: Any) -> Any:
    """Model, classifier and Monte Carlo options shared by `coverage` and `compare-classifiers`."""
    options = [
        click.option("--arities", default="2", show_default=True, help="Attribute arities, comma-separated."),
        click.option("--cells", default=None, help="P[X=x, Y=k], comma-separated, class fastest."),
        click.option("--classes", "n_classes", type=int, default=None, help="Number of classes K."),
        click.option("--ties", type=click.Choice(["random", "first", "sklearn"]), default="random", show_default=True,
                     help="Tie rule of naive Bayes: the paper's fair coin, the lowest class index among exactly tied "
                     "scores, or sklearn: exactly CategoricalNB's float argmax."),
        click.option("--alpha", default="0", show_default=True, help="Laplace smoothing alpha >= 0."),
        click.option("--N", "N", type=int, required=True, help="Dataset size."),
        click.option("--draws", type=int, default=10_000, show_default=True, help="Monte Carlo draws (>= 200)."),
        click.option("--confidence", type=float, default=0.95, show_default=True,
                     help="Level of the Monte Carlo interval on the result."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed (an integer >= 0)."),
        click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def interval_fields(name: str, value: Any) -> dict[str, float]:
    return {name: float(value.estimate), f"{name}_lower": float(value.lower), f"{name}_upper": float(value.upper)}


@click.command("coverage")
@data_options(target_flag="--data-target")
@model_and_run_options
@click.option("--method", type=click.Choice(METHODS), required=True,
              help="The interval: binomial (hold-out), naive CV (KFold, StratifiedKFold) or Nadeau-Bengio "
                   "(ShuffleSplit).")
@click.option("--target", type=click.Choice(TARGETS), default="ge-full", show_default=True,
              help="What it should cover: GE_N, E[GE_N], or (hold-out) the training-part classifier's GE.")
@click.option("--test-size", type=int, default=None, help="Test points (hold-out, ShuffleSplit).")
@click.option("--folds", type=int, default=None, help="Folds of naive-cv.")
@click.option("--stratified", is_flag=True,
              help="naive-cv on StratifiedKFold, nadeau-bengio on StratifiedShuffleSplit (default: KFold, "
                   "ShuffleSplit).")
@click.option("--splits", type=int, default=None, help="Splits of nadeau-bengio.")
@click.option("--nominal", type=float, default=0.95, show_default=True, help="Level of the user's interval.")
@statistic_options("The interval of its fold values (--method naive-cv or nadeau-bengio) against its population value "
                   "(--target ge-full); recall:A, class_error_rate:A and balanced_error score each fold with its own "
                   "class counts, as scikit-learn does.",
                   "The interval of the fold scores (--method naive-cv or nadeau-bengio, --target ge-full).")
@limit_options
@library_errors
def command(arities: str, cells: str, n_classes: int | None, ties: str, alpha: str, N: int, draws: int,
            confidence: float, seed: int, as_json: bool, method: str, target: str, test_size: int | None,
            folds: int | None, stratified: bool, splits: int | None, nominal: float, metric: str | None,
            scoring: str | None) -> None:
    """Coverage of a confidence interval of the error (exact for hold-out when tractable)."""
    from momentbound.estimators.coverage import interval_coverage
    from momentbound.splitters import HoldOut, KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

    linear, scoring = check_statistic(metric, scoring)
    if (linear is not None or scoring is not None) and method in ("clopper-pearson", "wald"):
        raise UserError(f"--method {method} is the binomial interval of the hold-out error count; with --metric or "
                        "--scoring use --method naive-cv (--folds) or nadeau-bengio (--splits, --test-size)")
    if (linear is not None or scoring is not None) and target != "ge-full":
        raise UserError("with --metric or --scoring the interval is measured against the population value of the "
                        f"metric for the classifier trained on all N points: use --target ge-full, not {target}")
    model = build_model(arities, cells, n_classes)
    classifier = build_classifier(ties, alpha)
    rng = seed_generator(seed)
    if stratified and method not in ("naive-cv", "nadeau-bengio"):
        raise UserError(f"--stratified applies to --method naive-cv and nadeau-bengio, not to --method {method}")
    if method in ("clopper-pearson", "wald"):
        if test_size is None or folds is not None or splits is not None:
            raise UserError(f"--method {method} needs --test-size and takes neither --folds nor --splits")
        splitter: Any = HoldOut(test_size=test_size)
    elif method == "naive-cv":
        if folds is None or test_size is not None or splits is not None:
            raise UserError("--method naive-cv needs --folds V and takes neither --test-size nor --splits")
        splitter = StratifiedKFold(folds) if stratified else KFold(folds)
    else:
        if splits is None or test_size is None or folds is not None:
            raise UserError("--method nadeau-bengio needs --splits J and --test-size, not --folds")
        splitter = StratifiedShuffleSplit(splits, test_size) if stratified else ShuffleSplit(splits, test_size)
    r = interval_coverage(model, N, method, splitter, target=target, classifier=classifier, nominal=nominal,
                          draws=draws, confidence=confidence, rng=rng, scoring=scoring, metric=linear)
    doc = {"method": r.method, "target": r.target, "splitter": r.splitter.describe(), "N": r.N,
           "nominal": r.nominal, "exact": r.exact, "expected_ge_full": r.expected_ge_full,
           "mean_width": r.mean_width, "draws": r.draws, "confidence": r.confidence,
           "statistic": r.statistic, "undefined": r.undefined,
           **interval_fields("coverage", r.coverage)}
    if as_json:
        emit_json(doc)
        return
    rows = [[k, fmt(v) if not isinstance(v, (bool, str)) else str(v)] for k, v in sorted(doc.items()) if v is not None]
    print_table(f"coverage of the {method} interval of {r.statistic} at N={N}", ["quantity", "value"], rows)
