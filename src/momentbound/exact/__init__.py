"""Exact laws of naive Bayes statistics and exact prediction probabilities.

Sits below ``momentbound.bounds`` (imports only ``model`` and ``moments``).
"""

from momentbound.exact.classifier import TIE_RULES, NaiveBayes

__all__ = ["NaiveBayes", "TIE_RULES"]
