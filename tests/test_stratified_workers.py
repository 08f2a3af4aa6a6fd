"""The terms of StratifiedKFold's local order computed in forked worker processes
(momentbound.exact.stratified.terms_in_workers; docs/mathematics.md, "Stratified cross-validation on
binary attributes").

Witnesses: the same moments computed in one process, bitwise (a term is the same number whichever
process computes it); the dry run's replay of the parts. No wall-clock time is asserted.
"""

from __future__ import annotations

import multiprocessing
from fractions import Fraction as F

import pytest

import momentbound.exact.stratified as strat
from momentbound.classifiers.naive_bayes import NaiveBayes

from conftest import three_class_model

MODEL = three_class_model()
CLF = NaiveBayes(ties="first", alpha=1)

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")


def _local(monkeypatch):
    monkeypatch.setattr(strat, "LOCAL_SIDES", float("inf"))  # the local order at any size


def test_workers_give_the_moments_of_one_process_bitwise(monkeypatch):
    _local(monkeypatch)
    want = strat.stratified_cv_moments(MODEL, 14, 5, classifier=CLF, arithmetic="float")
    calls = []
    run = strat.terms_in_workers
    monkeypatch.setattr(strat, "terms_in_workers", lambda *a: (calls.append(len(a[3])), run(*a))[1])
    monkeypatch.setattr(strat, "PARALLEL_WORK", 0.0)
    got = strat.stratified_cv_moments(MODEL, 14, 5, classifier=CLF, arithmetic="float")
    assert calls == [strat.WORKERS] and strat.WORKERS == 2
    assert (got.mean, got.variance, got.fold_covariance) == (want.mean, want.variance, want.fold_covariance)
    assert got.fold_means == want.fold_means
    other = strat.stratified_cv_moments(MODEL, 14, 4, classifier=CLF, arithmetic="float")
    assert other.variance != got.variance  # a different route is not mistaken for it


def test_small_and_rational_problems_stay_in_process(monkeypatch):
    _local(monkeypatch)
    monkeypatch.setattr(strat, "terms_in_workers", lambda *a: pytest.fail("forked a small problem"))
    strat.stratified_cv_moments(MODEL, 12, 5, classifier=CLF, arithmetic="float")
    monkeypatch.setattr(strat, "PARALLEL_WORK", 0.0)
    r = strat.stratified_cv_moments(MODEL, 8, 3, classifier=CLF, arithmetic="rational")
    assert isinstance(r.mean, F)


def test_parts_split_the_local_order_by_work():
    order = list(range(10))
    sizes = [1.0] * 8 + [6.0, 6.0]
    assert strat.local_parts(order, sizes, sum(sizes), False) == [order]  # below PARALLEL_WORK
    parts = strat.local_parts(order, [s * 1e13 for s in sizes], sum(sizes) * 1e13, False)
    assert parts == [list(range(9)), [9]]
    assert strat.local_parts(order, [s * 1e13 for s in sizes], sum(sizes) * 1e13, True) == [order]
    from momentbound import guard

    with guard.limits(max_memory=2 * strat.WORKER_BYTES - 1):  # two workers do not fit: one process
        assert strat.local_parts(order, [s * 1e13 for s in sizes], sum(sizes) * 1e13, False) == [order]
    with guard.limits(max_memory=2 * strat.WORKER_BYTES):
        assert len(strat.local_parts(order, [s * 1e13 for s in sizes], sum(sizes) * 1e13, False)) == 2


def test_the_dry_run_replays_each_part_with_its_share_of_the_cache(monkeypatch):
    """10-fold CV at N = 30: two parts with half the cache each compute more sides than one process
    (the estimate counts the CPU of both workers)."""
    counts = {}
    for workers in (1, 2):
        monkeypatch.setattr(strat, "WORKERS", workers)
        work = strat.StateWork(MODEL, CLF, "float")
        strat.stratified_cv_moments(MODEL, 30, 10, classifier=CLF, arithmetic="float", terms=work)
        counts[workers] = work.cells_by_term["averages"]
    assert counts[1] < counts[2] < 1.5 * counts[1]
