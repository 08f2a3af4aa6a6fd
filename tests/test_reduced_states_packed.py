"""The two-class stream holds its levels packed (nonzero values and a bitmap, band by band): the
packing is lossless, the cross terms do not change, and the peak is what ``memory_estimate``
says."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact import reduced_states as rs
from momentbound.model import second_nb_model


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000])
def test_packing_is_lossless(n):
    rng = np.random.default_rng(n)
    a = rng.random(n) * (rng.random(n) < 0.3)
    a[: min(n, 3)] = [1.0, 0.0, 0.5][: min(n, 3)]
    buffers = rs._Buffers(max(n, 1))
    p = rs._Packed.of(a.reshape(n, 1, 1))
    assert p.nnz == np.count_nonzero(a)
    back = p.unpack(buffers)
    assert back.shape == (n, 1, 1)
    assert np.array_equal(back.ravel(), a)
    # a dirty reused buffer is overwritten everywhere, zeros included
    buffers.give(back)
    buffers.free[0][:] = 7.0
    assert np.array_equal(p.unpack(buffers).ravel(), a)


def test_a_wrong_bit_is_seen():
    a = np.array([0.0, 2.0, 0.0, 3.0])
    p = rs._Packed.of(a.reshape(4, 1, 1))
    p.chunks[0][2][0, 0] ^= np.uint64(1)  # the first entry now claims the first value
    assert not np.array_equal(p.unpack(rs._Buffers(4)).ravel(), a)


def test_pruned_stream_equals_the_dense_levels():
    """With pruning, the stream in bands of one run of the first agreement count gives the bottom
    level of the stream in one band per slice: the bands change nothing."""
    model = second_nb_model()
    st = rs._setup(model, NaiveBayes(ties="first", alpha=1))
    bottom, r = 14, 3
    grids = rs._CommonGrids(st, bottom + r - 1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rs, "BAND_BYTES", 8)
        blocks = {a: b.copy() for a, b in rs._stream_two_class(st, bottom, r, rs._Pruning(st, 1e-9, grids.laws))}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rs, "BAND_BYTES", 2**40)
        whole = {a: b.copy() for a, b in rs._stream_two_class(st, bottom, r, rs._Pruning(st, 1e-9, grids.laws))}
    assert blocks.keys() == whole.keys()
    for a in blocks:
        assert np.array_equal(blocks[a], whole[a])
    assert any(np.count_nonzero(b) < b.size for b in blocks.values())  # something was pruned


def test_peak_follows_the_estimate():
    model = second_nb_model()
    nc, r = 48, 5  # 10-fold CV at N = 60
    rs.cross_errors(model, 3, 1, 1, NaiveBayes(), 1e-13)  # compiled before tracing
    tracemalloc.start()
    try:
        rs.cross_errors(model, nc, r, r, NaiveBayes(), 1e-13)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.67 <= peak / rs.memory_estimate(model, nc, r, r) <= 1.5
