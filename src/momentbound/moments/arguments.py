"""Argument checks shared by the moment functions (:mod:`momentbound.moments.core`,
:mod:`momentbound.moments.bird`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from momentbound._validate import as_int
from momentbound.errors import InvalidArgument
from momentbound.model.statistics import Statistic

if TYPE_CHECKING:
    from momentbound.model.cells import CellModel

__all__ = ["check_order", "check_statistic_model", "resolve_exact"]


def check_order(order: object, name: str = "order") -> int:
    """``order`` as a non-negative ``int`` (``InvalidArgument`` naming ``name`` otherwise)."""
    return as_int(order, name, minimum=0)


def check_statistic_model(stat: Statistic, model: "CellModel", name: str = "statistic") -> None:
    """Refuse anything but a :class:`Statistic` and a :class:`CellModel` with the same cells."""
    from momentbound.model.cells import CellModel

    if not isinstance(stat, Statistic):
        raise InvalidArgument(f"{name} must be a Statistic, got {type(stat).__name__}")
    if not isinstance(model, CellModel):
        raise InvalidArgument(f"model must be a CellModel, got {type(model).__name__}")
    if stat.n_cells != model.n_cells:
        raise InvalidArgument(
            f"{name} has {stat.n_cells} cells but the model has {model.n_cells}; build the "
            f"statistic from the same model"
        )


def resolve_exact(model: "CellModel", exact: Optional[bool]) -> bool:
    """Whether to return Fractions: ``exact`` if given, else whether the model is exact."""
    if exact is None:
        return model.is_exact
    if exact and not model.is_exact:
        # float cells are exact dyadic rationals: the result is the exact moment of them
        return True
    return bool(exact)
