"""Vectorised numpy simulation of the real estimation procedures (test oracle).

Many datasets of N iid points are drawn at once (``rng.choice`` over the cells). The
procedures are run literally on each dataset:

* hold-out: the first ``N - Ns`` points train, the last ``Ns`` points test;
* v-fold CV: contiguous folds with scikit-learn KFold sizes (the data are iid, so which
  points form a fold does not change the law); each fold's classifier is trained on the
  counts of the other folds and predicts every point of the fold;
* GE: the classifier trained on all N points, its exact GE under the model's cells.

Naive Bayes scores are compared exactly with integer cross-multiplication
(``A_k / B_k`` with ``A_k = N_k prod_j (N_{j,x^j,k} + alpha)``, ``B_k = prod_j (N_k + alpha a_j)``,
``B_k`` set to 1 when ``N_k = 0``, whose score is 0). The ``random`` rule draws, for every
single prediction, a uniform choice among the tied top classes; ``first`` takes the lowest
present class with the top score (class 0 for an empty training set).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SimModel:
    """A data model as float arrays for simulation."""

    arities: tuple[int, ...]
    n_classes: int
    p: np.ndarray  # (C,) cell probabilities, CellModel order
    cell_x: np.ndarray  # (C, d) attribute values of each cell
    cell_y: np.ndarray  # (C,) class of each cell
    cell_input: np.ndarray  # (C,) flat input index of each cell
    inputs: np.ndarray  # (X, d) all inputs, flat input order

    @classmethod
    def make(cls, arities: Sequence[int], n_classes: int, cells: Sequence) -> "SimModel":
        arities = tuple(int(a) for a in arities)
        combos = list(itertools.product(*(range(a) for a in arities), range(n_classes)))
        p = np.array([float(c) for c in cells])
        if len(p) != len(combos):
            raise ValueError("cells do not match arities and n_classes")
        cell_x = np.array([c[:-1] for c in combos], dtype=np.int64)
        cell_y = np.array([c[-1] for c in combos], dtype=np.int64)
        inputs = np.array(list(itertools.product(*(range(a) for a in arities))), dtype=np.int64)
        cell_input = np.arange(len(combos)) // n_classes
        return cls(arities, n_classes, p / p.sum(), cell_x, cell_y, cell_input, inputs)

    @classmethod
    def from_model(cls, model) -> "SimModel":
        return cls.make(model.arities, model.n_classes, model.cells)


def draw_points(sim: SimModel, n_datasets: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Cell index of every point: shape (n_datasets, n)."""
    return rng.choice(len(sim.p), size=(n_datasets, n), p=sim.p)


def count_tables(cells: np.ndarray, n_cells: int) -> np.ndarray:
    """Count tables (R, C) of the points ``cells`` (R, m)."""
    r = cells.shape[0]
    flat = cells + n_cells * np.arange(r)[:, None]
    return np.bincount(flat.ravel(), minlength=r * n_cells).reshape(r, n_cells)


def top_sets(sim: SimModel, train: np.ndarray, alpha: int, ties: str) -> np.ndarray:
    """Boolean (R, X, K): the classes a classifier may predict at each input.

    For ``random``: every class with the top exact score (one of them is then drawn uniformly).
    For ``first``: exactly one class, the lowest present class with the top score.
    """
    r = train.shape[0]
    k_cls = sim.n_classes
    n_k = np.stack([train[:, sim.cell_y == k].sum(axis=1) for k in range(k_cls)], axis=1)  # (R,K)
    a_mat = np.repeat(n_k[:, None, :], len(sim.inputs), axis=1).astype(np.int64)  # (R,X,K)
    b_vec = np.ones((r, k_cls), dtype=np.int64)
    for j, a_j in enumerate(sim.arities):
        b_vec *= n_k + alpha * a_j
        for xi, x in enumerate(sim.inputs):
            for k in range(k_cls):
                mask = (sim.cell_x[:, j] == x[j]) & (sim.cell_y == k)
                a_mat[:, xi, k] *= train[:, mask].sum(axis=1) + alpha
    a_mat[n_k[:, None, :].repeat(len(sim.inputs), axis=1) == 0] = 0
    b_vec[n_k == 0] = 1
    if np.abs(a_mat).max(initial=0) * np.abs(b_vec).max(initial=1) >= 2**62:
        raise OverflowError("scores too large for exact int64 comparison")
    b_mat = b_vec[:, None, :]
    # ge[..., k, l]: score_k >= score_l, exactly: A_k B_l >= A_l B_k
    lhs = a_mat[..., :, None] * b_mat[..., None, :]
    rhs = a_mat[..., None, :] * b_mat[..., :, None]
    if ties == "random":
        return (lhs >= rhs).all(axis=-1)
    if ties != "first":
        raise ValueError(ties)
    top = first_rule_top(lhs, rhs, n_k)
    # lowest index among the top
    first_idx = np.where(top.any(axis=-1), top.argmax(axis=-1), 0)
    return np.arange(k_cls)[None, None, :] == first_idx[..., None]


def first_rule_top(lhs: np.ndarray, rhs: np.ndarray, n_k: np.ndarray) -> np.ndarray:
    """(R, X, K): present classes whose score is the top score among present classes."""
    present = (n_k > 0)[:, None, :]  # (R,1,K)
    beats = (lhs >= rhs) | ~present[..., None, :]  # only present classes compete
    return beats.all(axis=-1) & present


def present_ties(sim: SimModel, train: np.ndarray, alpha: int) -> np.ndarray:
    """(R, X) bool: two or more training classes share the top exact score at the input."""
    top_random = top_sets(sim, train, alpha, "random")  # all classes with the top score
    n_k = np.stack([train[:, sim.cell_y == k].sum(axis=1) for k in range(sim.n_classes)], axis=1)
    return (top_random & (n_k > 0)[:, None, :]).sum(axis=-1) >= 2


def choose(top: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One predicted class per row of ``top`` (..., K): uniform among the True entries."""
    keys = rng.random(top.shape)
    return np.where(top, keys, -1.0).argmax(axis=-1)


def predicted_probabilities(top: np.ndarray) -> np.ndarray:
    """g_x(y | T) (..., K) from the top sets: uniform over the allowed classes."""
    return top / top.sum(axis=-1, keepdims=True)


def fold_sizes_kfold(n: int, v: int) -> list[int]:
    return [n // v + (1 if i < n % v else 0) for i in range(v)]


@dataclass(frozen=True)
class SimRun:
    """Per-dataset results: ``errors`` (R, v) misclassified counts per fold, ``sizes`` (v,)."""

    errors: np.ndarray
    sizes: tuple[int, ...]

    @property
    def he(self) -> np.ndarray:
        return self.errors / np.array(self.sizes)[None, :]

    @property
    def ce(self) -> np.ndarray:
        return self.errors.sum(axis=1) / sum(self.sizes)


def simulate_folds(
    sim: SimModel,
    sizes: Sequence[int],
    n_datasets: int,
    rng: np.random.Generator,
    *,
    ties: str,
    alpha: int = 0,
    points: np.ndarray | None = None,
) -> SimRun:
    """Run CV with contiguous folds of the given sizes on ``n_datasets`` fresh datasets.

    ``points`` (n_datasets, N) replaces the random datasets when given. A hold-out split is
    the special case of two "folds" where only the last one is tested: see
    :func:`simulate_holdout`.
    """
    sizes = tuple(int(s) for s in sizes)
    n = sum(sizes)
    pts = draw_points(sim, n_datasets, n, rng) if points is None else points
    c = len(sim.p)
    total = count_tables(pts, c)
    bounds = np.cumsum((0,) + sizes)
    errors = np.zeros((n_datasets, len(sizes)), dtype=np.int64)
    rows = np.arange(n_datasets)
    for i in range(len(sizes)):
        fold = pts[:, bounds[i] : bounds[i + 1]]
        train = total - count_tables(fold, c)
        top = top_sets(sim, train, alpha, ties)  # (R, X, K)
        for col in range(fold.shape[1]):
            cell = fold[:, col]
            pred = choose(top[rows, sim.cell_input[cell]], rng)
            errors[:, i] += pred != sim.cell_y[cell]
    return SimRun(errors, sizes)


def simulate_holdout(
    sim: SimModel, n_train: int, n_test: int, n_datasets: int, rng: np.random.Generator, *,
    ties: str, alpha: int = 0,
) -> np.ndarray:
    """Hold-out error HE per dataset (R,): train on n_train points, test on n_test others."""
    c = len(sim.p)
    pts = draw_points(sim, n_datasets, n_train + n_test, rng)
    train = count_tables(pts[:, :n_train], c)
    top = top_sets(sim, train, alpha, ties)
    rows = np.arange(n_datasets)
    errors = np.zeros(n_datasets, dtype=np.int64)
    for col in range(n_train, n_train + n_test):
        cell = pts[:, col]
        pred = choose(top[rows, sim.cell_input[cell]], rng)
        errors += pred != sim.cell_y[cell]
    return errors / n_test


def simulate_ge(
    sim: SimModel, n: int, n_datasets: int, rng: np.random.Generator, *, ties: str, alpha: int = 0
) -> np.ndarray:
    """GE(T) per dataset (R,): exact error of the classifier trained on n points."""
    train = count_tables(draw_points(sim, n_datasets, n, rng), len(sim.p))
    g = predicted_probabilities(top_sets(sim, train, alpha, ties))  # (R, X, K)
    correct = g[:, sim.cell_input, sim.cell_y]  # (R, C)
    return 1.0 - correct @ sim.p


# ------------------------------------------------------------------ statistics
@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with its standard error."""

    value: float
    se: float

    def contains(self, truth: float, z: float) -> bool:
        return abs(self.value - truth) <= z * self.se

    def __str__(self) -> str:
        return f"{self.value:.6g} +- {self.se:.2g}"


def mean_estimate(x: np.ndarray) -> Estimate:
    x = np.asarray(x, dtype=float)
    return Estimate(float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))))


def variance_estimate(x: np.ndarray) -> Estimate:
    """Unbiased sample variance with its delta-method standard error.

    For iid draws, Var(s^2) ~ (mu_4 - sigma^4) / R: estimated with the sample central moments.
    """
    x = np.asarray(x, dtype=float)
    r = len(x)
    dev = x - x.mean()
    m2 = float((dev**2).mean())
    m4 = float((dev**4).mean())
    return Estimate(m2 * r / (r - 1), float(np.sqrt(max(m4 - m2 * m2, 0.0) / r)))


def covariance_estimate(x: np.ndarray, y: np.ndarray) -> Estimate:
    """Unbiased sample covariance with the standard error of the mean of centred products."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    r = len(x)
    prod = (x - x.mean()) * (y - y.mean())
    return Estimate(float(prod.sum() / (r - 1)), float(prod.std(ddof=1) / np.sqrt(r)))
