"""The engine asks the splitter and the classifier what applies to them (protocol members), not
their class: which coverage intervals a splitter's estimate has, and whether a classifier's
predictions are naive Bayes's own (the compiled kernels and the rank scorers apply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from momentbound.classifiers import NaiveBayes
from momentbound.classifiers.base import classifier_member
from momentbound.errors import InvalidArgument
from momentbound.estimators.coverage import interval_coverage
from momentbound.estimators.simulation import TableModel
from momentbound.model import independent_1d_model
from momentbound.splitters import KFold, LeaveOneOut
from momentbound.splitters.basic import SplitterDefaults, splitter_member

MODEL = independent_1d_model("2/5")


@dataclass(frozen=True)
class MyFolds(SplitterDefaults):
    """A plug-in splitter: KFold's folds, not a KFold subclass, declaring the naive CV interval."""

    k: int = 4
    name: ClassVar[str] = "my-folds"
    interval_kind: ClassVar[str | None] = "folds"

    def split(self, N: int):
        return KFold(self.k).split(N)

    def describe(self) -> str:
        return f"my {self.k} folds"

    def params(self) -> dict:
        return {"k": self.k}

    def assemble(self, engine, N: int, covariance: str):
        return KFold(self.k).assemble(engine, N, covariance)

    def simulate(self, sim, N: int):
        return KFold(self.k).simulate(sim, N)


def test_coverage_asks_the_splitter_for_its_interval() -> None:
    kw = dict(nominal=0.9, classifier=NaiveBayes(), draws=2_000)
    ours = interval_coverage(MODEL, 16, "naive-cv", MyFolds(4), rng=np.random.default_rng(3), **kw)
    ref = interval_coverage(MODEL, 16, "naive-cv", KFold(4), rng=np.random.default_rng(3), **kw)
    assert ours.coverage == ref.coverage and ours.mean_width == ref.mean_width


def test_coverage_refuses_a_splitter_without_that_interval() -> None:
    assert splitter_member(LeaveOneOut(), "interval_kind") is None
    with pytest.raises(InvalidArgument, match="naive-cv' is the interval of KFold or StratifiedKFold; .*pass a KFold"):
        interval_coverage(MODEL, 16, "naive-cv", LeaveOneOut(), draws=200, rng=np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match="ShuffleSplit or StratifiedShuffleSplit"):
        interval_coverage(MODEL, 16, "nadeau-bengio", MyFolds(4), draws=200, rng=np.random.default_rng(0))


@dataclass(frozen=True)
class Reversed(NaiveBayes):
    """A subclass that changes the predictions: naive Bayes's kernel must not stand in for it."""

    def predict_tables(self, model, tables):
        return super().predict_tables(model, tables)[..., ::-1]


@dataclass(frozen=True)
class Declared(NaiveBayes):
    naive_bayes_kernel: ClassVar[bool] = True


def test_naive_bayes_kernel_member() -> None:
    assert classifier_member(NaiveBayes("first", 1), "naive_bayes_kernel") is True
    assert classifier_member(Reversed("first", 1), "naive_bayes_kernel") is False
    assert classifier_member(Declared("first", 1), "naive_bayes_kernel") is True
    assert classifier_member(object(), "naive_bayes_kernel") is False
    assert TableModel(MODEL, NaiveBayes("first", 1)).layout is not None
    assert TableModel(MODEL, Declared("first", 1)).layout is not None
    rev = TableModel(MODEL, Reversed("first", 1))
    assert rev.layout is None
    tables = rev.draw(np.random.default_rng(0), 10, (50,))
    np.testing.assert_array_equal(rev.predictions(tables),
                                  TableModel(MODEL, NaiveBayes("first", 1)).predictions(tables)[..., ::-1])
