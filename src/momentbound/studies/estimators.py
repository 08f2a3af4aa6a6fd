"""Which error estimator? Bias, RMS and correlation with ``GE_N`` of every estimator, and published claims.

For the paper's one-attribute model (input independent of the class, prior 0.4; naive Bayes with
``alpha = 1``, ties to the first class, as ``CategoricalNB``) and a histogram-rule model (a 2x2
grid), this study computes, against ``GE_N`` (the error of the classifier trained on all ``N``
points; docs/mathematics.md, "Accuracy against GE_N"), the bias, the standard deviation, the RMS
and the correlation of resubstitution, hold-out, 5- and 10-fold CV (``KFold`` and
``StratifiedKFold``), leave-one-out, the ideal bootstrap Err(1), .632 and .632+, all exact
(columns ``*_lower``, ``*_upper`` equal the value). For the four cross-validation rows it also
measures, by Monte Carlo with confidence intervals, the coverage of the naive interval
``CE +- z s / sqrt(v)`` at nominal 95% of ``GE_N`` and of ``E[GE_N]`` (columns ``coverage_ge_full``,
``coverage_expected_ge_full`` with ``_lower`` / ``_upper``; empty for the other rows).

The published claims checked (docs/which-estimator.md): Braga-Neto & Dougherty, Pattern
Recognition 38 (2005); Braga-Neto & Dougherty, Pattern Recognition Letters 31 (2010); Efron &
Tibshirani, JASA 92 (1997); Kohavi, IJCAI (1995); Bates, Hastie & Tibshirani, JASA 119 (2024).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from momentbound.errors import InvalidArgument
from momentbound.guard import block_seconds
from momentbound.intervals import Enclosure
from momentbound.studies._common import Progress, check_mc_options, check_positive_int, new_figure
from momentbound.studies.claims import fmt
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult, Verdict

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from momentbound.model import CellModel

__all__ = ["estimators_study", "estimators_frame", "estimator_models", "estimator_list"]

#: quantities reported per estimator (each with ``_lower`` / ``_upper``)
QUANTITIES = ("mean", "std", "bias", "deviation_std", "rms", "correlation_with_ge")
#: coverage of the naive CV interval: target -> column (each with ``_lower`` / ``_upper``)
COVERAGE_COLUMNS = (("ge-full", "coverage_ge_full"), ("expected-ge-full", "coverage_expected_ge_full"))
#: nominal level of the naive CV interval
NOMINAL = 0.95


def estimator_models() -> "tuple[tuple[str, CellModel, Any], ...]":
    """``(label, model, classifier)`` of the study: the paper's 1-D model and a histogram-rule model."""
    from momentbound.classifiers import HistogramRule, NaiveBayes
    from momentbound.model import CellModel, independent_1d_model

    grid = CellModel((2, 2), [0.15, 0.10, 0.10, 0.15, 0.15, 0.05, 0.05, 0.25])
    return (
        ("paper 1-D model, naive Bayes", independent_1d_model("2/5"), NaiveBayes(ties="first", alpha=1)),
        ("2x2 grid, histogram rule", grid, HistogramRule(ties="first")),
    )


def estimator_list(N: int, holdout_sizes: Sequence[int]) -> tuple[tuple[str, Any], ...]:
    """``(label, splitter)`` pairs in the study's order."""
    from momentbound.splitters import (
        Bootstrap,
        HoldOut,
        KFold,
        LeaveOneOut,
        Point632,
        Point632Plus,
        Resubstitution,
        StratifiedKFold,
    )

    out: list[tuple[str, Any]] = [("resubstitution", Resubstitution())]
    out += [(f"hold-out {s}/{N}", HoldOut(test_size=s)) for s in holdout_sizes]
    out += [("5-fold", KFold(5)), ("10-fold", KFold(10)),
            ("stratified 5-fold", StratifiedKFold(5)), ("stratified 10-fold", StratifiedKFold(10)),
            ("leave-one-out", LeaveOneOut()), ("bootstrap Err(1)", Bootstrap()),
            (".632", Point632()), (".632+", Point632Plus())]
    return tuple(out)


def _triple(value: Any) -> tuple[float, float, float]:
    if value is None:
        return (math.nan, math.nan, math.nan)
    if isinstance(value, Enclosure):
        return (float(value.estimate), float(value.lower), float(value.upper))
    v = float(value)
    return (v, v, v)


def _sqrt3(t: tuple[float, float, float]) -> tuple[float, float, float]:
    return tuple(math.sqrt(max(x, 0.0)) for x in t)  # type: ignore[return-value]


def estimators_frame(
    model: "CellModel",
    classifier: Any,
    N: int,
    holdout_sizes: Sequence[int],
    *,
    model_label: str = "",
    draws: int = 20_000,
    confidence: float = 0.95,
    seed: int = 2026,
    progress: Progress | None = None,
) -> "pd.DataFrame":
    """One row per estimator: exact accuracy against ``GE_N``; naive CV interval coverage (Monte Carlo).

    Columns: ``model``, ``N``, ``estimator``, ``backend``, ``ge_full_mean`` and, for each of
    ``mean``, ``std``, ``bias``, ``deviation_std`` (std of ``est - GE_N``), ``rms`` and
    ``correlation_with_ge``, the value and ``_lower`` / ``_upper`` (equal to it when exact); for the
    ``KFold`` and ``StratifiedKFold`` rows, ``coverage_ge_full`` and ``coverage_expected_ge_full``
    (probability that ``CE +- z s / sqrt(v)`` at nominal 95% covers ``GE_N``, ``E[GE_N]``; ``draws``
    simulated datasets, ``confidence`` intervals ``_lower`` / ``_upper``).
    """
    import numpy as np
    import pandas as pd

    from momentbound.estimators import make_engine
    from momentbound.estimators.accuracy import estimator_accuracy
    from momentbound.estimators.coverage import interval_coverage
    from momentbound.splitters import KFold, StratifiedKFold

    N = check_positive_int(N, name="N", minimum=4)
    for s in holdout_sizes:
        check_positive_int(s, name="holdout_sizes", minimum=1)
        if s >= N:
            raise InvalidArgument(f"holdout_sizes must be below N = {N}, got {s}; use test sizes 1..{N - 1}")
    check_mc_options(draws, confidence, seed)
    engine = make_engine(model, classifier=classifier, backend="exact")
    rows = []
    items = estimator_list(N, holdout_sizes)
    for i, (name, est) in enumerate(items):
        acc = estimator_accuracy(model, N, est, classifier=classifier, engine=engine)
        row: dict[str, Any] = {"model": model_label, "N": N, "estimator": name, "backend": acc.backend,
                               "ge_full_mean": _triple(acc.ge_full_mean)[0]}
        values = {
            "mean": _triple(acc.mean),
            "std": _sqrt3(_triple(acc.variance)),
            "bias": _triple(acc.bias),
            "deviation_std": _sqrt3(_triple(acc.deviation_variance)),
            "rms": _triple(acc.rms),
            "correlation_with_ge": _triple(acc.correlation_with_ge),
        }
        for q in QUANTITIES:
            row[q], row[f"{q}_lower"], row[f"{q}_upper"] = values[q]
        for j, (target, column) in enumerate(COVERAGE_COLUMNS):
            cov = (math.nan,) * 3
            if isinstance(est, (KFold, StratifiedKFold)):
                res = interval_coverage(model, N, "naive-cv", est, target=target, classifier=classifier,
                                        nominal=NOMINAL, draws=draws, confidence=confidence,
                                        rng=np.random.default_rng([seed, i, j]), max_seconds=block_seconds())
                cov = _triple(res.coverage)
            row[column], row[f"{column}_lower"], row[f"{column}_upper"] = cov
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(items))
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- claims
def _get(df: "pd.DataFrame", model: str, est: str, q: str) -> tuple[float, float, float]:
    r = df[(df["model"] == model) & (df["estimator"] == est)].iloc[0]
    return float(r[q]), float(r[f"{q}_lower"]), float(r[f"{q}_upper"])


def _less(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool | None:
    """True if a < b surely, False if a >= b surely, None if the intervals overlap."""
    if a[2] < b[1]:
        return True
    if a[1] >= b[2]:
        return False
    return None


def _verdict(flags: list[bool | None], *, every: bool) -> Verdict:
    if every:
        if all(f is True for f in flags):
            return Verdict.REPRODUCED
        if any(f is False for f in flags):
            return Verdict.NOT_REPRODUCED
        return Verdict.INCONCLUSIVE
    if any(f is True for f in flags):
        return Verdict.REPRODUCED
    if all(f is False for f in flags):
        return Verdict.NOT_REPRODUCED
    return Verdict.INCONCLUSIVE


def _claims(df: "pd.DataFrame") -> tuple[ClaimCheck, ...]:
    models = list(dict.fromkeys(df["model"]))
    checks: list[ClaimCheck] = []

    # Braga-Neto & Dougherty 2005: resubstitution's RMS below CV's (10-fold, leave-one-out)
    flags, ev = [], []
    for m in models:
        r = _get(df, m, "resubstitution", "rms")
        for cv in ("10-fold", "leave-one-out"):
            c = _get(df, m, cv, "rms")
            flags.append(_less(r, c))
            ev.append(f"{m}: RMS resubstitution {fmt(r[0])} vs {cv} {fmt(c[0])}")
    checks.append(ClaimCheck("Braga-Neto & Dougherty 2005",
                             "resubstitution's RMS can be lower than cross-validation's for a low-complexity "
                             "discrete classifier", _verdict(flags, every=False), "; ".join(ev)))

    # Braga-Neto & Dougherty 2005: leave-one-out has high variance (largest std among CV, resub, bootstrap)
    flags, ev = [], []
    for m in models:
        loo = _get(df, m, "leave-one-out", "deviation_std")
        for other in ("resubstitution", "10-fold", "bootstrap Err(1)", ".632"):
            o = _get(df, m, other, "deviation_std")
            flags.append(_less(o, loo))
        ev.append(f"{m}: std(est - GE_N) leave-one-out {fmt(loo[0])}, 10-fold "
                  f"{fmt(_get(df, m, '10-fold', 'deviation_std')[0])}, resubstitution "
                  f"{fmt(_get(df, m, 'resubstitution', 'deviation_std')[0])}, .632 "
                  f"{fmt(_get(df, m, '.632', 'deviation_std')[0])}")
    checks.append(ClaimCheck("Braga-Neto & Dougherty 2005",
                             "leave-one-out has high variance: its deviation from GE_N varies more than that of "
                             "10-fold CV, resubstitution, Err(1) and .632", _verdict(flags, every=True), "; ".join(ev)))

    # Braga-Neto & Dougherty 2010: negative correlation of leave-one-out with GE_N
    flags, ev = [], []
    for m in models:
        c = _get(df, m, "leave-one-out", "correlation_with_ge")
        flags.append(_less(c, (0.0, 0.0, 0.0)))
        ev.append(f"{m}: corr(LOO, GE_N) = {fmt(c[0])}")
    checks.append(ClaimCheck("Braga-Neto & Dougherty 2010",
                             "the correlation between the leave-one-out estimate and the true error can be negative",
                             _verdict(flags, every=False), "; ".join(ev)))

    # Efron & Tibshirani 1997: Var(.632) < Var(LOO); downward bias on some model
    flags, ev = [], []
    for m in models:
        a, b = _get(df, m, ".632", "std"), _get(df, m, "leave-one-out", "std")
        flags.append(_less(a, b))
        ev.append(f"{m}: Std(.632) = {fmt(a[0])}, Std(LOO) = {fmt(b[0])}")
    checks.append(ClaimCheck("Efron & Tibshirani 1997", ".632 has lower variance than leave-one-out",
                             _verdict(flags, every=True), "; ".join(ev)))
    flags, ev = [], []
    for m in models:
        b = _get(df, m, ".632", "bias")
        flags.append(_less(b, (0.0, 0.0, 0.0)))
        ev.append(f"{m}: bias(.632) = {fmt(b[0])}")
    checks.append(ClaimCheck("Efron & Tibshirani 1997", ".632 is biased downward on some models",
                             _verdict(flags, every=False), "; ".join(ev)))

    # Kohavi 1995: stratified 10-fold recommended -> lowest RMS among the cross-validation family
    flags, ev = [], []
    for m in models:
        s10 = _get(df, m, "stratified 10-fold", "rms")
        for other in ("5-fold", "10-fold", "stratified 5-fold", "leave-one-out"):
            flags.append(_less(s10, _get(df, m, other, "rms")))
        part = df[df["model"] == m].sort_values("rms")
        rank = list(part["estimator"]).index("stratified 10-fold") + 1
        ev.append(f"{m}: RMS stratified 10-fold {fmt(s10[0])}, rank {rank} of "
                  f"{len(part)} (best: {part['estimator'].iloc[0]} {fmt(float(part['rms'].iloc[0]))})")
    checks.append(ClaimCheck("Kohavi 1995",
                             "stratified 10-fold CV is the recommended choice: lowest RMS in the "
                             "cross-validation family (5-, 10-fold, stratified 5-fold, leave-one-out)",
                             _verdict(flags, every=True), "; ".join(ev)))

    # Bates, Hastie & Tibshirani 2024: the naive CV interval undercovers GE_N and E[GE_N]
    flags, ev = [], []
    for m in models:
        part = df[(df["model"] == m) & df["coverage_ge_full"].notna()]
        for est in part["estimator"]:
            items = []
            for _, column in COVERAGE_COLUMNS:
                c = _get(df, m, est, column)
                flags.append(_less(c, (NOMINAL, NOMINAL, NOMINAL)))
                items.append(f"{fmt(c[0])} [{fmt(c[1])}, {fmt(c[2])}]")
            ev.append(f"{m}, {est}: coverage of GE_N {items[0]}, of E[GE_N] {items[1]}")
    checks.append(ClaimCheck("Bates, Hastie & Tibshirani 2024",
                             f"the naive CV interval CE +- z s / sqrt(v) undercovers: at nominal {NOMINAL:.0%} it "
                             "covers GE_N and E[GE_N] less often (KFold and StratifiedKFold, 5 and 10 folds)",
                             _verdict(flags, every=True), "; ".join(ev)))
    return tuple(checks)


def _plot(df: "pd.DataFrame", title: str) -> Any:
    models = list(dict.fromkeys(df["model"]))
    panels = (("bias", "bias E[est - GE_N]"), ("rms", "RMS against GE_N"),
              ("correlation_with_ge", "corr(est, GE_N)"), ("coverage", "naive CV interval coverage"))
    fig, axes = new_figure(len(models), len(panels), title, width=4.6, height=4.2)
    for i, m in enumerate(models):
        part = df[df["model"] == m]
        names = list(part["estimator"])
        y = list(range(len(names)))[::-1]
        for j, (q, xlabel) in enumerate(panels):
            ax = axes[i * len(panels) + j]
            if q == "coverage":
                _coverage_panel(ax, part, names, y)
            else:
                ax.plot(part[q], y, "o", color="C0", label="exact")
                ax.axvline(0.0, color="grey", lw=0.8) if q != "rms" else None
            ax.set_yticks(y)
            ax.set_yticklabels(names if j == 0 else [""] * len(names), fontsize=8)
            ax.set_title(f"{xlabel}: {m}, N = {int(part['N'].iloc[0])}", fontsize=9)
            ax.set_xlabel(xlabel if q != "coverage" else f"P[interval covers] (nominal {NOMINAL:.0%})")
            ax.grid(True, alpha=0.3)
            if i == 0 and j in (1, 3):
                ax.legend(fontsize=7)
    return fig


def _coverage_panel(ax: Any, part: "pd.DataFrame", names: list[str], y: list[int]) -> None:
    """Coverage of GE_N and of E[GE_N] by the naive CV interval, Monte Carlo intervals as error bars."""
    for k, ((target, column), marker) in enumerate(zip(COVERAGE_COLUMNS, ("s", "D"))):
        rows = [(yy, r) for yy, (_, r) in zip(y, part.iterrows()) if r[column] == r[column]]
        if not rows:
            continue
        vals = [float(r[column]) for _, r in rows]
        err = [[v - float(r[f"{column}_lower"]) for v, (_, r) in zip(vals, rows)],
               [float(r[f"{column}_upper"]) - v for v, (_, r) in zip(vals, rows)]]
        label = "covers GE_N" if target == "ge-full" else "covers E[GE_N]"
        ax.errorbar(vals, [yy + (0.15 if k else -0.15) for yy, _ in rows], xerr=err, fmt=marker,
                    color=f"C{3 + k}", capsize=3, label=f"{label} (Monte Carlo, 95% interval)")
    ax.axvline(NOMINAL, color="grey", lw=0.8, ls="--")


def estimators_study(
    *,
    N: int = 20,
    holdout_sizes: Sequence[int] = (5, 10),
    draws: int = 20_000,
    confidence: float = 0.95,
    seed: int = 2026,
    progress: Progress | None = None,
) -> StudyResult:
    """Which error estimator? Accuracy of each estimator against ``GE_N`` and published claims.

    Parameters
    ----------
    N:
        Dataset size (both models).
    holdout_sizes:
        Test-set sizes of the hold-out estimators.
    draws, confidence, seed:
        Monte Carlo settings of the coverage of the naive CV interval (the only simulated numbers).
    progress:
        Optional ``progress(done, total)`` callback (one step per estimator and model).

    Returns
    -------
    StudyResult
        Data columns as :func:`estimators_frame`, stacked over the models; one claim check per
        published claim.

    Examples
    --------
    >>> res = estimators_study(N=8, holdout_sizes=(2, 4), draws=2000)  # doctest: +SKIP
    >>> [c.verdict.value for c in res.checks]  # doctest: +SKIP
    """
    import pandas as pd

    start = time.perf_counter()
    frames = [estimators_frame(model, clf, N, holdout_sizes, model_label=name, draws=draws,
                               confidence=confidence, seed=seed, progress=progress)
              for name, model, clf in estimator_models()]
    df = pd.concat(frames, ignore_index=True)
    seconds = time.perf_counter() - start
    title = (f"Which error estimator? Bias, RMS and correlation against GE_N, N = {N}: paper 1-D model "
             f"(naive Bayes, alpha 1, ties first) and a 2x2 grid (histogram rule); exact; coverage of the "
             f"naive CV interval by Monte Carlo ({draws} draws, seed {seed})")
    fig = _plot(df, title)
    sources = (
        CurveSource("accuracy against GE_N (every row)", "exact", "exact"),
        CurveSource("coverage of the naive CV interval", "montecarlo", "estimate",
                    note="simulated datasets; StratifiedKFold conditional on a split", draws=draws,
                    confidence=confidence, seed=seed),
    )
    return StudyResult(
        name="estimators",
        title=title,
        parameters=(("N", N), ("holdout_sizes", tuple(int(s) for s in holdout_sizes)), ("draws", draws),
                    ("confidence", confidence), ("seed", seed)),
        data=df,
        figure=fig,
        sources=sources,
        checks=_claims(df),
        seconds=seconds,
    )
