"""``ties="sklearn"``: naive Bayes deciding exactly as scikit-learn's ``CategoricalNB.predict``.

The witness is the real ``CategoricalNB`` trained on a dataset with each count table; the exact and
Monte Carlo routes are checked against it, and routes that cannot follow the rule refuse it.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import warnings
from fractions import Fraction

import numpy as np
import pytest
from conftest import run_in_process

from momentbound import CellModel
from momentbound.estimators._nb_kernel import Layout, predict_tables
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments
from momentbound.exact import NaiveBayes
from momentbound.splitters import GE


def _sklearn_predictions(table: np.ndarray, alpha: float) -> np.ndarray:
    """CategoricalNB(alpha, force_alpha=True, min_categories=a) fitted on a dataset with the counts of ``table``
    (shape ``(a, K)``), its predictions at every value."""
    from sklearn.naive_bayes import CategoricalNB

    a, K = table.shape
    X = np.repeat(np.repeat(np.arange(a), K), table.ravel())[:, None]
    y = np.repeat(np.tile(np.arange(K), a), table.ravel())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # log(0) with alpha = 0
        clf = CategoricalNB(alpha=alpha, force_alpha=True, min_categories=a).fit(X, y)
    return clf.predict(np.arange(a)[:, None])


def _tables(cells: int, n: int) -> np.ndarray:
    """Every count table of ``n`` points over ``cells`` cells."""
    return np.array([t for t in itertools.product(range(n + 1), repeat=cells) if sum(t) == n])


@pytest.mark.parametrize("alpha, arity, K, n", [(0, 3, 2, 7), (1, 2, 3, 6)])
def test_sklearn_rule_equals_categorical_nb_on_every_count_table(alpha, arity, K, n):
    """Every count table of n points: the sklearn rule (Python and compiled kernel) predicts what the real
    CategoricalNB predicts at every input; ties='first' differs on some tables (float-decided ties)."""
    model = CellModel((arity,), [Fraction(1, arity * K)] * (arity * K), K)
    tables = _tables(arity * K, n)
    exact = NaiveBayes("sklearn", alpha).predict_tables(model, tables)
    compiled = predict_tables(Layout((arity,), K, alpha, 1, "sklearn"), tables)
    first = NaiveBayes("first", alpha).predict_tables(model, tables)
    assert set(np.unique(exact)) <= {0.0, 1.0} and (exact.sum(axis=2) == 1).all()
    differ = 0
    for t, g, gc, gf in zip(tables, exact, compiled, first):
        want = _sklearn_predictions(t.reshape(arity, K), alpha)
        assert (g.argmax(axis=1) == want).all(), t
        assert (gc.argmax(axis=1) == want).all(), t
        differ += bool((gf.argmax(axis=1) != want).any())
    assert differ > 0


def test_sklearn_rule_ge_mean_equals_enumeration_with_categorical_nb():
    """alpha = 0, one 3-valued attribute, N = 7: E[GE_N] of the exact backend under ties='sklearn' equals the sum
    over every count table (multinomial probability times the GE of the real CategoricalNB fitted on it); the
    value under ties='first' is another number."""
    cells = [Fraction(1, 10), Fraction(1, 5), Fraction(3, 10), Fraction(1, 10), Fraction(1, 5), Fraction(1, 10)]
    model = CellModel((3,), cells)
    N = 7
    total = Fraction(0)
    for t in _tables(6, N):
        prob = Fraction(math.factorial(N))
        for c, k in zip(cells, t):
            prob *= c**k / math.factorial(k)
        pred = _sklearn_predictions(t.reshape(3, 2), 0)
        total += prob * sum(cells[2 * x + y] for x in range(3) for y in range(2) if pred[x] != y)
    sk = estimator_moments(model, N, GE(), classifier=NaiveBayes("sklearn", 0)).mean
    first = estimator_moments(model, N, GE(), classifier=NaiveBayes("first", 0)).mean
    assert sk == total
    assert first != total


def _run(*args: str) -> subprocess.CompletedProcess:
    # in this process, file descriptors included (estimate runs as a real process in test_cli_subprocess.py)
    return run_in_process([*args, "--json"])


def test_sklearn_rule_cli_exact_and_monte_carlo_agree():
    """The CLI with --ties sklearn: the exact E[GE_N] at N = 30 (3-valued attribute, alpha = 0) differs from
    --ties first, and the Monte Carlo kernel lands within 4 standard errors of it."""
    base = ["estimate", "--arities", "3", "--cells", "1/4,1/12,1/12,1/4,1/6,1/6", "--N", "30", "--estimator",
            "ge", "--alpha", "0"]
    sk, first = _run(*base, "--ties", "sklearn"), _run(*base, "--ties", "first")
    assert sk.returncode == 0 and first.returncode == 0, sk.stderr + first.stderr
    exact, exact_first = json.loads(sk.stdout), json.loads(first.stdout)
    assert exact["ties"] == "sklearn"
    assert exact["mean"] == pytest.approx(0.3501977, abs=1e-7)
    assert exact_first["mean"] == pytest.approx(0.3501711, abs=1e-7)
    mc = _run(*base, "--ties", "sklearn", "--backend", "montecarlo", "--draws", "10000", "--seed", "1")
    assert mc.returncode == 0, mc.stderr
    out = json.loads(mc.stdout)
    se = math.sqrt(exact["variance"] / 10000)
    assert abs(out["mean"] - exact["mean"]) < 4 * se


def test_sklearn_rule_refused_where_it_cannot_be_followed():
    """The moment backends decide from the sign of Z (no float rounding): refused with the reason, as is an
    alpha whose smoothed counts are not exact in float64; the histogram rule takes only random/first."""
    proc = _run("estimate", "--cells", "1/5,3/10,1/5,3/10", "--N", "10", "--estimator", "ge", "--ties", "sklearn",
                "--backend", "bound:lp")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "sign of Z_x" in proc.stderr and "--ties sklearn" in proc.stderr
    with pytest.raises(InvalidArgument, match="small binary fraction"):
        NaiveBayes("sklearn", 0.1)
    assert NaiveBayes("sklearn", 0.5).alpha_exact == Fraction(1, 2)
    from momentbound.classifiers import HistogramRule

    with pytest.raises(InvalidArgument, match="ties must be one of"):
        HistogramRule("sklearn")


def test_sklearn_rule_leave_one_out_moments_equal_enumeration_with_categorical_nb():
    """Leave-one-out at N = 8 (training sets of 7 points, where float-decided ties occur), alpha = 0, one
    3-valued attribute: the exact mean and variance (pair and cross terms of the generic engine) under
    ties='sklearn' equal those of an enumeration of every count table, each left-out point predicted by the real
    CategoricalNB fitted on the other seven."""
    cells = [Fraction(1, 4), Fraction(1, 12), Fraction(1, 12), Fraction(1, 4), Fraction(1, 6), Fraction(1, 6)]
    N = 8
    fitted: dict = {}

    def predictions(train: tuple[int, ...]) -> np.ndarray:
        if train not in fitted:
            fitted[train] = _sklearn_predictions(np.array(train).reshape(3, 2), 0)
        return fitted[train]

    m1 = m2 = Fraction(0)
    for t in _tables(6, N):
        prob = Fraction(math.factorial(N))
        for c, k in zip(cells, t):
            prob *= c**k / math.factorial(k)
        errors = 0
        for c in np.flatnonzero(t):
            train = t.copy()
            train[c] -= 1
            errors += int(t[c]) * int(predictions(tuple(int(v) for v in train))[c // 2] != c % 2)
        m1 += prob * Fraction(errors, N)
        m2 += prob * Fraction(errors, N) ** 2
    base = ["estimate", "--arities", "3", "--cells", ",".join(str(c) for c in cells), "--N", str(N), "--estimator",
            "loo", "--alpha", "0"]
    sk = _run(*base, "--ties", "sklearn")
    assert sk.returncode == 0, sk.stderr
    exact = json.loads(sk.stdout)
    assert exact["mean"] == pytest.approx(float(m1), abs=1e-12)
    assert exact["variance"] == pytest.approx(float(m2 - m1 * m1), abs=1e-12)
    from momentbound.splitters import LeaveOneOut

    first = estimator_moments(CellModel((3,), cells), N, LeaveOneOut(), classifier=NaiveBayes("first", 0))
    assert abs(float(first.variance) - float(m2 - m1 * m1)) > 1e-4
