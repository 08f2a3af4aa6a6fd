"""Property: every numeric option of every guarded command, driven to its extremes, is refused
cleanly or runs within its limits.

Each case takes a small valid command line and sets one numeric option to an extreme value:
0, 1, 10^9, 10^30, negative numbers, non-numbers, or a random integer up to 10^40. The command
runs in-process (click's CliRunner) with ``--max-seconds 1 --max-memory 800M``, so an accepted
run is small by its own estimate. Whatever the value:

* no traceback: the exit code is 0, 1 or 2 and a failure is one line ``Error: ...``;
* no run past its estimate: a CPU-time alarm (``ITIMER_PROF``, 60 CPU seconds, many times what
  the guard lets through plus numba's compilation) turns a run the guard should have refused
  into a test failure instead of a hung suite;
* no memory past the limit: the process's peak resident memory may not grow by more than
  1 GiB over a case (the guard allows 800 MiB), and during the case its address space is capped
  (``RLIMIT_AS``) at 3 GiB above what it was, so a missing guard fails with ``MemoryError``
  instead of exhausting the machine.
"""

from __future__ import annotations

import resource
import signal
import sys
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.cli import main

CELLS = ["--arities", "2", "--cells", "0.2,0.3,0.2,0.3"]
LIMITS = ["--max-seconds", "1", "--max-memory", "800M"]

#: command -> (a small valid command line, its numeric options)
BASES: dict[str, tuple[list[str], list[str]]] = {
    "coverage-holdout": (["coverage", *CELLS, "--N", "12", "--method", "wald", "--test-size", "4",
                          "--draws", "300", "--json"], ["--N", "--draws", "--confidence", "--seed", "--test-size",
                                                         "--nominal", "--classes"]),
    "coverage-nb": (["coverage", *CELLS, "--N", "12", "--method", "nadeau-bengio", "--test-size", "4",
                     "--splits", "3", "--draws", "300", "--json"], ["--N", "--draws", "--splits", "--test-size"]),
    "coverage-cv": (["coverage", *CELLS, "--N", "12", "--method", "naive-cv", "--folds", "3", "--draws", "300",
                     "--json"], ["--N", "--draws", "--folds"]),
    "compare-classifiers": (["compare-classifiers", "--arities", "2,2", "--cells", ",".join(["1/8"] * 8), "--N", "12",
                             "--test", "mcnemar", "--attributes-a", "0", "--attributes-b", "1", "--test-size", "4",
                             "--draws", "300", "--json"],
                            ["--N", "--draws", "--confidence", "--seed", "--test-size", "--level"]),
    "compare-classifiers-5x2": (["compare-classifiers", "--arities", "2,2", "--cells", ",".join(["1/8"] * 8),
                                 "--N", "12", "--test", "5x2cv", "--attributes-a", "0", "--attributes-b", "1",
                                 "--draws", "300", "--json"], ["--N", "--draws"]),
    "estimate-cv": (["estimate", *CELLS, "--N", "8", "--estimator", "cv", "--folds", "2", "--json"],
                    ["--N", "--folds", "--classes"]),
    "estimate-montecarlo": (["estimate", *CELLS, "--N", "8", "--estimator", "shuffle-split", "--splits", "3",
                             "--test-size", "2", "--backend", "montecarlo", "--draws", "300", "--seed", "1",
                             "--json"], ["--N", "--splits", "--test-size", "--draws", "--seed", "--workers"]),
    "estimate-oob": (["estimate", *CELLS, "--N", "8", "--estimator", "oob", "--bootstraps", "2", "--backend",
                      "montecarlo", "--draws", "300", "--json"], ["--N", "--bootstraps", "--draws"]),
    "estimate-repeated": (["estimate", *CELLS, "--N", "8", "--estimator", "repeated-cv", "--folds", "2",
                           "--repeats", "2", "--backend", "montecarlo", "--draws", "300", "--json"],
                          ["--repeats", "--folds", "--N"]),
    "estimate-holdout": (["estimate", *CELLS, "--N", "8", "--estimator", "holdout", "--test-fraction", "0.5",
                          "--json"], ["--test-fraction", "--N"]),
    "band": (["band", "--moments", "1,3,11", "--support", "grid:0:6", "--points", "3", "--json"],
             ["--points"]),
    "band-truth": (["band", "--truth", "binomial:6:1/2", "--order", "2", "--support", "grid:0:6", "--points", "3",
                    "--json"], ["--order", "--points"]),
    "compare": (["compare", "--N", "10", "--order", "2", "--methods", "closed-form", "--json"],
                ["--N", "--order", "--draws", "--seed"]),
    "bound-model": (["bound", *CELLS, "--N", "6", "--at", "0", "--order", "2", "--method", "closed-form",
                     "--json"], ["--N", "--order"]),
    "bound-sampling": (["bound", *CELLS, "--N", "6", "--at", "0", "--order", "2", "--method", "sampling",
                        "--draws", "300", "--json"], ["--N", "--draws", "--seed", "--order"]),
    "demo": (["demo", "--N", "4", "--cdf-N", "2", "--order", "2", "--json"], ["--N", "--cdf-N", "--order"]),
    "moments": (["moments", *CELLS, "--N", "6", "--at", "0", "--order", "2", "--json"], ["--N", "--order"]),
    "sweep": (["sweep", *CELLS, "--N", "6", "--over", "folds", "--values", "2-3", "--json"], ["--N"]),
}
CASES = [(name, option) for name, (_, options) in BASES.items() for option in options]
EXTREMES = ["0", "1", "-1", "1000000000", "-1000000000", "1" + "0" * 30, "-1" + "0" * 30, "abc", "1.5", "nan",
            "inf", "", "1e9"]
VALUES = st.one_of(st.sampled_from(EXTREMES), st.integers(-(10**40), 10**40).map(str))

CPU_SECONDS = 60
MEMORY_GROWTH = 2**30  # bytes the peak may grow in one case (the guard allows 800 MiB)


class RanPastItsEstimate(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise RanPastItsEstimate(f"a case used more than {CPU_SECONDS} CPU seconds with --max-seconds 1")


def _with_value(args: list[str], option: str, value: str) -> list[str]:
    out = list(args)
    if option in out:
        out[out.index(option) + 1] = value
    else:
        out += [option, value]
    return out


def _address_space() -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def test_the_bases_run() -> None:
    """Every base line succeeds as it is (so a refusal in the property comes from the value)."""
    runner = CliRunner()
    for name, (args, _) in BASES.items():
        if name == "demo":  # the demo writes a folder and takes seconds: its base is only parsed
            continue
        res = runner.invoke(main, [*args, *LIMITS])  # accepted within the limits of the property
        assert res.exit_code == 0, (name, res.output)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs ITIMER_PROF")
@settings(max_examples=330, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=st.sampled_from(CASES), value=VALUES)
def test_extreme_numbers_are_refused_cleanly_or_run_within_the_limits(case: tuple[str, str], value: str,
                                                                       tmp_path_factory: Any) -> None:
    name, option = case
    args = _with_value(BASES[name][0], option, value)
    if name == "demo":
        args += ["--out", str(tmp_path_factory.mktemp("demo"))]
    before = _peak_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    space = _address_space()
    if space is not None:
        cap = space + 3 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CPU_SECONDS)
    try:
        res = CliRunner().invoke(main, [*args, *LIMITS])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    shown = " ".join(args)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"{shown}: {type(res.exception).__name__}: {res.exception}") from res.exception
    assert res.exit_code in (0, 1, 2), (shown, res.exit_code, res.output)
    if res.exit_code != 0:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: "), (shown, res.stderr)
        assert "Traceback" not in res.stderr
    assert _peak_bytes() - before <= MEMORY_GROWTH, (shown, _peak_bytes() - before)
