"""A Ctrl-C that lands inside an import reads as an interrupt, not as a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from momentbound.cli import _interrupted

_SCRIPT = textwrap.dedent("""
    import sys
    import click
    from momentbound.cli import main

    @main.command("boom")
    def boom():
        kind = sys.argv[-1]
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            if kind == "chained":
                raise ImportError("initialization failed") from exc
            if kind == "context":
                raise ImportError("initialization failed")
        raise ImportError("a real failure")

    main(["boom"], prog_name="momentbound")
""")


def _run(kind: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _SCRIPT, kind], capture_output=True, text=True, timeout=120)


def test_interrupt_chained_to_an_import_error_is_an_interrupt() -> None:
    for kind in ("chained", "context"):
        res = _run(kind)
        assert res.returncode == 1, res.stderr
        assert res.stdout == ""
        assert res.stderr == "Aborted!\n"


def test_a_real_error_is_not_taken_for_an_interrupt() -> None:
    res = _run("plain")
    assert res.returncode == 1
    assert "ImportError: a real failure" in res.stderr
    assert "Aborted!" not in res.stderr


def test_interrupted_walks_the_chain_once() -> None:
    a = ValueError("a")
    b = ValueError("b")
    a.__context__ = b
    b.__context__ = a  # a cycle ends the walk
    assert not _interrupted(a)
    c = RuntimeError("c")
    c.__cause__ = KeyboardInterrupt()
    assert _interrupted(c)
    assert _interrupted(KeyboardInterrupt())
