"""``momentbound compare``: the paper's Tables 4-6 (every cdf method on P[Z > 0], 2x2x2 equal cells)."""

from __future__ import annotations

from pathlib import Path

import click

from momentbound.cli._common import UserError, emit_json, parse_int_list, parse_str_list, print_table
from momentbound.cli._files import claim_output_file, force_option, write_errors


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if v is None:
        return "-"
    return str(v)


@click.command("compare")
@click.option("--N", "Ns", default="10,100,1000", show_default=True, help="Comma-separated dataset sizes.")
@click.option("--order", default=6, show_default=True, type=int, help="Number of moments.")
@click.option("--methods", default="", help="Comma-separated method names (default: every applicable method).")
@click.option("--draws", default=1000, show_default=True, type=int, help="Samples for the sampling method.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed (an integer >= 0) for gdts and sampling.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the rows as CSV (an existing file needs --force).")
@force_option
@write_errors
def command(Ns: str, order: int, methods: str, draws: int, seed: int, as_json: bool, out: Path | None,
            force: bool) -> None:
    """Time and accuracy of every cdf method for P[Z_(0,0) > 0] (paper Tables 4-6)."""
    from momentbound.bounds.compare import MAX_N, compare_methods
    from momentbound.errors import MomentboundError, SolverFailed

    sizes = parse_int_list(Ns, name="--N")
    if any(n < 1 for n in sizes):
        raise UserError(f"--N must list positive integers, got {Ns!r}")
    if max(sizes) > MAX_N:
        raise UserError(f"--N {max(sizes)} is above {MAX_N:,}: the exact column (the law of Z) would need "
                        f"gigabytes; use sizes up to {MAX_N:,} (the paper's tables use 10, 100, 1000), or "
                        f"`momentbound bound` with a single method at larger N")
    if order < 1:
        raise UserError(f"--order must be a positive integer, got {order}")
    if draws < 1:
        raise UserError(f"--draws must be a positive integer (samples of the sampling method), got {draws}")
    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")
    names = parse_str_list(methods, name="--methods") if methods.strip() else None
    csv = None if out is None else claim_output_file(out, force=force)
    try:
        table = compare_methods(sizes, order, methods=names, rng=seed, draws=draws)
    except SolverFailed as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc
    except MomentboundError as exc:
        raise UserError(f"{type(exc).__name__}: {exc}") from exc
    if csv is not None:
        csv.write_text(table.to_csv())
    if as_json:
        emit_json({"order": table.order, "event": table.event, "model": table.model, "rows": [r.as_dict() for r in table.rows]})
        return
    cols = ("method", "N", "kind", "status", "seconds", "lower", "upper", "width", "exact", "contains_exact")
    rows = [[_fmt(r.as_dict()[c]) for c in cols] for r in table.rows]
    print_table(f"P[Z > 0], {table.model}, {table.order} moments", cols, rows)
