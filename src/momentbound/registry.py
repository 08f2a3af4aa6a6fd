"""The one registry style of the toolkit, and its one lookup verb.

Every plug-in point keeps a plain dictionary from a name to an entry, filled by literal lines in
one module, so that the order of the docs and the help is the order of those lines (never the
order of imports): :data:`momentbound.classifiers.CLASSIFIERS`,
:data:`momentbound.splitters.SPLITTERS`, :data:`momentbound.bounds.METHODS`,
:data:`momentbound.probability.BACKENDS` and :data:`momentbound.studies.STUDIES`. A plug-in adds
one line, ``REGISTRY["name"] = entry``; :func:`lookup` finds an entry by name in any of them
(``docs/extending.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from momentbound.errors import UnknownMethod

__all__ = ["lookup"]

T = TypeVar("T")


def lookup(registry: Mapping[str, T], name: object, what: str, also: Iterable[str] = ()) -> T:
    """The entry ``name`` of ``registry``; ``UnknownMethod`` naming ``what`` and every choice (and
    the ``also`` accepted besides the registered names) for an unknown name.

    Examples
    --------
    >>> from momentbound.splitters import SPLITTERS
    >>> lookup(SPLITTERS, "loo", "splitter").__name__
    'LeaveOneOut'
    """
    entry = registry.get(name) if isinstance(name, str) else None
    if entry is None:
        plural = what[:-1] + "ies" if what.endswith("y") else what + "s"
        raise UnknownMethod(f"unknown {what} {name!r}; registered {plural}: {', '.join([*registry, *also])}")
    return entry
