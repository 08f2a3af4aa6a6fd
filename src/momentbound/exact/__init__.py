"""Exact laws of naive Bayes statistics and exact prediction probabilities.

Sits below ``momentbound.bounds`` (imports only ``model`` and ``moments``).

* :class:`NaiveBayes`: the classifier, evaluated exactly from training counts.
* :func:`z_distribution`, :func:`prob_z_positive`: the law of the two-class statistic ``Z_x``.
* :mod:`momentbound.exact.predictions` (any ``d``, ``K``, ``alpha``, tie rule; exact rationals or
  floats), :mod:`~momentbound.exact.two_class_predictions` (two classes, vectorised) and
  :mod:`~momentbound.exact.cross1d` (one attribute, ``alpha = 0``): prediction probabilities
  used by the ``exact`` backend of :mod:`momentbound.probability`.
* :mod:`~momentbound.exact.reduced_states`: the cross-validation cross term of every pair of test
  points at once, on the reduced states of naive Bayes (any ``d`` and ``K``, float64).
* :mod:`~momentbound.exact.tables` and :mod:`~momentbound.exact.resub_states`: resubstitution and the
  ideal bootstrap family, by sums over the count tables and, past their limit, over naive Bayes'
  sufficient statistics (float64); :mod:`~momentbound.exact.row_halves`: the ideal .632+ on one
  attribute by pairs of half tables.
"""

from momentbound.classifiers.naive_bayes import TIE_RULES, NaiveBayes
from momentbound.exact.zlaw import ZDistribution, ZSignProbabilities, prob_z_positive, z_distribution

__all__ = [
    "NaiveBayes",
    "TIE_RULES",
    "ZDistribution",
    "ZSignProbabilities",
    "prob_z_positive",
    "z_distribution",
]
