"""`momentbound bound` through the click runner."""

from __future__ import annotations

import json
from fractions import Fraction

from click.testing import CliRunner

from momentbound.cli import main


def _run(args):
    return CliRunner().invoke(main, ["bound", *args])


def test_moments_form_json():
    res = _run(["--moments", "1,3,11,45", "--support", "grid:0:6", "--event", "ge:5", "--method", "lp", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    (row,) = doc["results"]
    assert set(row) == {"method", "kind", "lower", "upper", "certified", "status", "seconds", "lower_exact",
                        "upper_exact", "solver"}
    assert row["method"] == "lp" and row["status"] == "optimal" and row["certified"] is True
    assert abs(row["lower"] - 1 / 20) < 1e-15 and abs(row["upper"] - 4 / 15) < 1e-15
    assert (row["lower_exact"], row["upper_exact"]) == ("1/20", "4/15") and doc["exact"] is None


def test_all_methods_and_table_output():
    res = _run(["--moments", "1,0,1", "--support", "real", "--event", "ge:2", "--method", "all", "--json"])
    assert res.exit_code == 0, res.output
    methods = [r["method"] for r in json.loads(res.output)["results"]]
    assert "closed-form" in methods and "lp" not in methods
    res = _run(["--moments", "1,3,11", "--support", "interval:0:6", "--event", "ge:5", "--method", "closed-form"])
    assert res.exit_code == 0 and "closed-form" in res.output and "0.333333" in res.output


def test_model_form_adds_exact():
    cells = ",".join(["1/8"] * 8)
    res = _run(["--arities", "2,2", "--cells", cells, "--N", "10", "--at", "0,0", "--order", "4",
                "--method", "lp", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    rows = {r["method"]: r for r in doc["results"]}
    assert rows["lp"]["lower"] <= doc["exact"] <= rows["lp"]["upper"]
    assert rows["exact"]["lower"] == doc["exact"] and rows["exact"]["kind"] == "exact"
    assert float(Fraction(rows["exact"]["lower_exact"])) == doc["exact"]


def test_errors_are_reported():
    res = _run(["--moments", "1,3,11", "--support", "grid:0:6", "--event", "gte:5"])
    assert res.exit_code != 0 and "event must look like" in res.output
    res = _run(["--moments", "1,3,11", "--support", "grid:0:6", "--method", "nope"])
    assert res.exit_code != 0 and "registered methods: lp" in res.output
    res = _run(["--moments", "1,3,8", "--support", "grid:0:6"])
    assert res.exit_code != 0 and "InfeasibleMoments" in res.output
    res = _run(["--support", "grid:0:6"])
    assert res.exit_code != 0 and "give --moments and --support" in res.output
    res = _run(["--arities", "2,2", "--N", "10"])
    assert res.exit_code != 0 and "the model form needs --cells, --at" in res.output
