"""The two-class stream computes each level band by band over the class-0 grid from packed
slices: every entry is the same sum as on the dense levels held whole (the recursion of
docs/mathematics.md, 'The multi-attribute cross term'), so the levels, the pruning bound and the
cross terms are bitwise those of the dense recursion, whatever the band size."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact import reduced_states as rs
from momentbound.model import second_nb_model

ASYM = CellModel((2, 2), [F(12, 100), F(8, 100), F(5, 100), F(15, 100), F(20, 100), F(10, 100), F(7, 100),
                          F(23, 100)])  # no symmetry: four distinct columns of h
MODELS = {"paper": second_nb_model(), "asym": ASYM, "three": CellModel((3, 2), [F(1, 12)] * 12)}


def _held_pruned(st, bottom, r, prune):
    """The bottom level of the recursion with every level held dense (``_step_block``)."""
    top = bottom + r
    level = {(a, top - a): rs._top_block(st, (a, top - a)) for a in range(top + 1)}
    for m in range(top - 1, bottom - 1, -1):
        level = {(a, m - a): rs._step_block(st, (a, m - a), [level[(a + 1, m - a)], level[(a, m - a + 1)]], prune)
                 for a in range(m + 1)}
    return level


@pytest.mark.parametrize("band", [8, 2**14, 2**40])
@pytest.mark.parametrize("name", list(MODELS))
def test_banded_stream_equals_the_held_dense_levels(name, band, monkeypatch):
    st = rs._setup(MODELS[name], NaiveBayes(ties="first", alpha=1))
    bottom, r = 9, 3
    grids = rs._CommonGrids(st, bottom + r - 1)
    held_prune = rs._Pruning(st, 1e-7, grids.laws)
    held = _held_pruned(st, bottom, r, held_prune)
    monkeypatch.setattr(rs, "BAND_BYTES", band)
    prune = rs._Pruning(st, 1e-7, grids.laws)
    n = 0
    for a, block in rs._stream_two_class(st, bottom, r, prune):
        assert block.shape == held[(a, bottom - a)].shape
        assert np.array_equal(block, held[(a, bottom - a)])
        n += 1
    assert n == bottom + 1
    # something was pruned; the bound is summed over the levels in another order
    assert held_prune.level_dropped > 0
    assert prune.level_dropped == pytest.approx(held_prune.level_dropped, rel=1e-12)


@pytest.mark.parametrize("name", ["paper", "asym"])
def test_cross_terms_do_not_depend_on_the_band_size(name, monkeypatch):
    """10-fold CV at N = 40: the cross term in bands of one run and in one band per slice."""
    model, clf = MODELS[name], NaiveBayes(ties="first", alpha=1)
    monkeypatch.setattr(rs, "BAND_BYTES", 2**40)
    whole = rs.cross_errors(model, 32, 3, 3, clf, 1e-13)
    monkeypatch.setattr(rs, "BAND_BYTES", 8)
    bands = rs.cross_errors(model, 32, 3, 3, clf, 1e-13)
    assert np.array_equal(bands.matrix, whole.matrix)
    assert bands.dropped_mass_bound == whole.dropped_mass_bound


def test_a_lost_row_of_a_band_is_seen(monkeypatch):
    """The comparison can fail: a packed slice that drops the last row of every unpacked run."""
    st = rs._setup(MODELS["asym"], NaiveBayes(ties="first", alpha=1))
    bottom, r = 9, 3
    held = rs._levels_generic(st, bottom, r)
    unpack = rs._Packed.unpack_rows

    def lossy(self, r0, r1, out):
        res = unpack(self, r0, r1, out)
        res[-self.rowlen:] = 0.0
        return res

    monkeypatch.setattr(rs, "BAND_BYTES", 8)
    monkeypatch.setattr(rs._Packed, "unpack_rows", lossy)
    assert not all(np.array_equal(block, held[(a, bottom - a)]) for a, block in rs._stream_two_class(st, bottom, r))


def test_unpacking_any_run_of_rows_across_bands():
    rng = np.random.default_rng(3)
    a = rng.random((13, 5, 30)) * (rng.random((13, 5, 30)) < 0.4)
    p = rs._Packed(a.shape)
    for g, e in [(0, 4), (4, 5), (5, 13)]:  # three bands of unequal rows
        p.add(a[g:e].reshape(-1).copy())
    assert p.nnz == np.count_nonzero(a)
    buf = np.full(a.size, 7.0)
    for r0, r1 in [(0, 13), (3, 6), (4, 5), (12, 13), (2, 11)]:
        assert np.array_equal(p.unpack_rows(r0, r1, buf).reshape(r1 - r0, 5, 30), a[r0:r1])
