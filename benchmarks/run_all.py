"""Run every benchmark in this folder, one process each, and print their tables and ratios.

Each ``bench_*.py`` runs with ``--quick`` unless ``--full`` is given (the full workloads take
tens of minutes on a 2-core machine; the recorded results in RESULTS.md come from them). The
output of each benchmark is printed as it arrives, under a header; a summary of wall times
and exit codes follows, and the exit code is non-zero when any benchmark failed.

Run: ``.venv/bin/python benchmarks/run_all.py [--quick | --full] [--only NAME,...]`` (``make bench``
runs the quick mode).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmarks() -> list[Path]:
    """Every ``bench_*.py`` beside this file, in name order."""
    return sorted(HERE.glob("bench_*.py"))


def run(script: Path, quick: bool) -> tuple[int, float]:
    """Run one benchmark, streaming its output; (exit code, wall seconds)."""
    args = [sys.executable, str(script), *(["--quick"] if quick else [])]
    print(f"\n{'=' * 100}\n{script.name} {'--quick' if quick else '(full)'}\n{'=' * 100}", flush=True)
    start = time.perf_counter()
    code = subprocess.run(args, cwd=HERE.parent, stdin=subprocess.DEVNULL).returncode
    return code, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", default=True, help="small workloads (the default)")
    mode.add_argument("--full", action="store_true", help="the recorded workloads (tens of minutes)")
    ap.add_argument("--only", default="", help="comma-separated benchmark names, e.g. bench_bounds,bench_exact")
    args = ap.parse_args()
    scripts = benchmarks()
    if args.only:
        wanted = {n.strip().removesuffix(".py") for n in args.only.split(",") if n.strip()}
        unknown = wanted - {s.stem for s in scripts}
        if unknown:
            ap.error(f"--only: no benchmark named {', '.join(sorted(unknown))}; "
                     f"choose from {', '.join(s.stem for s in scripts)}")
        scripts = [s for s in scripts if s.stem in wanted]
    results = [(s.name, *run(s, quick=not args.full)) for s in scripts]
    print(f"\n{'=' * 100}\nsummary ({'full' if args.full else 'quick'} mode)")
    for name, code, seconds in results:
        print(f"{name:28s} {'ok' if code == 0 else f'FAILED (exit {code})':18s} {seconds:8.1f} s")
    print(f"{'total':28s} {'':18s} {sum(r[2] for r in results):8.1f} s")
    return 0 if all(code == 0 for _, code, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
