"""Registry of prediction-probability backends: ``get_backend(name)``."""

from __future__ import annotations

from collections.abc import Callable

from momentbound.errors import UnknownMethod
from momentbound.probability.base import PredictionBackend
from momentbound.registry import lookup
from momentbound.probability.exact_backend import make_exact_backend
from momentbound.probability.moment_backends import make_bound_backend, make_series_backend
from momentbound.probability.sampling_backend import make_sampling_backend

__all__ = ["BACKENDS", "get_backend", "backend_names"]

#: name -> factory(option string after "name:" or None); the order of the lines is the preference order;
#: a plug-in adds ``BACKENDS["name"] = factory`` (:mod:`momentbound.registry`)
BACKENDS: dict[str, Callable[[str | None], PredictionBackend]] = {
    "exact": make_exact_backend,
    "sampling": make_sampling_backend,
    "bound": make_bound_backend,
    "series": make_series_backend,
}


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
    if head not in BACKENDS or (head == "bound") != bool(sep):
        raise UnknownMethod(f"unknown backend {name!r}; registered backends: {', '.join(backend_names())}")
    return lookup(BACKENDS, head, "backend")(option if sep else None)

