"""The `coverage` and `compare-classifiers` commands: one JSON document, the library's numbers,
one-line user errors with exit status 2."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.cli import main
from momentbound.estimators.coverage import interval_coverage
from momentbound.model.cells import CellModel
from momentbound.splitters import HoldOut

CELLS = "0.3,0.2,0.15,0.35"
CELLS2 = "0.2,0.05,0.1,0.1,0.1,0.1,0.05,0.3"


def _run(args):
    return CliRunner().invoke(main, args)


def test_coverage_json_is_the_library_value():
    r = _run(["coverage", "--cells", CELLS, "--N", "20", "--method", "clopper-pearson", "--test-size", "8",
              "--target", "ge-train", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    ref = interval_coverage(CellModel((2,), CELLS.split(",")), 20, "clopper-pearson", HoldOut(test_size=8),
                            target="ge-train", rng=np.random.default_rng(0))
    assert doc["exact"] is True and doc["coverage"] == pytest.approx(ref.coverage.estimate)
    assert doc["coverage_lower"] <= doc["coverage"] <= doc["coverage_upper"]


def test_coverage_stratified_naive_cv_is_the_library_value():
    from momentbound.splitters import StratifiedKFold

    r = _run(["coverage", "--cells", CELLS, "--N", "20", "--method", "naive-cv", "--folds", "4", "--stratified",
              "--draws", "500", "--seed", "3", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    ref = interval_coverage(CellModel((2,), CELLS.split(",")), 20, "naive-cv", StratifiedKFold(4), draws=500,
                            rng=np.random.default_rng(3))
    assert doc["splitter"] == "StratifiedKFold(v=4)" and doc["coverage"] == ref.coverage.estimate


def test_compare_classifiers_json():
    r = _run(["compare-classifiers", "--arities", "2,2", "--cells", CELLS2, "--N", "20", "--test", "5x2cv",
              "--attributes-a", "0", "--attributes-b", "1", "--draws", "300", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["test"] == "5x2cv" and doc["draws"] == 300 and 0 <= doc["rejection"] <= 1


@pytest.mark.parametrize("args", [
    ["coverage", "--cells", CELLS, "--N", "20", "--method", "naive-cv", "--test-size", "3"],
    ["coverage", "--cells", CELLS, "--N", "20", "--method", "wald", "--test-size", "30"],
    ["coverage", "--cells", CELLS, "--N", "20", "--method", "wald", "--test-size", "3", "--stratified"],
    ["coverage", "--cells", CELLS, "--N", "20", "--method", "wald", "--test-size", "3", "--seed", "-1"],
    ["compare-classifiers", "--arities", "2,2", "--cells", CELLS2, "--N", "20", "--test", "mcnemar",
     "--attributes-a", "0", "--attributes-b", "5", "--test-size", "5"],
    ["compare-classifiers", "--arities", "2,2", "--cells", CELLS2, "--N", "20", "--test", "5x2cv",
     "--attributes-a", "0", "--attributes-b", "1", "--test-size", "5"],
])
def test_user_errors_are_one_line_with_status_2(args):
    r = _run(args + ["--json"])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and r.stdout == ""
