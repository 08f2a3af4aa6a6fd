"""Dask sweep against the same sweep run serially.

Workload: E[GE] and Var(GE) of the 1-D classifier of Fig. 1 (N = 1000, prior 0.3) at 16
values of the correlation c, one estimator_moments call per configuration. The baseline is a
plain loop in this process; the Dask run uses a LocalCluster of 2 single-threaded worker
processes (cluster start-up included, then a second run on the warm cluster). Results are
checked equal before timing is reported.

Run: .venv/bin/python benchmarks/bench_sweeps.py [--quick]   (``--quick``: N = 200, 8 values of c)
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 200 and 8 values of c")
    args = ap.parse_args()
    N, values = (200, range(4, 20, 2)) if args.quick else (1000, range(4, 20))
    from distributed import Client, LocalCluster

    from momentbound.estimators import GE
    from momentbound.model import fig1_model
    from momentbound.studies.distributed import run_sweep
    from momentbound.studies.tasks import estimator_task

    configs = [
        {"model": fig1_model("3/10", Fraction(i, 20)), "N": N, "estimator": GE()} for i in values
    ]
    estimator_task(**configs[0])  # warm imports and caches, as the warm cluster below
    t0 = time.perf_counter()
    serial = [estimator_task(**c) for c in configs]
    t_serial = time.perf_counter() - t0

    t0 = time.perf_counter()
    df = run_sweep(configs, estimator_task)  # starts and stops a 2-worker LocalCluster
    t_cold = time.perf_counter() - t0
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        run_sweep(configs[:2], estimator_task, scheduler=client)  # warm the workers' imports
        t0 = time.perf_counter()
        df_warm = run_sweep(configs, estimator_task, scheduler=client)
        t_warm = time.perf_counter() - t0
    for frame in (df, df_warm):
        for row, ref in zip(frame.itertuples(), serial):
            assert abs(row.mean - float(ref.mean)) < 1e-12 and abs(row.variance - float(ref.variance)) < 1e-12
    print(f"{'workload':<58} {'seconds':>9} {'ratio vs serial':>16}")
    print(f"{f'serial loop (baseline, warm), {len(configs)} configurations, N = {N}':<58} {t_serial:9.2f} "
          f"{1.0:16.2f}")
    print(f"{'run_sweep, new LocalCluster (2 processes), incl. start-up':<58} {t_cold:9.2f} {t_serial / t_cold:16.2f}")
    print(f"{'run_sweep on a warm 2-worker cluster':<58} {t_warm:9.2f} {t_serial / t_warm:16.2f}")


if __name__ == "__main__":
    main()
