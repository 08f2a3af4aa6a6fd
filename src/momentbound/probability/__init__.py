"""Prediction probabilities ``P[zeta(x) = y]`` and their pair / cross-validation terms.

Backends: ``exact`` (sums over sufficient counts), ``sampling`` (conditional Monte Carlo),
``bound:<method>`` (guaranteed intervals from cdf bounds), ``series`` (approximation).
"""

from momentbound.probability.base import PredictionBackend, ProbabilityInterval

__all__ = ["PredictionBackend", "ProbabilityInterval"]
