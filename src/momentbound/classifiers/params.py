"""Classifier parameters given as text (``--param KEY=VALUE``), read as literals and never evaluated.

A value is a number (``2``, ``0.5``, ``1e-3``, or an exact fraction ``1/2``, kept as the text
``"1/2"`` for the classifiers that read exact rationals), ``true``/``false``, ``none``, a word
(``gini``, ``log_loss``, ``sqrt``: letters, digits, ``_ . + - /``), a quoted string (``'a b'``),
or a flat tuple or list of those (``(10, 5)``, for ``hidden_layer_sizes``). Quoted strings and
tuples are read with :func:`ast.literal_eval`, which builds literals only and never runs code;
anything else (a call, a name lookup, an operator, a nested container) is refused with the rule.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from momentbound.errors import InvalidArgument

__all__ = ["LITERAL_TYPES", "check_literal", "parse_param", "parse_value"]

#: the scalar types a classifier parameter may hold (tuples and lists of them are allowed too)
LITERAL_TYPES = (bool, int, float, str, type(None))

_WORD = re.compile(r"[A-Za-z0-9_.+\-/]+")
_RULE = ("a number, true/false, none, a word such as gini, a quoted string such as 'a b', "
         "or a tuple of those such as (10, 5)")


def check_literal(value: Any, name: str) -> Any:
    """``value`` if it is a literal parameter value (a scalar of :data:`LITERAL_TYPES`, or a flat
    tuple/list of them), else :class:`InvalidArgument` naming ``name``."""
    if isinstance(value, LITERAL_TYPES):
        return value
    if isinstance(value, (tuple, list)) and all(isinstance(v, LITERAL_TYPES) for v in value):
        return value
    raise InvalidArgument(
        f"{name} must be {_RULE}; got a {type(value).__name__} ({value!r:.80}): classifiers are built "
        "from literal parameters only"
    )


def parse_value(text: str, name: str = "the parameter") -> Any:
    """The literal value of ``text`` (see the module docstring); nothing is evaluated.

    Examples
    --------
    >>> [parse_value(t) for t in ("2", "0.5", "true", "None", "gini", "1/2", "'a b'", "(10, 5)")]
    [2, 0.5, True, None, 'gini', '1/2', 'a b', (10, 5)]
    """
    raw = str(text).strip()
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    if _WORD.fullmatch(raw):
        return raw
    if raw[:1] in ("'", '"', "(", "["):
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = None
        else:
            if isinstance(value, str) or (
                isinstance(value, (tuple, list)) and all(isinstance(v, LITERAL_TYPES) for v in value)
            ):
                return value
    raise InvalidArgument(
        f"{name}: {raw!r:.80} is not a literal value; give {_RULE} (values are read, never evaluated)"
    )


def parse_param(item: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as ``(key, literal value)``; the key must be a Python identifier.

    Examples
    --------
    >>> parse_param("max_depth=2")
    ('max_depth', 2)
    """
    key, sep, value = str(item).partition("=")
    key = key.strip()
    if not sep or not key:
        raise InvalidArgument(f"--param must look like KEY=VALUE, got {item!r}")
    if not key.isidentifier():
        raise InvalidArgument(f"--param {key!r:.60}: a parameter name is a Python identifier such as max_depth")
    return key, parse_value(value, f"--param {key}")
