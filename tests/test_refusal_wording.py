"""Refusals name the fix in the caller's language: the command line's options on the command line,
Python arguments in the API."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import run_in_process

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators.scoring import monte_carlo_scores
from momentbound.splitters import KFold

CELLS = ["1/2", "1/20", "3/10", "3/20"]


def test_auc_without_smoothing() -> None:
    done = run_in_process(["estimate", "--arities", "2", "--cells", ",".join(CELLS), "--N", "20", "--splitter", "cv",
                           "--folds", "4", "--scoring", "roc_auc", "--backend", "montecarlo", "--ties", "sklearn",
                           "--alpha", "0", "--json"])
    assert done.returncode != 0 and done.stdout == ""
    assert "use --alpha 1" in done.stderr and "NaiveBayes(" not in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(InvalidArgument, match=r"use e\.g\. NaiveBayes\('sklearn', 1\)"):
        monte_carlo_scores(CellModel((2,), CELLS), 20, KFold(4), scoring="roc_auc", classifier=NaiveBayes("sklearn", 0),
                           draws=500, rng=np.random.default_rng(0))
