"""Exact accuracy against GE_N and exact ideal-bootstrap moments vs vectorised numpy simulations.

The paper's one-attribute model (cells 0.2, 0.3, 0.2, 0.3; arities (2,)), naive Bayes with random
ties and alpha = 0, N = 100:

1. the exact RMS of 10-fold CV against GE_N (``estimator_accuracy(..., KFold(10))``), against a
   vectorised simulation of the real procedure (datasets as cell indices, folds counted with
   ``bincount``, predictions from the training counts, the tie coin as its probability, GE_N of the
   full-data table);
2. the exact ideal-bootstrap ``Err(1)`` mean and variance (``estimator_moments(..., Bootstrap())``),
   against a vectorised simulation of the procedure with B = 200 bootstrap samples per dataset
   (whose variance also holds the small finite-B part);
3. the exact RMS of scikit-learn's ``StratifiedKFold(10)`` against GE_N
   (``estimator_accuracy(..., StratifiedKFold(10))``), against a vectorised simulation that deals the
   folds as scikit-learn's ``_make_test_folds`` does (classes encoded in order of first appearance,
   sorted labels dealt round-robin to the folds, each class's points given their folds in data order).

Each simulation runs ``R`` datasets; the script reports its relative standard error on the
variance (``Var(CE - GE_N)``, resp. ``Var(Err(1))``) and the time it would need for a 0.1% relative
standard error (extrapolated linearly in ``R``, labelled as such), the ratio to the exact time, and
the peak traced memory of each part (``tracemalloc``, numpy allocations included).

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_accuracy.py [R_cv] [R_boot] [--quick]
(``--quick``: R_cv = 20000 and R_boot = 200 unless given, a few seconds of simulation; the
stratified simulation runs R_cv datasets too.)
"""

from __future__ import annotations

import math
import sys
import time
import tracemalloc

import numpy as np

from momentbound import CellModel
from momentbound.estimators import Bootstrap, KFold, estimator_accuracy, estimator_moments
from momentbound.splitters import StratifiedKFold

MODEL = CellModel((2,), ["0.2", "0.3", "0.2", "0.3"])
P = np.array([0.2, 0.3, 0.2, 0.3])
W = np.array([0.3, 0.2, 0.3, 0.2])  # P[X = x, Y != y] in cell order (x major, y fastest)
N = 100
TARGET = 1e-3


def timed(f):
    """``(result, wall seconds, process CPU seconds, peak MiB)`` (on a shared machine the CPU time is
    the steadier figure)."""
    tracemalloc.start()
    c = time.process_time()
    t = time.perf_counter()
    out = f()
    secs = time.perf_counter() - t
    cpu = time.process_time() - c
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, secs, cpu, peak / 2**20


def predict0(counts: np.ndarray) -> np.ndarray:
    """P[predict class 0] at both inputs from count tables (..., 4): compare n[x,0] with n[x,1]."""
    c = counts.reshape(counts.shape[:-1] + (2, 2))
    return (c[..., 0] > c[..., 1]) + 0.5 * (c[..., 0] == c[..., 1])


def ge_of(counts: np.ndarray) -> np.ndarray:
    g0 = predict0(counts)
    return (g0 * W[[0, 2]] + (1 - g0) * W[[1, 3]]).sum(axis=-1)


def err_at(counts: np.ndarray) -> np.ndarray:
    """Error probability at a point of each cell (..., 4) of classifiers trained on ``counts``."""
    g0 = predict0(counts)
    return np.stack([1 - g0[..., 0], g0[..., 0], 1 - g0[..., 1], g0[..., 1]], axis=-1)


def simulate_cv(R: int, rng: np.random.Generator, chunk: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """For R datasets (10 contiguous folds of 10 points): the conditional mean of CE - GE_N given the
    data (tie coins as probabilities) and the tie coins' variance of CE."""
    out = np.empty(R)
    coin = np.empty(R)
    for s in range(0, R, chunk):
        r = min(chunk, R - s)
        pts = rng.choice(4, size=(r, N), p=P)
        fold = np.arange(N) // 10
        flat = (np.arange(r)[:, None] * 10 + fold[None, :]) * 4 + pts
        folds = np.bincount(flat.ravel(), minlength=r * 40).reshape(r, 10, 4)
        total = folds.sum(axis=1)
        e = err_at(total[:, None, :] - folds)  # (r, 10, 4)
        ce = (folds * e).sum(axis=(1, 2)) / N
        out[s:s + r] = ce - ge_of(total)
        coin[s:s + r] = (folds * e * (1 - e)).sum(axis=(1, 2)) / N**2
    return out, coin


def stratified_folds(pts: np.ndarray, v: int) -> np.ndarray:
    """Fold label of every point of each dataset (rows of cell indices, two classes) under
    scikit-learn's ``StratifiedKFold(v)``: the class of the first point is encoded 0, the sorted encoded
    labels are dealt round-robin (position ``j`` to fold ``j mod v``), and the ``j``-th point of a class
    in data order goes to the fold of its class's ``j``-th dealt slot."""
    r, n = pts.shape
    y = pts % 2
    enc = (y != y[:, :1]).astype(np.int64)  # 0: the class that appears first
    n0 = (enc == 0).sum(axis=1)
    i = np.arange(v)
    # slots j with j mod v == i: ceil((m - i) / v) of them among positions 0..m-1
    below = lambda m: np.maximum(0, -((i[None, :] - m[:, None]) // v))  # noqa: E731
    alloc0 = below(n0)
    alloc1 = below(np.full(r, n)) - alloc0
    cum = np.stack([np.cumsum(alloc0, axis=1), np.cumsum(alloc1, axis=1)], axis=1)  # (r, 2, v)
    rank = np.where(enc == 0, np.cumsum(enc == 0, axis=1), np.cumsum(enc == 1, axis=1)) - 1
    per_point = np.take_along_axis(cum, enc[:, :, None].repeat(v, axis=2), axis=1)  # (r, n, v)
    return (per_point <= rank[:, :, None]).sum(axis=2)


def simulate_stratified(R: int, rng: np.random.Generator, chunk: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    """:func:`simulate_cv` with scikit-learn's ``StratifiedKFold(10)`` folds (every dataset of 100
    points has a class of >= 10 members, so scikit-learn splits all of them)."""
    out = np.empty(R)
    coin = np.empty(R)
    for s in range(0, R, chunk):
        r = min(chunk, R - s)
        pts = rng.choice(4, size=(r, N), p=P)
        fold = stratified_folds(pts, 10)
        flat = (np.arange(r)[:, None] * 10 + fold) * 4 + pts
        folds = np.bincount(flat.ravel(), minlength=r * 40).reshape(r, 10, 4)
        total = folds.sum(axis=1)
        e = err_at(total[:, None, :] - folds)
        ce = (folds * e).sum(axis=(1, 2)) / N
        out[s:s + r] = ce - ge_of(total)
        coin[s:s + r] = (folds * e * (1 - e)).sum(axis=(1, 2)) / N**2
    return out, coin


def simulate_bootstrap(R: int, B: int, rng: np.random.Generator, chunk: int = 200) -> np.ndarray:
    """Err(1) with B bootstrap samples for R datasets (losses as their tie-coin expectations)."""
    out = np.empty(R)
    for s in range(0, R, chunk):
        r = min(chunk, R - s)
        pts = rng.choice(4, size=(r, N), p=P)
        idx = rng.integers(0, N, size=(r, B, N))
        rows = np.arange(r)[:, None, None]
        cells = pts[rows, idx]
        flat = (np.arange(r * B).reshape(r, B, 1)) * 4 + cells
        tables = np.bincount(flat.ravel(), minlength=r * B * 4).reshape(r, B, 4)
        mult = np.bincount((np.arange(r * B).reshape(r, B, 1) * N + idx).ravel(), minlength=r * B * N).reshape(r, B, N)
        left = mult == 0
        e = err_at(tables)  # (r, B, 4)
        loss = np.take_along_axis(e, np.broadcast_to(pts[:, None, :], (r, B, N)), axis=2)
        n_left = left.sum(axis=1)
        per_point = np.where(n_left > 0, (loss * left).sum(axis=1) / np.maximum(n_left, 1), 0.0)
        out[s:s + r] = per_point.sum(axis=1) / (n_left > 0).sum(axis=1)
    return out


def variance_rse(x: np.ndarray) -> float:
    d2 = (x - x.mean()) ** 2
    return float(d2.std(ddof=1) / math.sqrt(len(x)) / d2.mean())


def compare_cv(tag: str, splitter, simulate, R: int, seed: int) -> None:
    """Exact accuracy of a CV splitter against GE_N, then its simulation in the same run."""
    acc, t_exact, c_exact, mem_exact = timed(lambda: estimator_accuracy(MODEL, N, splitter))
    print(f"[{tag}]  exact {splitter.describe()}: {t_exact:.3f} s (CPU {c_exact:.3f} s), peak {mem_exact:.1f} MiB; E[CE] = {acc.mean:.6f}, "
          f"E[GE_N] = {acc.ge_full_mean:.6f}, bias = {acc.bias:.6f}, Var(CE - GE_N) = "
          f"{acc.deviation_variance:.6g}, RMS = {acc.rms:.6f}, corr = {acc.correlation_with_ge:.4f}")
    (dev, coin), t_sim, c_sim, mem_sim = timed(lambda: simulate(R, np.random.default_rng(seed)))
    rse = variance_rse(dev)
    var_sim = float(dev.var(ddof=1) + coin.mean())  # law of total variance: the coins add E[coin]
    rms_sim = math.sqrt(float(np.mean(dev**2) + coin.mean()))
    t_target = t_sim * (rse / TARGET) ** 2
    print(f"[{tag}]  simulation: R = {R}: {t_sim:.3f} s (CPU {c_sim:.3f} s), peak {mem_sim:.1f} MiB; RMS = {rms_sim:.6f}, "
          f"Var(CE - GE_N) = {var_sim:.6g} (relative s.e. {rse:.2%}; exact value "
          f"{abs(var_sim - acc.deviation_variance) / (rse * dev.var(ddof=1)):.2f} s.e. away)")
    print(f"[{tag}]  simulation at {TARGET:.1%} relative s.e. on the variance (extrapolated): {t_target:.1f} s; "
          f"ratio to exact {t_target / t_exact:.0f}x; measured run / exact {t_sim / t_exact:.1f}x")


def main() -> None:
    argv = [a for a in sys.argv[1:] if a != "--quick"]
    quick = len(argv) < len(sys.argv) - 1
    R_cv = int(argv[0]) if len(argv) > 0 else (20_000 if quick else 200_000)
    R_boot = int(argv[1]) if len(argv) > 1 else (200 if quick else 4_000)
    # imports are not part of the timed work
    import scipy.stats  # noqa: F401

    import momentbound.bounds.result  # noqa: F401
    import momentbound.exact.tables  # noqa: F401
    import momentbound.probability.registry  # noqa: F401

    print(f"model: cells 0.2, 0.3, 0.2, 0.3 (one binary attribute), N = {N}, naive Bayes, random ties")
    compare_cv("cv", KFold(10), simulate_cv, R_cv, 1)
    compare_cv("strat", StratifiedKFold(10), simulate_stratified, R_cv, 3)

    boot, t_exact_b, c_exact_b, mem_exact_b = timed(lambda: estimator_moments(MODEL, N, Bootstrap()))
    print(f"[boot] exact ideal Err(1): {t_exact_b:.3f} s (CPU {c_exact_b:.3f} s), peak {mem_exact_b:.1f} MiB; E = {boot.mean:.6f}, "
          f"Var = {boot.variance:.6g}")
    err1, t_sim_b, c_sim_b, mem_sim_b = timed(lambda: simulate_bootstrap(R_boot, 200, np.random.default_rng(2)))
    rse_b = variance_rse(err1)
    t_target_b = t_sim_b * (rse_b / TARGET) ** 2
    print(f"[boot] simulation B = 200: R = {R_boot}: {t_sim_b:.3f} s (CPU {c_sim_b:.3f} s), peak {mem_sim_b:.1f} MiB; "
          f"E = {err1.mean():.6f}, Var = {err1.var(ddof=1):.6g} (relative s.e. {rse_b:.2%})")
    print(f"[boot] simulation at {TARGET:.1%} relative s.e. on the variance (extrapolated): {t_target_b:.0f} s; "
          f"ratio to exact {t_target_b / t_exact_b:.0f}x; measured run / exact {t_sim_b / t_exact_b:.1f}x")


if __name__ == "__main__":
    main()
