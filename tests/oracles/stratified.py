"""Brute-force moments of stratified cross-validation over every ordered dataset (test oracle).

Every ordered dataset of ``N`` points (each point a cell ``(x, y)``) is enumerated with its
probability ``prod_t p[x_t, y_t]``. scikit-learn's own ``StratifiedKFold(v)`` (``shuffle=False``)
splits it from its labels; datasets where scikit-learn raises are counted as impossible and
left out (the moments are conditional on the split being possible), datasets where it warns
are counted. Every fold's classifier is computed directly from its list of training points
(``naive_bayes``), and each test point is misclassified with probability
``e_t = 1 - g_{x_t}(y_t | T)``; the tie coins of different predictions are independent, so
given the dataset the fold error count has mean ``sum e_t`` and variance ``sum e_t (1 - e_t)``,
and different folds' counts are conditionally independent. Sums are exact (integers over known
denominators, then ``Fraction``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold

from oracles.naive_bayes import cells_of, predict_distribution


@dataclass(frozen=True)
class StratifiedResult:
    mean: Fraction
    variance: Fraction
    fold_means: tuple[Fraction, ...]
    fold_variance: Fraction
    fold_covariance: Fraction
    prob_possible: Fraction
    prob_warning: Fraction


def sklearn_test_folds(y: Sequence[int], v: int) -> tuple[list[np.ndarray] | None, bool]:
    """scikit-learn's test index arrays for labels ``y`` (``None`` where it raises) and whether it warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            folds = [test for _, test in SkStratifiedKFold(n_splits=v).split(np.zeros(len(y)), np.asarray(y))]
        except ValueError:
            return None, False
    warned = any(issubclass(w.category, UserWarning) and "least populated" in str(w.message) for w in caught)
    return folds, warned


def stratified_cv_bruteforce(
    arities: Sequence[int],
    n_classes: int,
    cells: Sequence,
    N: int,
    v: int,
    ties: str,
    alpha=0,
    average: str = "pooled",
) -> StratifiedResult:
    """Exact moments of the StratifiedKFold(v) CV error of naive Bayes by enumeration."""
    arities = tuple(arities)
    K = n_classes
    cell_list = cells_of(arities, K)
    p = [Fraction(c) for c in cells]
    assert sum(p) == 1 and len(p) == len(cell_list)
    q = math.lcm(*(pc.denominator for pc in p))
    num = {cell: int(pc * q) for cell, pc in zip(cell_list, p)}
    lcm_k = math.lcm(*range(1, K + 1))
    support = {y: [cell for cell in cell_list if cell[1] == y and num[cell]] for y in range(K)}
    cell_index = {cell: i for i, cell in enumerate(cell_list)}
    alpha = Fraction(alpha)
    cache: dict[tuple[tuple[int, ...], tuple], int] = {}

    def err_scaled(train: tuple[int, ...], cell) -> int:
        """``L * P[cell's point is misclassified]`` by the classifier of the training table."""
        key = (train, cell)
        if key not in cache:
            points = [c for c, cnt in zip(cell_list, train) for _ in range(cnt)]
            g = predict_distribution(points, arities, K, cell[0], ties, alpha)
            e = (1 - g[cell[1]]) * lcm_k
            assert e.denominator == 1
            cache[key] = int(e)
        return cache[key]

    denom_total = Fraction(1, q**N)
    s1 = [Fraction(0)] * v
    s2 = [Fraction(0)] * v
    sp = [[Fraction(0)] * v for _ in range(v)]
    ce1 = ce2 = Fraction(0)
    p_ok = p_warn = Fraction(0)
    for y in itertools.product(range(K), repeat=N):
        if any(not support[c] for c in y):
            continue
        folds, warned = sklearn_test_folds(y, v)
        if folds is None:
            continue
        sizes = [len(f) for f in folds]
        a1 = [0] * v  # sum_w w * L * mu_i
        a2 = [0] * v  # sum_w w * L^2 * (mu_i^2 + var_i)
        ap = [[0] * v for _ in range(v)]
        wsum = 0
        for xs in itertools.product(*(support[c] for c in y)):
            w = math.prod(num[cell] for cell in xs)
            wsum += w
            idx = [cell_index[cell] for cell in xs]
            table = [0] * len(cell_list)
            for c in idx:
                table[c] += 1
            mus = []
            for i, test in enumerate(folds):
                train = table[:]
                for t in test:
                    train[idx[t]] -= 1
                tkey = tuple(train)
                es = [err_scaled(tkey, xs[t]) for t in test]
                mu = sum(es)
                var = sum(e * (lcm_k - e) for e in es)
                mus.append(mu)
                a1[i] += w * mu
                a2[i] += w * (mu * mu + var)
            for i in range(v):
                for j in range(v):
                    if i != j:
                        ap[i][j] += w * mus[i] * mus[j]
        py = wsum * denom_total
        p_ok += py
        if warned:
            p_warn += py
        wts = [Fraction(s, N) if average == "pooled" else Fraction(1, v) for s in sizes]
        for i in range(v):
            he1 = Fraction(a1[i], lcm_k * sizes[i]) * denom_total
            he2 = Fraction(a2[i], lcm_k**2 * sizes[i] ** 2) * denom_total
            s1[i] += he1
            s2[i] += he2
            ce1 += wts[i] * he1
            ce2 += wts[i] ** 2 * he2
            for j in range(v):
                if i != j:
                    hh = Fraction(ap[i][j], lcm_k**2 * sizes[i] * sizes[j]) * denom_total
                    sp[i][j] += hh
                    ce2 += wts[i] * wts[j] * hh
    mean = ce1 / p_ok
    variance = ce2 / p_ok - mean**2
    fm = [s / p_ok for s in s1]
    fold_var = sum((s2[i] / p_ok - fm[i] ** 2 for i in range(v)), Fraction(0)) / v
    fold_cov = sum(
        (sp[i][j] / p_ok - fm[i] * fm[j] for i in range(v) for j in range(v) if i != j), Fraction(0)
    ) / (v * (v - 1))
    return StratifiedResult(mean, variance, tuple(fm), fold_var, fold_cov, p_ok, p_warn)


def shuffled_partitions(y: Sequence[int], v: int) -> list[np.ndarray] | None:
    """Every test-fold labelling ``StratifiedKFold(v, shuffle=True)`` can draw for labels ``y``.

    scikit-learn deals ``arange(v).repeat(allocation[:, k])`` to the points of class ``k`` after
    ``rng.shuffle``: every distinct arrangement of that multiset is equally likely. The
    unshuffled labelling comes from scikit-learn itself (``shuffle=False``).
    """
    folds, _ = sklearn_test_folds(y, v)
    if folds is None:
        return None
    base = np.empty(len(y), dtype=int)
    for i, test in enumerate(folds):
        base[test] = i
    y_arr = np.asarray(y)
    per_class = []
    for k in sorted(set(y)):
        pos = np.flatnonzero(y_arr == k)
        per_class.append((pos, sorted(set(itertools.permutations(base[pos].tolist())))))
    out = []
    for choice in itertools.product(*(arrs for _, arrs in per_class)):
        lab = np.empty(len(y), dtype=int)
        for (pos, _), arr in zip(per_class, choice):
            lab[pos] = arr
        out.append(lab)
    return out


def repeated_covariance_bruteforce(
    arities: Sequence[int], n_classes: int, cells: Sequence, N: int, v: int, ties: str, alpha=0,
    average: str = "pooled",
) -> tuple[Fraction, Fraction]:
    """``(E[CE], C)`` with ``C = Cov(CE^(1), CE^(2)) = E[m(D)^2] - E[CE]^2`` for two independent
    shuffled stratified partitions of the same data, ``m(D) = E[CE | D]`` averaged over every
    partition scikit-learn can draw (and the tie coins); conditional on the split being possible."""
    arities = tuple(arities)
    K = n_classes
    cell_list = cells_of(arities, K)
    p = {cell: Fraction(c) for cell, c in zip(cell_list, cells)}
    support = {y: [cell for cell in cell_list if cell[1] == y and p[cell]] for y in range(K)}
    alpha = Fraction(alpha)
    cache: dict[tuple, Fraction] = {}

    def err(train: tuple, cell) -> Fraction:
        key = (train, cell)
        if key not in cache:
            g = predict_distribution(list(train), arities, K, cell[0], ties, alpha)
            cache[key] = 1 - g[cell[1]]
        return cache[key]

    p_ok = first = second = Fraction(0)
    for y in itertools.product(range(K), repeat=N):
        if any(not support[c] for c in y):
            continue
        parts = shuffled_partitions(y, v)
        if parts is None:
            continue
        for xs in itertools.product(*(support[c] for c in y)):
            w = math.prod(p[cell] for cell in xs)
            m = Fraction(0)
            for lab in parts:
                for i in range(v):
                    test = np.flatnonzero(lab == i)
                    train = tuple(sorted(xs[t] for t in range(N) if lab[t] != i))
                    e = sum((err(train, xs[t]) for t in test), Fraction(0))
                    m += e / N if average == "pooled" else e / (v * len(test))
            m /= len(parts)
            p_ok += w
            first += w * m
            second += w * m * m
    mean = first / p_ok
    return mean, second / p_ok - mean * mean


def shuffle_split_bruteforce(
    arities: Sequence[int], n_classes: int, cells: Sequence, N: int, test_size: int, ties: str, alpha=0
) -> tuple[Fraction, Fraction, Fraction]:
    """``(E[HE], Var(HE), C)`` of one ``ShuffleSplit`` hold-out and the covariance of two
    independent ones on the same data, over every ordered dataset and every test subset
    (scikit-learn's ShuffleSplit takes the first ``test_size`` points of a uniform permutation)."""
    arities = tuple(arities)
    K = n_classes
    cell_list = cells_of(arities, K)
    p = {cell: Fraction(c) for cell, c in zip(cell_list, cells)}
    support = [cell for cell in cell_list if p[cell]]
    alpha = Fraction(alpha)
    subsets = list(itertools.combinations(range(N), test_size))
    cache: dict[tuple, Fraction] = {}

    def err(train: tuple, cell) -> Fraction:
        key = (train, cell)
        if key not in cache:
            cache[key] = 1 - predict_distribution(list(train), arities, K, cell[0], ties, alpha)[cell[1]]
        return cache[key]

    first = second = square = Fraction(0)
    for xs in itertools.product(support, repeat=N):
        w = math.prod(p[cell] for cell in xs)
        m = m2 = Fraction(0)
        for test in subsets:
            train = tuple(sorted(xs[t] for t in range(N) if t not in test))
            es = [err(train, xs[t]) for t in test]
            mu = sum(es, Fraction(0))
            m += mu / test_size
            m2 += (mu * mu + sum((e * (1 - e) for e in es), Fraction(0))) / test_size**2
        m /= len(subsets)
        m2 /= len(subsets)
        first += w * m
        second += w * m2
        square += w * m * m
    return first, second - first**2, square - first**2


@dataclass(frozen=True)
class AccuracyTerms:
    """Moments of a CV estimate ``CE`` and of ``GE_N`` over every ordered dataset scikit-learn splits."""

    mean: Fraction  # E[CE]
    second: Fraction  # E[CE^2]
    joint: Fraction  # E[CE GE_N]
    ge_mean: Fraction  # E[GE_N]
    ge_second: Fraction  # E[GE_N^2]
    prob_possible: Fraction


def stratified_accuracy_bruteforce(bf, N: int, v: int, *, shuffled: bool = False) -> AccuracyTerms:
    """``E[CE]``, ``E[CE^2]``, ``E[CE GE_N]``, ``E[GE_N]``, ``E[GE_N^2]`` of ``StratifiedKFold(v)`` by enumeration.

    ``bf`` is a :class:`oracles.estimators.BruteForce` (its classifier computed from lists of training
    points). Every ordered dataset of ``N`` cells is enumerated with its probability; scikit-learn's
    ``StratifiedKFold(v)`` splits it from its labels (``shuffle=False``; datasets where it raises are
    left out, so everything is conditional on a split). ``GE_N`` is ``GE`` of the full count table.
    With ``shuffled``, ``CE`` is replaced by its average over every partition
    ``StratifiedKFold(v, shuffle=True)`` can draw (:func:`shuffled_partitions`): the estimate of
    ``RepeatedStratifiedKFold`` with infinitely many repetitions, whose joint term with ``GE_N``
    equals that of one partition (only ``mean`` and ``joint`` are then meaningful).
    """
    cells = bf.cell_list
    K = bf.n_classes
    support = {y: [c for c, (_, yc) in enumerate(cells) if yc == y and bf.p[c]] for y in range(K)}
    L = bf.lcm_k
    mass = m1 = m2 = joint = g1 = g2 = Fraction(0)
    for y in itertools.product(range(K), repeat=N):
        if any(not support[c] for c in y):
            continue
        if shuffled:
            labellings = shuffled_partitions(y, v)
            if labellings is None:
                continue
            partitions = [[np.flatnonzero(lab == i) for i in range(v)] for lab in labellings]
        else:
            folds, _ = sklearn_test_folds(y, v)
            if folds is None:
                continue
            partitions = [folds]
        for seq in itertools.product(*(support[c] for c in y)):
            pr = math.prod((bf.p[c] for c in seq), start=Fraction(1))
            full = [0] * len(cells)
            for c in seq:
                full[c] += 1
            ce = coin = 0  # in units of 1 / L and 1 / L^2, L = lcm(1..K): integer sums
            for folds in partitions:
                for test in folds:
                    train = list(full)
                    for i in test:
                        train[seq[i]] -= 1
                    e = bf.int_errors(tuple(train))
                    for i in test:
                        ce += e[seq[i]]
                        coin += e[seq[i]] * (L - e[seq[i]])
            ce = Fraction(ce, L * N * len(partitions))
            coin = Fraction(coin, L * L)
            ge = bf.ge(tuple(full))
            mass += pr
            m1 += pr * ce
            m2 += pr * (ce * ce + coin / N**2)
            joint += pr * ce * ge
            g1 += pr * ge
            g2 += pr * ge * ge
    return AccuracyTerms(m1 / mass, m2 / mass, joint / mass, g1 / mass, g2 / mass, mass)


def approximate_mode_law(counts: Sequence[int], n_draws: int) -> dict[tuple[int, ...], Fraction]:
    """Law of scikit-learn's ``_approximate_mode(counts, n_draws, rng)``: floors of ``n_k / N * n_draws``,
    one more for the largest remainders, the classes of a tied remainder drawn uniformly without
    replacement (remainders compared as scikit-learn compares them, as float64 numbers)."""
    total = sum(counts)
    cont = [float(np.float64(c) / np.float64(total) * np.float64(n_draws)) for c in counts]
    floor = [math.floor(c) for c in cont]
    need = n_draws - sum(floor)
    law: dict[tuple[int, ...], Fraction] = {}

    def rec(values, need, taken, prob):
        if need == 0 or not values:
            out = tuple(f + (k in taken) for k, f in enumerate(floor))
            law[out] = law.get(out, Fraction(0)) + prob
            return
        value, rest = values[0], values[1:]
        group = [k for k in range(len(counts)) if cont[k] - floor[k] == value]
        if len(group) <= need:
            rec(rest, need - len(group), taken | set(group), prob)
            return
        subsets = list(itertools.combinations(group, need))
        for sub in subsets:
            rec(rest, 0, taken | set(sub), prob / len(subsets))

    rec(sorted({c - f for c, f in zip(cont, floor)}, reverse=True), need, set(), Fraction(1))
    return law


def stratified_shuffle_split_bruteforce(bf, N: int, test_size: int) -> dict[str, Fraction]:
    """One split of scikit-learn's ``StratifiedShuffleSplit(test_size=...)`` over every ordered dataset.

    Whether scikit-learn refuses a dataset is asked of scikit-learn itself; the training composition
    follows :func:`approximate_mode_law` over the classes present, and every test subset with the
    resulting composition (uniform within each class) is enumerated. Returns ``mean`` (``E[HE]``),
    ``second`` (``E[HE^2]``), ``between`` (``E[m(D)^2]``, ``m(D) = E[HE | D]``: the product of two
    independent splits of the same data), ``joint`` (``E[HE GE_N]``), ``ge_mean``, ``ge_second`` and
    ``prob_possible``, all conditional on a split.
    """
    from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit

    cells = bf.cell_list
    K = bf.n_classes
    support = {y: [c for c, (_, yc) in enumerate(cells) if yc == y and bf.p[c]] for y in range(K)}
    acc = dict.fromkeys(("mass", "mean", "second", "between", "joint", "ge_mean", "ge_second"), Fraction(0))
    for y in itertools.product(range(K), repeat=N):
        if any(not support[c] for c in y):
            continue
        try:
            next(SkStratifiedShuffleSplit(1, test_size=test_size, random_state=0).split(np.zeros(N), np.array(y)))
        except ValueError:
            continue
        present = sorted(set(y))
        counts = [sum(1 for c in y if c == k) for k in present]
        positions = {k: [i for i, c in enumerate(y) if c == k] for k in present}
        tests = []  # (test index set, probability)
        for train, pr in approximate_mode_law(counts, N - test_size).items():
            per_class = [list(itertools.combinations(positions[k], counts[j] - train[j]))
                         for j, k in enumerate(present)]
            n_sub = math.prod(len(x) for x in per_class)
            for choice in itertools.product(*per_class):
                tests.append((sorted(i for part in choice for i in part), pr / n_sub))
        for seq in itertools.product(*(support[c] for c in y)):
            w = math.prod((bf.p[c] for c in seq), start=Fraction(1))
            full = [0] * len(cells)
            for c in seq:
                full[c] += 1
            m = m2 = Fraction(0)
            for test, pr in tests:
                train = list(full)
                for i in test:
                    train[seq[i]] -= 1
                e = bf.int_errors(tuple(train))  # L e_c, L = lcm(1..K)
                mu = Fraction(sum(e[seq[i]] for i in test), bf.lcm_k)
                coin = Fraction(sum(e[seq[i]] * (bf.lcm_k - e[seq[i]]) for i in test), bf.lcm_k**2)
                m += pr * mu / test_size
                m2 += pr * (mu * mu + coin) / test_size**2
            ge = bf.ge(tuple(full))
            acc["mass"] += w
            acc["mean"] += w * m
            acc["second"] += w * m2
            acc["between"] += w * m * m
            acc["joint"] += w * m * ge
            acc["ge_mean"] += w * ge
            acc["ge_second"] += w * ge * ge
    mass = acc.pop("mass")
    out = {k: v / mass for k, v in acc.items()}
    out["prob_possible"] = mass
    return out
