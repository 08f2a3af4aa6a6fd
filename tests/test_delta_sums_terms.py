"""The delta-method sums of the row-halves route summed term by term against the traces of the Gram
matrices (docs/mathematics.md, "The delta-method approximation past the table limit"), and the work
estimate's parts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact import resub_states, row_halves
from momentbound.model.cells import CellModel


@pytest.mark.parametrize(("K", "first"), [(2, True), (2, False), (3, False)])
def test_pair_terms_equal_the_traces(K: int, first: bool) -> None:
    rng = np.random.default_rng(K + first)
    N, L = 6, 4 + 2 * K
    C = row_halves._forms(N, K)
    gA, gB = (np.array([0, 2, 3]), np.array([1, 3])) if first else (np.zeros(1, np.int64), np.zeros(1, np.int64))
    T = N + 1 if first else 1
    MA, MB = rng.normal(size=(len(gA), T, L, L)), rng.normal(size=(len(gB), T, L, L))
    out = row_halves._pair_terms(MA, gA, MB, gB, first, *row_halves._terms(C))
    mean, second, mass = np.zeros(3), np.zeros((3, 3)), 0.0
    for a in range(len(gA)):
        for b in range(len(gB)):
            t = gA[a] + gB[b] if first else 0
            A, B = MA[a, t], MB[b, t]
            mass += A[0, 0] * B[0, 0]
            mean += [A[:, 0] @ C[x] @ B[:, 0] for x in range(3)]
            second += [[np.trace(C[x] @ B @ C[y].T @ A) for y in range(3)] for x in range(3)]
    assert np.allclose(out[:3], mean, rtol=1e-12, atol=1e-12)
    assert np.allclose(out[3:12].reshape(3, 3), second, rtol=1e-12, atol=1e-12)
    assert math.isclose(out[12], mass, rel_tol=1e-12)
    assert not np.allclose(out[3:12].reshape(3, 3), second.T + 1e-6)  # a transposed or shifted sum is caught


def test_estimate_counts_every_part() -> None:
    m = CellModel((2,), [0.5, 0.05, 0.3, 0.15])
    N = 300
    first, rand = (resub_states.work_estimate(m, N, "632plus", NaiveBayes(t, 0)) for t in ("first", "random"))
    halves = row_halves.half_work(m, N)
    extra = (row_halves.NS_PER_FIRST_COLUMN * math.comb(N + 2, 2) * (N + 1) + row_halves.NS_PER_GROUP_TERM * (N + 1) ** 3
             + row_halves.NS_PER_GROUP_STATE * halves * (N + 1) - row_halves.NS_PER_GRAM_STATE * halves
             + (row_halves.NS_PER_HALF_COLUMN + row_halves.NS_PER_PAIR_COLUMN) * (N + 1) * halves)
    assert math.isclose(first - rand, extra, rel_tol=1e-9)
    table = resub_states.ROWS_NS["row_table"] * math.comb(N + 1, 2) * math.comb(N + 2, 2) * 8
    assert rand > table > 0.5 * rand  # the bootstrap-row table dominates at two classes
    # the rows route's Err(1): ties 'first' build no bootstrap-row table, ties 'random' do
    rows_first = resub_states.work_estimate(m, N, "bootstrap", NaiveBayes("first", 0))
    rows_random = resub_states.work_estimate(m, N, "bootstrap", NaiveBayes("random", 0))
    cells = math.comb(N + 3, 3)
    assert math.isclose(rows_random - rows_first, table - resub_states.ROWS_NS["first_cells"] * cells * 2, rel_tol=1e-9)
