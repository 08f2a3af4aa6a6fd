"""``E[GE_n]`` and ``E[GE_n^2]`` on the per-class states of binary attributes (float arithmetic).

The exact backend sums the pair terms of every pair of inputs at once over the state grid of each
class-count vector (``BinaryStates.input_pairs``, docs/mathematics.md, "Stratified cross-validation on
binary attributes"). Witnesses: every count table of ``n`` points classified by the scalar oracle of
tests/oracles/naive_bayes.py (Fractions), and the generic engine's agreement-grid sums in rational
arithmetic, term by term. No wall-clock time is asserted.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators.from_predictions import make_engine
from momentbound.exact import predictions
from momentbound.probability.exact_backend import ExactBackend
from oracles.naive_bayes import all_tables, points_from_table, predict_distribution, table_probability

#: three classes, two binary attributes (the model of benchmarks/bench_stratified_multiattr.py)
MODEL = CellModel((2, 2), ["3/20", "1/25", "1/50", "1/20", "1/10", "1/25",
                           "1/20", "1/10", "1/25", "1/10", "2/25", "23/100"])
#: three classes, three binary attributes
MODEL3 = CellModel((2, 2, 2), [F(i + 1, 300) for i in range(24)])


def bruteforce_ge(model: CellModel, n: int, ties: str, alpha: int) -> tuple[F, F]:
    """``E[GE_n]`` and ``E[GE_n^2]`` over every count table of ``n`` points."""
    K = model.n_classes
    cells = [F(model.p(x, k)) for x in model.inputs() for k in range(K)]
    m1 = m2 = F(0)
    for table in all_tables(n, len(cells)):
        points = points_from_table(table, model.arities, K)
        ge = F(0)
        for x in model.inputs():
            g = predict_distribution(points, model.arities, K, x, ties, alpha)
            ge += sum(F(model.p(x, k)) * (1 - g[k]) for k in range(K))
        p = table_probability(table, cells)
        m1 += p * ge
        m2 += p * ge * ge
    return m1, m2


@pytest.mark.parametrize("model, n, ties, alpha", [
    (MODEL, 0, "first", 1), (MODEL, 1, "random", 0), (MODEL, 3, "first", 1), (MODEL, 4, "random", 1),
    (MODEL3, 3, "first", 0),
])
def test_ge_moments_against_every_count_table(monkeypatch, model, n, ties, alpha):
    used = []
    states = ExactBackend._state_pairs

    def spy(self, m, size, clf):
        used.append(size)
        return states(self, m, size, clf)

    monkeypatch.setattr(ExactBackend, "_state_pairs", spy)
    engine = make_engine(model, classifier=NaiveBayes(ties, alpha), backend=ExactBackend(arithmetic="float"))
    m1, m2 = bruteforce_ge(model, n, ties, alpha)
    assert engine.ge_second(n) == pytest.approx(float(m2), rel=1e-12, abs=1e-15)
    assert engine.ge_first(n) == pytest.approx(float(m1), rel=1e-12, abs=1e-15)
    assert used and set(used) == {n}  # the state route computed them
    if n:  # the witness tells training sizes apart
        other = bruteforce_ge(model, n - 1, ties, alpha)[1]
        assert abs(float(other) - float(m2)) > 1e-6


@pytest.mark.parametrize("n, clf", [(6, NaiveBayes("sklearn", 1)), (5, NaiveBayes("random", 0))])
def test_pairs_and_singles_against_the_generic_engine(n, clf):
    backend = ExactBackend(arithmetic="float")
    inputs = list(MODEL.inputs())
    for i, x in enumerate(inputs):
        single = backend.single(MODEL, n, x, clf)
        expected = predictions.single_probabilities(MODEL, n, x, clf, "rational").astype(float)
        np.testing.assert_allclose(single, expected, rtol=1e-12, atol=1e-15)
        for y in inputs[i:]:
            pair = backend.pair(MODEL, n, x, y, clf)
            expected = predictions.pair_probabilities(MODEL, n, x, y, clf, "rational").astype(float)
            np.testing.assert_allclose(pair, expected, rtol=1e-12, atol=1e-15)
            if not np.allclose(expected, expected.T):  # swapped inputs would be caught
                assert not np.allclose(pair, expected.T, rtol=1e-12, atol=1e-15)


def test_units_and_estimate():
    backend = ExactBackend()
    n = 9
    units = sum(np.prod([(c + 1.0) ** MODEL.d for c in split])
                for split, _ in predictions.class_count_splits(MODEL, n, "float"))
    assert backend.state_units(MODEL, n) == pytest.approx(MODEL.n_inputs * MODEL.n_classes * units, rel=1e-12)
    assert backend.estimated_seconds(MODEL, 24, NaiveBayes("sklearn", 1)) == pytest.approx(
        ExactBackend.STATES_PER_UNIT * backend.state_units(MODEL, 24))
    # the rational generic engine keeps its own price
    assert backend.estimated_seconds(MODEL, 10, NaiveBayes("sklearn", 1)) > 20


def test_work_limit_refuses_before_any_work():
    backend = ExactBackend(arithmetic="float", max_work=1e3)
    with pytest.raises(InvalidArgument, match="max_work"):
        backend.pair(MODEL, 8, (0, 0), (1, 1), NaiveBayes("sklearn", 1))
    assert not backend._states  # nothing was kept
