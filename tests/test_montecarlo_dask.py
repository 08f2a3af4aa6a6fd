"""Monte Carlo moments of a scikit-learn classifier with its fits spread over Dask.

Witness: the same run in this process (``scheduler=None``), which
``test_classifiers.py::test_decision_tree_monte_carlo_agrees_with_direct_simulation`` checks
against a direct simulation of datasets with the tree fitted per fold. The tables are drawn
from the seed in the calling process, so every scheduler and number of workers must give the
same numbers to the last bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from momentbound import CellModel, InvalidArgument
from momentbound.classifiers import NaiveBayes, SklearnClassifier
from momentbound.estimators import HoldOut, KFold, estimator_moments, monte_carlo_moments

TWO_D = CellModel((2, 2), ["1/10", "3/20", "3/20", "1/10", "1/20", "1/5", "3/20", "1/10"])
FIELDS = ("mean", "variance", "fold_variance", "fold_covariance", "ge_mean", "ge_variance")


def _tree() -> SklearnClassifier:
    from sklearn.tree import DecisionTreeClassifier

    return SklearnClassifier(DecisionTreeClassifier(max_depth=1, random_state=0))


def _numbers(r) -> tuple:
    return tuple((getattr(r, f).lower, getattr(r, f).estimate, getattr(r, f).upper)
                 for f in FIELDS if getattr(r, f) is not None)


def _run(estimator, **kw):
    return monte_carlo_moments(TWO_D, 10, estimator, classifier=_tree(), draws=200,
                               rng=np.random.default_rng(11), **kw)


@pytest.fixture(scope="module")
def here() -> tuple:
    """The 2-fold run in this process, the reference of every scheduler."""
    return _numbers(_run(KFold(2)))


def test_same_seed_same_numbers_for_any_scheduler_and_workers(here):
    assert _numbers(_run(KFold(2), scheduler="threads", workers=1)) == here
    assert _numbers(_run(KFold(2), scheduler="processes", workers=2)) == here
    # another seed changes them: the comparison above is not vacuous
    other = monte_carlo_moments(TWO_D, 10, KFold(2), classifier=_tree(), draws=200, rng=np.random.default_rng(12))
    assert _numbers(other) != here


def test_holdout_and_estimator_moments_route():
    here = _numbers(_run(HoldOut(3)))
    r = estimator_moments(TWO_D, 10, HoldOut(3), classifier=_tree(), backend="montecarlo", draws=200, rng=11,
                          scheduler="threads", workers=2)
    assert _numbers(r) == here


def test_scheduler_validation():
    with pytest.raises(InvalidArgument, match="scheduler must be one of"):
        _run(KFold(2), scheduler="fast")
    with pytest.raises(InvalidArgument, match="scheduler must be one of"):
        _run(KFold(2), scheduler=3)
    with pytest.raises(InvalidArgument, match="workers must be an integer >= 1"):
        _run(KFold(2), scheduler="threads", workers=0)
    with pytest.raises(InvalidArgument, match="applies to scikit-learn classifiers"):
        monte_carlo_moments(TWO_D, 10, KFold(2), classifier=NaiveBayes(), draws=200,
                            rng=np.random.default_rng(0), scheduler="threads")
    with pytest.raises(InvalidArgument, match="unknown option"):
        estimator_moments(TWO_D, 10, KFold(2), classifier=_tree(), backend="montecarlo", rng=1, nope=2)


@pytest.mark.slow
def test_local_cluster_two_workers(here):
    # one local cluster: one against two workers is the comparison above (threads, processes)
    assert _numbers(_run(KFold(2), scheduler="local", workers=2)) == here


def test_montecarlo_sweep_seeds_each_row_by_its_index():
    from momentbound.estimators import sweep

    plain = sweep(TWO_D, "folds", [2, 3], N=9, classifier=_tree(), backend="montecarlo", seed=3, draws=200)
    spread = sweep(TWO_D, "folds", [2, 3], N=9, classifier=_tree(), backend="montecarlo", seed=3, draws=200,
                   scheduler="threads", workers=2)
    assert [_numbers(r) for r in spread.rows] == [_numbers(r) for r in plain.rows]
    children = np.random.SeedSequence(3).spawn(2)
    second = monte_carlo_moments(TWO_D, 9, KFold(3), classifier=_tree(), draws=200,
                                 rng=np.random.default_rng(children[1]))
    assert _numbers(plain.rows[1]) == _numbers(second)
    frame = plain.to_frame()
    assert list(frame["draws"]) == [200, 200] and (frame["mean_lower"] <= frame["mean"]).all()
    with pytest.raises(InvalidArgument, match="only apply to backend='montecarlo'"):
        sweep(TWO_D, "folds", [2], N=9, draws=200)
