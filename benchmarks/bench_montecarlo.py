"""Conditional Monte Carlo estimator moments vs the exact engine and the per-term ``sampling`` backend.

For the paper's 1-D model (prior 0.4, input independent of the class, 2 values) at N = 100 and
10-fold CV: time and 95% interval half-widths of ``monte_carlo_moments`` (draws of whole fold-table
sets, exact error given the tables) against ``estimator_moments(backend=SamplingBackend(...))``
(every prediction probability estimated separately, intervals propagated) with the same number of
draws, and the exact values as reference. Prints one line per method. Timings on whatever machine
runs it (record: 2 shared cores).

Run: .venv/bin/python benchmarks/bench_montecarlo.py [--draws R] [--quick]   (``--quick``: 2000 draws)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from momentbound.estimators import KFold, estimator_moments
from momentbound.estimators.montecarlo import monte_carlo_moments
from momentbound.model.paper import independent_1d_model
from momentbound.probability.sampling_backend import SamplingBackend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=10_000, help="sampled table draws per method")
    ap.add_argument("--quick", action="store_true", help="2000 draws")
    args = ap.parse_args()
    draws = 2000 if args.quick else args.draws
    model, N, est = independent_1d_model("2/5"), 100, KFold(10)
    t = time.perf_counter()
    exact = estimator_moments(model, N, est, backend="exact")
    t_exact = time.perf_counter() - t
    print(f"exact       {t_exact:8.3f} s  mean={float(exact.mean):.6f} var={float(exact.variance):.6g} "
          f"cov={float(exact.fold_covariance):.6g}")
    t = time.perf_counter()
    mc = monte_carlo_moments(model, N, est, draws=draws, rng=np.random.default_rng(1))
    t_mc = time.perf_counter() - t
    t = time.perf_counter()
    sb = estimator_moments(model, N, est, backend=SamplingBackend(draws=draws, rng=np.random.default_rng(1)))
    t_sb = time.perf_counter() - t
    for label, r, secs in (("montecarlo", mc, t_mc), ("sampling", sb, t_sb)):
        parts = []
        for name in ("mean", "variance", "fold_covariance"):
            v = getattr(r, name)
            x = float(getattr(exact, name))
            parts.append(f"{name}: half-width={(v.upper - v.lower) / 2:.3g} contains_exact={v.lower <= x <= v.upper}")
        print(f"{label:11s} {secs:8.3f} s  " + "; ".join(parts))
    print(f"draws={draws}; sampling/montecarlo time ratio = {t_sb / t_mc:.1f}")


if __name__ == "__main__":
    main()
