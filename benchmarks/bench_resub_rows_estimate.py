"""The work estimate of the rows route (resubstitution, Err(1), .632 on one attribute) against the
measured CPU time, on configurations outside the ones its prices were fitted on.

Prints, per configuration: the estimate (seconds), the measured CPU seconds of
``resub_states.state_moments`` (one BLAS thread) and their ratio; ``--quick`` runs the three
smallest. ``--scipy`` also times each configuration in the same run with the binomial matrices built
by ``scipy.stats.binom.pmf`` (the route's previous construction) and prints the speed ratio.
Usage: ``python benchmarks/bench_resub_rows_estimate.py [--quick] [--scipy]``.
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
    parser.add_argument("--scipy", action="store_true", help="also time scipy's binomials in the same run")
    args = parser.parse_args()
    cases = sorted(CASES, key=lambda c: resub_states.work_estimate(_model(*c[:2]), c[2], c[3]))
    if args.quick:
        cases = cases[:3]
    rng = np.random.default_rng(7)
    print(f"{'V':>3} {'K':>2} {'N':>4} {'statistic':>15} {'estimate s':>11} {'CPU s':>8} {'ratio':>6}"
          + (f" {'scipy CPU s':>12} {'speed-up':>9}" if args.scipy else ""))
    for V, K, N, statistic in cases:
        model = CellModel((V,), [float(x) for x in rng.dirichlet(np.full(V * K, 3.0))], K)
        clf = NaiveBayes("random", 0 if statistic != "resubstitution" else 1)
        est = resub_states.work_estimate(model, N, statistic) * resub_states.NS_PER_OP["rows"] * 1e-9
        t = time.process_time()
        new = resub_states.state_moments(model, clf, N, statistic, max_seconds=None)
        cpu = time.process_time() - t
        line = f"{V:>3} {K:>2} {N:>4} {statistic:>15} {est:>11.3g} {cpu:>8.3g} {cpu / est:>6.2f}"
        if args.scipy:
            fast = resub_states._binomial_rows
            resub_states._binomial_rows = _scipy_rows
            try:
                t = time.process_time()
                old = resub_states.state_moments(model, clf, N, statistic, max_seconds=None)
                before = time.process_time() - t
            finally:
                resub_states._binomial_rows = fast
            assert abs(old.second - new.second) <= 1e-11 * abs(old.second), (old, new)
            line += f" {before:>12.3g} {before / cpu:>9.2f}"
        print(line, flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB; load {os.getloadavg()[0]:.1f}")


def _scipy_rows(trials: np.ndarray, n: int, rho: float) -> np.ndarray:
    """The binomial rows as ``scipy.stats.binom.pmf`` builds them (the baseline)."""
    from scipy.stats import binom

    t = np.asarray(trials, dtype=np.int64)[:, None]
    return binom.pmf(np.arange(n + 1)[None, :], t, min(max(float(rho), 0.0), 1.0))


def _model(V: int, K: int) -> CellModel:
    return CellModel((V,), [1.0 / (V * K)] * (V * K), K)


if __name__ == "__main__":
    main()
