"""Property tests (hypothesis, derandomized): the vectorised paths equal the generic engine on
random models; probabilities are consistent (sum to one, pair marginals equal singles)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from momentbound.exact import NaiveBayes, predictions
from momentbound.exact.cross1d import cross_1d_alpha0
from momentbound.exact.two_class_predictions import pair_two_class, single_two_class
from momentbound.model import CellModel

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


@st.composite
def models(draw, max_d=2, K=2):
    d = draw(st.integers(1, max_d))
    arities = tuple(draw(st.integers(2, 3)) for _ in range(d))
    n_cells = int(np.prod(arities)) * K
    weights = draw(st.lists(st.integers(0, 6), min_size=n_cells, max_size=n_cells))
    if sum(weights) == 0:
        weights[0] = 1
    return CellModel.normalized(arities, weights, K)


classifiers = st.builds(NaiveBayes, st.sampled_from(["random", "first"]), st.sampled_from([0, 1, "1/2"]))


@SETTINGS
@given(models(), classifiers, st.integers(0, 6), st.data())
def test_two_class_paths_equal_generic_engine(model, clf, n, data):
    inputs = list(model.inputs())
    x = data.draw(st.sampled_from(inputs))
    x2 = data.draw(st.sampled_from(inputs))
    fm = model.to_float()
    s = single_two_class(fm, n, x, clf)
    np.testing.assert_allclose(s, predictions.single_probabilities(fm, n, x, clf, "float"), rtol=0, atol=1e-12)
    p = pair_two_class(fm, n, x, x2, clf)
    np.testing.assert_allclose(p, predictions.pair_probabilities(fm, n, x, x2, clf, "float"), rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), s, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.sum(), 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(models(max_d=1), st.sampled_from(["random", "first"]), st.integers(0, 4), st.integers(0, 3), st.integers(0, 3), st.data())
def test_cross_1d_equals_generic_engine(model, ties, nc, na, nb, data):
    clf = NaiveBayes(ties, 0)
    points = [(x, y) for x in model.inputs() for y in range(2)]
    pa = data.draw(st.sampled_from(points))
    pb = data.draw(st.sampled_from(points))
    fm = model.to_float()
    got = cross_1d_alpha0(fm, nc, na, nb, pa, pb, clf)
    want = predictions.cross_probabilities(fm, nc, na, nb, pa, pb, clf, "float")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # the cross term's margins: E[g_A(a)] over everything
    np.testing.assert_allclose(got.sum(), 1.0, rtol=0, atol=1e-12)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(models(max_d=2, K=3), classifiers, st.integers(0, 3))
def test_three_class_consistency(model, clf, n):
    inputs = list(model.inputs())[:2]
    for x, x2 in itertools.product(inputs, repeat=2):
        p = predictions.pair_probabilities(model, n, x, x2, clf, "rational")
        s = predictions.single_probabilities(model, n, x, clf, "rational")
        assert list(p.sum(axis=1)) == list(s)
        assert sum(s) == 1
