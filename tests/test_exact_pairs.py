"""All-pairs two-class pair terms by 2-D dominance counting (exact.dominance, two_class_predictions.AllPairs).

Witnesses: brute force over all state pairs (the kernel), the generic engine in exact rationals
and brute force over count tables (the pair terms), the row method (large n, DFT laws,
truncation bounds).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from momentbound.exact import NaiveBayes, predictions, two_class_predictions
from momentbound.exact.dominance import joint_sign_law, prune_states
from momentbound.model import CellModel, second_nb_model
from momentbound.model.enumeration import count_tables, multinomial_pmf
from momentbound.probability.exact_backend import ExactBackend

MODELS = [
    second_nb_model(),
    CellModel((2, 2), ["1/16", "3/16", "1/8", "1/16", "1/8", "1/8", "1/4", "1/16"], 2),
    CellModel((2, 2), ["1/4", "0", "0", "1/4", "1/8", "1/8", "0", "1/4"], 2),  # empty cells
    CellModel((2,), ["1/5", "1/5", "1/10", "1/2"], 2),
]
CLASSIFIERS = [NaiveBayes(t, a) for t in ("random", "first") for a in (0, 1, "1/2")]


def brute_sign_law(u1, u2, w0, v1, v2, w1):
    s1 = np.sign(v1[None, :] - u1[:, None]) + 1
    s2 = np.sign(v2[None, :] - u2[:, None]) + 1
    w = w0[:, None] * w1[None, :]
    return np.bincount((s1 * 3 + s2).ravel(), weights=w.ravel(), minlength=9).reshape(3, 3)


@pytest.mark.parametrize("buckets", [None, 1, 2, 3, 7, 1000])
def test_joint_sign_law_equals_all_state_pairs(buckets):
    rng = np.random.default_rng(7)
    for _ in range(60):
        Q, P = (int(v) for v in rng.integers(1, 50, size=2))
        r = int(rng.integers(1, 10))  # few distinct values: many ties, buckets of equal keys
        u1, u2, v1, v2 = (rng.integers(-r, r, size=s) for s in (Q, Q, P, P))
        w0, w1 = rng.random(Q), rng.random(P)
        got = joint_sign_law(u1, u2, w0, v1, v2, w1, buckets=buckets)
        want = brute_sign_law(u1, u2, w0, v1, v2, w1)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * want.sum())


def test_joint_sign_law_large_keys_are_compared_exactly():
    # keys differing by 1 near 2**62 (floats would merge them)
    big = np.int64(2**62)
    u1 = np.array([big, big + 1, big - 1], dtype=np.int64)
    v1 = np.array([big, big + 2], dtype=np.int64)
    u2 = np.array([3, 1, 2], dtype=np.int64)
    v2 = np.array([2, 2], dtype=np.int64)
    w0, w1 = np.array([0.2, 0.3, 0.5]), np.array([0.25, 0.75])
    want = brute_sign_law(u1, u2, w0, v1, v2, w1)
    assert want[1, 0] == pytest.approx(0.2 * 0.25)  # the tie v1 = u1 at 2**62 survives
    for b in (None, 1, 2):
        np.testing.assert_allclose(joint_sign_law(u1, u2, w0, v1, v2, w1, buckets=b), want, rtol=0, atol=1e-15)


def test_joint_sign_law_empty_sides():
    e = np.zeros(0, dtype=np.int64)
    one = np.array([1], dtype=np.int64)
    assert not joint_sign_law(e, e, np.zeros(0), one, one, np.ones(1)).any()
    assert not joint_sign_law(one, one, np.ones(1), e, e, np.zeros(0)).any()


def test_prune_states_budget_and_accounting():
    w = np.array([0.4, 1e-15, 3e-15, 0.0, -2e-16, 0.6 - 4e-15])
    keep, dropped = prune_states(w, 2e-15)
    assert keep.tolist() == [0, 2, 5]  # 1e-15 fits the budget (with the |negative| 2e-16), 3e-15 does not
    assert dropped == pytest.approx(1e-15 + 2e-16, rel=1e-12)
    keep, dropped = prune_states(w, 0.0)
    assert keep.tolist() == [0, 1, 2, 5] and dropped == pytest.approx(2e-16)
    keep, dropped = prune_states(w, 2.0)
    assert keep.tolist() == [] and dropped == pytest.approx(1.0, rel=1e-12)
    keep, dropped = prune_states(np.array([[0.5, 0.5]]), 0.0)  # any shape, flat indices
    assert keep.tolist() == [0, 1] and dropped == 0.0 and not np.signbit(dropped)


def test_shares_component_space():
    assert two_class_predictions.shares_component_space(second_nb_model(), (0, 0), (1, 1))
    assert two_class_predictions.shares_component_space(MODELS[3], (0,), (1,))
    m32 = CellModel.normalized((3, 2), [1] * 12, 2)
    assert not two_class_predictions.shares_component_space(m32, (0, 0), (0, 1))
    m222 = CellModel.normalized((2, 2, 2), [1] * 16, 2)  # binary attributes: always one grid
    assert two_class_predictions.shares_component_space(m222, (0, 0, 0), (0, 0, 1))


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: f"{c.ties}-a{c.alpha}")
@pytest.mark.parametrize("model", MODELS, ids=range(len(MODELS)))
def test_all_pairs_equal_rational_engine(model, clf):
    fm = model.to_float()
    for n in (0, 1, 2, 5):
        ap = two_class_predictions.AllPairs(fm, n, clf)
        assert ap.pruned_mass == 0.0
        assert set(ap.result) == set(itertools.product(model.inputs(), repeat=2))
        for (x, x2), got in ap.result.items():
            want = np.array(predictions.pair_probabilities(model, n, x, x2, clf, "rational"), dtype=float)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("ties", ["random", "first"])
def test_all_pairs_equal_brute_force_over_count_tables(ties):
    """Independent witness: enumerate every training count table and evaluate the
    classifier directly (``NaiveBayes.predict_proba``, exact)."""
    model = MODELS[1]
    clf = NaiveBayes(ties, 0)
    n = 5
    inputs = list(model.inputs())
    want = {pair: np.zeros((2, 2), dtype=object) for pair in itertools.product(inputs, repeat=2)}
    for counts in count_tables(model.n_cells, n):
        t = np.array(counts, dtype=np.int64).reshape(model.arities + (2,))
        p = multinomial_pmf(counts, model.cells)
        g = {x: clf.predict_proba(t, x) for x in inputs}
        for x, x2 in want:
            want[(x, x2)] += p * np.outer(np.array(g[x], dtype=object), np.array(g[x2], dtype=object))
    ap = two_class_predictions.AllPairs(model.to_float(), n, clf)
    for pair, w in want.items():
        assert all(isinstance(v, Fraction) for v in w.ravel())
        np.testing.assert_allclose(ap.result[pair], w.astype(float), rtol=0, atol=1e-14)


@pytest.mark.parametrize("clf", [NaiveBayes("random", 0), NaiveBayes("first", 1)], ids=["random-a0", "first-a1"])
def test_all_pairs_equal_row_method_at_larger_n(clf):
    model = second_nb_model()
    ap = two_class_predictions.AllPairs(model, 40, clf)
    for x, x2 in itertools.combinations(model.inputs(), 2):
        rows = two_class_predictions.pair_two_class_rows(model, 40, x, x2, clf)
        np.testing.assert_allclose(ap.result[(x, x2)], rows, rtol=0, atol=1e-13)
        np.testing.assert_allclose(ap.result[(x2, x)], rows.T, rtol=0, atol=1e-13)


def test_all_pairs_on_dft_laws_equal_the_recursion(monkeypatch):
    clf = NaiveBayes("random", 0)
    model = second_nb_model()
    rec = two_class_predictions.AllPairs(model, 30, clf).result
    monkeypatch.setattr(two_class_predictions.TwoClassTables, "RECURSION_MAX", 5)
    ap = two_class_predictions.AllPairs(model, 30, clf)
    assert ap.tables.laws is None  # DFT powers were used
    for pair, want in rec.items():
        np.testing.assert_allclose(ap.result[pair], want, rtol=0, atol=1e-13)


def test_pruning_within_reported_bound_and_backend_reports_it():
    clf = NaiveBayes("random", 0)
    model = second_nb_model()
    n = 60
    full = two_class_predictions.AllPairs(model, n, clf, tail=0.0)
    cut = two_class_predictions.AllPairs(model, n, clf, tail=1e-6)
    assert 0 < cut.pruned_mass <= 1e-6 * (1 + 1e-9)
    assert cut.dropped_mass_bound >= cut.pruned_mass
    worst = max(np.abs(cut.result[p] - full.result[p]).max() for p in full.result)
    assert 0 < worst <= cut.dropped_mass_bound + 1e-13
    backend = ExactBackend(arithmetic="float", tail=1e-6)
    got = backend.pair(model, n, (0, 0), (1, 0), clf)
    np.testing.assert_allclose(got, full.result[((0, 0), (1, 0))], rtol=0, atol=backend.dropped_mass_bound + 1e-13)
    assert backend.dropped_mass_bound >= cut.dropped_mass_bound * (1 - 1e-12)


def test_pair_dispatch_and_consistency_with_singles():
    clf = NaiveBayes("first", 0)
    model = second_nb_model()
    n = 25
    for x, x2 in itertools.product(model.inputs(), repeat=2):
        p = two_class_predictions.pair_two_class(model, n, x, x2, clf)
        np.testing.assert_allclose(p.sum(axis=1), two_class_predictions.single_two_class(model, n, x, clf), rtol=0, atol=1e-13)
        np.testing.assert_allclose(p.sum(axis=0), two_class_predictions.single_two_class(model, n, x2, clf), rtol=0, atol=1e-13)


@pytest.mark.parametrize("buckets", [1, 3, 50])
def test_all_pair_sign_laws_equal_all_state_pairs(buckets):
    from momentbound.exact.dominance import KeyIndex, all_pair_sign_laws

    rng = np.random.default_rng(11)
    for _ in range(25):
        Q, P, I = (int(v) for v in (*rng.integers(1, 40, size=2), rng.integers(2, 5)))
        r = int(rng.integers(1, 8))
        u = [rng.integers(0, r, size=Q) for _ in range(I)]
        v = [rng.integers(0, r, size=P) for _ in range(I)]
        w0, w1 = rng.random(Q), rng.random(P)
        keys = [KeyIndex(u[i], w0, v[i], w1, buckets) for i in range(I)]
        got = all_pair_sign_laws(keys, w0, w1)
        assert set(got) == {(a, b) for a in range(I) for b in range(a + 1, I)}
        for (a, b), P_ab in got.items():
            want = brute_sign_law(u[a], u[b], w0, v[a], v[b], w1)
            np.testing.assert_allclose(P_ab, want, rtol=0, atol=1e-12 * want.sum())
            np.testing.assert_allclose(P_ab.sum(axis=1), keys[a].marginal, rtol=0, atol=1e-12 * want.sum())


def test_pair_tables_grow_only_with_the_training_size():
    """New input pairs at a size the cached tables cover reuse that size (building ahead there
    grew the tables to n = 160, 2.6 GB, for three binary attributes at n = 24); a larger size
    builds ahead; the values are those of fresh tables. Two binary attributes here: the policy of
    ``ExactBackend._two_class_tables`` does not depend on the number of attributes, and the tables
    to n = 48 cost a hundredth of the three-attribute ones."""
    import math

    from momentbound.estimators import GE, estimator_moments

    model = CellModel((2, 2), [Fraction(k + 1, 36) for k in range(8)])
    clf = NaiveBayes(ties="first")
    backend = ExactBackend(max_work=math.inf)
    res = estimator_moments(model, 24, GE(), classifier=clf, backend=backend, max_seconds=None)
    assert {t.n_max for t in backend._tables.values()} == {24}
    x, x2 = (0, 0), (1, 1)
    backend.pair(model, 24, x, x2, clf)
    assert max(t.n_max for t in backend._tables.values()) == 24
    again = backend.pair(model, 30, x, x2, clf)
    assert max(t.n_max for t in backend._tables.values()) == 48
    np.testing.assert_allclose(np.asarray(again, float), np.asarray(ExactBackend().pair(model, 30, x, x2, clf), float),
                               rtol=0, atol=1e-14)
    assert 0.48 < float(res.mean) < 0.49
