"""Every benchmark's argument parser declares ``--quick`` (``make bench`` runs
``benchmarks/run_all.py --quick``, which passes it to each ``bench_*.py``).

The scripts are read, not run: their ``argparse`` calls (or, in the scripts that read ``sys.argv``
themselves, a comparison with ``"--quick"``) are found in the syntax tree, so the test needs no heavy
import and no benchmark workload.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def declared_flags(source: str) -> set[str]:
    """The option strings of every ``<parser>.add_argument("--x", ...)`` call in ``source``."""
    flags: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flags.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return flags


def parses_arguments(source: str) -> bool:
    """Whether ``source`` calls ``<parser>.parse_args()``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "parse_args"
               for n in ast.walk(ast.parse(source)))


def compares_argv_with(source: str, flag: str) -> bool:
    """Whether ``source`` reads ``sys.argv`` and compares something with the literal ``flag``
    (``flag in sys.argv``, ``a != flag``)."""
    tree = ast.parse(source)
    reads = any(isinstance(n, ast.Attribute) and n.attr == "argv" for n in ast.walk(tree))
    compared = any(isinstance(n, ast.Compare) and any(isinstance(c, ast.Constant) and c.value == flag
                                                       for c in [n.left, *n.comparators])
                   for n in ast.walk(tree))
    return reads and compared


def accepts(source: str, flag: str) -> bool:
    """Whether a script's command line takes ``flag``: declared to argparse or read from ``sys.argv``."""
    return (parses_arguments(source) and flag in declared_flags(source)) or compares_argv_with(source, flag)


def test_the_benchmarks_are_found() -> None:
    assert len(SCRIPTS) >= 20
    assert (BENCHMARKS / "run_all.py").exists()


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_every_benchmark_accepts_quick(script: Path) -> None:
    assert accepts(script.read_text(), "--quick"), f"{script.name} has no --quick option"


def test_a_parser_without_quick_is_caught() -> None:
    without = 'import argparse\nap = argparse.ArgumentParser()\nap.add_argument("--reps", type=int)\nap.parse_args()\n'
    assert parses_arguments(without)
    assert "--quick" not in declared_flags(without)
    assert "--quick" in declared_flags(without.replace('"--reps", type=int', '"--quick", action="store_true"'))
    assert accepts(without.replace('"--reps"', '"--quick"'), "--quick")
    assert not accepts(without, "--quick")
    assert not parses_arguments("import sys\nprint(sys.argv)\n")
    assert not accepts("import sys\nprint(sys.argv)\n", "--quick")
    assert accepts("import sys\nquick = '--quick' in sys.argv\n", "--quick")
    assert not accepts("quick = '--quick' in options\n", "--quick")
