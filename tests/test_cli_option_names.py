"""Refusals name the options of the interface they reach: --max-memory and --folds on the command
line, max_memory and v in Python."""

from __future__ import annotations

import pytest
from conftest import run_in_process

from momentbound import CellModel
from momentbound.errors import ImpossibleSplit, MemoryLimitExceeded
from momentbound.estimators import KFold, estimator_moments

CELLS = ",".join(["1/16"] * 16)


def test_memory_refusal_of_the_cross_terms():
    done = run_in_process(["estimate", "--arities", "2,2,2", "--cells", CELLS, "--N", "200", "--folds", "10",
                           "--max-seconds", "none"])
    assert done.returncode == 2 and done.stdout == ""
    assert "(--max-memory " in done.stderr and "max_memory =" not in done.stderr and "ExactBackend" not in done.stderr
    with pytest.raises(MemoryLimitExceeded, match=r"\(max_memory = [\d.]+ [KMGTPE]iB\).*ExactBackend\(max_memory"):
        estimator_moments(CellModel((2, 2, 2), ["1/16"] * 16), 200, KFold(10), max_seconds=None)


def test_more_folds_than_points():
    with pytest.raises(ImpossibleSplit, match=r"KFold has more folds \(v=6\) than points \(N=5\)"):
        KFold(6).split(5)
