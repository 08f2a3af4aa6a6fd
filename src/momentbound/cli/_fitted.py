"""The model fitted from ``--data`` for the running command, and what its JSON output adds about it
(set by :mod:`momentbound.cli._data`, read by ``emit_json``)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

__all__ = ["FITTED", "POSTERIOR", "fitted_model", "fitted_document"]

FITTED: ContextVar[Any] = ContextVar("momentbound_fitted_model", default=None)
POSTERIOR: ContextVar[Any] = ContextVar("momentbound_posterior", default=None)


def fitted_model() -> Any:
    """The model fitted from ``--data`` for the running command (None without ``--data``)."""
    return FITTED.get()


def fitted_document() -> dict[str, Any] | None:
    """What ``emit_json`` adds: the fitted model (levels, cells, N of the data, prior) and the posterior summary."""
    model = FITTED.get()
    if model is None:
        return None
    doc = {"fitted_model": model.describe()}
    if POSTERIOR.get() is not None:
        doc["posterior"] = POSTERIOR.get()
    return doc
