"""momentbound: exact moments of classifier error estimators and certified cdf bounds.

The public API is re-exported here lazily, so ``import momentbound`` is fast and does not
import cvxpy or sympy until a feature needs them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it (one line per name; keep sorted by module)
_EXPORTS: dict[str, str] = {
    "MomentboundError": "momentbound.errors",
    "InvalidArgument": "momentbound.errors",
    "InvalidModel": "momentbound.errors",
    "InvalidProbability": "momentbound.errors",
    "InfeasibleMoments": "momentbound.errors",
    "ImpossibleSplit": "momentbound.errors",
    "DegreeCapExceeded": "momentbound.errors",
    "SolverFailed": "momentbound.errors",
    "UnknownMethod": "momentbound.errors",
    "CellModel": "momentbound.model",
    "fig1_model": "momentbound.model",
    "independent_1d_model": "momentbound.model",
    "equal_cells_model": "momentbound.model",
    "second_nb_model": "momentbound.model",
    "load_data": "momentbound.data",
    "fit_cells": "momentbound.data",
    "posterior_draws": "momentbound.data",
    "advise": "momentbound.data",
    "learning_curve": "momentbound.data",
    "Statistic": "momentbound.model.statistics",
    "naive_bayes_statistic": "momentbound.model.statistics",
    "MomentSequence": "momentbound.moments",
    "raw_moments": "momentbound.moments",
    "joint_moments": "momentbound.moments",
    "compile_moments": "momentbound.moments",
    "symbolic_moment": "momentbound.moments",
    "bird_exponent": "momentbound.moments",
    "bird_moments": "momentbound.moments",
    "NaiveBayes": "momentbound.exact",
    "z_distribution": "momentbound.exact",
    "prob_z_positive": "momentbound.exact",
    "PredictionBackend": "momentbound.probability",
    "ProbabilityInterval": "momentbound.probability",
    "bound": "momentbound.bounds",
    "available_methods": "momentbound.bounds",
    "MomentProblem": "momentbound.bounds",
    "Support": "momentbound.bounds",
    "Event": "momentbound.bounds",
    "BoundResult": "momentbound.bounds",
    "BoundMethod": "momentbound.bounds",
    "Certificate": "momentbound.bounds",
    "Status": "momentbound.core",
    "Kind": "momentbound.core",
    "METHODS": "momentbound.bounds",
    "check_feasible": "momentbound.bounds",
    "verify_polynomial_dominates": "momentbound.bounds",
    "compare_methods": "momentbound.studies.method_comparison",
    "frechet_bounds": "momentbound.bounds.joint",
    "bird_bound": "momentbound.bounds.joint",
    "joint_sdp": "momentbound.bounds.joint",
    "naive_bayes_joint_bounds": "momentbound.probability.naive_bayes_joint",
    "series_approximation": "momentbound.bounds.series",
    "SeriesWarning": "momentbound.bounds.series",
    "naive_bayes_sampler": "momentbound.model.z_sampler",
    "estimate_probability": "momentbound.bounds.sampling",
    "get_backend": "momentbound.probability",
    "estimator_moments": "momentbound.estimators",
    "LinearMetric": "momentbound.estimators",
    "confusion_moments": "momentbound.estimators",
    "monte_carlo_moments": "momentbound.estimators",
    "MonteCarloMoments": "momentbound.estimators",
    "EstimatorMoments": "momentbound.estimators",
    "GE": "momentbound.estimators",
    "HoldOut": "momentbound.estimators",
    "KFold": "momentbound.estimators",
    "LeaveOneOut": "momentbound.estimators",
    "sweep": "momentbound.estimators",
    "bias_variance": "momentbound.estimators",
    "BiasVariance": "momentbound.estimators",
    "run_study": "momentbound.studies",
    "study_names": "momentbound.studies",
    "StudyResult": "momentbound.studies",
    "ClaimCheck": "momentbound.studies",
    "Verdict": "momentbound.studies",
    "run_sweep": "momentbound.studies",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'momentbound' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
