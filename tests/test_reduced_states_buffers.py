"""The streamed two-class levels reuse flat buffers; a level decided by the generic rule (the
``sklearn`` tie rule, or scores too large for 64-bit keys) has the buffers' size at the middle
split but not their flat shape, and must not be taken for one of them."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact import reduced_states as rs

TWO_BY_TWO = CellModel((2, 2), [F(1, 10), F(1, 20), F(3, 20), F(1, 10), F(1, 5), F(1, 20), F(1, 10), F(1, 4)])


@pytest.mark.parametrize("ties", ["sklearn", "first"])
@pytest.mark.parametrize(("bottom", "r"), [(6, 3), (5, 4), (8, 2)])
def test_streamed_levels_equal_the_held_levels_for_every_tie_rule(ties, bottom, r):
    st = rs._setup(TWO_BY_TWO, NaiveBayes(ties=ties, alpha=1))
    held = rs._levels_generic(st, bottom, r)
    for a, block in rs._stream_two_class(st, bottom, r):
        np.testing.assert_allclose(block, held[(a, bottom - a)], rtol=0, atol=1e-14)


def test_sklearn_rule_cv_runs_where_the_middle_split_fills_a_buffer():
    """5-fold CV at N = 20 on two binary attributes: the sklearn rule and the lowest-index rule
    differ only on exactly tied scores, so their means are close but both are computed."""
    from momentbound.estimators import KFold, estimator_moments
    from momentbound.probability.exact_backend import ExactBackend

    backend = ExactBackend(arithmetic="float")
    sk = estimator_moments(TWO_BY_TWO, 20, KFold(5), classifier=NaiveBayes("sklearn", 1), backend=backend)
    first = estimator_moments(TWO_BY_TWO, 20, KFold(5), classifier=NaiveBayes("first", 1), backend=backend)
    assert abs(float(sk.mean) - float(first.mean)) < 1e-2
    assert 0 < float(sk.variance) < 1
