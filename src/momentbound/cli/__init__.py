"""Thin command-line interface: every command calls the public API.

Commands live one per module in this package; each module defines ``command`` (a click
command) and is registered here automatically, so adding a command never edits this file.
Tables are printed by default; ``--json`` prints one sorted JSON document on stdout. A failed
run prints nothing on stdout and one line on stderr (``Error: ...``), and exits 2 for a usage
error (1 for other failures); warnings are one line on stderr too.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings
from typing import Any, TextIO

import click


def one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: TextIO | None = None, line: str | None = None) -> None:
    """Show a warning as one line on stderr: its class and message, no source line."""
    text = " ".join(str(message).split())
    stream = sys.stderr if file is None else file
    try:
        stream.write(f"{category.__name__}: {text}\n")
    except (OSError, AttributeError):  # no usable stderr: the warning cannot be shown anyway
        pass


_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a Ctrl-C.

    A SIGINT that lands inside an import (matplotlib loading its image backend while a figure
    is saved, say) surfaces as that import's ``ImportError`` chained to the ``KeyboardInterrupt``;
    it is still the user's interrupt, not a failure to report with a traceback.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _error_line(exc: click.ClickException) -> str:
    """One line for a failed run: the message, and for usage errors where to get help."""
    text = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        text += f" (see '{ctx.command_path} --help')"
    return f"Error: {text}"


class OneLineErrors(click.Group):
    """A click group whose errors are one line on stderr instead of a usage block."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            if isinstance(exc, _NO_ARGS_IS_HELP):  # a group run without a command: its help
                exc.show()
            else:
                click.echo(_error_line(exc), err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except Exception as exc:
            if not _interrupted(exc):
                raise
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="momentbound")
def main() -> None:
    """momentbound: moments of classifier error estimators and certified cdf bounds."""
    warnings.showwarning = one_line_warning


#: environment variable: comma-separated modules imported before the commands are built, so that
#: their registry lines (a splitter, a classifier, ...) reach every command (docs/extending.md)
PLUGINS_VARIABLE = "MOMENTBOUND_PLUGINS"


def _load_plugins() -> None:
    import os

    for name in (n.strip() for n in os.environ.get(PLUGINS_VARIABLE, "").split(",")):
        if not name:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:  # a plug-in's own failure: one line, exit 2, before any command runs
            sys.stderr.write(f"Error: {PLUGINS_VARIABLE}: cannot import {name!r}: {type(exc).__name__}: {exc}\n")
            sys.exit(2)


def _register() -> None:
    _load_plugins()
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        cmd = getattr(module, "command", None)
        if not isinstance(cmd, click.Command):  # a command module that lost its command must not vanish
            raise TypeError(f"{module.__name__} must define `command`, a click command; it has {cmd!r}")
        main.add_command(cmd)


_register()
