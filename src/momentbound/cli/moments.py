"""`momentbound moments`: exact moments of the naive Bayes statistic Z_x."""

from __future__ import annotations

import time

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import UserError, fmt, emit_json, parse_int_list, parse_str_list, print_table, limit_options
from momentbound.errors import MomentboundError


@click.command("moments")
@data_options
@click.option("--arities", default=None, help="Attribute arities, e.g. 2,2.")
@click.option("--cells", default=None,
              help="Cell probabilities (decimals or fractions like 1/8), class fastest.")
@click.option("--N", "N", type=int, required=True, help="Dataset size N.")
@click.option("--at", "at", required=True, help="Input x, e.g. 0,0.")
@click.option("--order", type=int, default=6, show_default=True, help="Highest moment.")
@click.option("--classes", default=None, help="Ordered class pair k,l (default 0,1).")
@click.option("--exact", is_flag=True, help="Print exact rationals p/q.")
@click.option("--central", is_flag=True, help="Central moments instead of raw moments.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@limit_options
def command(arities: str, cells: str, N: int, at: str, order: int, classes: str | None,
            exact: bool, central: bool, as_json: bool) -> None:
    """Moments E[Z^k], k = 0..order, of Z_x^{k,l} under Multinomial(N, cells)."""
    from momentbound.model.cells import CellModel
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments import raw_moments

    from momentbound._validate import to_float

    if arities is None or cells is None:
        raise click.UsageError("give the model: --arities and --cells, or --data FILE --target COL")
    ar = parse_int_list(arities, name="--arities")
    cell_list = parse_str_list(cells, name="--cells")
    x = parse_int_list(at, name="--at")
    pair = parse_int_list(classes, name="--classes") if classes is not None else (0, 1)
    if N < 0:
        raise UserError(f"--N must be a non-negative integer, got {N}")
    if order < 0:
        raise UserError(f"--order must be a non-negative integer, got {order}")
    t0 = time.perf_counter()
    try:
        model = CellModel(ar, cell_list)
        x = model.check_input(x, name="--at")
        z = naive_bayes_statistic(model, x, pair)
        ms = raw_moments(z, model, N, order, exact=True)
        support = z.support(N)
        values = ms.central() if central else ms.values
        if not exact:
            values = tuple(to_float(v, f"moment {k}", fix="use --exact for exact rationals")
                           for k, v in enumerate(values))
    except MomentboundError as exc:
        raise UserError(str(exc)) from exc
    seconds = time.perf_counter() - t0
    if as_json:
        emit_json({
            "statistic": z.name,
            "N": N,
            "at": list(x),
            "classes": list(pair),
            "kind": "central" if central else "raw",
            "exact": exact,
            "support": list(support),
            "moments": list(values),  # floats; beyond the float range null (see moments_exact)
            "moments_exact": [str(v) for v in values] if exact else None,
            "seconds": seconds,
        })
        return
    rows = [(k, fmt(v, 10), str(v) if exact else "") for k, v in enumerate(values)]
    print_table(
        f"{'central' if central else 'raw'} moments of {z.name}, N={N}, support [{support[0]}, "
        f"{support[1]}] ({seconds:.3f} s)",
        ["k", "value", "exact" if exact else ""],
        rows,
    )
