"""StratifiedShuffleSplit with a test part smaller than the number of classes of the model.

scikit-learn's ``StratifiedShuffleSplit`` refuses a dataset when its test (or training) part has
fewer points than the classes PRESENT in ``y``. With three classes and a two-point test part it
therefore splits only the datasets where at most two classes are present (each with two members or
more). The exact route reports the moments conditional on such a dataset (``split_probability``);
here every ordered dataset of a three-class model at ``N = 5`` and ``N = 6`` is given to
scikit-learn's own splitter (refusals asked of it), every test subset of the compositions its
``_approximate_mode`` allows is enumerated, and a real ``CategoricalNB(alpha=1)`` scores it: the exact
route must equal this in Fractions, and the Monte Carlo backend (which redraws the refused datasets)
must agree with it within 3 standard errors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit
from sklearn.naive_bayes import CategoricalNB

from oracles.stratified import approximate_mode_law

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import estimator_moments
from momentbound.estimators.montecarlo import monte_carlo_moments
from momentbound.splitters.repeated import StratifiedShuffleSplit

#: one attribute with two values, three classes, every cell possible
THREE = CellModel((2,), ["1/6", "1/6", "1/6", "1/12", "1/4", "1/6"], 3)
NB = NaiveBayes("sklearn", 1)


def _refused(y: tuple[int, ...], test_size: object) -> bool:
    try:
        next(SkStratifiedShuffleSplit(1, test_size=test_size, random_state=0).split(np.zeros(len(y)), np.array(y)))
    except ValueError:
        return True
    return False


def _bruteforce(model: CellModel, N: int, test_size: object, refused=_refused) -> dict[str, Fraction]:
    """Mean, second moment and between-split term of one split's error over every ordered dataset
    scikit-learn splits (``refused(y, test_size)`` asks it), with scikit-learn's CategoricalNB
    (conditional on a split), and the mass."""
    K, C = model.n_classes, len(model.cells)
    p = [Fraction(c) for c in model.cells]
    X, Y = (np.arange(C) // K)[:, None], np.arange(C) % K
    preds: dict[tuple[int, ...], np.ndarray] = {}

    def predict(train: list[int]) -> np.ndarray:
        key = tuple(np.bincount(train, minlength=C))
        if key not in preds:
            clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities))
            preds[key] = clf.fit(X[train], Y[train]).predict(X)
        return preds[key]

    acc = dict.fromkeys(("mass", "mean", "second", "between"), Fraction(0))
    refused_y = {}
    for seq in itertools.product(range(C), repeat=N):
        y = tuple(int(c) % K for c in seq)
        if y not in refused_y:
            refused_y[y] = refused(y, test_size)
        if refused_y[y]:
            continue
        present = sorted(set(y))
        counts = [y.count(k) for k in present]
        positions = {k: [i for i, c in enumerate(y) if c == k] for k in present}
        m = m2 = Fraction(0)
        for train_counts, pr in approximate_mode_law(counts, N - _n_test(N, test_size)).items():
            per_class = [list(itertools.combinations(positions[k], counts[j] - train_counts[j]))
                         for j, k in enumerate(present)]
            n_sub = math.prod(len(x) for x in per_class)
            for choice in itertools.product(*per_class):
                test = sorted(i for part in choice for i in part)
                train = [seq[i] for i in range(N) if i not in test]
                pred = predict(train)
                err = Fraction(sum(int(pred[seq[i]] != Y[seq[i]]) for i in test), len(test))
                m += pr / n_sub * err
                m2 += pr / n_sub * err * err
        w = math.prod((p[c] for c in seq), start=Fraction(1))
        acc["mass"] += w
        acc["mean"] += w * m
        acc["second"] += w * m2
        acc["between"] += w * m * m
    mass = acc.pop("mass")
    return {**{k: v / mass for k, v in acc.items()}, "mass": mass}


def _n_test(N: int, test_size: object) -> int:
    return math.ceil(test_size * N) if isinstance(test_size, float) else int(test_size)


def _at_most_two_classes(model: CellModel, N: int) -> Fraction:
    """P(a dataset of N points has at most two classes present, each with two members or more)."""
    prior = [model.prior(k) for k in range(model.n_classes)]
    total = Fraction(0)
    for y in itertools.product(range(model.n_classes), repeat=N):
        counts = [y.count(k) for k in range(model.n_classes)]
        if sum(c > 0 for c in counts) <= 2 and 1 not in counts:
            total += math.prod((prior[k] for k in y), start=Fraction(1))
    return total


@pytest.mark.parametrize("N, test_size", [(5, 2), (5, 0.4), (6, 2), (4, 1)])
def test_exact_equals_sklearn_on_every_dataset(N, test_size):
    """Mean, one split's variance, the covariance of two splits and P(split) of the exact route equal
    scikit-learn's StratifiedShuffleSplit and CategoricalNB on every ordered dataset, in Fractions."""
    bf = _bruteforce(THREE, N, test_size)
    one = estimator_moments(THREE, N, StratifiedShuffleSplit(1, test_size), classifier=NB)
    limit = estimator_moments(THREE, N, StratifiedShuffleSplit(math.inf, test_size), classifier=NB)
    assert one.mean == bf["mean"] and limit.mean == bf["mean"]
    assert one.variance == bf["second"] - bf["mean"] ** 2
    assert limit.variance == bf["between"] - bf["mean"] ** 2
    assert one.split_probability == bf["mass"]
    if _n_test(N, test_size) == 2:  # three classes present: scikit-learn refuses every such dataset
        assert bf["mass"] == _at_most_two_classes(THREE, N)
        assert bf["mass"] < Fraction(1, 2)


def _single_member(y: tuple[int, ...], test_size: object) -> bool:
    """Refuses only a class with a single member (not a test part smaller than the classes present)."""
    return 1 in [y.count(k) for k in set(y)]


def test_exact_mean_is_not_the_unconditioned_one():
    """The conditioning matters: at N = 6 the error of one split with _approximate_mode's training part on
    every dataset without a single-member class (three classes present in a two-point test part allowed,
    which scikit-learn refuses) is 0.604, the conditional one 0.473."""
    exact = estimator_moments(THREE, 6, StratifiedShuffleSplit(1, 2), classifier=NB).mean
    loose = _bruteforce(THREE, 6, 2, refused=_single_member)
    assert loose["mass"] > _at_most_two_classes(THREE, 6)  # the datasets with counts (2, 2, 2) added
    assert float(loose["mean"] - exact) > 0.1


def _sklearn_simulation(model: CellModel, N: int, splits: int, test_size: int, R: int, seed: int) -> np.ndarray:
    """R values of 1 - mean(cross_val_score) of CategoricalNB(alpha=1) with scikit-learn's own
    StratifiedShuffleSplit(splits, test_size) on datasets of N i.i.d. points, the ones it refuses redrawn."""
    K, C = model.n_classes, len(model.cells)
    p = np.array([float(c) for c in model.cells])
    X, Y = (np.arange(C) // K)[:, None], np.arange(C) % K
    rng = np.random.default_rng(seed)
    preds: dict[tuple[int, ...], np.ndarray] = {}
    out = np.empty(R)
    for r in range(R):
        while True:
            cells = rng.choice(C, size=N, p=p)
            sss = SkStratifiedShuffleSplit(splits, test_size=test_size, random_state=int(rng.integers(2**31)))
            try:
                parts = list(sss.split(np.zeros(N), Y[cells]))
                break
            except ValueError:
                continue
        errs = []
        for train, test in parts:
            key = tuple(np.bincount(cells[train], minlength=C))
            if key not in preds:
                clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities))
                preds[key] = clf.fit(X[cells[train]], Y[cells[train]]).predict(X)
            errs.append(np.mean(preds[key][cells[test]] != Y[cells[test]]))
        out[r] = np.mean(errs)
    return out


def test_sklearn_simulation_agrees_with_exact():
    """scikit-learn's own StratifiedShuffleSplit(10, test_size=2) at N = 6 on datasets it accepts: mean and
    variance of the estimate within 3 standard errors of the exact conditional ones."""
    R = 3000
    x = _sklearn_simulation(THREE, 6, 10, 2, R, seed=11)
    r = estimator_moments(THREE, 6, StratifiedShuffleSplit(10, 2), classifier=NB)
    m, v = x.mean(), x.var(ddof=1)
    se_v = math.sqrt((np.mean((x - m) ** 4) - v * v) / R)
    assert abs(float(r.mean) - m) / math.sqrt(v / R) < 3
    assert abs(float(r.variance) - v) / se_v < 3
