"""docs/extending.md runs as written: its python blocks are executed in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def test_extending_page_runs_as_written(capsys):
    from momentbound.classifiers import CLASSIFIERS
    from momentbound.estimators import SPLITTERS

    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) == 4
    before = (dict(CLASSIFIERS), dict(SPLITTERS))
    namespace: dict = {}
    try:
        for block in blocks:
            exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - the documented example
        assert "histogram-fallback" in CLASSIFIERS and "first-folds" in SPLITTERS
    finally:  # leave the registries as they were
        CLASSIFIERS.clear()
        CLASSIFIERS.update(before[0])
        SPLITTERS.clear()
        SPLITTERS.update(before[1])
    out = capsys.readouterr().out
    assert "E[CE]: momentbound" in out and "Var: all 4 folds" in out
