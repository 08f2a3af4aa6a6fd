"""Print the witness statistics recorded in benchmarks/RESULTS.md ("Witnesses").

Run from the repository root:  .venv/bin/python tests/oracles/report.py
Not a test: it reruns a few representative simulation checks of tests/test_estimators_simulation.py
and the scikit-learn tie audit, printing markdown tables.
"""

from __future__ import annotations

import os
import sys
import time
from fractions import Fraction as F

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sklearn.model_selection import KFold as SkKFold  # noqa: E402

from momentbound import CellModel  # noqa: E402
from momentbound.estimators import HoldOut, KFold, LeaveOneOut, estimator_moments  # noqa: E402
from momentbound.exact import NaiveBayes  # noqa: E402
from momentbound.model import independent_1d_model  # noqa: E402
from oracles import simulation as sim  # noqa: E402
from oracles.estimators import kfold_sizes  # noqa: E402
from oracles.sklearn_runs import run_sklearn  # noqa: E402

Z = 4.0


def row(label, exact, est):
    z = (est.value - exact) / est.se
    print(f"| {label} | {exact:.6g} | {est.value:.6g} | {est.se:.2g} | {z:+.2f} | {Z * est.se / abs(exact):.1%} |")


def main() -> None:
    print("| check | exact | simulated | s.e. | z | 4 s.e. / exact |")
    print("|---|---|---|---|---|---|")
    paper = independent_1d_model("2/5")
    m1 = CellModel((2,), [F(3, 10), F(1, 10), F(1, 5), F(2, 5)])
    cases = [
        ("paper 1-D, N=50, hold-out 10", paper, 50, HoldOut(test_size=10), 40_000),
        ("1-D, N=30, 3-fold CV", m1, 30, KFold(3), 40_000),
        ("1-D, N=30, 7-fold CV (unequal)", m1, 30, KFold(7), 40_000),
        ("paper 1-D, N=100, 10-fold CV", paper, 100, KFold(10), 20_000),
        ("paper 1-D, N=100, LOO", paper, 100, LeaveOneOut(), 30_000),
    ]
    for label, model, n, est, r in cases:
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        res = estimator_moments(model, n, est, classifier=NaiveBayes(ties="random"))
        t1 = time.perf_counter()
        sm = sim.SimModel.from_model(model)
        if isinstance(est, HoldOut):
            values = sim.simulate_holdout(sm, n - est.test_size, est.test_size, r, rng, ties="random")
        else:
            v = n if isinstance(est, LeaveOneOut) else est.v
            values = sim.simulate_folds(sm, kfold_sizes(n, v), r, rng, ties="random").ce
        t2 = time.perf_counter()
        row(f"{label}: mean (random ties)", float(res.mean), sim.mean_estimate(values))
        row(f"{label}: variance ({r} datasets; exact {t1 - t0:.2f} s, simulation {t2 - t1:.1f} s)",
            float(res.variance), sim.variance_estimate(values))
    print()
    print("| sklearn CategoricalNB, 2-fold CV, N=20 | predictions | exact ties | differ from exact `first` |")
    print("|---|---|---|---|")
    for name, arities, k, cells in [
        ("1-D", (2,), 2, [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
        ("3 classes", (2,), 3, [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)]),
    ]:
        model = sim.SimModel.make(arities, k, cells)
        for alpha in (0, 1):
            rng = np.random.default_rng(3)
            run = run_sklearn(model, sim.draw_points(model, 300, 20, rng), SkKFold(2), alpha)
            print(f"| {name}, alpha={alpha} | {run.n_predictions} | {run.n_exact_ties} | {run.n_disagreements} |")


if __name__ == "__main__":
    main()
