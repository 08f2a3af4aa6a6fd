"""The how-to 'Plan the evaluation of a classifier on your data' runs as written (its Python block)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_plan_howto_python_block_runs() -> None:
    text = (ROOT / "docs" / "howto.md").read_text()
    start = text.index("## Plan the evaluation of a classifier on your data")
    section = text[start:text.index("\n## ", start + 5)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], "howto-plan", "exec"), namespace)
    assert namespace["table"].N == 2201
    assert "tracks GE_100 best" in namespace["plan"].sentence
