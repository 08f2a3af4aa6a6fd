"""`momentbound demo`: moments of Z for the paper's 2x2x2 equal-cells model."""

from __future__ import annotations

import time

import click

from momentbound.cli._common import print_table


@click.command("demo")
@click.option("--order", type=int, default=6, show_default=True, help="Highest moment.")
def command(order: int) -> None:
    """Exact moments of Z_(0,0) for the 2x2x2 model with all cells 1/8, N = 10, 100, 1000."""
    from momentbound.model.paper import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments import raw_moments

    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, (0, 0))
    rows = []
    for N in (10, 100, 1000):
        t0 = time.perf_counter()
        ms = raw_moments(z, model, N, order)
        lo, hi = z.support(N)
        sec = time.perf_counter() - t0
        std = ms.standardized()
        rows.append((
            N, f"+-{hi:.3g}" if hi >= 10**6 else f"+-{hi}", f"{float(ms.mean):.3g}",
            f"{float(ms.variance):.4g}", f"{std[3]:.3g}" if order >= 3 else "-",
            f"{std[4]:.4f}" if order >= 4 else "-", f"{float(ms.values[-1]):.4g}",
            f"{sec * 1000:.1f}",
        ))
    print_table(
        f"Exact moments of {z.name}, 2x2x2 model, all cells 1/8 (order {order})",
        ["N", "support", "mean", "variance", "skewness", "kurtosis", f"E[Z^{order}]", "ms"],
        rows,
    )
