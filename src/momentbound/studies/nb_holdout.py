"""Figs. 14-19: hold-out error of the 2x2x2 naive Bayes classifier against the test share.

Two attributes with two values each and two classes, ``N = 100`` (docs/mathematics.md, section
'The paper's studies'):
first every cell ``1/8`` (then ``E[HE] = 0.5`` for every split), then class-1 cells
``0.1`` and class-2 cells ``0.15`` (the paper reports the best hold-out share at 50%).
Exact moments through the class-conditional decomposition of the d-D classifier.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from momentbound.studies._common import Progress, check_positive_int, new_figure
from momentbound.studies.claims import (
    check_argmin_in,
    check_constant,
    check_rise_after_min,
    check_trend,
)
from momentbound.studies.holdout import holdout_frame, plot_holdout
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult

__all__ = ["nb_holdout_study"]


def nb_holdout_study(
    *,
    N: int = 100,
    test_sizes: Sequence[int] = tuple(range(5, 100, 5)),
    ties: str = "random",
    backend: str = "exact",
    progress: Progress | None = None,
) -> StudyResult:
    """Reproduce Figs. 14-19: hold-out moments of 2x2x2 naive Bayes for the paper's two models.

    Parameters
    ----------
    N:
        Dataset size (paper: 100).
    test_sizes:
        Hold-out sizes (each in ``1..N-1``).
    ties, backend:
        Tie rule and prediction-probability backend.

    Returns
    -------
    StudyResult
        Columns of :func:`~momentbound.studies.holdout.holdout_frame` plus ``model``
        (``"equal"`` or ``"second"``).

    Examples
    --------
    >>> res = nb_holdout_study(N=12, test_sizes=(2, 6, 10))  # doctest: +SKIP
    """
    import pandas as pd

    from momentbound.model import equal_cells_model, second_nb_model

    N = check_positive_int(N, name="N", minimum=2)
    sizes = tuple(test_sizes)
    models = {"equal": equal_cells_model((2, 2)), "second": second_nb_model()}
    start = time.perf_counter()
    frames, sources = [], []
    done_offset = [0]

    def sub_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(done_offset[0] + done, 2 * total)

    for tag, model in models.items():
        df, src = holdout_frame(model, N, sizes, ties=ties, backend=backend, progress=sub_progress)
        done_offset[0] += len(df)
        df.insert(0, "model", tag)
        frames.append(df)
        sources += [CurveSource(f"{s.curve} ({tag})", s.backend, s.kind, s.note) for s in src]
    seconds = time.perf_counter() - start
    eq, second = frames
    x1, x2 = eq["test_percent"].to_numpy(), second["test_percent"].to_numpy()
    checks: list[ClaimCheck] = [
        check_constant(x1, eq["mean"], value=0.5, atol=1e-12, figure="Fig. 14",
                       claim="all cells 1/8: E[HE] = 0.5 for every hold-out size"),
        check_trend(x1, eq["variance"], direction="decreasing", figure="Fig. 15",
                    claim="all cells 1/8: Var(HE) falls as the test set grows"),
        check_trend(x1, eq["mean_plus_std"], direction="decreasing", figure="Fig. 16",
                    claim="all cells 1/8: E + Std is best for large hold-out sets"),
        check_trend(x2, second["mean"], direction="increasing", figure="Fig. 17",
                    claim="second model: E[HE] grows as the training set shrinks"),
        check_rise_after_min(x2, second["variance"], figure="Fig. 18",
                             claim="second model: Var(HE) behaves as in 1-D (falls, then rises slightly)"),
        check_argmin_in(x2, second["mean_plus_std"], lo=40, hi=60, figure="Fig. 19",
                        claim="second model: E[HE] + Std(HE) is smallest for a 50% hold-out set "
                              "(checked: between 40% and 60%)"),
    ]
    title = (
        f"Figs. 14-19: hold-out error of 2x2x2 naive Bayes, N = {N}; top: all cells 1/8, "
        f"bottom: class-1 cells 0.1, class-2 cells 0.15; ties = {ties}, backend = {sources[0].backend}"
    )
    fig, axes = new_figure(2, 3, title)
    plot_holdout(axes[:3], eq, figs=("Fig. 14", "Fig. 15", "Fig. 16"), tag="all cells 1/8")
    plot_holdout(axes[3:], second, figs=("Fig. 17", "Fig. 18", "Fig. 19"), tag="0.1 / 0.15")
    return StudyResult(
        name="nb_holdout",
        title=title,
        parameters=(("N", N), ("ties", ties), ("backend", backend),
                    ("test_sizes", tuple(int(s) for s in eq["test_size"]))),
        data=pd.concat(frames, ignore_index=True),
        figure=fig,
        sources=tuple(sources),
        checks=tuple(checks),
        seconds=seconds,
    )
