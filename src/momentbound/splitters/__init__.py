"""Splitters as plug-ins: how a dataset of ``N`` points becomes training and test sets.

Each splitter follows the :class:`Splitter` protocol (``split``, ``assemble`` for the exact
backends, ``simulate`` for the Monte Carlo backend); :data:`SPLITTERS` is the registry and
:func:`as_splitter` translates scikit-learn's ``cv`` arguments (an integer means
``StratifiedKFold``, as ``cross_val_score`` does for a classifier).

==========================  ===========================================  ==========================
name                        class                                        exact for naive Bayes
==========================  ===========================================  ==========================
ge                          :class:`GE`                                  yes
holdout                     :class:`HoldOut`                             yes
cv                          :class:`KFold`                               yes
stratified-cv               :class:`StratifiedKFold`                     yes (backend ``exact``)
loo                         :class:`LeaveOneOut`                         yes
repeated-cv                 :class:`RepeatedKFold`                       yes (backend ``exact``)
repeated-stratified-cv      :class:`RepeatedStratifiedKFold`             yes (backend ``exact``)
shuffle-split               :class:`ShuffleSplit`                        yes (backend ``exact``)
stratified-shuffle-split    :class:`StratifiedShuffleSplit`              yes (backend ``exact``)
resubstitution              :class:`Resubstitution`                      yes
bootstrap                   :class:`Bootstrap` (leave-one-out, Err(1))   yes (ideal B); finite B: MC
632                         :class:`Point632`                            yes (ideal B); finite B: MC
632plus                     :class:`Point632Plus`                        yes (ideal B); finite B: MC
oob                         :class:`OutOfBag`                            Monte Carlo
==========================  ===========================================  ==========================
"""

from momentbound.exact.allocation import (
    Allocation,
    AllocationLaw,
    first_appearance_orders,
    fold_allocation,
    stratified_fold_allocation,
)
from momentbound.splitters.basic import (
    ENGINE_TERMS,
    GE,
    ProgressPlan,
    SplitterDefaults,
    folds_full_product,
    splitter_member,
    Splitter,
    ExactParts,
    HoldOut,
    KFold,
    LeaveOneOut,
    Split,
    check_model_and_estimator,
    kfold_sizes,
)
from momentbound.splitters.bootstrap import Bootstrap, OutOfBag, Point632, Point632Plus, Resubstitution
from momentbound.splitters.registry import SPLITTERS, as_splitter, make_splitter
from momentbound.splitters.repeated import RepeatedKFold, RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

__all__ = [
    "ENGINE_TERMS",
    "ProgressPlan",
    "SplitterDefaults",
    "folds_full_product",
    "splitter_member",
    "Bootstrap",
    "OutOfBag",
    "Point632",
    "Point632Plus",
    "Resubstitution",
    "Allocation",
    "AllocationLaw",
    "ExactParts",
    "GE",
    "HoldOut",
    "KFold",
    "LeaveOneOut",
    "RepeatedKFold",
    "RepeatedStratifiedKFold",
    "SPLITTERS",
    "ShuffleSplit",
    "Split",
    "Splitter",
    "StratifiedKFold",
    "StratifiedShuffleSplit",
    "as_splitter",
    "check_model_and_estimator",
    "first_appearance_orders",
    "fold_allocation",
    "kfold_sizes",
    "make_splitter",
    "stratified_fold_allocation",
]
