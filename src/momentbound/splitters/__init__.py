"""Splitters described by the class structure of their training and test sets.

* :class:`StratifiedKFold`: scikit-learn's ``StratifiedKFold(n_splits)``; given the class
  counts of a dataset, :meth:`StratifiedKFold.allocations` gives the law of the class
  composition of every test fold (see ``docs/mathematics.md``, "Stratified cross-validation").
* :func:`stratified_fold_allocation`: scikit-learn's per-fold class allocation for class counts
  listed in order of first appearance.

A class-structured splitter answers three questions about a dataset with class counts ``n``
(model class order): ``possible(n)`` (False where scikit-learn raises), ``warns(n)`` and
``allocations(n)``, the law of the class compositions of its test sets (a tuple of
:class:`Allocation`, probabilities summing to 1). The exact engine
(:mod:`momentbound.exact.stratified`) needs nothing else: the training set of a test set with
composition ``a`` has composition ``n - a``.
"""

from momentbound.splitters.stratified import (
    Allocation,
    StratifiedKFold,
    first_appearance_orders,
    stratified_fold_allocation,
)

__all__ = ["Allocation", "StratifiedKFold", "first_appearance_orders", "stratified_fold_allocation"]
