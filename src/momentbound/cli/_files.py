"""Output destinations of the CLI commands: `--force`, claims made before any computing.

A refused destination is a user error: one line on stderr, exit code 2. A write that fails
later (a full disk) is one line too, exit code 1; no file is left half-written either way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from momentbound.errors import DestinationError
from momentbound.output import OutputFile, OutputFolder, claim_file, claim_folder

#: Free space asked for per study written (CSV + PNG + checks): the largest quick or paper-scale
#: study writes under 200 KB (its PNG), so 256 KiB leaves a margin.
STUDY_BYTES = 256 * 1024

force_option = click.option(
    "--force", is_flag=True,
    help="Write into a destination that holds an earlier run (or replace an existing file); "
    "never while another run is writing there.",
)


class DestinationRefused(click.ClickException):
    """A destination that cannot be used: printed as one line, exit code 2."""

    exit_code = 2


def claim_output_folder(path: Path, *, force: bool, option: str = "--out", markers: Sequence[str] = (),
                        studies: int = 0) -> OutputFolder:
    """Claim a folder for this command (room for ``studies`` studies); released when the command ends."""
    try:
        claim = claim_folder(path, force=force, markers=markers, need_bytes=studies * STUDY_BYTES)
    except DestinationError as exc:
        raise _refused(option, exc) from exc
    return _claimed(claim, option)


_Claimed = TypeVar("_Claimed", OutputFolder, OutputFile)


def _claimed(claim: _Claimed, option: str) -> _Claimed:
    """Hold ``claim`` until the command ends; say on stderr what --force is writing over."""
    if claim.earlier:
        what = (f"replaces the existing file {claim.path}" if isinstance(claim, OutputFile) else
                f"writes over {len(claim.earlier)} earlier file(s) in {claim.path}")
        click.echo(f"note: {option} {what} (--force)", err=True)
    return click.get_current_context().with_resource(claim)


def _refused(option: str, exc: DestinationError) -> DestinationRefused:
    return DestinationRefused(f"{option}: " + str(exc).replace("force=True", "--force"))


def claim_output_file(path: Path, *, force: bool, option: str = "--out") -> OutputFile:
    """Claim a single output file for this command; released when the command ends."""
    try:
        claim = claim_file(path, force=force)
    except DestinationError as exc:
        raise _refused(option, exc) from exc
    return _claimed(claim, option)


def write_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Report an OSError (a full disk while writing results) as one line, exit code 1, not a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from exc

    return wrapper
