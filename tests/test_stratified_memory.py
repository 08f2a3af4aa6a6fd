"""The memory guard of the exact stratified routes on binary attributes
(momentbound.exact.stratified.state_memory; docs/mathematics.md, "Stratified cross-validation on
binary attributes").

Witnesses: the counts the estimate is built from against enumeration; the estimate's parts against
the caches' limits and the worker rule of ``local_parts``; a refusal before any term is computed; the
peak resident memory of a real run in a child process within 1.5x of the estimate.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys

import pytest

import momentbound.exact.stratified as strat
from momentbound import guard
from momentbound.classifiers.naive_bayes import NaiveBayes

from conftest import three_class_model
from momentbound.errors import MemoryLimitExceeded
from momentbound.estimators import estimator_moments
from momentbound.exact.binary_states import BinaryStates, grid_bytes, side_bytes
from momentbound.splitters.repeated import RepeatedStratifiedKFold, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

MODEL = three_class_model()
CLF = NaiveBayes(ties="first", alpha=1)
GiB = 2**30


@pytest.mark.parametrize("N", [0, 1, 7, 20])
def test_class_count_vectors_and_work_against_enumeration(N):
    brute = [n for n in itertools.product(range(N + 1), repeat=3) if sum(n) == N]
    work = sum(math.prod((c + 1) ** 4 for c in n) for n in brute)
    assert strat._class_count_work(3, 2, N) == pytest.approx(work, rel=1e-12)
    assert strat._class_count_work(3, 2, N + 1) != pytest.approx(work)


def test_the_estimate_adds_every_cache_up_to_its_limit():
    K, d, N = 3, 2, 20
    vectors = math.comb(N + 2, 2)
    grids = grid_bytes(K, d, N)
    sides = min(BinaryStates.SIDE_BYTES, vectors * side_bytes(K, d, N, 5))
    one = strat.BASE_BYTES + grids + BinaryStates.CACHE_BYTES + BinaryStates.ORIENTED_BYTES + sides
    assert StratifiedKFold(5).estimated_memory(MODEL, N) == pytest.approx(one)
    # the chains of averaged grids of the training composition (5, 5, 5): 2^d K floats per private part
    # b <= m and state of m - b, sum_b prod_c (m_c - b_c + 1)^2 = (1^2 + ... + 6^2)^3
    between = RepeatedStratifiedKFold(5, 10).estimated_memory(MODEL, N)
    assert between - one == pytest.approx(8 * 4 * 3 * 91**3)
    assert StratifiedShuffleSplit(10, 4).estimated_memory(MODEL, N) == pytest.approx(between)  # folds of N / 4
    # at N = 30 the caches of grids and sides are full, the chains of (8, 8, 8) below 1.5 CHAIN_BYTES
    full = RepeatedStratifiedKFold(5, 10).estimated_memory(MODEL, 30)
    chains = 8 * 4 * 3 * 285**3
    assert chains < 1.5 * BinaryStates.CHAIN_BYTES
    caps = BinaryStates.CACHE_BYTES + BinaryStates.ORIENTED_BYTES + BinaryStates.SIDE_BYTES + chains
    assert full == pytest.approx(strat.BASE_BYTES + grid_bytes(K, d, 30) + caps)
    assert RepeatedStratifiedKFold(5, 10).estimated_memory(MODEL, 36) == pytest.approx(
        strat.BASE_BYTES + grid_bytes(K, d, 36) + caps - chains + 1.5 * BinaryStates.CHAIN_BYTES)  # capped


def test_the_workers_are_counted_when_local_parts_forks_them():
    """StratifiedKFold(10) at N = 30 forks two workers (work 2.9e14): parent and both workers; under a
    limit that does not hold two workers it runs (and is estimated) in one process."""
    sizes = [math.prod((c + 1.0) ** 4 for c in n) for n in itertools.product(range(31), repeat=3) if sum(n) == 30]
    order = list(range(len(sizes)))
    forked = StratifiedKFold(10).estimated_memory(MODEL, 30)
    with guard.limits(max_memory=2 * strat.WORKER_BYTES - 1):
        assert strat.local_parts(order, sizes, sum(sizes), False) == [order]
        one = StratifiedKFold(10).estimated_memory(MODEL, 30)
    assert len(strat.local_parts(order, sizes, sum(sizes), False)) == 2
    grids = grid_bytes(3, 2, 30)
    assert forked - one == pytest.approx(strat.WORKERS * (strat.BASE_BYTES + grids)
                                         + BinaryStates.CACHE_BYTES + BinaryStates.ORIENTED_BYTES)
    assert 5.5 * GiB < forked < 7 * GiB  # measured: 0.9 GiB parent + 2 x 2.8 GiB workers


@pytest.mark.parametrize("splitter", [StratifiedKFold(5), RepeatedStratifiedKFold(5, 3), StratifiedShuffleSplit(4, 3)])
def test_refused_before_any_work_naming_max_memory(monkeypatch, splitter):
    def no_work(*a, **k):
        raise AssertionError("work started")

    for name in ("stratified_cv_moments", "repeated_stratified_cv_moments", "likely_class_counts"):
        monkeypatch.setattr(strat, name, no_work)
    import momentbound.exact.shuffle_split as ss

    monkeypatch.setattr(ss, "shuffle_split_moments", no_work, raising=False)
    with guard.limits(max_memory=64 * 2**20), pytest.raises(MemoryLimitExceeded, match="max_memory"):
        estimator_moments(MODEL, 12, splitter, classifier=CLF)
    with guard.limits(max_memory=64 * GiB), pytest.raises(AssertionError, match="work started"):
        estimator_moments(MODEL, 12, splitter, classifier=CLF)  # under a large limit the work starts


CHILD = """
import json, resource, sys
from fractions import Fraction as F
from momentbound import CellModel
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.estimators import estimator_moments
from momentbound.splitters.stratified import StratifiedKFold
model = CellModel((2, 2), [F(3, 20), F(1, 25), F(1, 50), F(1, 20), F(1, 10), F(1, 25),
                           F(1, 20), F(1, 10), F(1, 25), F(1, 10), F(2, 25), F(23, 100)], 3)
splitter = StratifiedKFold(10)
estimate = splitter.estimated_memory(model, 20)
estimator_moments(model, 20, splitter, classifier=NaiveBayes("sklearn", 1))
peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) * 1024
print(json.dumps([estimate, peak]))
"""


@pytest.mark.slow
def test_measured_peak_within_one_and_a_half_times_the_estimate():
    """StratifiedKFold(10) at N = 20 in a child process (about 2.4 GiB, a few CPU seconds)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, env=env)
    estimate, peak = json.loads(out.stdout.strip().splitlines()[-1])
    assert 1 / 1.5 < peak / estimate < 1.5, (estimate / GiB, peak / GiB)
