"""Registry of prediction-probability backends: ``get_backend(name)``."""

from __future__ import annotations

from collections.abc import Callable

from momentbound.errors import UnknownMethod
from momentbound.probability.base import PredictionBackend
from momentbound.probability.exact_backend import make_exact_backend
from momentbound.probability.moment_backends import make_bound_backend, make_series_backend
from momentbound.probability.sampling_backend import make_sampling_backend

__all__ = ["BACKENDS", "register_backend", "get_backend", "backend_names"]

# name -> factory(option string after "name:" or None) ; insertion order = preference order
BACKENDS: dict[str, Callable[[str | None], PredictionBackend]] = {
    "exact": make_exact_backend,
    "sampling": make_sampling_backend,
    "bound": make_bound_backend,
    "series": make_series_backend,
}


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
    head, sep, option = name.partition(":")
    factory = BACKENDS.get(head)
    if factory is None or (head == "bound") != bool(sep):
        raise UnknownMethod(
            f"unknown backend {name!r}; choose one of {', '.join(backend_names())}"
        )
    return factory(option if sep else None)

