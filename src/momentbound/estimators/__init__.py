"""Moments of GE, hold-out, v-fold CV and leave-one-out (docs/mathematics.md, sections
'Generalization error' to 'Cross-validation'), and the bias-variance decomposition of the 0-1 loss."""

from momentbound.intervals import Interval
from momentbound.splitters import (
    GE,
    SPLITTERS,
    Splitter,
    ExactParts,
    HoldOut,
    KFold,
    LeaveOneOut,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    Split,
    StratifiedKFold,
    StratifiedShuffleSplit,
    as_splitter,
    make_splitter,
)
from momentbound.estimators.accuracy import Approximation, EstimatorAccuracy, estimator_accuracy
from momentbound.splitters.bootstrap import (
    Bootstrap,
    OutOfBag,
    Point632,
    Point632Plus,
    Resubstitution,
)
from momentbound.estimators.from_predictions import (
    COVARIANCE_RULES,
    EstimatorMoments,
    MomentEngine,
    estimator_moments,
    make_engine,
)
from momentbound.estimators.montecarlo import MonteCarloMoments, bootstrap_extra_variance, monte_carlo_moments
from momentbound.estimators.results import ErrorMoments
from momentbound.estimators.scoring import SCORINGS, RocBand, ScoreMoments, monte_carlo_scores, roc_band
from momentbound.estimators.coverage import CoverageResult, interval_coverage  # noqa: E402
from momentbound.estimators.comparison import ComparisonResult, compare_classifiers  # noqa: E402
from momentbound.estimators.symmetry import input_symmetries
from momentbound.estimators.metrics import LinearMetric
from momentbound.estimators.confusion import ConfusionMoments, confusion_moments
from momentbound.estimators.sweep import SWEEP_AXES, SweepResult, sweep, sweep_estimators
from momentbound.estimators.bias_variance import BiasVariance, bias_variance, bias_variance_curve

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
    "Split",
    "Splitter",
    "ExactParts",
    "Resubstitution",
    "Bootstrap",
    "Point632",
    "Point632Plus",
    "OutOfBag",
    "bootstrap_extra_variance",
    "Approximation",
    "EstimatorAccuracy",
    "estimator_accuracy",
    "ErrorMoments",
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
    "CoverageResult",
    "interval_coverage",
    "ComparisonResult",
    "compare_classifiers",
    "BiasVariance",
    "bias_variance",
    "bias_variance_curve",
    "SCORINGS",
    "RocBand",
    "ScoreMoments",
    "monte_carlo_scores",
    "roc_band",
    "LinearMetric",
    "ConfusionMoments",
    "confusion_moments",
]
