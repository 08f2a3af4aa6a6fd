"""`momentbound bird`: the exponent and degree of the bird polynomial for a range bound a."""

from __future__ import annotations

import time

import click

from momentbound.cli._common import emit_json, print_table
from momentbound.errors import MomentboundError


@click.command("bird")
@click.option("--a", "a", type=int, required=True, help="Range bound: X, Y integers in [-a, a].")
@click.option("--check", is_flag=True, help="Also run the exhaustive search over [-a, a]^2.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def command(a: int, check: bool, as_json: bool) -> None:
    """Smallest r with W = (X+a)^r X^2 Y + (Y+a)^r Y^2 X > 0 iff X > 0 and Y > 0."""
    from momentbound.moments.bird import bird_exponent, bird_exponent_bruteforce, bird_exponent_paper

    t0 = time.perf_counter()
    try:
        r = bird_exponent(a)
        r_paper = bird_exponent_paper(a) if a >= 3 else None
        r_brute = bird_exponent_bruteforce(a) if check else None
    except MomentboundError as exc:
        raise click.UsageError(str(exc)) from exc
    doc = {
        "a": a,
        "r": r,
        "r_paper": r_paper,
        "degree": r + 3,
        "r_bruteforce": r_brute,
        "seconds": time.perf_counter() - t0,
    }
    if as_json:
        emit_json(doc)
        return
    print_table(
        f"bird polynomial for a = {a}",
        ["quantity", "value"],
        [
            ("r*(a) (smallest valid exponent)", r),
            ("paper's closed form", "n/a (a < 3)" if r_paper is None else r_paper),
            ("degree of W in (X, Y)", r + 3),
            ("exhaustive search", "not run (--check)" if r_brute is None else r_brute),
        ],
    )
