"""Prediction probabilities ``P[zeta(x) = y]`` and their pair / cross-validation terms.

Backends: ``exact`` (sums over sufficient counts), ``sampling`` (conditional Monte Carlo),
``bound:<method>`` (guaranteed intervals from cdf bounds), ``series`` (approximation).
"""

from momentbound.probability.base import PredictionBackend, ProbabilityInterval
from momentbound.probability.registry import BACKENDS, backend_names, get_backend

__all__ = [
    "PredictionBackend",
    "ProbabilityInterval",
    "BACKENDS",
    "backend_names",
    "get_backend",
]
