"""Figs. 5-9: moments of the v-fold cross-validation error against the number of folds.

Same setup as Figs. 2-4 (``N = 100``, input independent of the class, prior 0.4). The
pairwise covariance of the fold errors uses the exact conditioning of docs/mathematics.md, section
'Cross-validation'; the
paper's printed Lemma 2 (incorrect) is drawn next to it for comparison.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from momentbound.studies._common import (
    Progress,
    as_float,
    check_int_grid,
    check_positive_int,
    estimator_row,
    estimator_runner,
    grid_map,
    label,
    new_figure,
    source_of,
)
from momentbound.studies.claims import check_argmin_in, check_trend, check_u_shape, fmt
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult, Verdict

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from momentbound.model import CellModel

__all__ = ["cv_study", "cv_frame", "plot_cv", "cv_claims", "AROUND"]

#: "smallest around v folds": the best value inside the claimed range may exceed the global
#: minimum by at most this relative amount (0.01%), which separates a flat optimum next to the
#: range from a minimum clearly elsewhere.
AROUND = 1e-4


def cv_frame(
    model: "CellModel",
    N: int,
    folds: Sequence[int],
    *,
    ties: str = "random",
    backend: str = "exact",
    paper_lemma: bool = True,
    progress: Progress | None = None,
) -> "tuple[pd.DataFrame, tuple[CurveSource, ...]]":
    """Cross-validation moments for each number of folds: one row per ``v``.

    Columns: ``folds``, ``fold_size`` (smallest fold), ``train_size`` (largest training set),
    ``mean``, ``variance``, ``std``, ``mean_plus_std``, ``fold_variance``,
    ``fold_covariance`` (exact), ``ge_mean``, ``ge_variance`` and, with
    ``paper_lemma``, ``paper_fold_covariance``: the fold covariance of the printed Lemma 2
    (incorrect: it ignores that each fold's test points train the other fold's classifier).
    """
    import pandas as pd

    from momentbound.estimators import KFold

    N = check_positive_int(N, name="N", minimum=2)
    grid = check_int_grid(folds, name="folds", minimum=2, maximum=N)
    run, _ = estimator_runner(model, ties=ties, backend=backend)

    def one(v: int) -> tuple[Any, Any]:
        exact = run(N, KFold(v, average="pooled"))  # the paper's CE: errors over N
        paper = run(N, KFold(v, average="pooled"), covariance="paper") if paper_lemma else None
        return exact, paper

    results = grid_map(one, grid, progress)
    rows = []
    for v, (res, paper) in zip(grid, results):
        row: dict[str, Any] = {"folds": v, "fold_size": N // v, "train_size": N - N // v}
        row.update(estimator_row(res))
        if paper_lemma:
            row["paper_fold_covariance"] = (
                float("nan") if paper is None else as_float(paper.fold_covariance, name="fold_covariance")
            )
        rows.append(row)
    backend_name, kind = source_of(results[0][0])
    sources = [
        CurveSource(c, backend_name, kind, "exact covariance" if c != "mean" else "")
        for c in ("mean", "fold_variance", "fold_covariance", "variance", "mean_plus_std")
    ]
    if paper_lemma:
        sources.append(
            CurveSource("paper_fold_covariance", backend_name, kind, "printed Lemma 2 (incorrect)")
        )
    return pd.DataFrame(rows), tuple(sources)


def plot_cv(axes: "Sequence[Axes]", df: "pd.DataFrame", *, figs: Sequence[str], tag: str = "") -> None:
    """Draw E[CE], Var(HE_i), Cov(HE_i, HE_j), Var(CE), E+Std against the folds on five axes."""
    x = df["folds"]
    suffix = f" ({tag})" if tag else ""
    xl = "number of folds"
    axes[0].plot(x, df["mean"], "o-", ms=3, label="E[CE]")
    label(axes[0], title=f"{figs[0]}: expectation of CE{suffix}", xlabel=xl, ylabel="E[CE]")
    axes[1].plot(x, df["fold_variance"], "o-", ms=3, color="C1", label="Var(HE_i)")
    label(axes[1], title=f"{figs[1]}: individual run variance{suffix}", xlabel=xl, ylabel="Var(HE_i)")
    axes[2].plot(x, df["fold_covariance"], "o-", ms=3, color="C3", label="Cov(HE_i, HE_j), exact")
    if "paper_fold_covariance" in df:
        axes[2].plot(x, df["paper_fold_covariance"], "kx--", ms=4, lw=1, label="printed Lemma 2 (incorrect)")
    label(axes[2], title=f"{figs[2]}: pairwise covariance{suffix}", xlabel=xl, ylabel="Cov(HE_i, HE_j)")
    axes[3].plot(x, df["variance"], "o-", ms=3, color="C4", label="Var(CE)")
    label(axes[3], title=f"{figs[3]}: total variance{suffix}", xlabel=xl, ylabel="Var(CE)")
    axes[4].plot(x, df["mean_plus_std"], "o-", ms=3, color="C2", label="E[CE] + Std(CE)")
    label(axes[4], title=f"{figs[4]}: E + Std{suffix}", xlabel=xl, ylabel="E[CE] + Std(CE)")
    for ax in axes[:5]:
        ax.set_xscale("log")


def cv_claims(
    df: "pd.DataFrame", *, figs: Sequence[str], best: tuple[float, float], best_text: str
) -> list[ClaimCheck]:
    """The paper's claims about a folds study (Figs. 5-9 or 20-24)."""
    x = df["folds"].to_numpy()
    checks = [
        check_trend(x, df["mean"], direction="decreasing", figure=figs[0],
                    claim="E[CE] falls as the number of folds grows"),
        check_trend(x, df["fold_variance"], direction="increasing", figure=figs[1],
                    claim="the variance of the individual fold errors rises with the folds"),
        check_u_shape(x, df["fold_covariance"], figure=figs[2],
                      claim="the pairwise covariance of fold errors falls, then rises (U shape)"),
        check_argmin_in(x, df["variance"], lo=best[0], hi=best[1], figure=figs[3], rel_tol=AROUND,
                        claim=f"the total variance of CE is smallest around {best_text} folds"),
        check_argmin_in(x, df["mean_plus_std"], lo=best[0], hi=best[1], figure=figs[4], rel_tol=AROUND,
                        claim=f"E[CE] + Std(CE) is smallest around {best_text} folds"),
    ]
    if "paper_fold_covariance" in df and 2 in set(x):
        row = df[df["folds"] == 2].iloc[0]
        exact, paper = float(row["fold_covariance"]), float(row["paper_fold_covariance"])
        checks.append(
            ClaimCheck(
                figs[2],
                "with 2 folds the fold errors are strongly positively correlated "
                "(discussion of the covariance figure)",
                Verdict.REPRODUCED if exact > 0 else Verdict.NOT_REPRODUCED,
                f"exact Cov(HE_1, HE_2) = {fmt(exact)} at 2 folds; the printed Lemma 2 gives "
                f"{fmt(paper)}, so the paper's own formula contradicts its discussion",
            )
        )
    return checks


def cv_study(
    *,
    N: int = 100,
    folds: Sequence[int] = tuple(range(2, 21)) + (25, 30, 40, 50, 60, 70, 80, 90, 100),
    prior: object = "2/5",
    n_values: int = 2,
    ties: str = "random",
    backend: str = "exact",
    paper_lemma: bool = True,
    progress: Progress | None = None,
) -> StudyResult:
    """Reproduce Figs. 5-9: cross-validation error moments against the number of folds.

    Parameters
    ----------
    N:
        Dataset size (paper: 100).
    folds:
        Numbers of folds ``v`` (``2 <= v <= N``; unequal folds as scikit-learn ``KFold``).
    prior, n_values:
        The 1-D model: input with ``n_values`` uniform values independent of the class.
    ties, backend:
        Tie rule and prediction-probability backend.
    paper_lemma:
        Also compute the covariance of the printed (incorrect) Lemma 2 for comparison.

    Returns
    -------
    StudyResult
        Data columns as :func:`cv_frame`; claims of Figs. 5-9 checked.

    Examples
    --------
    >>> res = cv_study(N=20, folds=(2, 4, 5, 10, 20))  # doctest: +SKIP
    >>> print(res.summary())  # doctest: +SKIP
    """
    from momentbound.model import independent_1d_model

    start = time.perf_counter()
    model = independent_1d_model(prior, n_values)
    df, sources = cv_frame(model, N, folds, ties=ties, backend=backend, paper_lemma=paper_lemma, progress=progress)
    seconds = time.perf_counter() - start
    checks = cv_claims(df, figs=("Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8", "Fig. 9"), best=(10, 20), best_text="10-20")
    title = (
        f"Figs. 5-9: cross-validation, N = {N}, input independent of class, "
        f"prior = {prior}, {n_values} input values, ties = {ties}, backend = {sources[0].backend}"
    )
    fig, axes = new_figure(2, 3, title)
    plot_cv(axes, df, figs=("Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8", "Fig. 9"))
    axes[5].set_axis_off()
    return StudyResult(
        name="cv",
        title=title,
        parameters=(("N", N), ("prior", str(prior)), ("n_values", n_values), ("ties", ties),
                    ("backend", backend), ("folds", tuple(int(v) for v in df["folds"]))),
        data=df,
        figure=fig,
        sources=sources,
        checks=tuple(checks),
        seconds=seconds,
    )
