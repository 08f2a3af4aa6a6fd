"""Which error estimator? Bias, RMS and correlation with ``GE_N`` of every estimator, and published claims.

For the paper's one-attribute model (input independent of the class, prior 0.4; naive Bayes with
``alpha = 1``, ties to the first class, as ``CategoricalNB``) and a histogram-rule model (a 2x2
grid), this study computes, against ``GE_N`` (the error of the classifier trained on all ``N``
points; docs/mathematics.md, "Accuracy against GE_N"), the bias, the standard deviation, the RMS
and the correlation of resubstitution, hold-out, 5- and 10-fold CV (``KFold`` and
``StratifiedKFold``), leave-one-out, the ideal bootstrap Err(1), .632 and .632+. Everything is
exact except ``StratifiedKFold``, whose joint term with ``GE_N`` has no exact route: Monte Carlo
with confidence intervals (columns ``*_lower``, ``*_upper``; equal to the value for exact rows).

The published claims checked (docs/which-estimator.md): Braga-Neto & Dougherty, Pattern
Recognition 38 (2005); Braga-Neto & Dougherty, Pattern Recognition Letters 31 (2010); Efron &
Tibshirani, JASA 92 (1997); Kohavi, IJCAI (1995). Bates, Hastie & Tibshirani, JASA (2024) on the
coverage of the naive CV interval is not checked here (stated in the notes).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from momentbound.errors import InvalidArgument
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
    """One row per estimator: accuracy against ``GE_N`` (exact; Monte Carlo for ``StratifiedKFold``).

    Columns: ``model``, ``N``, ``estimator``, ``backend``, ``ge_full_mean`` and, for each of
    ``mean``, ``std``, ``bias``, ``deviation_std`` (std of ``est - GE_N``), ``rms`` and
    ``correlation_with_ge``, the value and ``_lower`` / ``_upper`` (equal to it when exact).
    """
    import numpy as np
    import pandas as pd

    from momentbound.estimators import make_engine
    from momentbound.estimators.accuracy import estimator_accuracy
    from momentbound.splitters import StratifiedKFold

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
        if isinstance(est, StratifiedKFold):
            acc = estimator_accuracy(model, N, est, classifier=classifier, backend="montecarlo", draws=draws,
                                     confidence=confidence, rng=np.random.default_rng([seed, i]))
        else:
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
        ev.append(f"{m}: RMS stratified 10-fold {fmt(s10[0])} [{fmt(s10[1])}, {fmt(s10[2])}], rank {rank} of "
                  f"{len(part)} (best: {part['estimator'].iloc[0]} {fmt(float(part['rms'].iloc[0]))})")
    checks.append(ClaimCheck("Kohavi 1995",
                             "stratified 10-fold CV is the recommended choice: lowest RMS in the "
                             "cross-validation family (5-, 10-fold, stratified 5-fold, leave-one-out)",
                             _verdict(flags, every=True), "; ".join(ev)))
    return tuple(checks)


def _plot(df: "pd.DataFrame", title: str) -> Any:
    models = list(dict.fromkeys(df["model"]))
    panels = (("bias", "bias E[est - GE_N]"), ("rms", "RMS against GE_N"),
              ("correlation_with_ge", "corr(est, GE_N)"))
    fig, axes = new_figure(len(models), len(panels), title, width=4.6, height=4.2)
    for i, m in enumerate(models):
        part = df[df["model"] == m]
        names = list(part["estimator"])
        y = list(range(len(names)))[::-1]
        for j, (q, xlabel) in enumerate(panels):
            ax = axes[i * len(panels) + j]
            exact = part["backend"] == "exact"
            lo = (part[q] - part[f"{q}_lower"]).to_numpy()
            hi = (part[f"{q}_upper"] - part[q]).to_numpy()
            ys = [y[k] for k in range(len(names))]
            ax.errorbar([v for v, e in zip(part[q], exact) if e], [yy for yy, e in zip(ys, exact) if e],
                        fmt="o", color="C0", label="exact")
            ax.errorbar([v for v, e in zip(part[q], exact) if not e], [yy for yy, e in zip(ys, exact) if not e],
                        xerr=[[a for a, e in zip(lo, exact) if not e], [b for b, e in zip(hi, exact) if not e]],
                        fmt="s", color="C3", capsize=3, label="Monte Carlo (95% interval)")
            if q != "rms":
                ax.axvline(0.0, color="grey", lw=0.8)
            ax.set_yticks(y)
            ax.set_yticklabels(names if j == 0 else [""] * len(names), fontsize=8)
            ax.set_title(f"{xlabel}: {m}, N = {int(part['N'].iloc[0])}", fontsize=9)
            ax.set_xlabel(xlabel)
            ax.grid(True, alpha=0.3)
            if i == 0 and j == 1:
                ax.legend(fontsize=7)
    return fig


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
        Monte Carlo settings of the ``StratifiedKFold`` rows (the only ones without an exact route).
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
             f"(naive Bayes, alpha 1, ties first) and a 2x2 grid (histogram rule); exact, "
             f"StratifiedKFold by Monte Carlo ({draws} draws, seed {seed})")
    fig = _plot(df, title)
    sources = (
        CurveSource("exact rows", "exact", "exact"),
        CurveSource("stratified rows", "montecarlo", "estimate", note="StratifiedKFold has no exact joint term with GE_N",
                    draws=draws, confidence=confidence, seed=seed),
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
        notes=("Bates, Hastie & Tibshirani 2024 (the naive CV interval undercovers): not checked; the "
               "coverage of the interval est +- z s / sqrt(v) is not computed by this study",),
    )
