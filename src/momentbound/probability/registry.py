"""Registry of prediction-probability backends: ``get_backend(name)``."""

from __future__ import annotations

from collections.abc import Callable

from momentbound.errors import UnknownMethod
from momentbound.probability.base import PredictionBackend

__all__ = ["BACKENDS", "register_backend", "get_backend", "backend_names"]

# name -> factory(option string after "name:" or None) ; insertion order = preference order
BACKENDS: dict[str, Callable[[str | None], PredictionBackend]] = {}


def register_backend(name: str) -> Callable[[Callable[[str | None], PredictionBackend]], Callable[[str | None], PredictionBackend]]:
    def deco(factory: Callable[[str | None], PredictionBackend]) -> Callable[[str | None], PredictionBackend]:
        BACKENDS[name] = factory
        return factory

    return deco


def backend_names() -> tuple[str, ...]:
    return tuple(f"{n}:<method>" if n == "bound" else n for n in BACKENDS)


def get_backend(name: "str | PredictionBackend") -> PredictionBackend:
    """Backend by name (``"exact"``, ``"sampling"``, ``"bound:<method>"``, ``"series"``) or instance.

    Examples
    --------
    >>> get_backend("exact").name
    'exact'
    """
    if isinstance(name, PredictionBackend):
        return name
    if not isinstance(name, str):
        raise UnknownMethod(f"backend must be a name or a PredictionBackend, got {name!r}")
    _load()
    head, sep, option = name.partition(":")
    factory = BACKENDS.get(head)
    if factory is None or (head == "bound") != bool(sep):
        raise UnknownMethod(
            f"unknown backend {name!r}; choose one of {', '.join(backend_names())}"
        )
    return factory(option if sep else None)


def _load() -> None:
    # importing the modules registers them
    from momentbound.probability import exact_backend  # noqa: F401
    from momentbound.probability import sampling_backend  # noqa: F401
    from momentbound.probability import moment_backends  # noqa: F401
