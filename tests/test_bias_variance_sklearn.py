"""The exact 0-1 bias-variance terms against scikit-learn's real ``CategoricalNB`` (alpha = 1,
min_categories set), refitted on simulated training sets: every term is the mean of a per-dataset
quantity (Domingos' terms) or of a per-pair-of-datasets quantity (Kohavi-Wolpert's), and each
simulated mean must lie within 3 standard errors of the exact value. The toolkit's
``ties="sklearn"`` decides exactly as ``CategoricalNB.predict``, so the prediction laws agree."""

from __future__ import annotations

import numpy as np
import pytest

from momentbound.classifiers import NaiveBayes
from momentbound.estimators.bias_variance import bias_variance
from momentbound.model import CellModel

MODEL = CellModel((2, 2), ["1/5", "1/20", "1/20", "1/5", "1/20", "1/5", "3/20", "1/10"])
N = 8
DRAWS = 1000


@pytest.fixture(scope="module")
def simulated() -> np.ndarray:
    """``pred[d, i]``: CategoricalNB's prediction at input ``i`` after training set ``d``."""
    from sklearn.naive_bayes import CategoricalNB

    rng = np.random.default_rng(20260)
    inputs = np.array(list(MODEL.inputs()))
    K = MODEL.n_classes
    cells = rng.choice(MODEL.n_cells, size=(DRAWS, N), p=np.array(MODEL.cells, dtype=float))
    pred = np.empty((DRAWS, len(inputs)), dtype=int)
    fitted: dict[bytes, np.ndarray] = {}  # a fit depends on the training set only through its count table
    for d in range(DRAWS):
        key = np.bincount(cells[d], minlength=MODEL.n_cells).tobytes()
        if key not in fitted:
            X, y = inputs[cells[d] // K], cells[d] % K
            clf = CategoricalNB(alpha=1.0, force_alpha=True, min_categories=list(MODEL.arities)).fit(X, y)
            fitted[key] = clf.predict(inputs)
        pred[d] = fitted[key]
    return pred


def _z(samples: np.ndarray, exact: object) -> float:
    return float((samples.mean() - float(exact)) / (samples.std(ddof=1) / np.sqrt(samples.size)))


def test_domingos_terms_match_categorical_nb(simulated: np.ndarray) -> None:
    r = bias_variance(MODEL, N, classifier=NaiveBayes("sklearn", 1))
    assert r.exact and r.bias > 0  # naive Bayes is biased at (1, 1)
    w = np.array([float(row.weight) for row in r.inputs])
    q = np.array([[float(v) for v in row.conditional] for row in r.inputs])
    star = np.array([row.optimal for row in r.inputs])
    biased = np.array([float(row.bias) for row in r.inputs])
    noise = np.array([float(row.noise) for row in r.inputs])
    cols = np.arange(len(w))
    q_pred = q[cols, simulated]  # P[Y = pred | x] per dataset and input
    # the main prediction of the simulated laws is the exact one at every input (so is the bias)
    counts = np.stack([(simulated == k).sum(axis=0) for k in range(MODEL.n_classes)], axis=1)
    assert list(counts.argmax(axis=1)) == [row.main for row in r.inputs]
    main = counts.argmax(axis=1)
    hit_star, miss_main = simulated == star, simulated != main
    per_draw = {
        "expected_error": (w * (1 - q_pred)).sum(axis=1),
        # c1 N = P[pred = y*] N - sum_{k != y*} P[pred = k] q(k)
        "noise_term": (w * np.where(hit_star, noise, -q_pred)).sum(axis=1),
        "variance": (w * miss_main).sum(axis=1),
        # c2 V = V on unbiased inputs, -P[pred = y*] on biased ones
        "variance_term": (w * np.where(biased > 0, -1.0 * hit_star, miss_main)).sum(axis=1),
    }
    z = {name: _z(v, getattr(r, name)) for name, v in per_draw.items()}
    assert max(abs(v) for v in z.values()) <= 3, z


def test_kohavi_wolpert_terms_match_categorical_nb(simulated: np.ndarray) -> None:
    r = bias_variance(MODEL, N, classifier=NaiveBayes("sklearn", 1), decomposition="kohavi-wolpert")
    w = np.array([float(row.weight) for row in r.inputs])
    q = np.array([[float(v) for v in row.conditional] for row in r.inputs])
    a, b = simulated[: DRAWS // 2], simulated[DRAWS // 2:]  # independent pairs of training sets
    cols = np.arange(len(w))
    same = a == b
    per_pair = {
        # (1 - sum p^2) / 2 = P[pred_a != pred_b] / 2
        "variance": (w * (~same) / 2).sum(axis=1),
        # sum (q - p)^2 / 2 = (sum q^2 - 2 sum p q + sum p^2) / 2
        "bias": (w * ((q**2).sum(axis=1) - q[cols, a] - q[cols, b] + same) / 2).sum(axis=1),
    }
    z = {name: _z(v, getattr(r, name)) for name, v in per_pair.items()}
    assert max(abs(v) for v in z.values()) <= 3, z
    assert float(r.noise) == pytest.approx(float((w * (1 - (q**2).sum(axis=1)) / 2).sum()), abs=1e-15)
