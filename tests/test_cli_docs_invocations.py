"""Every command line printed in the README and the docs still parses (each option exists and its
value converts), and those of the commands built from the splitter and classifier plug-ins
(``estimate``, ``sweep``) and the light ones run as written (in-process, outputs redirected into a
temporary folder); the bound, band, compare and reproduce commands run in their own test files.
docs/extending.md runs its command lines as real subprocesses (tests/test_extending.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from momentbound.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: options whose value is a file or folder the command writes: redirected into the temporary folder
OUTPUTS = ("--out", "--plot")
#: the commands run here; the others are parsed only
RUN = ("estimate", "sweep", "moments", "bird")
#: not run here (a Dask cluster): parsed only
PARSE_ONLY = ("--dask", "--scheduler")


def invocations() -> list[tuple[str, list[str]]]:
    """``(page, arguments)`` of every ``momentbound ...`` line in a shell block of the README and docs/."""
    out = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if page.name == "extending.md":
            continue
        blocks = re.findall(r"^```(\w*)[^\n]*\n(.*?)^```", page.read_text(), flags=re.S | re.M)
        for lang, block in blocks:
            if lang not in ("", "bash", "console", "sh", "shell", "text"):
                continue
            for line in block.replace("\\\n", " ").splitlines():
                line = re.sub(r"^\$\s+", "", line.strip())
                line = re.sub(r"^(\S*/)?momentbound(?=\s)", "momentbound", line)
                if line.startswith("momentbound "):
                    out.append((page.name, shlex.split(line, comments=True)[1:]))
    return out


CASES = invocations()


def test_the_pages_have_command_lines() -> None:
    pages = {page for page, _ in CASES}
    assert {"README.md", "bounds.md", "estimators.md", "howto.md"} <= pages and len(CASES) >= 30


def _runs(args: list[str]) -> bool:
    return "--help" in args or (args[0] in RUN and not any(flag in args for flag in PARSE_ONLY))


@pytest.mark.parametrize("page, args", CASES, ids=[f"{p}:{' '.join(a)[:60]}" for p, a in CASES])
def test_documented_command_line_works(page: str, args: list[str], tmp_path: Path, monkeypatch) -> None:
    command = main.commands[args[0]]
    if "--help" not in args:
        with command.make_context(args[0], list(args[1:])) as ctx:  # every option exists, its value parses
            assert ctx.params is not None
    if not _runs(args):
        return
    monkeypatch.chdir(tmp_path)
    run = list(args)
    for i, word in enumerate(run[:-1]):
        if word in OUTPUTS:
            run[i + 1] = str(tmp_path / Path(run[i + 1]).name)
    res = CliRunner().invoke(main, run)
    assert res.exit_code == 0, f"{page}: momentbound {' '.join(args)}\n{res.output}"
