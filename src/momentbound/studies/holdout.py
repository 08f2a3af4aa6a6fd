"""Figs. 2-4: moments of the hold-out error against the size of the hold-out set.

The paper's setup (Section 6.3.2; docs/mathematics.md, section 'The paper's studies'): ``N = 100``
points, one input
independent of the class, prior of the first class ``p = 0.4``; ``E[HE]``, ``Var(HE)``
and ``E[HE] + Std(HE)`` against the test share. Every point is an exact estimator moment
(docs/mathematics.md, section 'Hold-out': ``E[HE] = E_Nt[GE]``,
``E[HE^2] = E_Nt[GE]/Ns + (Ns-1)/Ns E_Nt[GE^2]``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from momentbound.studies._common import (
    Progress,
    check_int_grid,
    check_positive_int,
    estimator_row,
    estimator_runner,
    grid_map,
    label,
    new_figure,
    source_of,
)
from momentbound.studies.claims import check_argmin_in, check_rise_after_min, check_trend
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from momentbound.model import CellModel

__all__ = ["holdout_study", "holdout_frame", "plot_holdout"]


def holdout_frame(
    model: "CellModel",
    N: int,
    test_sizes: Sequence[int],
    *,
    ties: str = "random",
    backend: str = "exact",
    progress: Progress | None = None,
) -> "tuple[pd.DataFrame, tuple[CurveSource, ...]]":
    """Exact hold-out moments for each test size: one row per size.

    Columns: ``test_size``, ``test_percent``, ``train_size``, ``mean``, ``variance``,
    ``std``, ``mean_plus_std``, ``ge_mean``, ``ge_variance``.
    """
    import pandas as pd

    from momentbound.estimators import HoldOut

    N = check_positive_int(N, name="N", minimum=2)
    sizes = check_int_grid(test_sizes, name="test_sizes", minimum=1, maximum=N - 1)
    run, _ = estimator_runner(model, ties=ties, backend=backend)
    results = grid_map(lambda ns: run(N, HoldOut(test_size=ns)), sizes, progress)
    rows = []
    for ns, res in zip(sizes, results):
        row: dict[str, Any] = {"test_size": ns, "test_percent": 100.0 * ns / N, "train_size": N - ns}
        row.update(estimator_row(res))
        rows.append(row)
    backend_name, kind = source_of(results[0])
    sources = tuple(
        CurveSource(curve, backend_name, kind)
        for curve in ("mean", "variance", "mean_plus_std")
    )
    return pd.DataFrame(rows), sources


def plot_holdout(axes: "Sequence[Axes]", df: "pd.DataFrame", *, figs: Sequence[str], tag: str = "") -> None:
    """Draw E[HE], Var(HE), E+Std against the test share on three axes."""
    x = df["test_percent"]
    suffix = f" ({tag})" if tag else ""
    spread = float(df["mean"].max() - df["mean"].min())
    if spread < 1e-9:  # a constant curve (e.g. all cells equal): centre it instead of zooming on rounding
        centre = float(df["mean"].mean())
        axes[0].set_ylim(centre - 0.05, centre + 0.05)
    axes[0].plot(x, df["mean"], "o-", ms=3, label="E[HE]")
    axes[0].plot(x, df["ge_mean"], "--", lw=1, label="E[GE] of the trained classifier")
    label(axes[0], title=f"{figs[0]}: expectation{suffix}", xlabel="size of hold-out set (%)", ylabel="E[HE]")
    axes[1].plot(x, df["variance"], "o-", ms=3, color="C1", label="Var(HE)")
    label(axes[1], title=f"{figs[1]}: variance{suffix}", xlabel="size of hold-out set (%)", ylabel="Var(HE)")
    axes[2].plot(x, df["mean_plus_std"], "o-", ms=3, color="C2", label="E[HE] + Std(HE)")
    label(axes[2], title=f"{figs[2]}: E + Std{suffix}", xlabel="size of hold-out set (%)", ylabel="E[HE] + Std(HE)")


def holdout_study(
    *,
    N: int = 100,
    test_sizes: Sequence[int] = tuple(range(1, 100)),
    prior: object = "2/5",
    n_values: int = 2,
    ties: str = "random",
    backend: str = "exact",
    progress: Progress | None = None,
) -> StudyResult:
    """Reproduce Figs. 2-4: hold-out error moments against the test share.

    Parameters
    ----------
    N:
        Dataset size (paper: 100).
    test_sizes:
        Hold-out sizes to evaluate (each in ``1..N-1``).
    prior:
        Probability of the first class (paper: 0.4); the input is independent of the class.
    n_values:
        Number of input values (uniform).
    ties, backend:
        Tie rule of the classifier and prediction-probability backend.

    Returns
    -------
    StudyResult
        Data columns as :func:`holdout_frame`; claims of Figs. 2-4 checked.

    Examples
    --------
    >>> res = holdout_study(N=20, test_sizes=(2, 6, 10, 14, 18))  # doctest: +SKIP
    >>> [c.verdict.value for c in res.checks]  # doctest: +SKIP
    """
    from momentbound.model import independent_1d_model

    start = time.perf_counter()
    model = independent_1d_model(prior, n_values)
    df, sources = holdout_frame(model, N, test_sizes, ties=ties, backend=backend, progress=progress)
    seconds = time.perf_counter() - start
    x = df["test_percent"].to_numpy()
    checks: list[ClaimCheck] = [
        check_trend(x, df["mean"], direction="increasing", figure="Fig. 2",
                    claim="E[HE] grows as the training set shrinks"),
        check_argmin_in(x, df["variance"], lo=40, hi=60, figure="Fig. 3",
                        claim="Var(HE) falls until about 50% test data"),
    ]
    checks.append(
        check_rise_after_min(x, df["variance"], figure="Fig. 3",
                             claim="beyond its minimum, Var(HE) rises slightly")
    )
    checks.append(
        check_argmin_in(x, df["mean_plus_std"], lo=40, hi=50, figure="Fig. 4",
                        claim="E[HE] + Std(HE) is smallest for a 40-50% hold-out set")
    )
    title = (
        f"Figs. 2-4: hold-out error, N = {N}, input independent of class, prior = {prior}, "
        f"{n_values} input values, ties = {ties}, backend = {sources[0].backend}"
    )
    fig, axes = new_figure(1, 3, title)
    plot_holdout(axes, df, figs=("Fig. 2", "Fig. 3", "Fig. 4"))
    return StudyResult(
        name="holdout",
        title=title,
        parameters=(("N", N), ("prior", str(prior)), ("n_values", n_values), ("ties", ties),
                    ("backend", backend), ("test_sizes", tuple(int(s) for s in df["test_size"]))),
        data=df,
        figure=fig,
        sources=sources,
        checks=tuple(checks),
        seconds=seconds,
    )
