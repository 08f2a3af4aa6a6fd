"""Parity with scikit-learn's own objects: its splitters, ``cross_val_score`` and ``CategoricalNB``.

Each test runs the real scikit-learn object (or enumerates every dataset and compares with exact
arithmetic) against the toolkit's law of the same quantity.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit

from momentbound.exact.shuffle_split import stratified_holdout_compositions
from momentbound.splitters.allocation import approximate_mode_law
from momentbound.splitters.repeated import _approximate_mode


# ----------------------------------------------------------------------------- StratifiedShuffleSplit
def _three_class_counts(N):
    for a in range(N + 1):
        for b in range(N + 1 - a):
            yield (a, b, N - a - b)


def _sklearn_test_compositions(counts, test_size, n_splits):
    y = np.repeat(np.arange(3), counts)
    splitter = SkStratifiedShuffleSplit(n_splits, test_size=test_size, random_state=0)
    try:
        return Counter(tuple(int(x) for x in np.bincount(y[test], minlength=3))
                       for _, test in splitter.split(np.zeros((len(y), 1)), y))
    except ValueError:  # scikit-learn refuses these class counts
        return Counter()


@pytest.mark.parametrize("share, sizes", [(0.2, range(3, 31)), (0.3, (20, 30))])
def test_stratified_shuffle_split_compositions_equal_scikit_learn_three_classes(share, sizes):
    """For every class-count vector of three classes at N <= 30, the test compositions the exact backend
    sums over are those the real StratifiedShuffleSplit produces (float remainders decide; a true tie is
    a coin): the same support, and a tie's probability within 5 standard errors over 24 splits."""
    ties = differ = 0
    for N in sizes:
        ns = math.ceil(share * N)
        if not 1 <= ns <= N - 1:
            continue
        for counts in _three_class_counts(N):
            law = dict(stratified_holdout_compositions(counts, ns))
            R = 24 if len(law) > 1 else 1
            seen = _sklearn_test_compositions(counts, ns, R)
            assert set(seen) == set(law), (counts, ns, law, seen)
            if len(law) > 1:
                ties += 1
                for comp, p in law.items():
                    sd = math.sqrt(float(p * (1 - p)) / R)
                    assert abs(seen[comp] / R - float(p)) <= 5 * sd
            if law and N in (20, 30) and share == 0.2:
                rational = _rational_law(counts, N - ns)
                differ += rational != law
    assert ties > 0
    if share == 0.2:  # the class-count vectors where rational remainders would decide otherwise
        assert differ == 24 + 48


def _rational_law(counts, n_train):
    """Test compositions if remainders were compared as exact rationals (ties by a coin)."""
    N = sum(counts)
    floor = [c * n_train // N for c in counts]
    rem = [c * n_train - f * N for c, f in zip(counts, floor)]
    need = n_train - sum(floor)
    present = [k for k, c in enumerate(counts) if c]
    import itertools
    from fractions import Fraction

    order = sorted({rem[k] for k in present}, reverse=True)
    chosen = []
    for value in order:
        group = [k for k in present if rem[k] == value]
        if len(group) <= need:
            chosen += group
            need -= len(group)
            if not need:
                break
            continue
        out = {}
        for extra in itertools.combinations(group, need):
            train = [f + (k in chosen or k in extra) for k, f in enumerate(floor)]
            out[tuple(c - t for c, t in zip(counts, train))] = Fraction(1, math.comb(len(group), need))
        return out
    train = [f + (k in chosen) for k, f in enumerate(floor)]
    return {tuple(c - t for c, t in zip(counts, train)): Fraction(1)}


def test_stratified_shuffle_split_issue_example():
    """Class counts (2, 6, 12) at N = 20, test size 4: scikit-learn always tests (0, 1, 3)."""
    assert dict(stratified_holdout_compositions((2, 6, 12), 4)) == {(0, 1, 3): 1}
    assert set(_sklearn_test_compositions((2, 6, 12), 4, 50)) == {(0, 1, 3)}


def test_monte_carlo_allocation_follows_the_float_law():
    """The Monte Carlo sampler's training compositions follow approximate_mode_law on vectors where the
    float and rational rules differ and on vectors with a true float tie."""
    rng = np.random.default_rng(1)
    cases = [((2, 6, 12), 16), ((3, 3, 0), 3), ((2, 2, 2), 4), ((4, 6, 10), 16), ((5, 7, 18), 24)]
    for counts, n in cases:
        law = dict(approximate_mode_law(counts, n))
        R = 4000
        got = Counter(map(tuple, _approximate_mode(np.tile(np.array(counts), (R, 1)), n, rng).tolist()))
        assert set(got) == set(law)
        for comp, p in law.items():
            assert abs(got[comp] / R - float(p)) <= 5 * math.sqrt(float(p * (1 - p)) / R) + 1e-12
