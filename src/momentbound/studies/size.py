"""Fig. 10: convergence of E[GE], E[HE] and E[CE] with the dataset size.

Same distribution as Figs. 2-9 (one input independent of the class, prior 0.4); hold-out
with 11 test points and 20-fold cross-validation (the paper's choices), ``N`` up to 1000.
Means only: ``E[HE] = E_{N-11}[GE]`` and ``E[CE] = sum_i (s_i/N) E_{N-s_i}[GE]``
(docs/mathematics.md, section 'Cross-validation'), computed by
:func:`~momentbound.estimators.estimator_moments` for the
GE and hold-out rows and from the same cached GE moments for the folds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from momentbound.studies._common import (
    Progress,
    as_float,
    check_int_grid,
    estimator_runner,
    grid_map,
    label,
    new_figure,
    source_of,
)
from momentbound.studies.claims import check_less_than, check_trend, fmt
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult, Verdict

__all__ = ["size_study"]


def size_study(
    *,
    sizes: Sequence[int] = tuple(range(40, 1001, 40)),
    test_size: int = 11,
    folds: int = 20,
    prior: object = "2/5",
    n_values: int = 2,
    ties: str = "random",
    backend: str = "exact",
    progress: Progress | None = None,
) -> StudyResult:
    """Reproduce Fig. 10: ``E[GE]``, ``E[HE]``, ``E[CE]`` against ``N``.

    Parameters
    ----------
    sizes:
        Dataset sizes ``N`` (each at least ``max(test_size + 1, folds)``).
    test_size:
        Hold-out test points (paper: 11).
    folds:
        Number of CV folds (paper: 20).
    prior, n_values, ties, backend:
        Model, tie rule and prediction-probability backend as in Figs. 2-9.

    Returns
    -------
    StudyResult
        Columns ``N``, ``ge_mean``, ``he_mean``, ``ce_mean``, ``he_excess``, ``ce_excess``.

    Examples
    --------
    >>> res = size_study(sizes=(40, 80))  # doctest: +SKIP
    """
    import pandas as pd

    from momentbound.estimators import GE, HoldOut, KFold
    from momentbound.model import independent_1d_model

    grid = check_int_grid(sizes, name="sizes", minimum=max(test_size + 1, folds))
    model = independent_1d_model(prior, n_values)
    run, engine = estimator_runner(model, ties=ties, backend=backend)
    start = time.perf_counter()

    def one(N: int) -> dict[str, Any]:
        ge = run(N, GE())
        he = run(N, HoldOut(test_size=test_size))
        split = KFold(folds).split(N)
        ce = sum(
            (as_float(engine.ge_first(N - s)) * s / N for s in split.fold_sizes),
            0.0,
        )
        return {
            "N": N,
            "ge_mean": as_float(ge.mean),
            "he_mean": as_float(he.mean),
            "ce_mean": ce,
            "_source": source_of(ge),
        }

    rows = grid_map(one, grid, progress)
    seconds = time.perf_counter() - start
    backend_name, kind = rows[0]["_source"]
    for r in rows:
        del r["_source"]
        r["he_excess"] = r["he_mean"] - r["ge_mean"]
        r["ce_excess"] = r["ce_mean"] - r["ge_mean"]
    df = pd.DataFrame(rows)
    x = df["N"].to_numpy()
    # "significantly larger for small datasets": where the hold-out trains on fewer points than a
    # CV fold (test_size > N // folds); beyond that the hold-out classifier sees more data
    small = df[df["N"] // folds < test_size]
    if len(small) >= 2:
        first_check = check_less_than(
            small["N"].to_numpy(), small["ce_mean"], small["he_mean"], figure="Fig. 10",
            claim=f"for small datasets (N < {folds * (test_size + 1)}, where the hold-out trains on fewer "
                  f"points than a CV fold) E[HE] is larger than E[CE]", names=("E[CE]", "E[HE]"))
    else:
        first_check = ClaimCheck("Fig. 10", "for small datasets E[HE] is larger than E[CE]", Verdict.NOT_REPRODUCED,
                                 f"fewer than 2 sizes below N = {folds * (test_size + 1)}; extend the grid")
    checks: list[ClaimCheck] = [
        first_check,
        check_trend(x, df["he_excess"], direction="decreasing", figure="Fig. 10",
                    claim="E[HE] - E[GE] shrinks as N grows (hold-out much worse for small N)"),
    ]
    ratio = float(df["ce_excess"].abs().max() / max(df["he_excess"].abs().max(), 1e-300))
    checks.append(
        ClaimCheck(
            "Fig. 10",
            "E[CE] is almost on par with E[GE]",
            Verdict.REPRODUCED if ratio < 0.25 else Verdict.NOT_REPRODUCED,
            f"max |E[CE] - E[GE]| = {fmt(df['ce_excess'].abs().max())}, max |E[HE] - E[GE]| = "
            f"{fmt(df['he_excess'].abs().max())} (ratio {fmt(ratio)}; threshold 0.25)",
        )
    )
    title = (
        f"Fig. 10: convergence, input independent of class, prior = {prior}, hold-out {test_size} "
        f"test points, {folds}-fold CV, ties = {ties}, backend = {backend_name}"
    )
    fig, axes = new_figure(1, 1, title, width=7.5, height=4.2)
    ax = axes[0]
    ax.plot(df["N"], df["he_mean"], "s-", ms=3, label=f"E[HE], {test_size} test points")
    ax.plot(df["N"], df["ce_mean"], "o-", ms=3, label=f"E[CE], {folds} folds")
    ax.plot(df["N"], df["ge_mean"], "k--", lw=1.2, label="E[GE], trained on N")
    label(ax, title="Fig. 10: convergence behaviour", xlabel="size of dataset N", ylabel="expected error")
    sources = (
        CurveSource("ge_mean", backend_name, kind),
        CurveSource("he_mean", backend_name, kind),
        CurveSource("ce_mean", backend_name, kind, "sum_i s_i/N E_{N-s_i}[GE] from the same GE moments"),
    )
    return StudyResult(
        name="size",
        title=title,
        parameters=(("sizes", grid), ("test_size", test_size), ("folds", folds), ("prior", str(prior)),
                    ("n_values", n_values), ("ties", ties), ("backend", backend)),
        data=df,
        figure=fig,
        sources=sources,
        checks=tuple(checks),
        seconds=seconds,
    )
