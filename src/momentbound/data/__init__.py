"""Categorical data in, fitted cell models and an evaluation plan out (docs/howto.md, section
'Plan the evaluation of a classifier on your data')."""

from momentbound.data.loading import MISSING_LEVEL, MISSING_RULES, DataTable, load_data
from momentbound.data.fitting import (
    DEFAULT_PRIOR,
    FIT_MODELS,
    FittedModel,
    SparseTableWarning,
    bayes_error,
    fit_cells,
    posterior_draws,
)

__all__ = ["DataTable", "load_data", "MISSING_LEVEL", "MISSING_RULES", "FittedModel", "SparseTableWarning",
           "fit_cells", "posterior_draws", "bayes_error", "DEFAULT_PRIOR", "FIT_MODELS"]


def __getattr__(name: str):  # the planning functions import the estimators: only when used
    import importlib

    if name in ("advise", "Advice", "CANDIDATES"):
        return getattr(importlib.import_module("momentbound.data.plan"), name)
    if name in ("learning_curve", "LearningCurve"):
        return getattr(importlib.import_module("momentbound.data.learning"), name)
    raise AttributeError(f"module 'momentbound.data' has no attribute {name!r}")
