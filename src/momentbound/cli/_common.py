"""Helpers shared by the CLI commands: parsing lists, printing tables or JSON."""

from __future__ import annotations

import json
from contextlib import contextmanager
import math
import sys
from collections.abc import Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import click
from rich.console import Console
from rich.table import Table


class UserError(click.ClickException):
    """A mistake in the arguments: one line ``Error: ...`` on stderr and exit status 2."""

    exit_code = 2


def split_list(text: str, *, name: str = "the list") -> list[str]:
    """Split a comma-separated option into stripped entries, refusing empty entries.

    An empty entry (``1,,3`` or a trailing comma) is an error naming its position:
    dropping it would silently change the question.
    """
    if text.strip() == "":
        raise UserError(f"{name} is empty; give its comma-separated values")
    tokens = [t.strip() for t in text.split(",")]
    for i, t in enumerate(tokens, start=1):
        if t == "":
            raise UserError(
                f"{name} has an empty entry at position {i} of {len(tokens)} in {text!r}; "
                f"remove the extra comma or fill in the value"
            )
    return tokens


def parse_int_list(text: str, *, name: str) -> tuple[int, ...]:
    """Comma-separated integers; every entry must be an integer (the message names its position)."""
    out = []
    for i, t in enumerate(split_list(text, name=name), start=1):
        try:
            out.append(int(t))
        except ValueError:
            raise UserError(
                f"{name} entry {i} must be an integer, got {t!r}; {name} takes comma-separated integers"
            ) from None
    return tuple(out)


def parse_str_list(text: str, *, name: str = "the list") -> list[str]:
    """Comma-separated entries (see :func:`split_list`)."""
    return split_list(text, name=name)


def exact_text(value: Any) -> str | None:
    """The exact rational ``"p/q"`` (or ``"n"``) of a Fraction or integer; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return None


def jsonable(value: Any) -> Any:
    """Convert to JSON values of one type per field: numbers are JSON numbers, never strings.

    Fractions and Decimals become floats (commands that keep exact values put them in separate
    ``*_exact`` string fields, see :func:`exact_text`); numpy scalars and arrays become Python
    numbers and lists; NaN and infinities, which JSON cannot hold, become null.
    """
    import numpy as np

    if isinstance(value, (Fraction, Decimal)):
        try:
            return jsonable(float(value))
        except OverflowError:  # beyond the float range: null here, the exact value in its *_exact field
            return None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(document: Any) -> None:
    """Print ``document`` as one sorted JSON document on stdout (strict JSON: no NaN); with ``--data`` the
    document also names the fitted model (and the posterior summary of ``--posterior``)."""
    from momentbound.cli._fitted import fitted_document

    extra = fitted_document()
    if extra is not None and isinstance(document, dict):
        document = {**document, **extra}
    click.echo(json.dumps(jsonable(document), sort_keys=True, indent=2, allow_nan=False))


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    table = Table(title=title)
    for c in columns:
        table.add_column(str(c))
    for r in rows:
        table.add_row(*(str(v) for v in r))
    # piped or captured output has no terminal width: do not crush numbers into "0.16…"
    Console(width=None if sys.stdout.isatty() else 160).print(table)


class UserError(click.ClickException):
    """A bad input reported as one line ``Error: ...`` with exit status 2 (no usage text, no traceback)."""

    exit_code = 2


def library_error(exc: Exception) -> click.ClickException:
    """The one mapping of library errors to exit statuses: a solver that failed exits 1 (the input
    may be fine), every other library error (a bad argument, infeasible moments) exits 2."""
    from momentbound.errors import SolverFailed

    if isinstance(exc, SolverFailed):
        return click.ClickException(cli_hints(f"{type(exc).__name__}: {exc}"))
    return UserError(cli_hints(f"{type(exc).__name__}: {exc}"))


@contextmanager
def user_errors(writing: str = "the plot") -> Iterator[None]:
    """Library errors and unwritable outputs as one-line user errors (exit 2), e.g. ``--plot`` into
    a directory that cannot be written."""
    from momentbound.errors import MomentboundError

    try:
        yield
    except MomentboundError as exc:
        raise UserError(cli_hints(f"{type(exc).__name__}: {exc}")) from exc
    except OSError as exc:
        raise UserError(f"cannot write {writing}: {exc}") from exc


def check_plot_path(path: str | None) -> None:
    """Fail before any work if ``--plot`` is not a .png whose directory exists or can be made."""
    if path is None:
        return
    from pathlib import Path

    target = Path(path)
    if target.suffix.lower() != ".png":
        raise UserError(f"--plot must name a .png file, got {path!r}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--plot: cannot create the directory {str(target.parent)!r}: {exc}") from exc
    if target.is_dir():
        raise UserError(f"--plot {path!r} is a directory; give a .png file name")
    import tempfile

    try:  # writable, before any work: a probe file beside the target, removed at once
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".momentbound-probe-"):
            pass
    except OSError as exc:
        raise UserError(f"--plot: cannot write into {str(target.parent)!r}: {exc}") from exc


def _seconds_option(text: str) -> float | None:
    t = text.strip().lower()
    if t in ("none", "0", "inf", "infinity", "unlimited"):
        return None
    try:
        value = float(t)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UserError(f"--max-seconds must be a positive number of seconds, or none (or 0) for no limit, got {text!r}")
    return value


def limit_options(func: Any) -> Any:
    """``--max-seconds`` and ``--max-memory`` for a command with a work guard: every guard of the
    library inside the command uses them (``momentbound.guard.limits``), and its refusals name these
    options."""
    import functools

    from momentbound.guard import DEFAULT_SECONDS

    @functools.wraps(func)
    def wrapper(*args: Any, max_seconds: str, max_memory: str | None, **kwargs: Any) -> Any:
        from momentbound import guard

        seconds = _seconds_option(max_seconds)
        memory: Any = guard.default_memory()
        if max_memory is not None:
            try:
                memory = guard.parse_size(max_memory)
            except ValueError:
                raise UserError(f"--max-memory must be a size such as 2G, 500M or 1.5GiB (bytes without a suffix), "
                                f"or none for no limit, got {max_memory!r}") from None
        with guard.limits(seconds, memory, cli=True):
            return func(*args, **kwargs)

    wrapper = click.option(
        "--max-memory", default=None, metavar="SIZE",
        help="Refuse a run estimated to hold more memory (e.g. 2G, 500M; none: no limit) [default: 80% of "
        "this machine's memory].")(wrapper)
    wrapper = click.option(
        "--max-seconds", default=f"{DEFAULT_SECONDS:g}", show_default=True, metavar="SECONDS",
        help="Refuse a run estimated to take longer (none or 0: no limit).")(wrapper)
    return wrapper


_HINT = None


def cli_hints(text: str) -> str:
    """A library message with its keyword-argument hints (``backend='montecarlo'``,
    ``max_seconds=None``, ``draws=...``) written as the running command's options
    (``--backend montecarlo``), where the command has that option."""
    import re

    global _HINT
    if _HINT is None:
        _HINT = re.compile(r"\b([a-z][a-z_]*)=(?:'([^']*)'|\"([^\"]*)\"|(None|True|False|[\w.+-]+))")
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return text
    flags = {opt for p in ctx.command.params for opt in getattr(p, "opts", ())}

    def in_call(end: int) -> bool:  # inside ``HoldOut(test_size=4)``: a description, not a hint
        stack = []
        for i, ch in enumerate(text[:end]):
            if ch == "(":
                stack.append(i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))
            elif ch == ")" and stack:
                stack.pop()
        return any(stack)

    def swap(m: Any) -> str:
        name = m.group(1)
        flag = "--" + name.replace("_", "-")
        if flag not in flags or in_call(m.start()):
            return m.group(0)
        value = next(v for v in m.group(2, 3, 4) if v is not None)
        if value in ("None", "True", "False"):
            value = value.lower()
        return f"{flag} {value}"

    return _HINT.sub(swap, text)
