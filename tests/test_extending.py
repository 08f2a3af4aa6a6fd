"""docs/extending.md runs as written: its two file blocks become the modules of a package
``myplugins`` in a temporary folder; its other python blocks run in order, in one namespace, from
that folder; its bash block runs the real command line (one subprocess per command)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
BLOCK = re.compile(r'```(python|bash)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)


def _run_bash(block: str, cwd: Path) -> None:
    """Each command of the block (``\\``-continued lines joined): ``NAME=VALUE`` prefixes go to the
    environment, ``momentbound`` is this interpreter's ``-m momentbound``, ``> FILE`` takes stdout."""
    for command in block.replace("\\\n", " ").strip().splitlines():
        words = shlex.split(command)
        env = dict(os.environ)
        while "=" in words[0] and not words[0].startswith("-"):
            key, _, value = words.pop(0).partition("=")
            env[key] = value
        assert words[0] == "momentbound" and words[-2] == ">"
        env["PYTHONPATH"] = os.pathsep.join([str(cwd), env.get("PYTHONPATH", "")])
        res = subprocess.run([sys.executable, "-m", *words[:-2]], cwd=cwd, env=env, capture_output=True,
                             text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        (cwd / words[-1]).write_text(res.stdout)


def test_extending_page_runs_as_written(tmp_path, monkeypatch, capsys):
    from momentbound.classifiers import CLASSIFIERS
    from momentbound.splitters import SPLITTERS

    text = PAGE.read_text()
    # each block keeps its line numbers in the page (tracebacks point at the page's lines)
    blocks = [(m[1], m[2], "\n" * text[:m.start(3)].count("\n") + m[3]) for m in BLOCK.finditer(text)]
    files = [(title, code) for lang, title, code in blocks if title]
    assert [t for t, _ in files] == ["myplugins/fallback.py", "myplugins/first_folds.py"]
    (tmp_path / "myplugins").mkdir()
    (tmp_path / "myplugins" / "__init__.py").write_text("")
    for title, code in files:
        (tmp_path / title).write_text(code.lstrip("\n"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = (dict(CLASSIFIERS), dict(SPLITTERS))
    namespace: dict = {}
    try:
        for lang, title, code in blocks:
            if title:
                continue
            if lang == "bash":
                _run_bash(code, tmp_path)
            else:
                exec(compile(code, str(PAGE), "exec"), namespace)  # noqa: S102 - the documented example
        assert "histogram-fallback" in CLASSIFIERS and "first-folds" in SPLITTERS
        assert {"exact.json", "montecarlo.json"} <= {p.name for p in tmp_path.iterdir()}
    finally:  # leave the registries and the imported modules as they were
        CLASSIFIERS.clear()
        CLASSIFIERS.update(before[0])
        SPLITTERS.clear()
        SPLITTERS.update(before[1])
        for name in [m for m in sys.modules if m == "myplugins" or m.startswith("myplugins.")]:
            del sys.modules[name]
    captured = capsys.readouterr()
    assert "first-folds(4, 2), N=8: E = " in captured.out and "histogram-fallback, first-folds(4, 2)" in captured.out
    assert "exact FirstFolds(v=4, u=2), N=8" in captured.err          # progress=True drew its bar
    assert "montecarlo FirstFolds(v=4, u=2), N=8" in captured.err
