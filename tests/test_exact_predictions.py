"""Exact prediction probabilities against brute force over all count tables (exact Fractions)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from momentbound.exact import NaiveBayes
from momentbound.model import CellModel, independent_1d_model, second_nb_model
from momentbound.model.enumeration import count_tables, multinomial_pmf
from momentbound.probability import get_backend
from momentbound.probability.exact_backend import ExactBackend


# ----------------------------------------------------------------------------- witness
def direct_g(table: np.ndarray, x: tuple[int, ...], ties: str, alpha: Fraction) -> list[Fraction]:
    """Naive Bayes from scratch: joint of the posterior numerators, exact, per the contract."""
    arities, K = table.shape[:-1], table.shape[-1]
    N = int(table.sum())
    scores = []
    for k in range(K):
        nk = int(table[..., k].sum())
        if nk == 0:
            scores.append(Fraction(0))
            continue
        s = Fraction(nk, N)
        for j, a in enumerate(arities):
            count = sum(int(table[idx + (k,)]) for idx in np.ndindex(*arities) if idx[j] == x[j])
            s *= (count + alpha) / (nk + alpha * a)
        scores.append(s)
    if ties == "random":
        top = max(scores)
        tied = [k for k in range(K) if scores[k] == top]
        return [Fraction(1, len(tied)) if k in tied else Fraction(0) for k in range(K)]
    present = [k for k in range(K) if table[..., k].sum() > 0]
    if not present:
        return [Fraction(int(k == 0)) for k in range(K)]
    top = max(scores[k] for k in present)
    win = min(k for k in present if scores[k] == top)
    return [Fraction(int(k == win)) for k in range(K)]


_TABLES: dict[tuple, list] = {}
_G: dict[tuple, list[Fraction]] = {}


def tables(model: CellModel, n: int) -> list[tuple[np.ndarray, Fraction]]:
    """Every count table of ``n`` points with its multinomial probability (enumerated once per model and n)."""
    key = (model.arities, model.n_classes, tuple(model.cells), n)
    if key not in _TABLES:
        shape = model.arities + (model.n_classes,)
        _TABLES[key] = [(np.array(counts, dtype=np.int64).reshape(shape), multinomial_pmf(counts, model.cells))
                        for counts in count_tables(model.n_cells, n)]
    return _TABLES[key]


def g_of(table: np.ndarray, x: tuple[int, ...], ties: str, alpha: Fraction) -> list[Fraction]:
    """:func:`direct_g`, remembered per (table, input, rule): the brute force reuses a table's predictions."""
    key = (table.shape, table.tobytes(), tuple(x), ties, alpha)
    if key not in _G:
        _G[key] = direct_g(table, x, ties, alpha)
    return _G[key]


def brute_single(model, n, x, ties, alpha):
    out = [Fraction(0)] * model.n_classes
    for t, p in tables(model, n):
        for y, g in enumerate(g_of(t, x, ties, alpha)):
            out[y] += p * g
    return out


def brute_pair(model, n, x, x2, ties, alpha):
    K = model.n_classes
    out = [[Fraction(0)] * K for _ in range(K)]
    for t, p in tables(model, n):
        g1, g2 = g_of(t, x, ties, alpha), g_of(t, x2, ties, alpha)
        for y, y2 in itertools.product(range(K), repeat=2):
            out[y][y2] += p * g1[y] * g2[y2]
    return out


def brute_cross(model, nc, na, nb, pa, pb, ties, alpha):
    K = model.n_classes
    shape = model.arities + (model.n_classes,)

    def onehot(point):
        t = np.zeros(shape, dtype=np.int64)
        t[tuple(point[0]) + (point[1],)] = 1
        return t

    ea, eb = onehot(pa), onehot(pb)
    bl = tables(model, nb)
    al = tables(model, na)
    out = [[Fraction(0)] * K for _ in range(K)]
    for c, pc in tables(model, nc):
        fa = [Fraction(0)] * K
        for b, pbp in bl:
            for y, g in enumerate(g_of(c + b + eb, pa[0], ties, alpha)):
                fa[y] += pbp * g
        fb = [Fraction(0)] * K
        for a, pap in al:
            for y, g in enumerate(g_of(c + a + ea, pb[0], ties, alpha)):
                fb[y] += pap * g
        for y, y2 in itertools.product(range(K), repeat=2):
            out[y][y2] += pc * fa[y] * fb[y2]
    return out


MODEL_1D = independent_1d_model("2/5")
MODEL_1D_SKEW = CellModel((3,), ["1/5", "1/10", "1/10", "1/5", "1/20", "7/20"], 2)
MODEL_2X2 = second_nb_model()
MODEL_2X2_B = CellModel((2, 2), ["1/16", "3/16", "1/8", "1/16", "1/8", "1/8", "1/4", "1/16"], 2)
MODEL_K3 = CellModel((2,), ["1/6", "1/12", "1/12", "1/6", "1/4", "1/4"], 3)
MODEL_K3_2D = CellModel((2, 2), ["1/12"] * 12, 3)

CASES = [
    ("1d", MODEL_1D, 6),
    ("1d3", MODEL_1D_SKEW, 5),
    ("2x2", MODEL_2X2, 5),
    ("2x2b", MODEL_2X2_B, 4),
    ("k3", MODEL_K3, 5),
    ("k3_2d", MODEL_K3_2D, 3),
]
CLASSIFIERS = [NaiveBayes(t, a) for t in ("random", "first") for a in (0, 1)]
EXACT = ExactBackend(arithmetic="rational")


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: f"{c.ties}-a{c.alpha}")
@pytest.mark.parametrize("name,model,n", CASES, ids=[c[0] for c in CASES])
def test_single_equals_brute_force(name, model, n, clf):
    for nn in (0, 1, n):
        for x in model.inputs():
            got = EXACT.single(model, nn, x, clf)
            assert list(got) == brute_single(model, nn, x, clf.ties, clf.alpha_exact)
            assert all(isinstance(v, Fraction) for v in got)


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: f"{c.ties}-a{c.alpha}")
@pytest.mark.parametrize("name,model,n", CASES, ids=[c[0] for c in CASES])
def test_pair_equals_brute_force(name, model, n, clf):
    n = min(n, 4) if model.d > 1 else n
    inputs = list(model.inputs())
    combos = list(itertools.combinations_with_replacement(inputs, 2))
    for x, x2 in combos if model.n_classes == 2 else combos[::2]:
        got = EXACT.pair(model, n, x, x2, clf)
        assert got.tolist() == brute_pair(model, n, x, x2, clf.ties, clf.alpha_exact)


CROSS_CASES = [
    ("1d", MODEL_1D, (2, 1, 1)),
    ("1d3", MODEL_1D_SKEW, (1, 2, 1)),
    ("2x2", MODEL_2X2, (1, 1, 1)),
    ("k3", MODEL_K3, (1, 1, 2)),
]


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: f"{c.ties}-a{c.alpha}")
@pytest.mark.parametrize("name,model,sizes", CROSS_CASES, ids=[c[0] for c in CROSS_CASES])
def test_cross_equals_brute_force(name, model, sizes, clf):
    nc, na, nb = sizes
    inputs = list(model.inputs())
    points = [(x, y) for x in inputs for y in range(model.n_classes)]
    rng = np.random.default_rng(7)
    chosen = [points[i] for i in rng.choice(len(points), size=min(3, len(points)), replace=False)]
    for pa, pb in itertools.product(chosen, repeat=2):
        got = EXACT.cross(model, nc, na, nb, pa, pb, clf)
        assert got.tolist() == brute_cross(model, nc, na, nb, pa, pb, clf.ties, clf.alpha_exact)


def test_cross_with_empty_common_part_factorises():
    # no shared training points: the two predictions are independent
    clf = NaiveBayes("random", 0)
    pa, pb = ((0,), 0), ((1,), 1)
    got = EXACT.cross(MODEL_1D, 0, 2, 3, pa, pb, clf)
    # T_A = B' + pb ; T_B = A' + pa: compare with products of brute-force singles with a fixed point
    fa = brute_cross(MODEL_1D, 0, 2, 3, pa, pb, "random", Fraction(0))
    assert got.tolist() == fa
    assert got[0, 0] == got[0, :].sum() * got[:, 0].sum()


def test_probabilities_sum_to_one():
    clf = NaiveBayes("first", 1)
    s = EXACT.single(MODEL_K3_2D, 3, (1, 0), clf)
    assert sum(s) == 1
    p = EXACT.pair(MODEL_2X2, 4, (0, 1), (1, 0), clf)
    assert p.sum() == 1
    assert list(p.sum(axis=1)) == list(EXACT.single(MODEL_2X2, 4, (0, 1), clf))


def test_float_arithmetic_matches_rational():
    clf = NaiveBayes("random", 0)
    fl = ExactBackend(arithmetic="float")
    for x in MODEL_2X2.inputs():
        r = EXACT.single(MODEL_2X2, 6, x, clf)
        f = fl.single(MODEL_2X2, 6, x, clf)
        assert f.dtype == float
        np.testing.assert_allclose(f, np.array(r, dtype=float), rtol=1e-12, atol=1e-15)
    r = EXACT.pair(MODEL_2X2, 5, (0, 0), (1, 1), clf)
    f = fl.pair(MODEL_2X2, 5, (0, 0), (1, 1), clf)
    np.testing.assert_allclose(f, np.array(r, dtype=float), rtol=1e-12, atol=1e-15)


def test_exact_backend_registry_and_kind():
    b = get_backend("exact")
    assert isinstance(b, ExactBackend) and b.name == "exact"
    from momentbound.bounds.result import Kind

    assert b.kind is Kind.EXACT


FAST_MODELS = [
    MODEL_1D,
    MODEL_1D_SKEW,
    MODEL_2X2,
    MODEL_2X2_B,
    CellModel((3, 2), ["1/20", "1/10", "1/10", "1/20", "1/5", "1/10", "1/20", "1/20", "1/10", "1/10", "1/20", "1/20"], 2),
    CellModel((2, 2, 2), ["1/32", "3/32"] * 4 + ["1/16"] * 8, 2),
    CellModel((2,), ["1/2", "0", "1/2", "0"], 2),  # a class with prior 0
]


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: f"{c.ties}-a{c.alpha}")
@pytest.mark.parametrize("model", FAST_MODELS, ids=range(len(FAST_MODELS)))
def test_two_class_fast_path_equals_rational_engine(model, clf):
    fast = ExactBackend(arithmetic="float")
    n = 7 if model.d == 1 else (5 if model.d == 2 and model.n_cells <= 8 else (4 if model.d == 2 else 3))
    inputs = list(model.inputs())
    for x in inputs:
        for nn in (0, 1, n):
            np.testing.assert_allclose(
                fast.single(model, nn, x, clf), np.array(EXACT.single(model, nn, x, clf), dtype=float),
                rtol=0, atol=1e-13,
            )
    for x, x2 in list(itertools.combinations_with_replacement(inputs, 2))[:8]:
        np.testing.assert_allclose(
            fast.pair(model, n, x, x2, clf), np.array(EXACT.pair(model, n, x, x2, clf), dtype=float),
            rtol=0, atol=1e-13,
        )


CROSS_1D_MODELS = [
    MODEL_1D,
    MODEL_1D_SKEW,
    CellModel((2,), ["1/2", "0", "1/4", "1/4"], 2),
    CellModel((2,), ["1/3", "2/3", "0", "0"], 2),
]


@pytest.mark.parametrize("ties", ["random", "first"])
@pytest.mark.parametrize("model", CROSS_1D_MODELS, ids=range(len(CROSS_1D_MODELS)))
def test_fast_1d_cross_equals_rational_engine(model, ties):
    clf = NaiveBayes(ties, 0)
    fast = ExactBackend(arithmetic="float")
    points = [(x, y) for x in model.inputs() for y in range(2)]
    for nc, na, nb in [(0, 0, 0), (2, 1, 1), (1, 2, 0)]:
        for pa, pb in itertools.product(points, repeat=2):
            want = np.array(EXACT.cross(model, nc, na, nb, pa, pb, clf), dtype=float)
            np.testing.assert_allclose(fast.cross(model, nc, na, nb, pa, pb, clf), want, rtol=0, atol=1e-13)


def test_fast_1d_cross_larger_n_against_generic_float_engine():
    from momentbound.exact import predictions

    clf = NaiveBayes("first", 0)
    pa, pb = ((0,), 1), ((2,), 0)
    want = predictions.cross_probabilities(MODEL_1D_SKEW.to_float(), 9, 3, 2, pa, pb, clf, "float")
    got = ExactBackend(arithmetic="float").cross(MODEL_1D_SKEW, 9, 3, 2, pa, pb, clf)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)


def test_large_n_single_paths_agree(monkeypatch):
    """At n > RECURSION_MAX the alpha=0 single comes from the law of Z (+ empty-class terms);
    it must equal the vectorised path that compares class scores directly."""
    from momentbound.exact.two_class_predictions import TwoClassTables, single_two_class

    monkeypatch.setattr(TwoClassTables, "RECURSION_MAX", 40)
    model = second_nb_model()
    backend = ExactBackend(arithmetic="float")
    n = 60
    for ties in ("random", "first"):
        clf = NaiveBayes(ties, 0)
        via_z = backend.single(model, n, (0, 1), clf)
        direct = single_two_class(model, n, (0, 1), clf, tail=1e-13)
        np.testing.assert_allclose(via_z, direct, rtol=0, atol=1e-11)
    assert 0 < backend.dropped_mass_bound <= 1e-13


def test_dft_power_laws_equal_the_recursion(monkeypatch):
    from momentbound.exact import two_class_predictions

    clf = NaiveBayes("random", 0)
    model = second_nb_model()
    rec_s = two_class_predictions.single_two_class(model, 30, (0, 1), clf)
    rec_p = two_class_predictions.pair_two_class(model, 30, (0, 1), (1, 1), clf)
    monkeypatch.setattr(two_class_predictions.TwoClassTables, "RECURSION_MAX", 5)
    np.testing.assert_allclose(two_class_predictions.single_two_class(model, 30, (0, 1), clf), rec_s, rtol=0, atol=1e-13)
    np.testing.assert_allclose(two_class_predictions.pair_two_class(model, 30, (0, 1), (1, 1), clf), rec_p, rtol=0, atol=1e-13)


def test_windowed_dft_laws_within_reported_bound(monkeypatch):
    """Large-n laws read on windows modulo the DFT size: the error stays within the reported
    bound (split tail + 4 * mass outside the windows).
    At n = 80 the laws are read on 64 of the 81 points (windows used), with a dropped mass of 1.4e-9."""
    from momentbound.exact import two_class_predictions

    clf = NaiveBayes("first", 0)
    model = second_nb_model()
    full = ExactBackend(arithmetic="float", tail=0.0)
    want_s = full.single(model, 80, (0, 1), NaiveBayes("first", 1))
    want_p = full.pair(model, 80, (0, 1), (1, 1), clf)
    monkeypatch.setattr(two_class_predictions.TwoClassTables, "RECURSION_MAX", 20)
    cut = ExactBackend(arithmetic="float", tail=1e-9)
    got_s = cut.single(model, 80, (0, 1), NaiveBayes("first", 1))
    got_p = cut.pair(model, 80, (0, 1), (1, 1), clf)
    tables = next(iter(cut._tables.values()))
    assert tables.laws is None and tables._power[0].size < 81  # windows were used
    assert 0 < cut.dropped_mass_bound < 1e-7
    np.testing.assert_allclose(got_s, want_s, rtol=0, atol=cut.dropped_mass_bound + 1e-12)
    np.testing.assert_allclose(got_p, want_p, rtol=0, atol=cut.dropped_mass_bound + 1e-12)


def test_class_count_splits_float_mode_at_large_n():
    """Three classes at n = 700: the multinomial coefficient alone exceeds the float range (it
    overflowed); the log-space probabilities agree with scipy's multinomial pmf and sum to 1."""
    import math
    import sys

    from scipy.stats import multinomial

    from momentbound.exact.predictions import class_count_splits

    n = 700
    assert math.factorial(n) // (math.factorial(233) ** 2 * math.factorial(234)) > sys.float_info.max
    model = CellModel((3,), ["3/20", "1/10", "2/25", "1/10", "3/20", "2/25", "2/25", "1/10", "4/25"], 3)
    priors = [float(model.prior(k)) for k in range(3)]
    total, checked = 0.0, 0
    for split, prob in class_count_splits(model, n, "float"):
        total += prob
        if split in ((233, 233, 234), (300, 300, 100), (10, 20, 670)):
            assert prob == pytest.approx(multinomial.pmf(split, n, priors), rel=1e-9, abs=1e-300)
            checked += 1
    assert checked == 3
    assert total == pytest.approx(1.0, abs=1e-9)
    # small n: the float values equal the rational ones
    exact = dict(class_count_splits(model, 30, "rational"))
    for split, prob in class_count_splits(model, 30, "float"):
        assert prob == pytest.approx(float(exact[split]), rel=1e-12)
