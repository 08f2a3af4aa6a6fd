"""`momentbound estimate`: mean and variance of a splitter's error estimate (GE, hold-out, CV, ...) for one model."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import (
    UserError,
    build_backend,
    check_seed,
    build_classifier,
    build_model,
    build_splitter,
    check_dask_options,
    check_montecarlo,
    dask_options,
    emit_json,
    fmt,
    library_errors,
    limit_options,
    model_options,
    moment_fields,
    SCORE_FIELDS,
    check_statistic,
    plugin_fields,
    print_table,
    result_document,
    score_document,
    split_params,
    splitter_options,
    statistic_options,
)

ACCURACY_FIELDS = ("mean", "variance", "ge_full_mean", "ge_full_variance", "bias", "deviation_variance",
                   "rms", "covariance_with_ge", "correlation_with_ge")


def _scores(model: Any, N: int, est: Any, classifier: Any, scoring: str, options: dict[str, Any],
            as_json: bool) -> None:
    """``--scoring NAME``: the moments of ``cross_val_score(..., scoring=NAME).mean()`` and of the
    population value of the same metric for the classifier trained on all N points (simulation)."""
    from momentbound.estimators import estimator_moments

    r = estimator_moments(model, N, est, classifier=classifier, backend="montecarlo", scoring=scoring,
                          rng=options.get("rng"), draws=options.get("draws", 10_000))
    if as_json:
        emit_json(score_document(r))
        return
    rows = [(name.replace("_", " ").replace("ge full", f"population value (n={N})"), fmt(getattr(r, name)))
            for name in SCORE_FIELDS]
    rows += [("datasets with an undefined fold", f"{r.undefined_draws} of {r.draws}"),
             ("backend / kind", f"{r.backend} / {getattr(r.kind, 'name', r.kind)}"), ("seconds", f"{r.seconds:.3g}")]
    print_table(f"{r.scoring} of {est.describe()} at N={N} against the population value, {r.classifier.describe()}",
                ["quantity", "value"], rows)


@contextmanager
def _metric_refusals(linear: Any) -> Iterator[None]:
    """A work or memory refusal under ``--metric`` without its ``--backend montecarlo`` advice: the
    simulation gives the 0-1 error or a ``--scoring`` scorer, never a ``--metric``."""
    import re

    from momentbound.errors import InvalidArgument

    try:
        yield
    except InvalidArgument as exc:
        text = str(exc)
        if linear is None or linear.is_error or "backend='montecarlo'" not in text:
            raise
        text = re.sub(r"backend='montecarlo'(?: \(or backend='auto'\))?(?:, | or )", "", text)
        text = text.replace("use backend='montecarlo'", "use a smaller N")
        raise InvalidArgument(f"{text} (--backend montecarlo simulates the 0-1 error or a --scoring scorer, not "
                              f"--metric {linear.name})") from None


def _accuracy(model: Any, N: int, est: Any, classifier: Any, backend: str, covariance: str,
              options: dict[str, Any], as_json: bool) -> None:
    """``--against ge-full``: how well the splitter's estimate tracks GE_N."""
    import numpy as np

    from momentbound.estimators import estimator_accuracy

    if covariance != "exact":
        raise click.UsageError("--against ge-full uses the exact covariance: drop --covariance paper")
    if backend not in ("exact", "montecarlo", "auto"):
        raise UserError(f"--against ge-full runs on --backend exact, montecarlo or auto, not {backend}")
    if "progress" in options:
        raise click.UsageError("--progress/--no-progress do not apply to --against ge-full")
    extra: dict[str, Any] = {}
    if backend in ("montecarlo", "auto"):
        extra = {"draws": options.get("draws", 10_000), "rng": np.random.default_rng(options.get("rng"))}
    if "metric" in options:
        extra["metric"] = options["metric"]
    r = estimator_accuracy(model, N, est, classifier=classifier, backend=backend, **extra)
    doc: dict[str, Any] = {"N": N, "backend": r.backend, "kind": getattr(r.kind, "name", str(r.kind)).lower(),
                           "description": est.describe(), "seconds": float(r.seconds),
                           "draws": r.draws, "metric": options["metric"].name if "metric" in options else "error",
                           "route": getattr(r, "route", None), "auto_reason": getattr(r, "auto_reason", None),
                           **plugin_fields(est, r.classifier)}
    for name in ACCURACY_FIELDS:
        doc.update(moment_fields(name, getattr(r, name)))
    if as_json:
        emit_json(doc)
        return
    rows = [(name.replace("_", " "), fmt(getattr(r, name))) for name in ACCURACY_FIELDS]
    rows += [("backend / kind", f"{r.backend} / {getattr(r.kind, 'name', r.kind)}"), ("seconds", f"{r.seconds:.3g}")]
    print_table(f"{est.describe()} against GE_{N}, {r.classifier.describe()}", ["quantity", "value"], rows)


@click.command("estimate")
@data_options(posterior=True)
@model_options
@click.option("--N", "N", type=int, required=True, help="Dataset size.")
@splitter_options("cv")
@click.option("--against", type=click.Choice(["ge-full"]), default=None,
              help="ge-full: also how well the estimate tracks GE_N, the error of the classifier trained on "
              "all N points (bias, RMS, covariance and correlation).")
@statistic_options("Splitters ge, holdout, cv, loo, repeated-cv, resubstitution, bootstrap and 632 (ideal, no "
                   "--bootstraps), and for recall:A, class_error_rate:A and "
                   "balanced_error scikit-learn's fold scores (recall_score, 1 - balanced_accuracy_score, averaged "
                   "over the folds) under the splitters that fix the class counts of their test folds "
                   "(cv, stratified-cv, repeated-cv, repeated-stratified-cv, shuffle-split, stratified-shuffle-split; "
                   "resubstitution, bootstrap and 632 divide by the class counts of the data); exact-route "
                   "backends.",
                   "Needs --backend montecarlo; splitters holdout, cv, stratified-cv, loo (not roc_auc), repeated-cv, "
                   "repeated-stratified-cv, shuffle-split and stratified-shuffle-split (finite repetitions); "
                   "roc_auc_pooled on cv, stratified-cv and loo.")
@click.option("--draws", type=int, default=None,
              help="Number of sampled table draws for --backend montecarlo (default 10000).")
@click.option("--scheduler", default=None, metavar="local|threads|processes|ADDRESS",
              help="Fit a sklearn: classifier's draws on Dask (--backend montecarlo): local (a local cluster), "
              "threads or processes (dask's local schedulers), or an existing scheduler, e.g. tcp://host:8786. "
              "Same numbers as without it for a given --seed.")
@click.option("--workers", type=int, default=None,
              help="Workers for --scheduler local, threads or processes (the workers started here).  [default: 2]")
@click.option("--timeout", type=float, default=None, metavar="SECONDS",
              help="Seconds to wait for the scheduler at --scheduler ADDRESS to answer before giving up "
              "with an error.  [default: 5]")
@click.option("--progress/--no-progress", default=None,
              help="--backend exact or montecarlo: progress bar and the time and memory estimate on stderr "
              "(default: when stderr is a terminal and the run takes over 2 s; exact: the splitters whose terms "
              "report progress, e.g. ge, holdout, cv, stratified-cv and loo).")
@click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document.")
@limit_options
@library_errors
def command(
    arities: str, cells: str, n_classes: int | None, classifier_name: str, params: tuple[str, ...], ties: str,
    alpha: str, backend: str, seed: int | None, covariance: str, N: int, splitter: tuple[str, dict[str, str]],
    against: str | None, metric: str | None, scoring: str | None, draws: int | None,
    scheduler: str | None, workers: int | None, timeout: float | None, progress: bool | None, as_json: bool,
) -> None:
    """Mean, variance and fold covariance of a splitter's error estimate, without simulation.

    Example: momentbound estimate --arities 2 --cells 0.2,0.3,0.2,0.3 --N 100 --splitter cv --folds 10
    """
    from momentbound.estimators import estimator_moments

    if N < 1:
        raise UserError(f"--N must be a positive integer, got {N}")
    check_montecarlo(backend, covariance, draws)
    if (scheduler is not None or workers is not None) and backend != "montecarlo":
        raise click.UsageError("--scheduler and --workers only apply to --backend montecarlo")
    check_dask_options(scheduler, workers, timeout)
    linear, scoring = check_statistic(metric, scoring, backend)
    if scoring is not None:
        if scheduler is not None or workers is not None or progress is not None or covariance != "exact":
            raise click.UsageError("--scoring takes --draws and --seed; drop --scheduler, --workers, --progress "
                                   "and --covariance")
    if progress is not None and backend not in ("exact", "montecarlo", "auto"):
        raise click.UsageError(f"--progress/--no-progress apply to --backend exact, montecarlo and auto, not {backend}")
    model = build_model(arities, cells, n_classes)
    split_values, params = split_params(splitter[0], params)
    est = build_splitter(splitter, split_values)
    est.split(N)  # ImpossibleSplit before any work
    classifier = build_classifier(ties, alpha, classifier_name, params)
    if backend == "auto":  # estimator_moments picks exact or montecarlo; the seed goes to the simulation
        check_seed(backend, seed)
        engine_backend: Any = backend
    else:
        engine_backend = build_backend(backend, seed)
    options: dict[str, Any] = {}
    if backend in ("montecarlo", "auto"):
        options = {"rng": seed} if draws is None else {"rng": seed, "draws": draws}
        if scheduler is not None:
            if against is not None:
                raise click.UsageError("--scheduler does not apply to --against ge-full")
            options.update(scheduler=scheduler, **dask_options(workers, timeout))
    if progress is not None:
        options["progress"] = progress
    elif as_json and against is None and backend in ("exact", "montecarlo", "auto"):
        options["progress"] = False  # --json: no bar unless --progress asks for one (docs/cli.md)
    if scoring is not None:
        _scores(model, N, est, classifier, scoring, options, as_json)
        return
    if linear is not None:
        from momentbound.estimators.metrics import check_metric

        check_metric(linear, est, backend)  # refusals name the command line's options, before any work
        options["metric"] = linear
    with _metric_refusals(linear):
        if against is not None:
            _accuracy(model, N, est, classifier, backend, covariance, options, as_json)
            return
        r = estimator_moments(model, N, est, classifier=classifier, backend=engine_backend, covariance=covariance,
                              **options)
    if as_json:
        emit_json({**result_document(r), "metric": getattr(r, "metric", "error")})
        return
    rows = [
        ("splitter", r.estimator.describe()),
        ("N", r.N),
        ("train size", r.train_size),
    ]
    if r.test_size is not None:
        rows.append(("test size", r.test_size))
    if r.folds is not None:
        rows.append(("fold sizes", ",".join(map(str, sorted(set(r.fold_sizes))))))
    rows += [
        ("mean", fmt(r.mean)),
        ("variance", fmt(r.variance)),
        ("std", fmt(r.std)),
        ("mean + std", fmt(r.mean_plus_std)),
    ]
    if r.folds is not None:
        rows += [("fold variance", fmt(r.fold_variance)), ("fold covariance", fmt(r.fold_covariance))]
    rows += [
        (f"E[GE] (n={r.train_size})", fmt(r.ge_mean)),
        (f"Var[GE] (n={r.train_size})", fmt(r.ge_variance)),
        ("backend / kind", f"{r.backend} / {getattr(r.kind, 'name', r.kind)}"),
        ("covariance", r.covariance + (" (printed Lemma 2: incorrect)" if r.covariance == "paper" else "")),
        ("seconds", f"{r.seconds:.3g}"),
    ]
    if hasattr(r, "draws"):
        rows.append(("draws / confidence", f"{r.draws} / {r.confidence:g}"))
    for name, label in (("single_variance", "variance of one partition"),
                        ("repetition_covariance", "covariance of two partitions"),
                        ("split_probability", "P(scikit-learn can split)")):
        if getattr(r, name, None) is not None:
            rows.append((label, fmt(getattr(r, name))))
    print_table(f"{r.estimator.describe()} at N={r.N}, {r.classifier.describe()}", ["quantity", "value"], rows)
