"""Refusals on the command line advise only what the command line can do: ``estimate`` takes
``--backend auto``, and ``--backend montecarlo`` does not take ``--metric``."""

from __future__ import annotations

from conftest import run_in_process

MODEL = ["--arities", "2", "--cells", "0.2,0.3,0.2,0.3"]


def _refusal(args: list[str]) -> str:
    done = run_in_process(["estimate", *MODEL, *args, "--json"])
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    return done.stderr


def test_the_work_refusal_advises_the_backends_the_command_has():
    err = _refusal(["--N", "1500", "--splitter", "resubstitution"])
    assert "--backend montecarlo" in err and "--backend auto" in err
    done = run_in_process(["estimate", *MODEL, "--N", "1500", "--splitter", "resubstitution", "--backend", "auto",
                           "--seed", "1", "--draws", "500", "--json"])
    assert done.returncode == 0 and '"backend": "montecarlo"' in done.stdout


def test_a_metric_refusal_does_not_advise_the_simulation_that_refuses_metrics():
    err = _refusal(["--N", "600", "--splitter", "resubstitution", "--metric", "balanced_error"])
    assert "a smaller N" in err and "use --backend montecarlo" not in err
    assert "not --metric balanced_error" in err
    # the advice it gave before is refused by the command itself
    assert "drop --backend montecarlo" in _refusal(["--N", "600", "--splitter", "resubstitution", "--metric",
                                                    "balanced_error", "--backend", "montecarlo"])


def test_a_metric_refusal_of_the_bootstrap_pairs_still_reads():
    cells = ["--arities", "2", "--cells", "1/8,1/16,1/16,1/4,1/8,1/16,1/16,1/4", "--classes", "4"]
    done = run_in_process(["estimate", *cells, "--N", "5", "--splitter", "632", "--metric", "balanced_error",
                           "--json"])
    assert done.returncode == 2 and done.stdout == ""
    assert "use a smaller N (or one attribute" in done.stderr and "use (" not in done.stderr


def test_the_class_count_memory_refusal_reads_under_a_metric_and_without():
    args = ["--N", "100000", "--splitter", "repeated-cv", "--folds", "5", "--repeats", "3"]
    plain = _refusal(args)
    assert "use --backend montecarlo or a smaller N" in plain and "estimator_moments" not in plain
    metric = _refusal([*args, "--metric", "recall:1"])
    assert "use a smaller N (--backend montecarlo simulates" in metric
