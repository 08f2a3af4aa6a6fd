"""`reproduce` refusals name the command's own options, and every command module registers its command."""

from __future__ import annotations

import pkgutil

import click
import pytest
from click.testing import CliRunner

import momentbound.cli as cli
from momentbound.cli import main


@pytest.mark.parametrize("study", ["bias_variance", "nb_cv"])
def test_a_refused_paper_scale_study_names_reproduce_options(tmp_path, study: str) -> None:
    result = CliRunner().invoke(main, ["reproduce", study, "--out", str(tmp_path / "o"), "--max-seconds", "0.5",
                                       "--no-progress"])
    assert result.exit_code != 0
    line = result.output.strip().splitlines()[-1]
    assert f"study {study} at the paper scale" in line and "--quick" in line and "--max-seconds none" in line
    # the inner routes and sizes of the study are not options of reproduce
    assert "--backend" not in line and "--n " not in line and "--N " not in line


def test_a_refused_quick_study_only_offers_the_limits(tmp_path) -> None:
    result = CliRunner().invoke(main, ["reproduce", "nb_cv", "--quick", "--out", str(tmp_path / "o"),
                                       "--max-seconds", "0.001", "--no-progress"])
    line = result.output.strip().splitlines()[-1]
    assert result.exit_code != 0 and "study nb_cv:" in line and "--max-seconds none" in line
    assert "--quick" not in line and "--backend" not in line


def test_every_public_command_module_is_a_registered_command() -> None:
    names = {m.name for m in pkgutil.iter_modules(cli.__path__) if not m.name.startswith("_")}
    registered = {c.callback.__module__.rsplit(".", 1)[-1] for c in main.commands.values()}
    assert names == registered
    assert all(isinstance(c, click.Command) for c in main.commands.values())
