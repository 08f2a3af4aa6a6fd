"""Moments of GE, hold-out, v-fold CV and leave-one-out (docs/mathematics.md, sections
'Generalization error' to 'Cross-validation')."""

from momentbound.estimators.estimators import GE, Estimator, ExactParts, HoldOut, KFold, LeaveOneOut, Split, Splitter
from momentbound.estimators.intervals import Interval
from momentbound.estimators.moments import (
    COVARIANCE_RULES,
    EstimatorMoments,
    MomentEngine,
    estimator_moments,
    make_engine,
)
from momentbound.estimators.montecarlo import MonteCarloMoments, monte_carlo_moments
from momentbound.estimators.registry import SPLITTERS, as_splitter, make_splitter
from momentbound.estimators.repeated import (
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedShuffleSplit,
)
from momentbound.estimators.stratified import StratifiedKFold
from momentbound.estimators.symmetry import input_symmetries
from momentbound.estimators.sweep import SWEEP_AXES, SweepResult, sweep, sweep_estimators

__all__ = [
    "SPLITTERS",
    "as_splitter",
    "make_splitter",
    "RepeatedKFold",
    "RepeatedStratifiedKFold",
    "ShuffleSplit",
    "StratifiedKFold",
    "StratifiedShuffleSplit",
    "GE",
    "HoldOut",
    "KFold",
    "LeaveOneOut",
    "Estimator",
    "Split",
    "Splitter",
    "ExactParts",
    "EstimatorMoments",
    "Interval",
    "MomentEngine",
    "COVARIANCE_RULES",
    "estimator_moments",
    "make_engine",
    "input_symmetries",
    "MonteCarloMoments",
    "monte_carlo_moments",
    "SweepResult",
    "sweep",
    "sweep_estimators",
    "SWEEP_AXES",
]
