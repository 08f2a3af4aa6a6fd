"""The registry of reproducible studies: name -> function, paper-scale and quick parameters.

``run_study("cv")`` runs the paper-scale version; ``run_study("cv", quick=True)`` a small
version for tests, the demo and the notebooks; keyword arguments override either.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from momentbound.registry import lookup
from momentbound.studies.result import StudyResult

__all__ = ["StudySpec", "STUDIES", "run_study", "study_names"]


@dataclass(frozen=True)
class StudySpec:
    """One reproducible study.

    Attributes
    ----------
    name:
        Registry name (used by ``momentbound reproduce NAME``).
    figures:
        The paper's figures or tables it reproduces.
    description:
        One line.
    target:
        ``"module:function"`` of the study function (imported on first use).
    full:
        Keyword arguments of the paper-scale run (or the largest the toolkit runs; see notes).
    quick:
        Keyword arguments of a small run (seconds).
    """

    name: str
    figures: str
    description: str
    target: str
    full: tuple[tuple[str, Any], ...]
    quick: tuple[tuple[str, Any], ...]

    def function(self) -> Callable[..., StudyResult]:
        module, func = self.target.split(":")
        return getattr(importlib.import_module(module), func)


_S = "momentbound.studies"

STUDIES: dict[str, StudySpec] = {
    s.name: s
    for s in (
        StudySpec(
            "fig1",
            "Fig. 1",
            "E[GE] of the 1-D classifier against the correlation c, priors 0.1/0.3/0.5, N = 1000",
            f"{_S}.fig1:fig1_study",
            (("N", 1000), ("c_points", 101)),
            (("N", 60), ("c_points", 21)),
        ),
        StudySpec(
            "holdout",
            "Figs. 2-4",
            "hold-out error against the test share, 1-D independent model, N = 100",
            f"{_S}.holdout:holdout_study",
            (("N", 100), ("test_sizes", tuple(range(1, 100)))),
            (("N", 20), ("test_sizes", (2, 4, 6, 8, 10, 12, 14, 16, 18))),
        ),
        StudySpec(
            "cv",
            "Figs. 5-9",
            "v-fold cross-validation against the number of folds, 1-D independent model, N = 100",
            f"{_S}.cv:cv_study",
            (("N", 100), ("folds", tuple(range(2, 21)) + (25, 30, 40, 50, 60, 70, 80, 90, 100))),
            (("N", 20), ("folds", (2, 3, 4, 5, 10, 20))),
        ),
        StudySpec(
            "size",
            "Fig. 10",
            "E[GE], E[HE] (11 test points), E[CE] (20 folds) against N up to 1000, 1-D model",
            f"{_S}.size:size_study",
            (("sizes", tuple(range(20, 201, 10)) + tuple(range(240, 1001, 40))),),
            (("sizes", (40, 80, 120, 160)),),
        ),
        StudySpec(
            "nb_holdout",
            "Figs. 14-19",
            "hold-out error of 2x2x2 naive Bayes against the test share, two models, N = 100",
            f"{_S}.nb_holdout:nb_holdout_study",
            (("N", 100), ("test_sizes", tuple(range(5, 100, 5)))),
            (("N", 12), ("test_sizes", (2, 4, 6, 8, 10))),
        ),
        StudySpec(
            "nb_cv",
            "Figs. 20-24",
            "v-fold cross-validation of 2x2x2 naive Bayes against the folds, second model, N = 100 (exact)",
            f"{_S}.nb_cv:nb_cv_study",
            (("N", 100), ("folds", (2, 3, 4, 5, 10, 20, 25, 50, 100)), ("backend", "exact"),
             ("paper_lemma", False)),
            (("N", 12), ("folds", (2, 3, 4, 6, 12)), ("backend", "montecarlo"), ("draws", 4000), ("seed", 1),
             ("check_N", 6), ("check_folds", (2, 3, 6))),
        ),
        StudySpec(
            "nb_size",
            "Fig. 25",
            "50% hold-out and 10-fold CV (both exact to N = 200, then Monte Carlo) of 2x2x2 naive Bayes, N up to 5000",
            f"{_S}.nb_cv:nb_size_study",
            (("sizes", (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)), ("cv_backend", "montecarlo"),
             ("exact_max_N", 200), ("cv_exact_max_N", 200), ("draws", 100_000), ("seed", 2026)),
            (("sizes", (10, 20, 50)), ("cv_backend", "montecarlo"), ("cv_exact_max_N", 20), ("draws", 4000),
             ("seed", 1)),
        ),
        StudySpec(
            "stratified",
            "KFold vs StratifiedKFold",
            "E[CE] and Var(CE) of KFold and StratifiedKFold against the folds, two paper models and a three-class model",
            f"{_S}.stratified:stratified_study",
            (("N", 30), ("folds", (2, 3, 5, 10)), ("three_class_N", 12), ("three_class_folds", (2, 3, 4, 6))),
            (("N", 10), ("folds", (2, 5)), ("three_class_N", 6), ("three_class_folds", (2, 3))),
        ),
        StudySpec(
            "estimators",
            "Which error estimator?",
            "bias, RMS and correlation with GE_N of resubstitution, hold-out, CV, LOO, bootstrap, .632, .632+",
            f"{_S}.estimators:estimators_study",
            (("N", 20), ("holdout_sizes", (5, 10)), ("draws", 20_000), ("seed", 2026)),
            (("N", 20), ("holdout_sizes", (5, 10)), ("draws", 2000), ("seed", 1)),
        ),
        StudySpec(
            "bias_variance",
            "Bias and variance",
            "noise, bias and variance of the 0-1 loss of naive Bayes and the histogram rule against n and alpha",
            f"{_S}.bias_variance:bias_variance_study",
            (("sizes", (5, 10, 15, 20, 30, 50, 75, 100, 150, 200)),
             ("alphas", ("0", "1/4", "1/2", "1", "2", "4", "8", "16")), ("alpha_n", 30)),
            (("sizes", (5, 15, 30)), ("alphas", ("0", "1")), ("alpha_n", 15)),
        ),
        StudySpec(
            "tables",
            "Tables 4-6",
            "every cdf method on P[Z > 0] of the equal-cells 2x2x2 model, 6 moments",
            f"{_S}.tables:tables_study",
            (("sizes", (10, 100, 1000)),),
            (("sizes", (10,)),),
        ),
    )
}


def study_names() -> tuple[str, ...]:
    """Registered study names in the paper's order."""
    return tuple(STUDIES)


def run_study(name: str, *, quick: bool = False, progress: Any = None, **overrides: Any) -> StudyResult:
    """Run a registered study.

    Parameters
    ----------
    name:
        One of :func:`study_names`.
    quick:
        Use the small parameter set instead of the paper-scale one.
    progress:
        Optional ``progress(done, total)`` callback.
    **overrides:
        Parameters replacing the registered ones.

    Examples
    --------
    >>> res = run_study("holdout", quick=True)  # doctest: +SKIP
    >>> print(res.summary())  # doctest: +SKIP
    """
    spec = lookup(STUDIES, name, "study", also=("all",))
    params = dict(spec.quick if quick else spec.full)
    params.update(overrides)
    return spec.function()(progress=progress, **params)
