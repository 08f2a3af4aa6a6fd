"""The sampling backend: its per-table evaluator against the classifier, and its intervals
against the exact backend."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound.errors import InvalidArgument
from momentbound.exact import NaiveBayes
from momentbound.model import CellModel, independent_1d_model, second_nb_model
from momentbound.probability import ProbabilityInterval, get_backend
from momentbound.probability.exact_backend import ExactBackend
from momentbound.probability.sampling_backend import SamplingBackend

CLFS = [NaiveBayes(t, a) for t in ("random", "first") for a in (0, 1, "1/2")]


@pytest.mark.parametrize("clf", CLFS, ids=lambda c: f"{c.ties}-{c.alpha}")
def test_predict_tables_equals_classifier_on_random_tables(clf):
    rng = np.random.default_rng(3)
    for model, n in [(second_nb_model(), 6), (CellModel((3,), ["1/6"] * 6, 2), 4), (CellModel((2, 2), ["1/12"] * 12, 3), 5)]:
        shape = model.arities + (model.n_classes,)
        tables = rng.multinomial(n, np.full(model.n_cells, 1 / model.n_cells), size=300).reshape((300,) + shape)
        tables[:5] = 0  # empty training sets
        tables[5:10, ..., 0] = 0  # a class absent
        for x in model.inputs():
            got = clf.predict_inputs(tables, model.arities, x)
            want = np.array([[float(v) for v in clf.predict_proba(t, x)] for t in tables])
            np.testing.assert_array_equal(got, want)


def test_single_pair_cross_cover_exact_values():
    model = independent_1d_model("2/5")
    clf = NaiveBayes("random", 0)
    s = SamplingBackend(draws=20000, confidence=0.999, rng=np.random.default_rng(11))
    e = ExactBackend()
    r = s.single(model, 9, (1,), clf)
    assert isinstance(r, ProbabilityInterval) and r.draws == 20000 and r.confidence == 0.999
    assert r.contains(np.array(e.single(model, 9, (1,), clf), dtype=float))
    assert r.width.max() < 0.03
    rp = s.pair(model, 8, (0,), (1,), clf)
    assert rp.contains(np.array(e.pair(model, 8, (0,), (1,), clf), dtype=float))
    rc = s.cross(model, 6, 2, 3, ((0,), 0), ((1,), 1), clf)
    assert rc.contains(np.array(e.cross(model, 6, 2, 3, ((0,), 0), ((1,), 1), clf), dtype=float))


def test_sampling_2x2_first_rule():
    model = second_nb_model()
    clf = NaiveBayes("first", 1)
    s = SamplingBackend(draws=20000, confidence=0.999, rng=np.random.default_rng(5))
    want = ExactBackend(arithmetic="float").pair(model, 12, (0, 1), (1, 1), clf)
    assert s.pair(model, 12, (0, 1), (1, 1), clf).contains(want)


def test_sampling_is_reproducible_with_rng_and_registered():
    model = independent_1d_model("2/5")
    a = SamplingBackend(draws=100, rng=np.random.default_rng(1)).single(model, 5, (0,))
    b = SamplingBackend(draws=100, rng=np.random.default_rng(1)).single(model, 5, (0,))
    np.testing.assert_array_equal(a.estimate, b.estimate)
    assert get_backend("sampling").name == "sampling"
    from momentbound.bounds.result import Kind

    assert get_backend("sampling").kind is Kind.ESTIMATE


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(draws=1), "draws must be an integer >= 2"),
        (dict(confidence=1.5), "confidence must be"),
        (dict(rng=42), "rng must be a numpy.random.Generator"),
    ],
)
def test_invalid_options(kwargs, match):
    with pytest.raises(InvalidArgument, match=match):
        SamplingBackend(**kwargs)
