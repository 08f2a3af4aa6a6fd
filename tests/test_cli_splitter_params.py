"""The command line reads a splitter's parameters from its fields: ``--param FIELD=VALUE`` and the
friendly options its fields declare reach the same field (in-process CLI runs)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from momentbound.cli import main
from momentbound.cli._common import splitter_fields
from momentbound.splitters import SPLITTERS

BASE = ["estimate", "--cells", "1/5,3/10,1/5,3/10", "--N", "12", "--json"]


def run(*args: str):
    return CliRunner().invoke(main, [*BASE, *args])


def doc(*args: str) -> dict:
    res = run(*args)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.parametrize("friendly, param", [
    (["--splitter", "cv", "--folds", "3"], ["--splitter", "cv", "--param", "v=3"]),
    (["--estimator", "repeated-stratified-cv", "--folds", "2", "--repeats", "inf"],
     ["--splitter", "repeated-stratified-cv", "--param", "v=2", "--param", "splitter.repeats=inf"]),
    (["--splitter", "shuffle-split", "--splits", "3", "--test-fraction", "0.25"],
     ["--splitter", "shuffle-split", "--param", "splits=3", "--param", "test_size=0.25"]),
    (["--splitter", "632", "--bootstraps", "4", "--backend", "montecarlo", "--seed", "1", "--draws", "300"],
     ["--splitter", "632", "--param", "B=4", "--backend", "montecarlo", "--seed", "1", "--draws", "300"]),
])
def test_param_and_friendly_option_set_the_same_field(friendly, param):
    a, b = doc(*friendly), doc(*param)
    for key in ("mean", "variance", "splitter"):
        assert a[key] == b[key]


def test_classifier_keys_still_reach_the_classifier():
    d = doc("--splitter", "cv", "--param", "v=3", "--param", "ties=first", "--param", "classifier.alpha=1")
    assert d["classifier"]["params"]["ties"] == "first" and d["alpha"] == 1.0 and d["folds"] == 3


@pytest.mark.parametrize("args, message", [
    (["--splitter", "cv", "--param", "v=3", "--folds", "3"], "--param v and --folds both set v"),
    (["--splitter", "oob"], "--splitter oob needs --bootstraps or --param B=VALUE"),
    (["--splitter", "cv"], "needs --folds or --param v=VALUE"),
    (["--splitter", "cv", "--param", "splitter.u=2", "--folds", "3"], "cv has no parameter 'u'"),
    (["--splitter", "ge", "--test-size", "3"], "--test-size does not apply to --splitter ge"),
    (["--splitter", "nope"], "Invalid value for '--splitter'"),
])
def test_bad_splitter_options_are_one_line_errors(args, message):
    res = run(*args)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_every_registered_splitter_declares_its_fields():
    for name, cls in SPLITTERS.items():
        for f in splitter_fields(cls):  # every field is reachable as --param, most by a friendly option too
            assert f.metadata.get("help"), (name, f.name)
