"""The vectorised scikit-learn scorers against a per-dataset ``cross_val_score`` loop.

Part 1 (timing, the same datasets): ``D`` ordered datasets of ``N`` points are drawn from a small
two-class model; scikit-learn's ``StratifiedKFold(5)`` splits each. Baseline: the loop a user writes,
``cross_val_score(CategoricalNB(alpha=1), X, y, cv=StratifiedKFold(5), scoring=s)`` for every dataset
and scorer. Vectorised: the fold count tables of the same splits, scored for all datasets at once by
:func:`momentbound.estimators.scoring.fold_scores`. The fold-mean scores are asserted equal (AUC to
1e-12, where scikit-learn integrates trapezoids in floats), then the seconds and their ratio are
printed per scorer.

Part 2 (``--simulate D``): the simulation witness of ``tests/test_scoring_simulation.py`` at scale on
three models: ``D`` datasets of scikit-learn's procedure (``StratifiedKFold``, ``CategoricalNB``,
``get_scorer``; each distinct (test, train) multiset pair fitted and scored once) against
:func:`monte_carlo_scores` with 20,000 draws, ``z`` of the mean, the variance and the nan fraction.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_scorers.py [--quick | --full] [--simulate 20000]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn import config_context
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import CategoricalNB

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.scoring import SCORINGS, fold_scores, monte_carlo_scores, scoring_setup
from momentbound.splitters import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

MODEL = CellModel((2,), ["3/10", "1/10", "1/5", "2/5"])
BINARY = list(SCORINGS)


def _datasets(model: CellModel, N: int, D: int, v: int, rng: np.random.Generator):
    """``D`` splittable ordered datasets, their sklearn folds and fold count tables."""
    K, C = model.n_classes, len(model.cells)
    p = np.array([float(c) for c in model.cells])
    cv = SkStratifiedKFold(v)
    out = []
    while len(out) < D:
        seq = rng.choice(C, size=N, p=p)
        X, y = (seq // K)[:, None], seq % K
        try:
            folds = list(cv.split(X, y))
        except ValueError:
            continue
        test = np.array([np.bincount(seq[te], minlength=C) for _, te in folds])
        train = np.array([np.bincount(seq[tr], minlength=C) for tr, _ in folds])
        out.append((X, y, test, train))
    return out


def timing(N: int, D: int, v: int = 5) -> None:
    data = _datasets(MODEL, N, D, v, np.random.default_rng(0))
    setup = scoring_setup(MODEL, NaiveBayes("sklearn", 1))
    test = np.array([d[2] for d in data])
    train = np.array([d[3] for d in data])
    print(f"{D} datasets of N = {N}, StratifiedKFold({v}), CategoricalNB(alpha=1)")
    print(f"{'scoring':18} {'cross_val_score loop':>22} {'vectorised':>12} {'ratio':>8}")
    for name in BINARY:  # compile and import once, outside the timing
        fold_scores(setup, test[:2], train[:2], name, np.random.default_rng(0))
    for name in BINARY:
        t = time.perf_counter()
        ours = fold_scores(setup, test, train, name, np.random.default_rng(0)).mean(axis=1)
        vec = time.perf_counter() - t
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = np.array([cross_val_score(CategoricalNB(alpha=1, min_categories=[2]), X, y, cv=SkStratifiedKFold(v),
                                               scoring=name).mean() for X, y, _, _ in data])
        loop = time.perf_counter() - t
        assert np.array_equal(np.isnan(ours), np.isnan(theirs)), name
        ok = ~np.isnan(ours)
        assert np.allclose(ours[ok], theirs[ok], rtol=0, atol=1e-12), name
        print(f"{name:18} {loop:20.2f} s {vec:10.4f} s {loop / vec:7.0f}x")


SIM_MODELS = {  # model, N, folds
    "two classes, prior 0.3": (CellModel((2,), ["3/5", "1/20", "1/10", "1/4"]), 20, 5),
    "two classes, 3x2 inputs": (CellModel((3, 2), ["1/10", "1/20", "1/20", "1/10", "1/10", "1/20", "1/20", "1/10",
                                                   "1/10", "1/20", "1/20", "1/5"]), 30, 5),
    "three classes": (CellModel((2,), ["1/4", "1/10", "1/20", "1/20", "1/5", "7/20"]), 30, 5),
}


def simulate(D: int) -> None:
    from test_scoring_simulation import _sklearn_scores, _z, _z_fraction

    for label, (model, N, v) in SIM_MODELS.items():
        names = [s for s in SCORINGS if model.n_classes == 2 or s not in ("recall", "precision", "f1", "roc_auc")]
        t = time.perf_counter()
        with config_context(skip_parameter_validation=True):
            sim = _sklearn_scores(model, N, v, D, names)
        print(f"{label}: N = {N}, StratifiedKFold({v}), {D} scikit-learn datasets in {time.perf_counter() - t:.0f} s")
        for name in names:
            x = sim[name]
            ok = ~np.isnan(x)
            r = monte_carlo_scores(model, N, StratifiedKFold(v), scoring=name, classifier=NaiveBayes("sklearn", 1),
                                   draws=20_000, rng=np.random.default_rng(5))

            def se(interval):
                return (interval.upper - interval.lower) / 2 / 1.959964

            q = 1 - ok.mean()
            xs = x[ok]
            n = xs.size
            z_nan = _z_fraction(q, x.size, r.undefined.estimate, r.draws)
            z_mean = _z(xs.mean(), xs.std(ddof=1) / math.sqrt(n), r.mean.estimate, se(r.mean))
            dev = (xs - xs.mean()) ** 2
            z_var = _z(xs.var(ddof=1), dev.std(ddof=1) / math.sqrt(n), r.variance.estimate, se(r.variance))
            print(f"  {name:18} mean {xs.mean():.4f} vs {r.mean.estimate:.4f} (z {z_mean:+.2f}); variance "
                  f"{xs.var(ddof=1):.5f} vs {r.variance.estimate:.5f} (z {z_var:+.2f}); nan {q:.4f} vs "
                  f"{r.undefined.estimate:.4f} (z {z_nan:+.2f}); montecarlo {r.seconds:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="200 datasets (the default)")
    ap.add_argument("--full", action="store_true", help="2,000 datasets")
    ap.add_argument("--simulate", type=int, default=0, metavar="D", help="also the simulation witness with D datasets")
    ap.add_argument("--skip-timing", action="store_true", help="only the simulation witness")
    args = ap.parse_args()
    if not args.skip_timing:
        timing(30, 2000 if args.full else 200)
    if args.simulate:
        simulate(args.simulate)


if __name__ == "__main__":
    main()
