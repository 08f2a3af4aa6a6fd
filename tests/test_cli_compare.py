"""CLI tests of ``momentbound compare`` (thin wrapper of studies.method_comparison.compare_methods).

Witness for the exact column: brute-force enumeration of all count tables at small N.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction as F
from pathlib import Path

import pytest
from click.testing import CliRunner

from momentbound.studies.method_comparison import CompareTable, compare_methods, table4_problem
from momentbound.cli import main
from momentbound.errors import InvalidArgument, UnknownMethod
from momentbound.model import equal_cells_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.model.enumeration import count_tables, multinomial_pmf


def brute_positive(N: int) -> F:
    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, (0, 0))
    return sum((multinomial_pmf(c, model.cells) for c in count_tables(8, N) if z.evaluate(c) > 0), F(0))


def test_json_rows_and_exact_value() -> None:
    res = CliRunner().invoke(main, ["compare", "--N", "5,6", "--order", "4", "--methods", "sdp,sqp,series", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["order"] == 4 and doc["event"] == "gt:0"
    rows = doc["rows"]
    assert [(r["method"], r["N"]) for r in rows] == [
        ("exact", 5), ("sdp", 5), ("sqp", 5), ("series", 5), ("exact", 6), ("sdp", 6), ("sqp", 6), ("series", 6),
    ]
    for N in (5, 6):
        truth = float(brute_positive(N))
        for r in rows:
            if r["N"] != N:
                continue
            assert r["exact"] == pytest.approx(truth, abs=1e-12)
            if r["kind"] == "bound":
                assert r["certified"] and r["contains_exact"] is True
                assert r["lower"] <= truth <= r["upper"]
                assert r["width"] == pytest.approx(r["upper"] - r["lower"])
            if r["kind"] == "approximation":
                assert r["contains_exact"] is None and r["error"] == pytest.approx(abs(r["lower"] - truth))


def test_table_and_csv(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    res = CliRunner().invoke(main, ["compare", "--N", "5", "--order", "3", "--methods", "sdp,sampling", "--draws", "200", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "P[Z > 0]" in res.output and "sdp" in res.output
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["method"] for r in rows] == ["exact", "sdp", "sampling"]
    assert tuple(rows[0].keys()) == CompareTable.COLUMNS
    assert rows[2]["kind"] == "estimate"


def test_seed_makes_sampling_reproducible() -> None:
    args = ["compare", "--N", "5", "--order", "2", "--methods", "sampling", "--draws", "300", "--seed", "4", "--json"]
    a = json.loads(CliRunner().invoke(main, args).output)["rows"][1]
    b = json.loads(CliRunner().invoke(main, args).output)["rows"][1]
    assert (a["lower"], a["upper"]) == (b["lower"], b["upper"])


def test_bad_arguments() -> None:
    r = CliRunner().invoke(main, ["compare", "--N", "0"])
    assert r.exit_code != 0 and "--N must list positive integers" in r.output
    r = CliRunner().invoke(main, ["compare", "--N", "ten"])
    assert r.exit_code != 0 and "comma-separated integers" in r.output
    r = CliRunner().invoke(main, ["compare", "--N", "5", "--order", "0"])
    assert r.exit_code != 0 and "--order must be a positive integer" in r.output
    r = CliRunner().invoke(main, ["compare", "--N", "5", "--methods", "nope"])
    assert r.exit_code != 0 and "unknown method" in r.output


def test_library_errors() -> None:
    with pytest.raises(UnknownMethod, match="registered methods"):
        compare_methods((5,), 2, methods=("nope",))
    with pytest.raises(InvalidArgument, match="N must be a positive integer"):
        table4_problem(0)
    with pytest.raises(InvalidArgument, match="order must be a positive integer"):
        table4_problem(5, 0)
