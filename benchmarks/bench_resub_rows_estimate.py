"""The work estimate of the rows route (resubstitution, Err(1), .632 on one attribute) against the
measured CPU time, on configurations outside the ones its prices were fitted on.

Prints, per configuration: the estimate (seconds), the measured CPU seconds of
``resub_states.state_moments`` (one BLAS thread) and their ratio; ``--quick`` runs the three
smallest. Usage: ``python benchmarks/bench_resub_rows_estimate.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from momentbound import CellModel  # noqa: E402
from momentbound.classifiers import NaiveBayes  # noqa: E402
from momentbound.exact import resub_states  # noqa: E402

#: (values of the attribute, classes, N, statistic)
CASES = [
    (3, 2, 150, "resubstitution"), (5, 3, 25, "resubstitution"), (2, 5, 10, "resubstitution"),
    (7, 2, 200, "resubstitution"), (4, 4, 12, "632"), (5, 2, 180, "bootstrap"), (3, 3, 45, "632"),
    (2, 2, 500, "resubstitution"), (4, 3, 35, "bootstrap"), (6, 2, 260, "632"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the three smallest configurations")
    args = parser.parse_args()
    cases = sorted(CASES, key=lambda c: resub_states.work_estimate(_model(*c[:2]), c[2], c[3]))
    if args.quick:
        cases = cases[:3]
    rng = np.random.default_rng(7)
    print(f"{'V':>3} {'K':>2} {'N':>4} {'statistic':>15} {'estimate s':>11} {'CPU s':>8} {'ratio':>6}")
    for V, K, N, statistic in cases:
        model = CellModel((V,), [float(x) for x in rng.dirichlet(np.full(V * K, 3.0))], K)
        clf = NaiveBayes("random", 0 if statistic != "resubstitution" else 1)
        est = resub_states.work_estimate(model, N, statistic) * resub_states.NS_PER_OP["rows"] * 1e-9
        t = time.process_time()
        resub_states.state_moments(model, clf, N, statistic, max_seconds=None)
        cpu = time.process_time() - t
        print(f"{V:>3} {K:>2} {N:>4} {statistic:>15} {est:>11.3g} {cpu:>8.3g} {cpu / est:>6.2f}", flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB; load {os.getloadavg()[0]:.1f}")


def _model(V: int, K: int) -> CellModel:
    return CellModel((V,), [1.0 / (V * K)] * (V * K), K)


if __name__ == "__main__":
    main()
