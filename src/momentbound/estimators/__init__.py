"""Moments of GE, hold-out, v-fold CV and leave-one-out (SPEC sections 2-3)."""

from momentbound.estimators.estimators import GE, Estimator, HoldOut, KFold, LeaveOneOut, Split
from momentbound.estimators.accuracy import Approximation, EstimatorAccuracy, estimator_accuracy
from momentbound.estimators.bootstrap import (
    Bootstrap,
    OutOfBag,
    Point632,
    Point632Plus,
    Resubstitution,
    bootstrap_extra_variance,
)
from momentbound.estimators.intervals import Interval
from momentbound.estimators.moments import (
    COVARIANCE_RULES,
    EstimatorMoments,
    MomentEngine,
    estimator_moments,
    make_engine,
)
from momentbound.estimators.montecarlo import MonteCarloMoments, monte_carlo_moments
from momentbound.estimators.symmetry import input_symmetries
from momentbound.estimators.sweep import SWEEP_AXES, SweepResult, sweep, sweep_estimators

__all__ = [
    "GE",
    "HoldOut",
    "KFold",
    "LeaveOneOut",
    "Estimator",
    "Split",
    "Resubstitution",
    "Bootstrap",
    "Point632",
    "Point632Plus",
    "OutOfBag",
    "bootstrap_extra_variance",
    "Approximation",
    "EstimatorAccuracy",
    "estimator_accuracy",
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
