"""The real procedures with scikit-learn: CategoricalNB + KFold / ShuffleSplit / LeaveOneOut.

Each dataset (a row of cell indices) becomes ``X`` (attribute values) and ``y``; every split of
the given splitter trains ``CategoricalNB(alpha, force_alpha=True, min_categories=arities)`` on
its training rows and predicts its test rows. sklearn only knows the classes present in the
training labels, which is the contract's ``first`` rule together with ``argmax``.

Guard against floating-point ties: sklearn compares sums of float logarithms, so where the
exact scores of two present classes tie, rounding can flip the prediction away from the
``first`` rule (tests/test_oracles.py shows it happens for ``alpha = 0``). Every prediction is
therefore also computed with the exact integer scorer (oracles.simulation), and the run
reports how many predictions were exactly tied and how many sklearn predictions differ from
the exact ``first`` rule; the tests require zero differences, so a tie flipped by rounding
makes them fail loudly instead of biasing the statistics.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import sklearn
from sklearn.naive_bayes import CategoricalNB

from oracles import simulation as sim


@dataclass(frozen=True)
class SklearnRun:
    errors: np.ndarray  # (R, n_splits) misclassified test points per split
    test_sizes: tuple[int, ...]
    n_predictions: int
    n_exact_ties: int  # predictions where two present classes tie exactly
    n_disagreements: int  # sklearn prediction != exact `first` rule prediction

    @property
    def he(self) -> np.ndarray:
        return self.errors / np.array(self.test_sizes)[None, :]

    @property
    def ce(self) -> np.ndarray:
        return self.errors.sum(axis=1) / sum(self.test_sizes)


def run_sklearn(model: sim.SimModel, points: np.ndarray, splitter, alpha: int) -> SklearnRun:
    n_datasets, n = points.shape
    errors = []
    sizes = None
    n_pred = n_ties = n_diff = 0
    c = len(model.p)
    with sklearn.config_context(assume_finite=True), np.errstate(divide="ignore"), \
            warnings.catch_warnings():
        for r in range(n_datasets):
            cells = points[r]
            X = model.cell_x[cells]
            y = model.cell_y[cells]
            row_err = []
            row_sizes = []
            for train_idx, test_idx in splitter.split(X):
                clf = CategoricalNB(alpha=alpha, force_alpha=True, min_categories=list(model.arities))
                clf.fit(X[train_idx], y[train_idx])
                pred = clf.predict(X[test_idx])
                row_err.append(int((pred != y[test_idx]).sum()))
                row_sizes.append(len(test_idx))
                # exact check of every prediction of this split
                train = sim.count_tables(cells[train_idx][None, :], c)
                exact = sim.top_sets(model, train, alpha, "first")[0]  # (X, K), one True per row
                tied = sim.present_ties(model, train, alpha)[0]  # (X,)
                inp = model.cell_input[cells[test_idx]]
                n_pred += len(test_idx)
                n_ties += int(tied[inp].sum())
                n_diff += int((exact[inp].argmax(axis=-1) != pred).sum())
            if sizes is None:
                sizes = tuple(row_sizes)
            errors.append(row_err)
    return SklearnRun(np.array(errors), sizes, n_pred, n_ties, n_diff)
