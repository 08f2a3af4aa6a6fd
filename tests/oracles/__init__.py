"""Slow, obviously-correct reference implementations used only by the tests.

Nothing in here imports momentbound's computations: these are the independent witnesses
for the classifier, the prediction probabilities and the estimator moments.

* ``naive_bayes``: a direct scalar naive Bayes from a list of points (exact Fractions).
* ``estimators``: brute-force moments of GE, hold-out, v-fold CV and LOO by enumeration
  of count tables (one independent multinomial table per fold).
* ``simulation``: vectorised numpy simulation of the real procedures on many datasets.
"""
