"""CLI: momentbound moments / bird / demo through click's CliRunner."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from momentbound.cli import main
from momentbound.model import CellModel
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments import bird_exponent, raw_moments

EQUAL = ",".join(["1/8"] * 8)


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_moments_exact_json():
    res = run("moments", "--arities", "2,2", "--cells", EQUAL, "--N", "10", "--at", "0,0",
              "--order", "6", "--exact", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert {"statistic", "N", "at", "support", "moments", "seconds"} <= set(doc)
    m = CellModel((2, 2), [Fraction(1, 8)] * 8)
    z = naive_bayes_statistic(m, (0, 0))
    want = raw_moments(z, m, 10, 6).values
    assert [Fraction(s) for s in doc["moments_exact"]] == list(want)
    assert doc["moments"] == [float(v) for v in want]
    assert doc["N"] == 10 and doc["at"] == [0, 0] and doc["support"] == [-147, 147]


def test_moments_decimal_cells_float_and_central():
    cells = "0.1,0.15,0.1,0.15,0.1,0.15,0.1,0.15"
    res = run("moments", "--arities", "2,2", "--cells", cells, "--N", "20", "--at", "1,0",
              "--order", "4", "--central", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    m = CellModel((2, 2), [Fraction(c) for c in cells.split(",")])
    central = raw_moments(naive_bayes_statistic(m, (1, 0)), m, 20, 4).central()
    assert doc["moments"] == [float(v) for v in central] and doc["kind"] == "central"
    assert doc["moments_exact"] is None


def test_moments_three_classes_and_table():
    cells = ",".join(["1/9"] * 9)
    res = run("moments", "--arities", "3", "--cells", cells, "--N", "6", "--at", "2",
              "--classes", "2,0", "--order", "3", "--exact", "--json")
    assert res.exit_code == 0, res.output
    m = CellModel((3,), [Fraction(1, 9)] * 9, 3)
    want = raw_moments(naive_bayes_statistic(m, (2,), (2, 0)), m, 6, 3).values
    assert [Fraction(s) for s in json.loads(res.output)["moments_exact"]] == list(want)
    table = run("moments", "--arities", "2,2", "--cells", EQUAL, "--N", "5", "--at", "0,1", "--order", "2")
    assert table.exit_code == 0 and "raw moments" in table.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["--cells", ",".join(["1/9"] * 8)], "sum to exactly 1"),
        (["--cells", "a,b"], "decimal or a fraction"),
        (["--at", "0,5"], "must be in 0..1"),
        (["--N", "-2"], "N must be a non-negative integer"),
        (["--order", "-1"], "order must be a non-negative integer"),
        (["--classes", "1,1"], "two different classes"),
        (["--arities", "2,x"], "comma-separated integers"),
    ],
)
def test_moments_bad_input(args, message):
    base = {"--arities": "2,2", "--cells": EQUAL, "--N": "5", "--at": "0,0", "--order": "2"}
    for k, v in zip(args[::2], args[1::2]):
        base[k] = v
    flat = [t for kv in base.items() for t in kv]
    res = run("moments", *flat, "--json")
    assert res.exit_code == 2
    assert message in res.output


def test_bird_json_and_table():
    res = run("bird", "--a", "100", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["a"] == 100 and doc["r"] == 28 == bird_exponent(100) and doc["degree"] == 31
    res = run("bird", "--a", "5", "--check", "--json")
    doc = json.loads(res.output)
    assert doc["r"] == doc["r_bruteforce"] == 1 and doc["r_paper"] == 2
    table = run("bird", "--a", "2")
    assert table.exit_code == 0 and "n/a" in table.output
    bad = run("bird", "--a", "0")
    assert bad.exit_code == 2 and "a must be a positive integer" in bad.output


def test_demo_prints_table():
    res = run("demo", "--order", "4")
    assert res.exit_code == 0, res.output
    assert "2x2x2" in res.output and "1000" in res.output
