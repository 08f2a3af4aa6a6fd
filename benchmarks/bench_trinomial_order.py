"""The ideal bootstrap's vote on one attribute: ``P[U > V]`` and ``P[U = V]`` of a trinomial for
every pair of counts (:func:`momentbound.exact.tables._trinomial_order`), against the direct formula
with scipy's binomial pmf and survival function on ``n (n + 1)^2 / 2`` terms, in the same run.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_trinomial_order.py [--n 100,300] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def scipy_formula(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Given ``S = U + V ~ Binomial(n, (a + b)/(n - 1))``, ``U ~ Binomial(S, a / (a + b))``: scipy per term."""
    from scipy.stats import binom

    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = (a + b) <= n - 1
    a, b = a[keep], b[keep]
    m = a + b
    theta = np.where(m > 0, a / np.maximum(m, 1), 0.5)
    s = np.arange(n + 1)[None, :]
    above, equal = np.zeros((n, n)), np.zeros((n, n))
    step = max(1, 1_000_000 // (n + 1))
    for lo in range(0, len(m), step):
        part = slice(lo, lo + step)
        th = theta[part, None]
        weight = binom.pmf(s, n, (m[part] / (n - 1))[:, None])
        above[a[part], b[part]] = (weight * binom.sf(s // 2, s, th)).sum(axis=1)
        equal[a[part], b[part]] = (weight * np.where(s % 2 == 0, binom.pmf(s // 2, s, th), 0.0)).sum(axis=1)
    return above, equal


def main() -> None:
    import scipy.stats  # noqa: F401 - imported before timing (both sides use it)

    from momentbound.exact import tables

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="100,300")
    ap.add_argument("--quick", action="store_true", help="n = 60, 150")
    args = ap.parse_args()
    sizes = [60, 150] if args.quick else [int(v) for v in args.n.split(",")]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    for n in sizes:
        tables._trinomial_order.cache_clear()
        t = time.process_time()
        above, equal = tables._trinomial_order(n)
        walk = time.process_time() - t
        t = time.process_time()
        ref_above, ref_equal = scipy_formula(n)
        ref = time.process_time() - t
        diff = max(np.abs(above - ref_above).max(), np.abs(equal - ref_equal).max())
        print(f"n = {n}: walk {walk:.3f} s CPU, scipy per term {ref:.3f} s CPU (ratio {ref / max(walk, 1e-9):.1f}), "
              f"largest difference {diff:.1e}", flush=True)
        if diff > 1e-12:
            raise SystemExit("the walk and scipy's formula differ")


if __name__ == "__main__":
    main()
