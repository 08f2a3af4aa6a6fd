"""Progress of the exact stratified route while forked worker processes compute its terms
(momentbound.exact.stratified.terms_in_workers; docs/mathematics.md, "Stratified cross-validation on
binary attributes").

Witness: the parent reports fractions strictly between 0 and 1, rising, while the workers run (the
workers' shared counter of class-count work); no wall-clock time is asserted.
"""

from __future__ import annotations

import multiprocessing

import pytest

import momentbound.exact.stratified as strat
from momentbound.classifiers.naive_bayes import NaiveBayes

from conftest import three_class_model

MODEL = three_class_model()
CLF = NaiveBayes(ties="first", alpha=1)

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")


def test_the_parent_reports_the_workers_progress(monkeypatch):
    monkeypatch.setattr(strat, "LOCAL_SIDES", float("inf"))  # the local order at any size
    monkeypatch.setattr(strat, "PARALLEL_WORK", 0.0)  # forced through the workers
    monkeypatch.setattr(strat, "WORKER_POLL", 0.002)
    seen, during = [], []
    run = strat.terms_in_workers

    def spy(*a):
        during.append(len(seen))
        run(*a)
        during.append(len(seen))

    monkeypatch.setattr(strat, "terms_in_workers", spy)
    strat.stratified_cv_moments(MODEL, 16, 5, classifier=CLF, arithmetic="float", on_progress=seen.append)
    inside = seen[during[0]:during[1]]
    assert len(inside) >= 2, seen  # reports while the workers run, not only 0 then silence
    assert any(0.0 < f < 1.0 for f in inside)
    assert inside == sorted(inside) and max(inside) <= 1.0
    assert inside[-1] == pytest.approx(1.0)  # every vector's work counted once, across both workers
    assert seen[-1] == 1.0


def test_progress_true_advances_the_bar_while_the_workers_run(monkeypatch):
    """The public path: ``estimator_moments(..., progress=True)`` feeds the bar's meter from the parent."""
    from momentbound import progress
    from momentbound.estimators import estimator_moments
    from momentbound.splitters.stratified import StratifiedKFold

    monkeypatch.setattr(strat, "LOCAL_SIDES", float("inf"))
    monkeypatch.setattr(strat, "PARALLEL_WORK", 0.0)
    monkeypatch.setattr(strat, "WORKER_POLL", 0.002)
    seen, during = [], []
    fraction = progress.WorkMeter.fraction
    monkeypatch.setattr(progress.WorkMeter, "fraction",
                        lambda self, key, done: (seen.append(done), fraction(self, key, done))[1])
    run = strat.terms_in_workers
    monkeypatch.setattr(strat, "terms_in_workers",
                        lambda *a: (during.append(len(seen)), run(*a), during.append(len(seen))))
    estimator_moments(MODEL, 16, StratifiedKFold(5), classifier=CLF, progress=True)
    inside = seen[during[0]:during[1]]
    assert len(inside) >= 2 and any(0.0 < f < 1.0 for f in inside), seen
