"""`momentbound estimate`: mean and variance of GE, hold-out, CV or leave-one-out for one model."""

from __future__ import annotations

import functools
from fractions import Fraction
from collections.abc import Callable
from typing import Any

import click

from momentbound.cli._common import UserError, cli_hints, emit_json, limit_options, parse_int_list, parse_str_list, print_table
from momentbound.cli._data import data_options

def _estimator_choices() -> tuple[str, ...]:
    from momentbound.splitters import SPLITTERS

    return tuple(SPLITTERS)


ESTIMATOR_CHOICES = _estimator_choices()
#: which options each estimator takes (all others must be left out)
_ESTIMATOR_OPTIONS = {
    "holdout": {"test_size", "test_fraction"},
    "cv": {"folds", "average"},
    "stratified-cv": {"folds", "average"},
    "repeated-cv": {"folds", "repeats", "average"},
    "repeated-stratified-cv": {"folds", "repeats", "average"},
    "shuffle-split": {"splits", "test_size", "test_fraction"},
    "stratified-shuffle-split": {"splits", "test_size", "test_fraction"},
    "bootstrap": {"bootstraps"},
    "632": {"bootstraps"},
    "632plus": {"bootstraps"},
    "oob": {"bootstraps"},
}


def model_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The model, classifier and backend options shared by `estimate` and `sweep`."""
    options = [
        click.option("--arities", default="2", show_default=True,
                     help="Attribute arities, comma-separated (e.g. 2,2)."),
        click.option("--cells", default=None,
                     help="P[X=x, Y=k], comma-separated, class fastest; exact decimals or fractions "
                     "like 1/8 give exact rational results."),
        click.option("--classes", "n_classes", type=int, default=None,
                     help="Number of classes K (inferred from the number of cells by default)."),
        click.option("--classifier", "classifier_name", default="naive-bayes", show_default=True,
                     help="naive-bayes | histogram | majority | sklearn:MODULE.CLASS (a classifier class of the "
                     "scikit-learn package, e.g. sklearn:sklearn.tree.DecisionTreeClassifier; Monte Carlo backend "
                     "only)."),
        click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
                     help="A classifier parameter (repeatable), e.g. --param max_depth=2 --param encoding=onehot; "
                     "values are literals (numbers, true/false, none, words, quoted strings), never evaluated."),
        click.option("--ties", type=click.Choice(["random", "first"]), default=None,
                     help="Tie rule (naive-bayes, histogram, majority): the paper's fair coin, or scikit-learn's "
                     "lowest class index.  [default: random]"),
        click.option("--alpha", default=None, help="Laplace smoothing alpha >= 0 (naive-bayes).  [default: 0]"),
        click.option("--backend", default="exact", show_default=True,
                     help="Prediction-probability backend: exact, sampling, bound:<method>, series; "
                     "montecarlo (estimate only): conditional Monte Carlo over count tables."),
        click.option("--seed", type=int, default=None,
                     help="Seed (an integer >= 0) of the random generator of --backend sampling or "
                     "montecarlo (reproducible draws)."),
        click.option("--covariance", type=click.Choice(["exact", "paper"]), default="exact",
                     show_default=True,
                     help="CV fold covariance: exact, or the printed (incorrect) Lemma 2."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def build_model(arities: str, cells: str | None, n_classes: int | None) -> Any:
    from momentbound.model.cells import CellModel

    if cells is None:
        raise click.UsageError("give the model: --cells (with --arities), or --data FILE --target COL")

    return CellModel(parse_int_list(arities, name="--arities"), parse_str_list(cells, name="--cells"), n_classes)


def build_classifier(ties: str | None, alpha: str | None, name: str = "naive-bayes",
                     params: tuple[str, ...] = ()) -> Any:
    """The classifier of --classifier with its --param values (and --ties/--alpha where they apply).

    --param values are read as literals (:mod:`momentbound.classifiers.params`), never evaluated;
    a setting given both as an option and as a --param is refused, not overridden.
    """
    from momentbound.classifiers import make_classifier
    from momentbound.classifiers.params import parse_param
    from momentbound.errors import InvalidArgument

    parsed: dict[str, Any] = {}
    for item in params:
        try:
            key, value = parse_param(item)
        except InvalidArgument as exc:
            raise UserError(str(exc)) from None
        if key in parsed:
            raise UserError(f"--param {key} is given twice; give each parameter once")
        parsed[key] = value
    for key, given in (("alpha", alpha), ("ties", ties)):
        if given is not None and key in parsed:
            raise UserError(f"--{key} {given} and --param {key}={parsed[key]} both set {key}; give it once")
    if name == "naive-bayes":
        return make_classifier(name, {"ties": ties or "random", "alpha": "0" if alpha is None else alpha, **parsed})
    if alpha is not None:
        raise UserError(f"--alpha applies to --classifier naive-bayes, not {name}")
    if name in ("histogram", "majority"):
        return make_classifier(name, {"ties": ties or "random", **parsed})
    if ties is not None:
        raise UserError(f"--ties applies to naive-bayes, histogram and majority, not {name}")
    return make_classifier(name, parsed)


def check_dask_options(scheduler: str | None, workers: int | None, timeout: float | None) -> None:
    """--workers for the schedulers started here only, --timeout for a scheduler address only:
    an option that would be ignored is refused."""
    import math

    from momentbound.estimators.simulation import WORKER_SCHEDULERS

    if workers is not None:
        if workers < 1:
            raise UserError(f"--workers must be at least 1, got {workers}")
        if scheduler not in WORKER_SCHEDULERS:
            where = ("without --scheduler" if scheduler is None
                     else f"with --scheduler {scheduler} (its cluster has its own workers)")
            raise UserError(f"--workers applies to --scheduler local, threads or processes, not {where}; "
                            "drop --workers or pick one of those schedulers")
    if timeout is not None:
        if not (0 < timeout < math.inf):
            raise UserError(f"--timeout must be a number of seconds > 0, got {timeout:g}")
        if scheduler is None or scheduler in WORKER_SCHEDULERS + ("synchronous",):
            raise UserError("--timeout applies to --scheduler ADDRESS (e.g. tcp://host:8786), the wait for an "
                            "existing scheduler; drop it")


def dask_options(workers: int | None, timeout: float | None) -> dict[str, Any]:
    """The --workers and --timeout keyword arguments that were given."""
    return {k: v for k, v in (("workers", workers), ("timeout", timeout)) if v is not None}


def check_seed(backend: str, seed: int | None) -> None:
    """--seed: an integer >= 0, and only with a random backend."""
    if seed is None:
        return
    if backend not in ("sampling", "montecarlo"):
        raise UserError(f"--seed only applies to --backend sampling or montecarlo, got --backend {backend}")
    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")


def build_backend(backend: str, seed: int | None) -> Any:
    """The backend object for a name (checked now, before any work), seeded when --seed is given."""
    from momentbound.estimators.from_predictions import resolve_backend

    check_seed(backend, seed)
    if backend == "montecarlo":
        return backend
    if seed is None:
        resolve_backend(backend)  # an unknown name or method fails here, before any work
        return backend
    import numpy as np

    from momentbound.probability.sampling_backend import SamplingBackend

    return SamplingBackend(rng=np.random.default_rng(seed))


def estimator_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The estimator (splitter) options shared by `estimate` and `sweep`."""
    options = [
        click.option("--folds", type=int, default=None,
                     help="Folds v for cv, stratified-cv, repeated-cv, repeated-stratified-cv."),
        click.option("--repeats", default=None,
                     help="Repetitions R (an integer or inf) for repeated-cv and repeated-stratified-cv."),
        click.option("--average", type=click.Choice(["folds", "pooled"]), default=None,
                     help="Statistic of cv, stratified-cv and their repeated forms: folds (default; the mean of "
                     "the fold error rates, what cross_val_score gives) or pooled (misclassified test points "
                     "over N). They differ only when --folds does not divide --N."),
        click.option("--splits", default=None,
                     help="Number of splits S (an integer or inf) for shuffle-split and stratified-shuffle-split."),
        click.option("--test-size", type=int, default=None, help="Test points for holdout and *shuffle-split."),
        click.option("--test-fraction", type=float, default=None,
                     help="Test share in (0, 1), rounded up like scikit-learn, for holdout and *shuffle-split."),
        click.option("--bootstraps", type=int, default=None,
                     help="Bootstrap samples B for bootstrap, 632, 632plus (absent: the ideal B -> infinity) "
                     "and oob (required)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _count_or_inf(text: str | None, flag: str) -> Any:
    import math

    if text is None:
        return None
    if text.strip().lower() in ("inf", "infinity"):
        return math.inf
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"{flag} must be a positive integer or inf, got {text!r}") from None
    if value < 1:
        raise UserError(f"{flag} must be a positive integer or inf, got {text!r}")
    return value


def build_estimator(
    estimator: str, N: int, folds: int | None, test_size: int | None, test_fraction: float | None,
    repeats: str | None = None, splits: str | None = None, bootstraps: int | None = None,
    average: str | None = None,
) -> Any:
    """The splitter of --estimator with its options; an option the estimator does not take is an error."""
    from momentbound.splitters import make_splitter

    given = {name for name, v in (("folds", folds), ("test_size", test_size), ("test_fraction", test_fraction),
                                  ("repeats", repeats), ("splits", splits), ("bootstraps", bootstraps),
                                  ("average", average))
             if v is not None}
    extra = given - _ESTIMATOR_OPTIONS.get(estimator, set())
    if extra:
        flags = ", ".join("--" + e.replace("_", "-") for e in sorted(extra))
        raise click.UsageError(f"{flags} do(es) not apply to --estimator {estimator}")
    if test_size is not None and test_fraction is not None:
        raise click.UsageError("give --test-size or --test-fraction, not both")
    test = test_size if test_size is not None else test_fraction
    if estimator == "holdout":
        if test is None:
            raise click.UsageError("--estimator holdout needs exactly one of --test-size or --test-fraction")
        return make_splitter("holdout", test_size=test_size, test_fraction=test_fraction)
    if estimator in ("cv", "stratified-cv", "repeated-cv", "repeated-stratified-cv"):
        if folds is None:
            raise click.UsageError(f"--estimator {estimator} needs --folds V (2 <= V <= N)")
        stat = "folds" if average is None else average
        if estimator.startswith("repeated"):
            return make_splitter(estimator, v=folds, repeats=_count_or_inf(repeats, "--repeats") or 10, average=stat)
        return make_splitter(estimator, v=folds, average=stat)
    if estimator in ("shuffle-split", "stratified-shuffle-split"):
        count = _count_or_inf(splits, "--splits") or 10
        return make_splitter(estimator, splits=count, test_size=0.1 if test is None else test)
    if estimator in ("bootstrap", "632", "632plus"):
        return make_splitter(estimator, B=bootstraps)
    if estimator == "oob":
        if bootstraps is None:
            raise click.UsageError("--estimator oob needs --bootstraps B (out-of-bag votes of B classifiers)")
        return make_splitter(estimator, B=bootstraps)
    return make_splitter(estimator)


def library_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn momentbound's errors into one-line click errors: exit code 2 for a bad argument,
    1 for a solver failure."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from momentbound.errors import MomentboundError, SolverFailed

        try:
            return func(*args, **kwargs)
        except SolverFailed as exc:
            raise click.ClickException(cli_hints(f"{type(exc).__name__}: {exc}")) from exc
        except MomentboundError as exc:
            raise UserError(cli_hints(f"{type(exc).__name__}: {exc}")) from exc

    return wrapper


def fmt(value: Any) -> str:
    """A moment for a table: Fractions as decimals (the JSON keeps them exact), intervals as ranges."""
    from momentbound.estimators import Interval

    if value is None:
        return "-"
    if isinstance(value, Interval):
        text = f"[{float(value.lower):.6g}, {float(value.upper):.6g}]"
        return text if value.estimate is None else f"{float(value.estimate):.6g} {text}"
    if isinstance(value, (int, str)):
        return str(value)
    return f"{float(value):.6g}"


MOMENT_FIELDS = ("mean", "variance", "std", "mean_plus_std", "fold_variance", "fold_covariance",
                 "ge_mean", "ge_variance")


def moment_fields(name: str, value: Any) -> dict[str, Any]:
    """The four JSON fields of one moment: ``name``, ``name_lower``, ``name_upper``, ``name_exact``.

    ``name`` is the value as a float (an exact or float moment, or the point estimate of an
    interval; null for a guaranteed interval, which has no point value); ``name_lower`` and
    ``name_upper`` enclose it (equal to it for a point value); ``name_exact`` is the exact
    rational ``"p/q"`` when the backend is exact. All four are null when the moment does not
    apply (fold fields outside cross-validation).
    """
    from momentbound.cli._common import exact_text
    from momentbound.estimators import Interval

    if value is None:
        point = lower = upper = None
    elif isinstance(value, Interval):
        point = None if value.estimate is None else float(value.estimate)
        lower, upper = float(value.lower), float(value.upper)
    else:
        point = lower = upper = float(value)
    return {name: point, f"{name}_lower": lower, f"{name}_upper": upper, f"{name}_exact": exact_text(value)}


def result_document(r: Any) -> dict[str, Any]:
    """A JSON document of an EstimatorMoments: one type per field whatever the backend or N."""
    from momentbound.cli._common import exact_text

    alpha = getattr(r.classifier, "alpha", None)
    if isinstance(alpha, str):  # the classifier keeps alpha as given ("0", "1/2", "0.5")
        alpha = Fraction(alpha)
    doc: dict[str, Any] = {
        "estimator": r.estimator.name,
        "description": r.estimator.describe(),
        "N": r.N,
        "train_size": r.train_size,
        "test_size": r.test_size,
        "folds": r.folds,
        "fold_sizes": list(r.fold_sizes),
        "average": getattr(r.estimator, "average", None),  # cross-validation: "folds" or "pooled"
        "backend": r.backend,
        "kind": getattr(r.kind, "name", str(r.kind)).lower(),
        "covariance": r.covariance,
        "ties": getattr(r.classifier, "ties", None),
        "alpha": None if alpha is None else float(alpha),
        "alpha_exact": exact_text(alpha),
        "seconds": float(r.seconds),
        # Monte Carlo results (--backend montecarlo) only; null otherwise
        "draws": getattr(r, "draws", None),
        "confidence": None if getattr(r, "confidence", None) is None else float(r.confidence),
    }
    for name in MOMENT_FIELDS:
        doc.update(moment_fields(name, getattr(r, name)))
    doc.update(plugin_fields(r.estimator, r.classifier))
    for name in ("single_variance", "repetition_covariance", "split_probability"):
        doc.update(moment_fields(name, getattr(r, name, None)))
    return doc


def plugin_fields(splitter: Any, classifier: Any) -> dict[str, Any]:
    """The splitter and the classifier used, with their parameters (JSON-friendly strings/numbers)."""
    from momentbound.cli._common import jsonable

    def params(obj: Any) -> dict[str, Any]:
        return {str(k): (v if isinstance(v, (str, int, float, bool)) or v is None else repr(v))
                for k, v in jsonable(obj.params()).items()}

    return {"splitter": {"name": splitter.name, "description": splitter.describe(), "params": params(splitter)},
            "classifier": {"name": classifier.name, "description": classifier.describe(), "params": params(classifier)}}


ACCURACY_FIELDS = ("mean", "variance", "ge_full_mean", "ge_full_variance", "bias", "deviation_variance",
                   "rms", "covariance_with_ge", "correlation_with_ge")


def _accuracy(model: Any, N: int, est: Any, classifier: Any, backend: str, covariance: str,
              options: dict[str, Any], as_json: bool) -> None:
    """``--against ge-full``: the estimator's accuracy against GE_N."""
    import numpy as np

    from momentbound.estimators import estimator_accuracy

    if covariance != "exact":
        raise click.UsageError("--against ge-full uses the exact covariance: drop --covariance paper")
    if backend not in ("exact", "montecarlo"):
        raise UserError(f"--against ge-full runs on --backend exact or montecarlo, not {backend}")
    if "progress" in options:
        raise click.UsageError("--progress/--no-progress do not apply to --against ge-full")
    extra: dict[str, Any] = {}
    if backend == "montecarlo":
        extra = {"draws": options.get("draws", 10_000), "rng": np.random.default_rng(options.get("rng"))}
    r = estimator_accuracy(model, N, est, classifier=classifier, backend=backend, **extra)
    doc: dict[str, Any] = {"N": N, "backend": r.backend, "kind": getattr(r.kind, "name", str(r.kind)).lower(),
                           "estimator": est.name, "description": est.describe(), "seconds": float(r.seconds),
                           "draws": r.draws, **plugin_fields(est, r.classifier)}
    for name in ACCURACY_FIELDS:
        doc.update(moment_fields(name, getattr(r, name)))
    if as_json:
        emit_json(doc)
        return
    rows = [(name.replace("_", " "), fmt(getattr(r, name))) for name in ACCURACY_FIELDS]
    rows += [("backend / kind", f"{r.backend} / {getattr(r.kind, 'name', r.kind)}"), ("seconds", f"{r.seconds:.3g}")]
    print_table(f"{est.describe()} against GE_{N}, {r.classifier.describe()}", ["quantity", "value"], rows)


def check_montecarlo(backend: str, covariance: str, draws: int | None) -> None:
    """The options of `--backend montecarlo` (checked before any work)."""
    from momentbound.estimators.montecarlo import MIN_DRAWS

    if backend != "montecarlo":
        if draws is not None:
            raise click.UsageError("--draws only applies to --backend montecarlo")
        return
    if covariance != "exact":
        raise click.UsageError("--backend montecarlo simulates the real procedure: use --covariance exact")
    if draws is not None and draws < MIN_DRAWS:
        raise UserError(f"--draws must be at least {MIN_DRAWS} (below that the 95% intervals do not "
                        f"hold their level; see docs/estimators.md), got {draws}")


@click.command("estimate")
@data_options(posterior=True)
@model_options
@click.option("--N", "N", type=int, required=True, help="Dataset size.")
@click.option("--estimator", type=click.Choice(ESTIMATOR_CHOICES), default="cv", show_default=True,
              help="ge (generalization error), holdout, cv (KFold), stratified-cv (what cross_val_score does "
              "with cv=k), loo, repeated-cv, repeated-stratified-cv, shuffle-split, stratified-shuffle-split, "
              "resubstitution, bootstrap (leave-one-out Err(1)), 632, 632plus, oob.")
@estimator_options
@click.option("--against", type=click.Choice(["ge-full"]), default=None,
              help="ge-full: also how well the estimate tracks GE_N, the error of the classifier trained on "
              "all N points (bias, RMS, covariance and correlation).")
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
              "(default: when stderr is a terminal and the run takes over 2 s; exact: ge, holdout, cv, "
              "stratified-cv and loo).")
@click.option("--json", "as_json", is_flag=True, help="Print one sorted JSON document.")
@limit_options
@library_errors
def command(
    arities: str, cells: str, n_classes: int | None, classifier_name: str, params: tuple[str, ...], ties: str,
    alpha: str, backend: str, seed: int | None, covariance: str, N: int, estimator: str, folds: int | None,
    repeats: str | None, average: str | None, splits: str | None, test_size: int | None,
    test_fraction: float | None, bootstraps: int | None, against: str | None, draws: int | None,
    scheduler: str | None, workers: int | None, timeout: float | None, progress: bool | None, as_json: bool,
) -> None:
    """Mean, variance and fold covariance of an error estimator, without simulation.

    Example: momentbound estimate --arities 2 --cells 0.2,0.3,0.2,0.3 --N 100 --estimator cv --folds 10
    """
    from momentbound.estimators import estimator_moments

    if N < 1:
        raise UserError(f"--N must be a positive integer, got {N}")
    check_montecarlo(backend, covariance, draws)
    if (scheduler is not None or workers is not None) and backend != "montecarlo":
        raise click.UsageError("--scheduler and --workers only apply to --backend montecarlo")
    check_dask_options(scheduler, workers, timeout)
    if progress is not None and backend not in ("exact", "montecarlo"):
        raise click.UsageError(f"--progress/--no-progress apply to --backend exact and montecarlo, not {backend}")
    model = build_model(arities, cells, n_classes)
    est = build_estimator(estimator, N, folds, test_size, test_fraction, repeats, splits, bootstraps, average)
    est.split(N)  # ImpossibleSplit before any work
    classifier = build_classifier(ties, alpha, classifier_name, params)
    engine_backend = build_backend(backend, seed)
    options: dict[str, Any] = {}
    if backend == "montecarlo":
        options = {"rng": seed} if draws is None else {"rng": seed, "draws": draws}
        if scheduler is not None:
            if against is not None:
                raise click.UsageError("--scheduler does not apply to --against ge-full")
            options.update(scheduler=scheduler, **dask_options(workers, timeout))
    if progress is not None:
        options["progress"] = progress
    elif as_json and against is None and backend in ("exact", "montecarlo"):
        options["progress"] = False  # --json: no bar unless --progress asks for one (docs/cli.md)
    if against is not None:
        _accuracy(model, N, est, classifier, backend, covariance, options, as_json)
        return
    r = estimator_moments(model, N, est, classifier=classifier, backend=engine_backend, covariance=covariance,
                          **options)
    if as_json:
        emit_json(result_document(r))
        return
    rows = [
        ("estimator", r.estimator.describe()),
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
