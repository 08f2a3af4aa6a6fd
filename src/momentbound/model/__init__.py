"""Data models: validated cell probabilities and the paper's models."""

from momentbound.model.cells import CellModel, parse_number
from momentbound.model.paper import equal_cells_model, fig1_model, independent_1d_model, second_nb_model

__all__ = [
    "CellModel",
    "parse_number",
    "fig1_model",
    "independent_1d_model",
    "equal_cells_model",
    "second_nb_model",
]
