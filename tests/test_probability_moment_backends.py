"""``bound:<method>`` and ``series`` backends against the exact backend."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from momentbound.errors import InvalidArgument, UnknownMethod
from momentbound.exact import NaiveBayes, z_distribution
from momentbound.model import CellModel, equal_cells_model, independent_1d_model, second_nb_model
from momentbound.probability import ProbabilityInterval, get_backend
from momentbound.probability.exact_backend import ExactBackend
from momentbound.probability.moment_backends import MomentBoundBackend, SeriesBackend, empty_class_corrections

EXACT = ExactBackend()
MODELS = [
    ("2x2", second_nb_model(), 7),
    ("1d", independent_1d_model("2/5"), 9),
    ("1d3", CellModel((3,), ["1/5", "1/10", "1/10", "1/5", "1/20", "7/20"], 2), 6),
    ("2x2x2", CellModel((2, 2, 2), ["1/32", "3/32"] * 4 + ["1/16"] * 8, 2), 3),
]


@pytest.mark.parametrize("ties", ["random", "first"])
@pytest.mark.parametrize("name,model,n", MODELS, ids=[m[0] for m in MODELS])
def test_sign_of_z_plus_empty_class_correction_is_exact(name, model, n, ties):
    """g(0) = (P[Z>0] + P[Z>=0])/2 + c (random) or P[Z>=0] + c (first): exact Fraction identity."""
    clf = NaiveBayes(ties, 0)
    for nn in (0, 1, 2, n):
        for x in model.inputs():
            z = z_distribution(model, nn, x)
            c = empty_class_corrections(model, nn, x, ties)
            if ties == "random":
                g0 = (z.prob_positive() + z.prob_positive() + z.prob_zero()) / 2 + c
            else:
                g0 = Fraction(1) if nn == 0 else z.prob_positive() + z.prob_zero() + c
            assert g0 == EXACT.single(model, nn, x, clf)[0]


@pytest.mark.parametrize("method", ["lp", "sdp"])
@pytest.mark.parametrize("ties", ["random", "first"])
def test_bound_backend_contains_exact(method, ties):
    clf = NaiveBayes(ties, 0)
    b = MomentBoundBackend(method, order=4)
    for model, n in [(second_nb_model(), 8), (independent_1d_model("2/5"), 12)]:
        inputs = list(model.inputs())[:3]
        for x in inputs:
            r = b.single(model, n, x, clf)
            assert isinstance(r, ProbabilityInterval)
            assert r.contains(np.array(EXACT.single(model, n, x, clf), dtype=float), tol=1e-9)
        for x, x2 in [(inputs[0], inputs[0]), (inputs[0], inputs[-1])]:
            r = b.pair(model, n, x, x2, clf)
            assert r.contains(np.array(EXACT.pair(model, n, x, x2, clf), dtype=float), tol=1e-9)


def test_more_moments_give_narrower_lp_intervals():
    model, x, clf = second_nb_model(), (0, 1), NaiveBayes("random", 0)
    w2 = MomentBoundBackend("lp", order=2).single(model, 10, x, clf).width[0]
    w6 = MomentBoundBackend("lp", order=6).single(model, 10, x, clf).width[0]
    assert w6 <= w2 + 1e-12 and w6 < 0.9


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_series_backend_approximates_and_is_consistent():
    s = get_backend("series")
    from momentbound.bounds.result import Kind

    assert isinstance(s, SeriesBackend) and s.kind is Kind.APPROXIMATION
    clf = NaiveBayes("random", 0)
    model = independent_1d_model("2/5")
    for x in model.inputs():
        got = s.single(model, 60, x, clf)
        np.testing.assert_allclose(got, np.array(EXACT.single(model, 60, x, clf), dtype=float), atol=0.02)
    p = s.pair(model, 60, (0,), (1,), clf)
    np.testing.assert_allclose(p.sum(axis=1), s.single(model, 60, (0,), clf), atol=1e-12)
    np.testing.assert_allclose(p, np.array(EXACT.pair(model, 60, (0,), (1,), clf), dtype=float), atol=0.03)
    big = s.single(equal_cells_model((2, 2)), 100, (0, 0), clf)
    np.testing.assert_allclose(big, [0.5, 0.5], atol=1e-6)


def test_moment_backends_refuse_what_they_cannot_do():
    b = get_backend("bound:lp")
    assert b.label == "bound:lp"
    with pytest.raises(InvalidArgument, match="two classes and alpha = 0"):
        b.single(second_nb_model(), 5, (0, 0), NaiveBayes("random", 1))
    with pytest.raises(InvalidArgument, match="two classes and alpha = 0"):
        b.single(CellModel((2,), ["1/6"] * 6, 3), 5, (0,))
    with pytest.raises(InvalidArgument, match="cross-validation cross term"):
        b.cross(second_nb_model(), 3, 1, 1, ((0, 0), 0), ((1, 1), 1))
    with pytest.raises(InvalidArgument, match="cross-validation cross term"):
        get_backend("series").cross(second_nb_model(), 3, 1, 1, ((0, 0), 0), ((1, 1), 1))
    with pytest.raises(InvalidArgument, match="name the cdf method"):
        get_backend("bound:")
    with pytest.raises(UnknownMethod):
        get_backend("bound:nonexistent")
    with pytest.raises(InvalidArgument, match="order must be an integer >= 1"):
        MomentBoundBackend("lp", order=0)
    with pytest.raises(InvalidArgument, match=r"method 'sdp' got unknown option\(s\) \['tolerance'\]"):
        MomentBoundBackend("sdp", tolerance=1e-6)  # rejected at construction, before any solve


def test_joint_sdp_pairs_contain_exact_and_tighten_frechet():
    model, n, x, x2 = independent_1d_model("2/5"), 16, (0,), (1,)
    clf = NaiveBayes("first", 0)
    exact = ExactBackend(arithmetic="float").pair(model, n, x, x2, clf)
    fre = MomentBoundBackend("lp", order=4).pair(model, n, x, x2, clf)
    sdp = MomentBoundBackend("lp", order=4, joint="sdp").pair(model, n, x, x2, clf)
    assert sdp.contains(exact, tol=1e-9)
    assert np.all(sdp.upper <= fre.upper + 1e-12) and np.all(sdp.lower >= fre.lower - 1e-12)
    assert sdp.upper[0, 0] < fre.upper[0, 0] - 0.05
    with pytest.raises(InvalidArgument, match="joint must be one of"):
        MomentBoundBackend("lp", joint="bird")
