"""Memory handling of the state route (momentbound.exact.binary_states): the cache of averaged grids
reuses the buffers of dropped entries and counts the whole buffer an entry keeps; numpy's request for
huge pages is off while a route runs and restored after, also when it raises."""

from __future__ import annotations

import numpy as np
import pytest

from momentbound.exact.binary_states import _Cache, small_pages

core = getattr(np, "_core", None) or np.core
setter = getattr(core.multiarray, "_set_madvise_hugepage", None)


@pytest.mark.skipif(setter is None, reason="this numpy has no huge-page switch")
def test_small_pages_restores_the_setting():
    seen = []

    @small_pages
    def route(fail: bool) -> int:
        seen.append(setter(False))  # reads the setting inside (and leaves it off)
        if fail:
            raise ValueError("stop")
        return 7

    before = setter(True)
    try:
        assert route(False) == 7
        assert setter(True) is True  # restored
        with pytest.raises(ValueError):
            route(True)
        assert setter(True) is True
        assert seen == [False, False]  # off inside
    finally:
        setter(before)


def test_cache_reuses_a_larger_dropped_buffer_and_counts_it_whole():
    cache = _Cache(limit=8 * 6000, exact=False)  # spare buffers: up to an eighth, 6000 bytes
    big = cache.get(("a",), lambda: [cache.buffer(600), np.zeros(1, dtype=np.int64)])
    assert big[0].size == 600
    cache.get(("b",), lambda: [cache.buffer(5500), np.zeros(1, dtype=np.int64)])  # drops "a" (over 48000 bytes)
    assert ("a",) not in cache.items and len(cache.spare) == 1
    small = cache.get(("c",), lambda: [cache.buffer(100), np.zeros(1, dtype=np.int64)])
    assert small[0].size == 100 and small[0].base is not None and small[0].base.size == 600  # a's buffer
    assert cache.items[("c",)][1] == 8 * 600 + 8  # the whole buffer is counted
    assert not cache.spare
