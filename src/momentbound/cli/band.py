"""``momentbound band``: the sharp certified cdf band F(t) = P[X <= t] at many points."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import click

from momentbound.cli._common import limit_options, user_errors, check_plot_path, emit_json, parse_str_list, print_table
from momentbound.cli._files import force_option


#: seconds per squared N of the exact binomial pmf, and per squared N and moment of its moments
#: (measured at N = 4000: 9.1 s and 21 s for four moments)
_PMF_SECONDS, _MOMENT_SECONDS = 6e-7, 1.3e-6


def parse_truth(text: str, order: int | None = None) -> tuple[tuple[Fraction, Fraction], ...]:
    """``binomial:N:P`` or ``pmf:x1=p1,x2=p2,...`` as an exact pmf ((x, p), ...).

    The exact binomial pmf (and its moments 0..``order``) costs about ``N^2`` big-integer
    operations: refused before any work beyond the time limit (:mod:`momentbound.guard`).
    """
    from math import comb

    from momentbound import guard

    from momentbound.bounds.problem import as_exact
    from momentbound.errors import InvalidArgument

    head, _, rest = text.strip().partition(":")
    if head == "binomial":
        parts = rest.split(":")
        if len(parts) != 2 or not parts[0].strip().isdigit():
            raise InvalidArgument(f"--truth binomial needs binomial:N:P (e.g. binomial:20:3/10), got {text!r}")
        if len(parts[0].strip()) > 12:
            raise InvalidArgument(f"--truth binomial:N:P needs a dataset size N below 10^12, got {parts[0].strip()[:20]}...")
        n = int(parts[0])
        terms = 0 if order is None else max(order, 0) + 1
        guard.check(f"the exact binomial({n}) pmf" + (f" and its moments 0..{order}" if terms else ""),
                    seconds=float(n) ** 2 * (_PMF_SECONDS + _MOMENT_SECONDS * terms)
                    + 1e-7 * (n + 1) * float(terms) ** 2,  # x^k has k digits: many moments of a small law
                    memory=(n + 1) * (n / 2 + 200.0),  # about n bits per numerator and denominator
                    fix="use a smaller N in --truth binomial:N:P")
        p = as_exact(parts[1], "--truth p")
        if not 0 <= p <= 1:
            raise InvalidArgument(f"--truth binomial:N:P needs 0 <= P <= 1, got P={parts[1]!r}")
        return tuple((Fraction(k), comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1))
    if head == "pmf":
        pairs = []
        for item in parse_str_list(rest):
            x, eq, p = item.partition("=")
            if not eq:
                raise InvalidArgument(f"--truth pmf needs pmf:x1=p1,x2=p2,..., got the item {item!r}")
            pairs.append((as_exact(x, "--truth x"), as_exact(p, "--truth p")))
        if not pairs or sum(p for _, p in pairs) != 1 or any(p < 0 for _, p in pairs):
            raise InvalidArgument(f"--truth pmf probabilities must be >= 0 and sum to 1 exactly, got {text!r}")
        return tuple(sorted(pairs))
    raise InvalidArgument(f"--truth must look like 'binomial:N:P' or 'pmf:x1=p1,x2=p2', got {text!r}")


@click.command("band")
@click.option("--moments", default=None, help="Raw moments m0,m1,...,mk (or give --truth and --order).")
@click.option("--support", required=True, help="grid:LO:HI | interval:A:C | finite:x1,x2,... | real")
@click.option("--points", type=int, default=None,
              help="K evenly spaced t values [default: every point of a grid with <= 201 points, else 101].")
@click.option("--method", default="auto", show_default=True,
              help="A registered bound method, or auto (lp on bounded supports, sdp on the real line).")
@click.option("--truth", default=None, help="The true law, drawn and tabulated: binomial:N:P | pmf:x1=p1,x2=p2,...")
@click.option("--order", type=int, default=None, help="With --truth and no --moments: use its moments 0..ORDER.")
@click.option("--plot", "plot_path", default=None, help="Write the band as a PNG to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@force_option
@limit_options
def command(
    moments: str | None, support: str, points: int | None, method: str, truth: str | None, order: int | None,
    plot_path: str | None, as_json: bool, force: bool,
) -> None:
    """The sharp lower and upper cdf F(t) = P[X <= t] from moments, certified at every point."""
    from momentbound.bounds import Support, cdf_band
    from momentbound.bounds.problem import as_exact

    check_plot_path(plot_path, force=force)
    with user_errors():
        pmf = parse_truth(truth, None if moments is not None else order) if truth is not None else None
        if moments is not None:
            if order is not None:
                raise click.UsageError("--order is for deriving moments from --truth; drop it when --moments is given")
            mom: tuple[Any, ...] = tuple(as_exact(t, "--moments") for t in parse_str_list(moments))
        elif pmf is not None and order is not None:
            if order < 0:
                raise click.UsageError(f"--order must be >= 0, got {order}")
            mom = tuple(sum((p * x**k for x, p in pmf), Fraction(0)) for k in range(order + 1))
        else:
            raise click.UsageError("give --moments, or --truth with --order to use the moments of the true law")
        band = cdf_band(mom, Support.parse(support), points=points, method=method, truth=pmf)
        if plot_path is not None:
            band.plot(plot_path)
    if as_json:
        doc = band.summary()
        if plot_path is not None:
            doc["plot"] = plot_path
        emit_json(doc)
        return
    cols = ["t", "lower", "upper", "status", "certified"] + (["truth"] if pmf is not None else [])
    table = [[f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c]) for c in cols] for r in band.rows()]
    title = (f"P[X <= t] from {band.order} moments on {band.support} ({band.method}, "
             f"{len(band.t)} points, {band.seconds:.3g} s)")
    print_table(title, cols, table)
    if plot_path is not None:
        click.echo(f"plot: {plot_path}")
