"""Chains of averaged grids for the between-partition terms on binary attributes
(momentbound.exact.binary_states.BinaryStates.overlap_needs).

Witnesses: each grid of a chain against the direct correlation of the decision grid with the state law
of the whole private part (the route the chains replace); the float moments of RepeatedStratifiedKFold,
StratifiedShuffleSplit and RepeatedKFold through the chains against the rational route (whose values
tests/test_binary_states.py checks against brute-force enumeration with scikit-learn's splitters);
the dry run's count of chain passes against the passes the real run makes. No wall-clock time is asserted.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact import binary_states
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.repeated_kfold import repeated_kfold_moments
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.exact.stratified import StateWork, repeated_stratified_cv_moments

#: three classes, two binary attributes (the model of tests/test_binary_states.py)
CELLS = [F(3, 20), F(1, 25), F(1, 50), F(1, 20), F(1, 10), F(1, 25),
         F(1, 20), F(1, 10), F(1, 25), F(1, 10), F(2, 25), F(23, 100)]
MODEL = CellModel((2, 2), CELLS, 3)
CLF = NaiveBayes(ties="sklearn", alpha=1)


def _rel(a, b) -> float:
    return abs(float(a) - float(b)) / max(abs(float(b)), 1e-300)


def test_chain_grids_equal_direct_correlations():
    """A(m, x, b) built one point at a time equals the decision grid correlated with the law of all of b."""
    terms = ClassCountTerms(MODEL, CLF, "float")
    st = terms.states
    m, top = (4, 3, 4), (2, 1, 2)
    terms.overlap_needs({m: {top}})
    try:
        chain = st._chain(m, top)
        assert chain is not None and len(chain.at) == 3 * 2 * 3
        worst = 0.0
        for b in chain.at:
            for ix in range(st.I):
                want = st.averaged(m, ix, b)
                got = chain.view(b, ix)
                assert got.shape == want.shape
                worst = max(worst, float(np.max(np.abs(got - want))) / float(np.max(np.abs(want))))
        assert worst < 1e-13
        # a side read from the chain holds the grids of b - e_c, as a side made directly does
        buf, start = st._chain_side(m, top)
        sbuf, sstart = st.side(m, top)
        for ix in range(st.I):
            for c in range(3):
                assert (start[ix, c] < 0) == (sstart[ix, c] < 0)
                if start[ix, c] >= 0:
                    n = st._layout(tuple(x - y for x, y in zip(m, top)))[0][c] * 3
                    assert np.allclose(buf[start[ix, c]:start[ix, c] + n], sbuf[sstart[ix, c]:sstart[ix, c] + n],
                                       rtol=1e-13, atol=0)
        # outside the needs registered the usual route answers
        assert st._chain(m, (3, 0, 0)) is None and st._chain((4, 4, 4), (1, 1, 1)) is None
    finally:
        terms.overlap_needs(None)
    assert st._chain(m, top) is None


@pytest.mark.parametrize("route", ["rskf", "sss", "rkf"])
def test_chained_float_moments_equal_the_rational_route(route):
    """Private parts of up to two points per class, so the chains take several passes."""
    def run(mode: str, terms=None):
        if route == "rskf":
            r = repeated_stratified_cv_moments(MODEL, 8, 2, 5, classifier=CLF, arithmetic=mode, terms=terms)
            return r.variance, r.repeat_covariance
        if route == "sss":
            r = shuffle_split_moments(MODEL, 10, 4, 5, classifier=CLF, arithmetic=mode, terms=terms, stratified=True)
            return r.variance, r.split_covariance
        r = repeated_kfold_moments(MODEL, 7, 2, 5, classifier=CLF, arithmetic=mode, terms=terms)
        return r.variance, r.repeat_covariance

    exact = run("rational")
    terms = ClassCountTerms(MODEL, CLF, "float")
    made = []
    grow = terms.states._grow
    terms.states._grow = lambda m, chain, parts: (made.append(len(parts - chain.at.keys())), grow(m, chain, parts))
    chained = run("float", terms)
    assert sum(made) > 0, "the chains were not used"
    for got, want in zip(chained, exact):
        assert _rel(got, want) < 1e-12
    # the usual route (chains refused: too large) gives the same moments
    plain = ClassCountTerms(MODEL, CLF, "float")
    plain.states.CHAIN_BYTES = 0
    unchained = run("float", plain)
    assert not plain.states._chains
    for got, want in zip(unchained, chained):
        assert _rel(got, want) < 1e-12


def test_a_wrong_chain_is_caught():
    """The comparison above can fail: a chain built with the law of a point of the wrong class moves the
    covariance well past the tolerance."""
    exact = repeated_stratified_cv_moments(MODEL, 8, 2, math.inf, classifier=CLF, arithmetic="rational")
    terms = ClassCountTerms(MODEL, CLF, "float")
    st = terms.states
    for c in range(3):  # the law of one point of the next class in place of class c's
        st._get(("law1", c), lambda c=c: np.ascontiguousarray(st.law((c + 1) % 3, 1), dtype=float).reshape(-1))
    wrong = repeated_stratified_cv_moments(MODEL, 8, 2, math.inf, classifier=CLF, arithmetic="float", terms=terms)
    assert _rel(wrong.repeat_covariance, exact.repeat_covariance) > 1e-6


@pytest.mark.parametrize("route", ["rskf", "sss"])
def test_dry_run_counts_the_passes_of_the_chains(route):
    """The work estimate's chain entries are those the real run computes (same needs, same cache)."""
    N = 10
    real = ClassCountTerms(MODEL, CLF, "float")
    entries = []
    one_more = real.states._one_more
    real.states._one_more = lambda X, c, out: (entries.append(out.size * 4), one_more(X, c, out))
    work = StateWork(MODEL, CLF, "float")
    counted = []
    kernel = work._kernel
    work._kernel = lambda k, term: (counted.append(k) if term == "chains" else None, kernel(k, term))
    for terms in (real, work):
        if route == "rskf":
            repeated_stratified_cv_moments(MODEL, N, 3, math.inf, classifier=CLF, arithmetic="float", terms=terms)
        else:
            shuffle_split_moments(MODEL, N, 4, math.inf, classifier=CLF, arithmetic="float", terms=terms,
                                  stratified=True)
    assert sum(entries) > 0
    assert sum(counted) == sum(entries)


def test_chain_bytes_counts_every_grid():
    needs = {(2, 1, 1): binary_states.down_set([(1, 0, 1)])}
    assert needs[(2, 1, 1)] == {(0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1)}
    grids = [3**2 * 2**2 * 2**2, 2**2 * 2**2 * 2**2, 3**2 * 2**2 * 1, 2**2 * 2**2 * 1]
    assert binary_states.chain_bytes(3, 2, needs) == 8.0 * 4 * 3 * sum(grids)
