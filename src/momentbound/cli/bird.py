"""`momentbound bird`: the exponent and degree of the bird polynomial for a range bound a."""

from __future__ import annotations

import time

import click

from momentbound.cli._common import UserError, emit_json, print_table
from momentbound.errors import MomentboundError


@click.command("bird")
@click.option("--a", "a", type=int, required=True, help="Range bound: X, Y integers in [-a, a].")
@click.option("--check", is_flag=True, help="Also run the exhaustive search over [-a, a]^2.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def command(a: int, check: bool, as_json: bool) -> None:
    """Smallest r with W = (X+a)^r X^2 Y + (Y+a)^r Y^2 X > 0 iff X > 0 and Y > 0."""
    from momentbound.moments.bird import (
        MAX_A,
        MAX_A_BRUTEFORCE,
        bird_exponent,
        bird_exponent_bruteforce,
        bird_exponent_paper,
    )

    # every limit is checked before any work starts
    if a < 1:
        raise UserError(f"--a must be a positive integer (the range bound), got {a}")
    if a > MAX_A:
        raise UserError(f"--a {a} is above {MAX_A:,}: the closed form visits every 1 < b < a "
                        f"(about 7 s at 1e8, 90 s at 1e9); use a smaller --a")
    if check and a > MAX_A_BRUTEFORCE:
        raise UserError(f"--check searches a grid of (2a+1)^2 points (about "
                        f"{27 * (2 * a + 1) ** 2 / 1e9:.2g} GB at a = {a}); it supports a <= "
                        f"{MAX_A_BRUTEFORCE:,}: drop --check or use a smaller --a")
    t0 = time.perf_counter()
    try:
        r = bird_exponent(a)
        r_paper = bird_exponent_paper(a) if a >= 3 else None
        r_brute = bird_exponent_bruteforce(a) if check else None
    except MomentboundError as exc:
        raise UserError(str(exc)) from exc
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
