"""Thin command-line interface: every command calls the public API.

Commands live one per module in this package; each module defines ``command`` (a click
command) and is registered here automatically, so adding a command never edits this file.
Tables are printed by default; ``--json`` prints one sorted JSON document on stdout.
"""

from __future__ import annotations

import importlib
import pkgutil

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="momentbound")
def main() -> None:
    """momentbound: moments of classifier error estimators and certified cdf bounds."""


def _register() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        cmd = getattr(module, "command", None)
        if isinstance(cmd, click.Command):
            main.add_command(cmd)


_register()
