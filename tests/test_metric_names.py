"""``metric=`` takes the same names in Python as ``--metric`` on the command line (``"recall:1"``,
``"confusion:0:1"``, ...) and each metric's own name (``"recall[1]"``)."""

from __future__ import annotations

import pytest

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments
from momentbound.estimators.metrics import LinearMetric, as_metric, parse_metric
from momentbound.splitters import StratifiedKFold

METRICS = [LinearMetric.error(), LinearMetric.balanced_error(), LinearMetric.confusion_entry(1, 0),
           LinearMetric.class_error(2), LinearMetric.recall(1), LinearMetric.class_error_rate(0)]
SPECS = ["error", "balanced_error", "confusion:1:0", "class_error:2", "recall:1", "class_error_rate:0"]


@pytest.mark.parametrize("metric, spec", list(zip(METRICS, SPECS)), ids=SPECS)
def test_both_spellings(metric: LinearMetric, spec: str) -> None:
    assert as_metric(spec) == metric == as_metric(metric.name) == parse_metric(f" {spec} ")


@pytest.mark.parametrize("bad", ["precision", "recall", "recall:x", "confusion:1", "recall:1:2", "recall[1,2]", ""])
def test_other_names_are_refused(bad: str) -> None:
    assert parse_metric(bad) is None
    with pytest.raises(InvalidArgument, match="'recall:A'.*got"):
        as_metric(bad)


def test_a_name_reaches_the_exact_route() -> None:
    model = CellModel((2,), ["1/2", "1/20", "3/10", "3/20"])
    kw = dict(classifier=NaiveBayes("first"))
    by_name = estimator_moments(model, 12, StratifiedKFold(3), metric="recall:1", **kw)
    by_object = estimator_moments(model, 12, StratifiedKFold(3), metric=LinearMetric.recall(1), **kw)
    assert (by_name.mean, by_name.variance) == (by_object.mean, by_object.variance)
    assert by_name.mean != estimator_moments(model, 12, StratifiedKFold(3), metric="recall:0", **kw).mean
