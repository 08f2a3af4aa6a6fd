"""Bias and variance of the 0-1 loss: naive Bayes against the histogram rule, against N and alpha.

One model with two attributes of three values each (9 inputs, ``P[X = x] = 1/9``, two classes)
whose class probability is nearly additive in the two attributes but not quite (class 0 is slightly
favoured on the diagonal inputs (1, 1) and (2, 2)): naive Bayes, whose log-odds are additive in the
attributes, predicts class 1 there however much data it sees (bias on two of the nine inputs),
while the histogram rule (the majority of each input's cell, any boundary) converges to the Bayes
classifier. Both decide ties as scikit-learn does (``ties="first"``). For each training
size ``n`` the exact prediction law at every input gives Domingos' decomposition (noise term,
bias, variance, net variance) and Kohavi-Wolpert's (noise, squared bias, variance),
docs/mathematics.md, section 'Bias and variance of the 0-1 loss'; then naive Bayes at one ``n``
against its smoothing ``alpha``.

The claims checked are the textbook ones (Duda, Hart & Stork, *Pattern Classification*, Section
9.3, Fig. 9.4, in the course notes): the more flexible model has the lower bias and the larger
variance; the flexible model's bias vanishes with ``n`` while the rigid one's does not; the
variance of both falls towards zero as ``n`` grows; and smoothing, which makes naive Bayes more
rigid, trades variance for bias.

Columns: ``classifier`` (``naive-bayes`` or ``histogram``), ``axis`` (``n`` or ``alpha``), ``n``,
``alpha`` (empty for the histogram rule), ``expected_error`` (``E[GE_n]``), ``noise``,
``noise_term``, ``bias``, ``variance``, ``net_variance``, ``unbiased_variance``,
``biased_variance`` (Domingos) and ``kw_noise``, ``kw_bias2``, ``kw_variance`` (Kohavi-Wolpert).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from momentbound.studies._common import Progress, as_float, check_int_grid, check_positive_int, label, new_figure
from momentbound.studies.claims import check_less_than, check_trend, fmt
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult, Verdict

__all__ = ["bias_variance_study", "interaction_model", "CLASS_ZERO"]

#: ``P[Y = 0 | X = (a, b)]`` of :func:`interaction_model`, row ``a``, column ``b``
CLASS_ZERO = (("9/10", "7/10", "3/5"), ("7/10", "11/20", "3/10"), ("3/5", "3/10", "11/20"))

_NOTES = "Duda, Hart & Stork, Sec. 9.3"


def interaction_model() -> Any:
    """The study's model: two attributes with 3 values, uniform inputs, ``P[Y = 0 | x]`` from
    :data:`CLASS_ZERO`."""
    from momentbound.model import CellModel

    cells = []
    for row in CLASS_ZERO:
        for q in row:
            cells += [Fraction(q) / 9, (1 - Fraction(q)) / 9]
    return CellModel((3, 3), cells)


def _residual(res: Any) -> float:
    """Largest ``|terms - E[GE_n]|`` of both decompositions (0 exactly in Fractions)."""
    kw = res.as_decomposition("kohavi-wolpert")
    return max(abs(float(res.noise_term + res.bias + res.variance_term - res.expected_error)),
               abs(float(kw.noise + kw.bias + kw.variance - kw.expected_error)))


def _row(res: Any, name: str, axis: str) -> dict[str, Any]:
    kw = res.as_decomposition("kohavi-wolpert")
    return {
        "classifier": name,
        "axis": axis,
        "n": res.n,
        "alpha": None if res.alpha is None else float(res.alpha),
        "expected_error": as_float(res.expected_error),
        "noise": as_float(res.noise),
        "noise_term": as_float(res.noise_term),
        "bias": as_float(res.bias),
        "variance": as_float(res.variance),
        "net_variance": as_float(res.variance_term),
        "unbiased_variance": as_float(res.unbiased_variance),
        "biased_variance": as_float(res.biased_variance),
        "kw_noise": as_float(kw.noise),
        "kw_bias2": as_float(kw.bias),
        "kw_variance": as_float(kw.variance),
    }


def _vanishing_bias(nb: Any, hist: Any) -> ClaimCheck:
    last_nb, last_h = nb.iloc[-1], hist.iloc[-1]
    ok = last_h["bias"] == 0 and last_nb["bias"] > 0
    return ClaimCheck(
        _NOTES, "with enough data the flexible model's bias vanishes (it reaches the Bayes classifier) and the "
        "rigid model's does not",
        Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED,
        f"at n = {int(last_nb['n'])}: bias of the histogram rule {fmt(last_h['bias'])}, of naive Bayes "
        f"{fmt(last_nb['bias'])}; the histogram rule's bias is 0 from n = "
        f"{_first_zero(hist)} on the grid",
    )


def _first_zero(frame: Any) -> str:
    zero = frame["bias"].to_numpy() == 0
    for i in range(len(zero)):
        if zero[i:].all():
            return str(int(frame["n"].iloc[i]))
    return "never"


def _smoothing(alpha_frame: Any, n: int) -> list[ClaimCheck]:
    a = alpha_frame["alpha"].to_numpy()
    return [
        check_trend(a, alpha_frame["kw_bias2"], direction="increasing", figure=_NOTES,
                    claim=f"more smoothing (larger alpha, a more rigid naive Bayes) raises the squared bias (n = {n})"),
        check_trend(a, alpha_frame["kw_variance"], direction="decreasing", figure=_NOTES,
                    claim=f"more smoothing lowers the variance (Kohavi-Wolpert, n = {n})"),
    ]


def bias_variance_study(
    *,
    sizes: Sequence[int] = (5, 10, 15, 20, 30, 50, 75, 100, 150, 200),
    alphas: Sequence[Any] = ("0", "1/4", "1/2", "1", "2", "4", "8", "16"),
    alpha_n: int = 30,
    ties: str = "first",
    backend: str = "exact",
    progress: Progress | None = None,
) -> StudyResult:
    """Noise, bias and variance of naive Bayes and the histogram rule against ``n`` and ``alpha``.

    Parameters
    ----------
    sizes:
        Training sizes ``n`` of the curves against ``n`` (naive Bayes with ``alpha = 0``).
    alphas:
        Smoothing values of naive Bayes at ``alpha_n`` training points.
    alpha_n:
        Training size of the curve against ``alpha``.
    ties, backend:
        Tie rule of both classifiers and the prediction-probability backend.

    Returns
    -------
    StudyResult
        The columns of the module docstring, one row per (classifier, n) and per alpha.
    """
    import pandas as pd

    from momentbound.classifiers import HistogramRule, NaiveBayes
    from momentbound.estimators.bias_variance import bias_variance_curve

    grid = check_int_grid(sizes, name="sizes", minimum=1)
    alpha_n = check_positive_int(alpha_n, name="alpha_n")
    model = interaction_model()
    start = time.perf_counter()
    nb = NaiveBayes(ties, 0)
    hist = HistogramRule(ties)
    total = 2 * len(grid) + len(alphas)
    done = 0
    rows = []
    results = []
    for name, clf in (("naive-bayes", nb), ("histogram", hist)):
        for n in grid:
            (res,) = bias_variance_curve(model, (n,), classifier=clf, backend=backend)
            rows.append(_row(res, name, "n"))
            results.append(res)
            done += 1
            if progress is not None:
                progress(done, total)
    smoothed = bias_variance_curve(model, (alpha_n,), classifier=nb, alphas=alphas, backend=backend)
    rows += [_row(r, "naive-bayes", "alpha") for r in smoothed]
    results += smoothed
    if progress is not None:
        progress(total, total)
    seconds = time.perf_counter() - start
    df = pd.DataFrame(rows)
    by_n = df[df["axis"] == "n"]
    nb_n = by_n[by_n["classifier"] == "naive-bayes"].reset_index(drop=True)
    h_n = by_n[by_n["classifier"] == "histogram"].reset_index(drop=True)
    alpha_df = df[df["axis"] == "alpha"].reset_index(drop=True)
    x = nb_n["n"].to_numpy()
    checks = [
        check_less_than(x, h_n["bias"], nb_n["bias"], figure=_NOTES, names=("bias (histogram)", "bias (naive Bayes)"),
                        claim="the more flexible histogram rule has a lower bias than naive Bayes (Domingos)"),
        check_less_than(x, nb_n["variance"], h_n["variance"], figure=_NOTES,
                        names=("variance (naive Bayes)", "variance (histogram)"),
                        claim="the more flexible histogram rule has a larger variance than naive Bayes (Domingos)"),
        check_less_than(x, h_n["kw_bias2"], nb_n["kw_bias2"], figure=_NOTES,
                        names=("bias^2 (histogram)", "bias^2 (naive Bayes)"),
                        claim="the histogram rule has a lower squared bias than naive Bayes (Kohavi-Wolpert)"),
        check_less_than(x, nb_n["kw_variance"], h_n["kw_variance"], figure=_NOTES,
                        names=("variance (naive Bayes)", "variance (histogram)"),
                        claim="the histogram rule has a larger variance than naive Bayes (Kohavi-Wolpert)"),
        _vanishing_bias(nb_n, h_n),
        check_trend(x, nb_n["variance"], direction="decreasing", figure=_NOTES,
                    claim="the variance of naive Bayes falls as n grows (Domingos)"),
        check_trend(x, h_n["variance"], direction="decreasing", figure=_NOTES,
                    claim="the variance of the histogram rule falls as n grows (Domingos)"),
        *_smoothing(alpha_df, alpha_n),
    ]
    title = (f"Bias and variance of the 0-1 loss: naive Bayes (alpha = 0) and the histogram rule, 3x3 model, "
             f"ties = {ties}, backend = {backend}")
    fig, axes = new_figure(1, 3, title, width=4.6, height=3.8)
    for frame, name, style in ((nb_n, "NB", "-"), (h_n, "hist", "--")):
        axes[0].plot(frame["n"], frame["expected_error"], "k" + style, lw=1.2, label=f"E[GE], {name}")
        axes[0].plot(frame["n"], frame["bias"], "o" + style, ms=3, color="C0", label=f"bias, {name}")
        axes[0].plot(frame["n"], frame["variance"], "s" + style, ms=3, color="C1", label=f"variance, {name}")
        axes[0].plot(frame["n"], frame["net_variance"], "^" + style, ms=3, color="C2", label=f"net variance, {name}")
        axes[0].plot(frame["n"], frame["noise_term"], "v" + style, ms=3, color="C3", label=f"c1 x noise, {name}")
        axes[1].plot(frame["n"], frame["kw_bias2"], "o" + style, ms=3, color="C0", label=f"bias^2, {name}")
        axes[1].plot(frame["n"], frame["kw_variance"], "s" + style, ms=3, color="C1", label=f"variance, {name}")
    axes[1].axhline(float(nb_n["kw_noise"].iloc[0]), color="C3", lw=1, label="noise")
    for ax in axes[:2]:
        ax.set_xscale("log")
    label(axes[0], title="Domingos (2000)", xlabel="training size n", ylabel="term (weighted by P[X = x])")
    label(axes[1], title="Kohavi-Wolpert (1996)", xlabel="training size n", ylabel="term")
    axes[2].plot(alpha_df["alpha"], alpha_df["kw_bias2"], "o-", ms=3, color="C0", label="bias^2 (KW)")
    axes[2].plot(alpha_df["alpha"], alpha_df["kw_variance"], "s-", ms=3, color="C1", label="variance (KW)")
    axes[2].plot(alpha_df["alpha"], alpha_df["expected_error"] - alpha_df["expected_error"].iloc[0], "k-",
                 lw=1.2, label="E[GE] - E[GE] at alpha = 0")
    axes[2].set_xscale("symlog", linthresh=0.25)
    label(axes[2], title=f"naive Bayes against alpha, n = {alpha_n}", xlabel="smoothing alpha", ylabel="term")
    trade = (h_n["bias"] < nb_n["bias"]) & (h_n["variance"] > nb_n["variance"])
    fails = [int(n) for n, ok in zip(nb_n["n"], trade) if not ok]
    tail = [int(n) for i, n in enumerate(nb_n["n"]) if trade.iloc[i:].all()]
    both = "the histogram rule has both the lower bias and the larger variance (Domingos)"
    trade_note = (f"{both} at every n of the grid" if not fails else
                  f"{both} at every n >= {tail[0]} of the grid; it fails at n = {', '.join(map(str, fails))}" if tail else
                  f"the claim that {both} fails at n = {', '.join(map(str, fails))}, the largest n included")
    exact = [r for r in results if r.exact]
    worst = fmt(max(_residual(r) for r in results))
    note = "c1 x noise + bias + net variance and noise + bias^2 + variance both give E[GE_n]: " + (
        f"exactly (Fractions) at {sum(_residual(r) == 0 for r in exact)} of the {len(exact)} exact points, within "
        f"{worst} at the {len(results)} points in all" if exact else f"within {worst} at the {len(results)} points (floats)")
    sources = (
        CurveSource("naive-bayes", backend, "exact", f"NaiveBayes(ties={ties!r}); per-input prediction laws"),
        CurveSource("histogram", backend, "exact", f"HistogramRule(ties={hist.ties!r}); per-input prediction laws"),
    )
    return StudyResult(
        name="bias_variance",
        title=title,
        parameters=(("sizes", grid), ("alphas", tuple(str(a) for a in alphas)), ("alpha_n", alpha_n),
                    ("ties", ties), ("backend", backend), ("model", "3x3, P[Y=0|x] = " + str(CLASS_ZERO))),
        data=df,
        figure=fig,
        sources=sources,
        checks=tuple(checks),
        seconds=seconds,
        notes=(note, trade_note),
    )
