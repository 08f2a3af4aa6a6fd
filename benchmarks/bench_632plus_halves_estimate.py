"""The work estimate of exact .632+ on the row-halves route against the measured CPU time, by part.

One configuration per process (``python benchmarks/bench_632plus_halves_estimate.py MODEL TIES N``):
``MODEL`` is ``two`` (one 2-valued attribute, two classes, ``P = [1/2, 1/20, 3/10, 3/20]``), ``b``
(model (b) of ``benchmarks/bench_resub_multiattr.py``: 4 values, three classes) or ``three`` (one
3-valued attribute, two classes). Prints one line: the CPU seconds of ``resub_states.state_moments(...,
"632plus", max_seconds=None)`` and of its parts (the bootstrap-row table, the rest of the row statistics,
the half tables, the pairs with the threshold, the delta-method sums), the estimate
``resub_states.work_estimate`` (seconds), their ratio, the load average and the peak RSS.
``--all`` runs every configuration of :data:`CASES`, each in its own process; ``--quick`` the small
ones of :data:`QUICK`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from fractions import Fraction

from momentbound import CellModel
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact import bootstrap_rows, resub_states, row_halves

MODELS = {
    "two": ((2,), 2, [Fraction(1, 2), Fraction(1, 20), Fraction(3, 10), Fraction(3, 20)]),
    "b": ((4,), 3, [5, 2, 1, 2, 5, 2, 1, 2, 5, 3, 3, 2]),
    "three": ((3,), 2, [4, 1, 2, 3, 1, 5]),
}
#: (model, ties, N)
CASES = ([("two", t, n) for t in ("first", "random") for n in (100, 200, 300, 400)]
         + [("b", "random", n) for n in (20, 26, 30)]
         + [("three", t, n) for t, n in (("random", 60), ("random", 90), ("first", 60), ("first", 90))])
#: ``--quick``: one small run of each ties rule
QUICK = [("two", "first", 60), ("two", "random", 60), ("b", "random", 12)]


def _timed(mod, name, acc):
    f = getattr(mod, name)

    def wrap(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            acc[name] = acc.get(name, 0.0) + time.process_time() - t
    setattr(mod, name, wrap)


def one(model_name: str, ties: str, N: int) -> None:
    arities, K, w = MODELS[model_name]
    model = CellModel.normalized(arities, [Fraction(v) for v in w], K)
    clf = NaiveBayes(ties, 0)
    acc: dict[str, float] = {}
    for mod, name in ((bootstrap_rows, "bootstrap_row_table"), (row_halves, "_row_stats"),
                      (row_halves, "half_states"), (row_halves, "threshold"), (row_halves, "half_moments"),
                      (row_halves, "_delta_sums")):
        _timed(mod, name, acc)
    est = resub_states.work_estimate(model, N, "632plus", clf) * resub_states.NS_PER_OP["row-halves"] * 1e-9
    t = time.process_time()
    resub_states.state_moments(model, clf, N, "632plus", max_seconds=None)
    cpu = time.process_time() - t
    table = acc["bootstrap_row_table"]
    rows = acc["_row_stats"] - table
    halves = acc["half_states"] - acc["_row_stats"]
    pairs = acc["threshold"] + acc["half_moments"]
    print(f"{model_name:>5} {ties:>6} {N:>4} {cpu:8.2f} {table:7.2f} {rows:6.2f} {halves:7.2f} {pairs:6.2f} "
          f"{acc['_delta_sums']:6.2f} {est:8.2f} {cpu / est:6.2f} {os.getloadavg()[0]:5.2f} "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:5.2f}", flush=True)


def main() -> None:
    if sys.argv[1:] in (["--all"], ["--quick"]):
        print(f"{'model':>5} {'ties':>6} {'N':>4} {'CPU s':>8} {'table':>7} {'rows':>6} {'halves':>7} {'pairs':>6} "
              f"{'delta':>6} {'est s':>8} {'ratio':>6} {'load':>5} {'GiB':>5}", flush=True)
        for m, t, n in (QUICK if sys.argv[1] == "--quick" else CASES):
            subprocess.run([sys.executable, __file__, m, t, str(n)], check=True)
        return
    one(sys.argv[1], sys.argv[2], int(sys.argv[3]))


if __name__ == "__main__":
    main()
