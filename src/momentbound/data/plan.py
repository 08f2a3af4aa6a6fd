"""``advise``: which error estimator is most accurate for data like yours, at your N
(docs/howto.md, section 'Plan the evaluation of a classifier on your data').

Every row is :func:`~momentbound.estimators.estimator_accuracy` of one candidate against
``GE_N`` (the error of the classifier trained on all ``N`` rows), and, where the estimator has
a usual confidence interval, :func:`~momentbound.estimators.interval_coverage` of that interval
for ``GE_N``. A row is exact when the exact backend's work estimate allows it within
``exact_seconds``; otherwise it is conditional Monte Carlo with as many draws as the relative
precision on the RMS asks for (a pilot run sets the number). The row says which, and why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["Candidate", "CANDIDATES", "AdviceRow", "Advice", "advise", "accuracy_row", "fitted_or_model", "DEFAULT_CV"]

#: bootstrap samples of the bootstrap rows (Err(1), .632, .632+)
BOOTSTRAPS = 50
PILOT_DRAWS = 1000
#: Monte Carlo draws of a first run under each posterior draw (rerun with more when short of the precision)
POSTERIOR_PILOT = 600
MAX_DRAWS = 200_000
#: Monte Carlo draws of each coverage (a 95% interval of about +-0.6% at a coverage of 0.95)
COVERAGE_DRAWS = 5000


@dataclass(frozen=True)
class Candidate:
    """One estimator of the candidate set: its label, how to build it, its cost and its interval."""

    key: str
    label: str
    build: Callable[[], Any]
    fits: Callable[[int], int]
    interval: str | None = None


def _candidates() -> tuple[Candidate, ...]:
    from momentbound.splitters import (HoldOut, KFold, LeaveOneOut, RepeatedStratifiedKFold, ShuffleSplit,
                                       StratifiedKFold)
    from momentbound.splitters.bootstrap import Bootstrap, Point632, Point632Plus, Resubstitution

    rows = []
    for v in (2, 3, 5, 10, 20):
        rows.append(Candidate(f"kfold-{v}", f"KFold({v})", lambda v=v: KFold(v), lambda N, v=v: v, "naive-cv"))
    for v in (2, 3, 5, 10, 20):
        rows.append(Candidate(f"stratified-kfold-{v}", f"StratifiedKFold({v})", lambda v=v: StratifiedKFold(v),
                              lambda N, v=v: v, "naive-cv"))
    rows += [
        Candidate("loo", "LeaveOneOut", lambda: LeaveOneOut(), lambda N: N),
        Candidate("repeated-stratified-5x2", "RepeatedStratifiedKFold(5x2)", lambda: RepeatedStratifiedKFold(5, 2),
                  lambda N: 10),
        Candidate("repeated-stratified-10x10", "RepeatedStratifiedKFold(10x10)",
                  lambda: RepeatedStratifiedKFold(10, 10), lambda N: 100),
        Candidate("shuffle-split-10x20", "ShuffleSplit(10 x 20%)", lambda: ShuffleSplit(10, 0.2), lambda N: 10,
                  "nadeau-bengio"),
        Candidate("holdout-third", "hold-out 1/3", lambda: HoldOut(test_fraction=1 / 3), lambda N: 1,
                  "clopper-pearson"),
        Candidate("resubstitution", "resubstitution", lambda: Resubstitution(), lambda N: 1),
        Candidate("bootstrap", f"bootstrap Err(1) (B={BOOTSTRAPS})", lambda: Bootstrap(BOOTSTRAPS),
                  lambda N: BOOTSTRAPS),
        Candidate("632", f".632 (B={BOOTSTRAPS})", lambda: Point632(BOOTSTRAPS), lambda N: BOOTSTRAPS),
        Candidate("632plus", f".632+ (B={BOOTSTRAPS})", lambda: Point632Plus(BOOTSTRAPS), lambda N: BOOTSTRAPS),
    ]
    return tuple(rows)


#: the fixed candidate set, in the order of the docs
CANDIDATES: tuple[Candidate, ...] = _candidates()
#: scikit-learn's default ``cross_val_score(..., cv=5)`` for a classifier
DEFAULT_CV = "stratified-kfold-5"


@dataclass(frozen=True)
class AdviceRow:
    """One candidate's accuracy against ``GE_N`` (floats; Monte Carlo rows carry their intervals)."""

    key: str
    label: str
    fits: int
    bias: float
    std: float
    rms: float
    rms_lower: float
    rms_upper: float
    correlation: float | None
    coverage: float | None
    coverage_lower: float | None
    coverage_upper: float | None
    interval: str | None
    kind: str
    draws: int | None
    precision: float | None
    note: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Advice:
    """The result of :func:`advise`: rows ranked by RMS against ``GE_N``, the sentence, the posterior."""

    N: int
    rows: tuple[AdviceRow, ...]
    best: AdviceRow
    default: AdviceRow | None
    sentence: str
    classifier: str
    model: dict[str, Any] | None
    precision: float
    seconds: float
    posterior: dict[str, Any] | None = None
    skipped: tuple[tuple[str, str], ...] = ()
    statistic: str = "error"

    def as_dict(self) -> dict[str, Any]:
        return {"N": self.N, "statistic": self.statistic, "rows": [r.as_dict() for r in self.rows], "best": self.best.key,
                "default_cv5": None if self.default is None else self.default.key, "sentence": self.sentence,
                "classifier": self.classifier, "fitted_model": self.model, "precision": self.precision,
                "seconds": self.seconds, "posterior": self.posterior,
                "skipped": [{"key": k, "reason": r} for k, r in self.skipped]}

    def plot(self, path: str | None = None) -> Any:
        """RMS against cost in classifier fits (log scale), one point per candidate; saved when ``path``."""
        from matplotlib.figure import Figure  # no pyplot: no backend switch, nothing left open

        from momentbound.output import save_figure

        fig = Figure(figsize=(7, 4.5))
        ax = fig.subplots()
        for r in self.rows:
            err = [[r.rms - r.rms_lower], [r.rms_upper - r.rms]]
            color = "tab:red" if r is self.best else ("tab:green" if r is self.default else "tab:blue")
            ax.errorbar([r.fits], [r.rms], yerr=err, fmt="o", color=color, ms=4, capsize=2)
            ax.annotate(r.label, (r.fits, r.rms), fontsize=7, xytext=(3, 2), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_xlabel("cost (classifier fits)")
        ax.set_ylabel(f"RMS of the estimate against GE_{self.N}")
        ax.set_title(f"Error estimators at N = {self.N} (red: best, green: cv=5)")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        if path is not None:
            save_figure(path, fig)
        return fig


def planning_size(fitted: Any, N: Any) -> int:
    """The dataset size to plan for: ``N`` as given (an integer >= 2), or the rows of the fitted data."""
    from momentbound.data.fitting import FittedModel

    if N is None:
        if not isinstance(fitted, FittedModel):
            raise InvalidArgument("N is required with a plain CellModel (there is no data to take it from)")
        N = fitted.n_data
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 2:
        raise InvalidArgument(f"N must be an integer >= 2 (rows of the dataset to plan for), got {N!r}")
    return int(N)


def fitted_or_model(data: Any, target: str | None, features: Any, prior: Any, model_form: str,
                    load: dict[str, Any]) -> Any:
    """A cell model as given, or the model fitted to data (:func:`~momentbound.data.fit_cells`)."""
    from momentbound.data.fitting import DEFAULT_PRIOR, fit_cells

    if isinstance(data, CellModel):
        return data
    return fit_cells(data, target, features=features, prior=DEFAULT_PRIOR if prior is None else prior,
                     model=model_form, **load)


def accuracy_row(model: CellModel, N: int, cand: Candidate, *, classifier: Any, engine: Any, rng: np.random.Generator,
                 precision: float, exact_seconds: float | None, coverage: bool = True,
                 pilot: int = PILOT_DRAWS, metric: Any = None, scoring: str | None = None) -> AdviceRow:
    """One candidate: exact when the exact backend's work estimate allows it, else Monte Carlo with
    enough draws for ``precision`` (relative half-width of the 95% interval on the RMS).

    ``metric``: a linear statistic (exact rows only: a row out of the exact route's reach is refused);
    ``scoring``: a scikit-learn scorer, every row Monte Carlo against the population value of its metric."""
    from momentbound import guard
    from momentbound.estimators import estimator_accuracy
    from momentbound.estimators.coverage import interval_coverage

    start = time.perf_counter()
    est = cand.build()
    est.split(N)  # ImpossibleSplit names the candidate
    note = ""
    acc = None
    statistic = {} if metric is None else {"metric": metric}
    if scoring is not None:
        note = f"Monte Carlo ({scoring} is simulated)"
    elif exact_seconds is not None:
        try:
            with guard.limits(exact_seconds):
                acc = estimator_accuracy(model, N, est, classifier=classifier, backend="exact", engine=engine,
                                         **statistic)
        except InvalidArgument as exc:  # the exact route's work or memory estimate refused it
            if metric is not None:
                raise InvalidArgument(f"metric {metric.name} has exact moments only, and the exact route of "
                                      f"{est.describe()} is out of reach at N = {N}: use a smaller N, or "
                                      "scoring= for a scikit-learn scorer by simulation") from exc
            note = "Monte Carlo: the exact route is out of reach (" + " ".join(str(exc).split(";")[0].split()) + ")"
    elif metric is not None:
        raise InvalidArgument(f"metric {metric.name} has exact moments only: give exact_seconds (not None)")
    else:
        note = "Monte Carlo (exact rows not asked for)"
    draws = None
    achieved = None
    if acc is None:
        draws = pilot
        for _ in range(3):
            if scoring is not None:
                acc = estimator_accuracy(model, N, est, classifier=classifier, backend="montecarlo", draws=draws, rng=rng,
                                         scoring=scoring)
            else:
                acc = estimator_accuracy(model, N, est, classifier=classifier, backend="montecarlo", draws=draws, rng=rng)
            r = acc.rms
            achieved = (r.upper - r.lower) / 2 / r.estimate if r.estimate > 0 else 0.0
            if achieved <= precision:
                break
            wanted = math.ceil(draws * (achieved / precision) ** 2 * 1.1)
            if draws >= MAX_DRAWS:
                note += f"; the precision stopped at {MAX_DRAWS} draws"
                break
            draws = min(MAX_DRAWS, max(wanted, draws + 1))
        kind = "montecarlo"
        if achieved is not None and achieved > precision and "stopped" not in note:
            note += f"; the precision reached is {100 * achieved:.1f}% after three runs"
    else:
        kind = "exact"

    def point(v: Any) -> float | None:
        if v is None:
            return None
        return float(v.estimate) if hasattr(v, "estimate") else float(v)

    rms = acc.rms
    lo, hi = (float(rms.lower), float(rms.upper)) if hasattr(rms, "lower") else (float(rms), float(rms))
    cov = cov_lo = cov_hi = None
    if coverage and cand.interval is not None:
        try:
            c = interval_coverage(model, N, cand.interval, est, classifier=classifier, rng=rng,
                                  draws=COVERAGE_DRAWS, scoring=scoring, **statistic)
            cov, cov_lo, cov_hi = float(c.coverage.estimate), float(c.coverage.lower), float(c.coverage.upper)
        except InvalidArgument as exc:
            note += f"; coverage not computed ({' '.join(str(exc).split(';')[0].split())})"
    return AdviceRow(
        key=cand.key, label=cand.label, fits=int(cand.fits(N)), bias=point(acc.bias), std=math.sqrt(max(point(acc.variance), 0.0)),
        rms=point(rms), rms_lower=lo, rms_upper=hi, correlation=point(acc.correlation_with_ge), coverage=cov,
        coverage_lower=cov_lo, coverage_upper=cov_hi, interval=cand.interval, kind=kind, draws=draws,
        precision=achieved, note=note.lstrip("; "), seconds=time.perf_counter() - start)


def _sentence(best: AdviceRow, default: AdviceRow | None, N: int, rows: Sequence[AdviceRow] = (),
              statistic: str = "error") -> str:
    target = f"GE_{N}" if statistic == "error" else f"the population {statistic} of the classifier trained on all N rows"
    text = (f"At N = {N}, {best.label} tracks {target} best: RMS {best.rms:.4f} for {best.fits} "
            f"fit{'s' if best.fits != 1 else ''}")
    close = [r.label for r in rows if r is not best and r is not default and r.rms_lower <= best.rms_upper]
    if close:
        text += f" (not told apart at this precision from {', '.join(close)})"
    if default is None:
        return text + "."
    if default is best:
        return text + ", and it is scikit-learn's default cv=5 (StratifiedKFold(5))."
    gain = 100 * (default.rms - best.rms) / default.rms
    overlap = best.rms_upper >= default.rms_lower
    text += (f"; scikit-learn's default cv=5 (StratifiedKFold(5)) has RMS {default.rms:.4f}, "
             f"so {best.label} is {gain:.1f}% more accurate")
    if overlap:
        text += " (within the Monte Carlo intervals: the two are not told apart at this precision)"
    return text + "."


def advise(
    data: Any,
    N: int | None = None,
    *,
    target: str | None = None,
    features: Sequence[str] | None = None,
    prior: Any = None,
    model: str = "full",
    classifier: Any = None,
    candidates: Sequence[str] | None = None,
    precision: float = 0.02,
    exact_seconds: float | None = 10.0,
    coverage: bool = True,
    posterior: int = 0,
    posterior_precision: float = 0.07,
    seed: int = 0,
    progress: bool | None = None,
    metric: Any = None,
    scoring: str | None = None,
    **load: Any,
) -> Advice:
    """Rank the candidate error estimators by their RMS against ``GE_N`` for data like yours.

    Parameters
    ----------
    data:
        A fitted model or :class:`~momentbound.CellModel`, or anything :func:`~momentbound.data.fit_cells`
        takes (a path, a DataFrame, ``(X, y)``, a :class:`~momentbound.data.DataTable`) with ``target``,
        ``features``, ``prior``, ``model`` and the loading keywords (``bins``, ``count_column``, ``missing``).
    N:
        The dataset size to plan for; default the data's number of rows (required for a plain model).
    classifier:
        ``NaiveBayes()`` (no smoothing, the paper's random ties) by default; any classifier plug-in.
    candidates:
        Keys of :data:`CANDIDATES` to keep (default all of them).
    precision:
        Monte Carlo rows: the relative half-width of the 95% interval on the RMS (default 2%).
    exact_seconds:
        A row is exact when the exact backend's work estimate is within this many seconds
        (``None``: every row Monte Carlo).
    coverage:
        Also the coverage for ``GE_N`` of the usual interval (naive CV, Clopper-Pearson hold-out,
        Nadeau-Bengio), where the estimator has one.
    posterior:
        ``M > 0``: repeat the ranking under ``M`` draws from the Dirichlet posterior of the cells
        (:func:`~momentbound.data.posterior_draws`) at ``posterior_precision``, and report the median
        and 90% interval of every RMS and how often the best stays best.
    seed:
        Seed of the Monte Carlo draws and of the posterior draws.
    progress:
        A bar on stderr: ``None`` when stderr is a terminal and the run is long, ``True``, ``False``.
    metric:
        Rank by the RMS of a linear statistic of the confusion matrix
        (:class:`~momentbound.estimators.metrics.LinearMetric`) against its ``GE_N`` counterpart: exact rows
        only; the candidates without its exact route are skipped, with the reason.
    scoring:
        Rank by the RMS of ``cross_val_score(..., scoring=...)``'s mean against the population value of the
        metric for the classifier trained on all ``N`` rows (Monte Carlo rows); the candidates that cannot
        compute it (the bootstrap family, leave-one-out for ``roc_auc``) are skipped, with the reason.
    """
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.data.fitting import FittedModel, posterior_draws
    from momentbound.estimators import make_engine
    from momentbound.progress import ProgressBar, check_progress

    start = time.perf_counter()
    check_progress(progress)
    for name, value in (("precision", precision), ("posterior_precision", posterior_precision)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.001 <= value <= 0.5):
            raise InvalidArgument(f"{name} must be a relative precision in [0.001, 0.5], got {value!r}")
    if isinstance(posterior, bool) or not isinstance(posterior, (int, np.integer)) or posterior < 0:
        raise InvalidArgument(f"posterior must be an integer M >= 0 of posterior draws, got {posterior!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgument(f"seed must be an integer >= 0, got {seed!r}")
    fitted = fitted_or_model(data, target, features, prior, model, load)
    if posterior and not isinstance(fitted, FittedModel):
        raise InvalidArgument("posterior draws need data (a fitted model), not a plain CellModel")
    N = planning_size(fitted, N)
    if metric is not None and scoring is not None:
        raise InvalidArgument("give scoring= (a scikit-learn scorer, by simulation) or metric= (an exact linear "
                              "statistic), not both")
    statistic_check = _statistic_check(fitted, N, classifier, metric, scoring)
    by_key = {c.key: c for c in CANDIDATES}
    keys = list(by_key) if candidates is None else list(candidates)
    for k in keys:
        if k not in by_key:
            raise InvalidArgument(f"candidates: unknown key {k!r}; the keys are {', '.join(by_key)}")
    chosen = []
    skipped = []
    for k in keys:
        try:
            statistic_check(by_key[k].build())
            chosen.append(by_key[k])
        except InvalidArgument as exc:  # e.g. 20 folds at N < 20
            skipped.append((k, str(exc)))
    if not chosen and (metric is not None or scoring is not None):
        raise InvalidArgument(f"no candidate can be ranked at N = {N} rows: "
                              + "; ".join(f"{k}: {reason}" for k, reason in skipped[:3]))
    if not chosen:
        raise InvalidArgument(f"no candidate can split N = {N} rows; plan for a larger N")
    clf = as_classifier(NaiveBayes() if classifier is None else classifier, fitted)
    # the exact routes in floating point (exact rationals are slower and the Monte Carlo rows are floats)
    plain = CellModel(fitted.arities, fitted.cells, fitted.n_classes).to_float()
    engine = make_engine(plain, classifier=clf, backend="exact")
    seeds = np.random.SeedSequence(seed)
    rng = np.random.default_rng(seeds.spawn(1)[0])
    total = len(chosen) * (1 + int(posterior))
    rows = []
    post_rms: dict[str, list[float]] = {c.key: [] for c in chosen}
    best_counts: dict[str, int] = {c.key: 0 for c in chosen}
    with ProgressBar(total, progress, "advise", 0.0, unit="estimator runs") as bar:
        for cand in chosen:
            rows.append(accuracy_row(plain, N, cand, classifier=clf, engine=engine, rng=rng, precision=precision,
                                     exact_seconds=exact_seconds, coverage=coverage, metric=metric, scoring=scoring))
            bar.advance(1)
        if posterior:
            draws = posterior_draws(fitted, int(posterior), int(seeds.generate_state(1)[0]))
            for m in draws:
                cm = CellModel(m.arities, m.cells, m.n_classes)
                eng = make_engine(cm, classifier=clf, backend="exact")
                here = {}
                for cand in chosen:
                    r = accuracy_row(cm, N, cand, classifier=clf, engine=eng, rng=rng, precision=posterior_precision,
                                     exact_seconds=exact_seconds, coverage=False, pilot=POSTERIOR_PILOT, metric=metric,
                                     scoring=scoring)
                    here[cand.key] = r.rms
                    post_rms[cand.key].append(r.rms)
                    bar.advance(1)
                best_counts[min(here, key=here.get)] += 1
    rows.sort(key=lambda r: r.rms)
    best = rows[0]
    default = next((r for r in rows if r.key == DEFAULT_CV), None)
    post = None
    if posterior:
        post = {
            "draws": int(posterior),
            "precision": posterior_precision,
            "best_stays_best": best_counts[best.key] / int(posterior),
            "best_counts": best_counts,
            "rms": {k: {"median": float(np.median(v)), "lower_90": float(np.quantile(v, 0.05)),
                        "upper_90": float(np.quantile(v, 0.95))} for k, v in post_rms.items()},
        }
    name = scoring if scoring is not None else ("error" if metric is None else metric.name)
    sentence = _sentence(best, default, N, rows, name)
    if post is not None:
        sentence += (f" Under {posterior} draws from the posterior of the cells, {best.label} is best in "
                     f"{100 * post['best_stays_best']:.0f}% of them.")
    describe = fitted.describe() if isinstance(fitted, FittedModel) else None
    return Advice(N=N, rows=tuple(rows), best=best, default=default, sentence=sentence, classifier=clf.describe(),
                  model=describe, precision=precision, seconds=time.perf_counter() - start, posterior=post,
                  skipped=tuple(skipped), statistic=name)


def _statistic_check(fitted: Any, N: int, classifier: Any, metric: Any, scoring: str | None) -> Callable[[Any], None]:
    """What refuses a candidate splitter before any work: its split at ``N``, and the statistic's own route
    (``metric``: an exact linear statistic of the splitter; ``scoring``: the scorer simulated on its folds)."""
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.estimators.metrics import check_metric
    from momentbound.estimators.scoring import check_scoring, check_scoring_run

    if scoring is not None:
        check_scoring(scoring, fitted.n_classes)
    clf = as_classifier(NaiveBayes() if classifier is None else classifier, fitted)
    plain = CellModel(fitted.arities, fitted.cells, fitted.n_classes).to_float()

    def check(est: Any) -> None:
        est.split(N)
        if metric is not None:
            check_metric(metric, est, "exact")
        if scoring is not None:
            check_scoring_run(plain, N, est, scoring, classifier=clf, draws=PILOT_DRAWS, max_seconds=None)
    return check

