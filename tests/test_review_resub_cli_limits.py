"""The command line's --max-seconds governs the sufficient-statistic route of resubstitution, Err(1) and
.632 (past the count-table limit) and its refusal names --max-seconds, not a Python constant."""

from __future__ import annotations

import json

from conftest import run_in_process

from momentbound.exact import resub_states

MODEL = ["--arities", "2", "--cells", "0.2,0.3,0.2,0.3", "--splitter", "resubstitution", "--json"]


def test_a_small_max_seconds_refuses_before_any_work_and_names_the_option():
    done = run_in_process(["estimate", *MODEL, "--N", "350", "--max-seconds", "0.5"])
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert "limit 0.5 s" in done.stderr and "--max-seconds none" in done.stderr
    assert "resub_states" not in done.stderr


def test_max_seconds_none_lifts_the_limit(monkeypatch):
    monkeypatch.setattr(resub_states, "MAX_SECONDS", 1e-3)  # the module's limit alone would refuse
    done = run_in_process(["estimate", *MODEL, "--N", "262", "--max-seconds", "none"])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert 0.3 < json.loads(done.stdout)["mean"] < 0.5
