"""Work estimates of the exact class-count routes (``StratifiedKFold``, ``RepeatedStratifiedKFold``,
``ShuffleSplit``, ``StratifiedShuffleSplit``) against their measured process CPU time.

The estimate (:func:`momentbound.exact.stratified.route_seconds`) is a dry run of the route with a
:class:`~momentbound.exact.stratified.TermWork` in place of the term cache: it counts the numpy
operations (``ops``), the array entries they touch (``cells``) and the term calls (``calls``) of
every term the route computes, priced with ``PER_UNIT``. Here each configuration is run for real
with the exact backend's arithmetic (rational up to N = 12 for exact models, float above), timed
with ``time.process_time`` (the machine is shared, so wall-clock time measures the other jobs too),
and the table gives estimate, measured CPU seconds and their ratio. ``--fit`` also prints the
per-unit costs that minimise the squared relative error over the configurations run (nonnegative
least squares on ``units / measured``), the way ``PER_UNIT`` was set.

Run it with one BLAS thread (``OPENBLAS_NUM_THREADS=1``): on a loaded two-core machine OpenBLAS's
second thread spins, and process CPU time then counts its waiting (a 2-attribute StratifiedKFold at
N = 20 took 4.1 s of CPU with two threads, 0.85 s with one).

Usage: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_stratified_work.py [--only 0,3,5] [--fit] [--quick]``
(``--quick``: the cheapest configurations of each route, ``QUICK`` or ``QUICK_STATES``).
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.exact.stratified import (PER_UNIT, PER_UNIT_STATES, auto_arithmetic, repeated_stratified_cv_moments,
                                          stratified_cv_moments, term_work)
from momentbound.model.cells import CellModel
from momentbound.splitters.repeated import RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

#: (route, arities, classes, N, folds or test size)
CONFIGS = [
    ("skf", (2,), 2, 20, 5), ("skf", (2,), 2, 40, 10), ("skf", (2, 2), 2, 20, 5), ("skf", (2,), 3, 24, 4),
    ("skf", (3,), 2, 30, 3), ("skf", (2, 2), 2, 12, 3),
    ("rskf", (2,), 2, 20, 5), ("rskf", (2,), 3, 15, 3), ("rskf", (2, 2), 2, 14, 2),
    ("ss", (2,), 2, 30, 5), ("ss", (2, 2), 2, 16, 4), ("ss", (2,), 3, 15, 3),
    ("sss", (2,), 3, 20, 5), ("sss", (3,), 2, 30, 6), ("sss", (2, 2), 2, 18, 4), ("ss", (2,), 2, 12, 3),
]
#: binary attributes (the state route, priced with PER_UNIT_STATES): three classes and two attributes
#: up to N = 30, the sizes of benchmarks/bench_stratified_multiattr.py
STATE_CONFIGS = [
    ("skf", (2, 2), 3, 12, 5), ("skf", (2, 2), 3, 20, 5), ("skf", (2, 2), 3, 25, 10), ("skf", (2, 2), 3, 30, 5),
    ("skf", (2, 2), 2, 30, 5), ("skf", (2,), 3, 40, 10), ("skf", (2, 2, 2), 2, 16, 4),
    ("rskf", (2, 2), 3, 15, 5), ("rskf", (2, 2), 3, 20, 5), ("rskf", (2, 2), 2, 24, 3),
    ("ss", (2, 2), 3, 15, 3), ("sss", (2, 2), 3, 20, 4), ("sss", (2, 2), 3, 25, 5), ("sss", (2,), 3, 30, 6),
    ("skf", (2, 2), 3, 10, 3), ("rskf", (2,), 2, 10, 2), ("sss", (2, 2), 2, 11, 3),
    ("skf", (2, 2), 3, 30, 10), ("rskf", (2, 2), 3, 30, 5), ("sss", (2, 2), 3, 30, 6),
]
#: the cheapest configurations of each route (indices of CONFIGS and STATE_CONFIGS), for --quick
QUICK, QUICK_STATES = "0,5,6,13,15", "14,15,16"
NAMES = {"skf": "StratifiedKFold", "rskf": "RepeatedStratifiedKFold", "ss": "ShuffleSplit",
         "sss": "StratifiedShuffleSplit"}


def model(arities: tuple[int, ...], K: int, seed: int) -> CellModel:
    """A fixed exact model: integer weights 1..9 drawn with ``seed``, normalised."""
    w = np.random.default_rng(seed).integers(1, 10, math.prod(arities) * K)
    return CellModel(arities, [str(Fraction(int(x), int(w.sum()))) for x in w])


def splitter(route: str, arg: int):
    return {"skf": lambda: StratifiedKFold(arg), "rskf": lambda: RepeatedStratifiedKFold(arg, 10),
            "ss": lambda: ShuffleSplit(10, arg), "sss": lambda: StratifiedShuffleSplit(10, arg)}[route]()


def run(route: str, m: CellModel, N: int, arg: int, terms) -> object:
    """The exact route of the splitter, with the given term cache (or ``None``: a fresh one)."""
    clf = NaiveBayes(ties="first")
    mode = auto_arithmetic(m, N)
    if route == "skf":
        return stratified_cv_moments(m, N, arg, classifier=clf, arithmetic=mode, terms=terms)
    if route == "rskf":
        return repeated_stratified_cv_moments(m, N, arg, 10, classifier=clf, arithmetic=mode, terms=terms)
    return shuffle_split_moments(m, N, arg, 10, classifier=clf, arithmetic=mode, terms=terms,
                                 stratified=route == "sss")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated indices of CONFIGS")
    ap.add_argument("--fit", action="store_true", help="also print the least-squares per-unit costs")
    ap.add_argument("--states", action="store_true", help="the binary-attribute configurations (STATE_CONFIGS)")
    ap.add_argument("--quick", action="store_true", help="only the cheapest configurations of each route")
    args = ap.parse_args()
    configs = STATE_CONFIGS if args.states else CONFIGS
    if args.quick and args.only is None:
        args.only = QUICK_STATES if args.states else QUICK
    chosen = range(len(configs)) if args.only is None else [int(i) for i in args.only.split(",")]
    print("| splitter | arities, classes | N | folds / test size | arithmetic | units (ops, cells, [kernel,] calls) | estimate (s) "
          "| measured CPU (s) | measured / estimate |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for i in chosen:
        route, arities, K, N, arg = configs[i]
        m = model(arities, K, i)
        estimate = splitter(route, arg).estimated_seconds(m, N)
        work = term_work(m, NaiveBayes(ties="first"), auto_arithmetic(m, N))
        run(route, m, N, arg, work)
        units = work.all_units()
        start = time.process_time()
        run(route, m, N, arg, None)
        measured = time.process_time() - start
        rows.append((units, auto_arithmetic(m, N), measured))
        shown = ", ".join(f"{units[k]:.3g}" for k in work.KINDS)
        print(f"| {NAMES[route]} | {arities}, {K} | {N} | {arg} | {auto_arithmetic(m, N)} "
              f"| {shown} | {estimate:.3g} | {measured:.3g} | {measured / estimate:.2f} |", flush=True)
    if args.fit and args.states:
        from scipy.optimize import nnls

        A = np.array([[u["ops"], u["cells"] * (mode == "float"), u["kernel"] * (mode == "float"),
                       (u["cells"] + u["kernel"]) * (mode == "rational"), u["calls"]] for u, mode, _ in rows])
        b = np.array([t for _, _, t in rows])
        c, _ = nnls(A / b[:, None], np.ones(len(b)))
        print(f"\nfit: ops {c[0]:.3g}, cells {c[1]:.3g}, kernel {c[2]:.3g}, cells_rational {c[3]:.3g}, calls {c[4]:.3g} "
              f"s per unit (in use: {PER_UNIT_STATES})")
    elif args.fit:
        from scipy.optimize import nnls

        A = np.array([[u["ops"], u["cells"] * (mode == "float"), u["cells"] * (mode == "rational"), u["calls"]]
                      for u, mode, _ in rows])
        b = np.array([t for _, _, t in rows])
        c, _ = nnls(A / b[:, None], np.ones(len(b)))
        print(f"\nfit: ops {c[0]:.3g}, cells {c[1]:.3g}, cells_rational {c[2]:.3g}, calls {c[3]:.3g} s per unit "
              f"(in use: {PER_UNIT})")


if __name__ == "__main__":
    main()
