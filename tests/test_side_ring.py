"""The ring of side buffers of the state route (momentbound.exact.binary_states.GridCache.buffer): an
entry whose buffer is overwritten is dropped, the most recent entry is never overwritten, and every
entry still cached keeps its values (witness: the values each entry was filled with)."""

from __future__ import annotations

import numpy as np

from momentbound.exact.binary_states import GridCache


def _fill(cache: GridCache, key: int, n: int) -> np.ndarray:
    def make() -> list[np.ndarray]:
        buf = cache.buffer(n)
        buf[...] = key
        return [buf, np.zeros(1)]

    return cache.get(("side", key), make)[0]


def test_entries_kept_keep_their_values_and_the_most_recent_is_never_overwritten():
    cache = GridCache(8 * 10, exact=False)  # a pool of 10 floats
    _fill(cache, 1, 4)
    _fill(cache, 2, 4)  # [1 1 1 1 2 2 2 2 . .]
    assert list(cache.regions.values()) == [(0, 4), (4, 4)]
    _fill(cache, 2, 4)  # cached: the most recent entry
    _fill(cache, 3, 4)  # wraps to the start, overwrites 1
    assert ("side", 1) not in cache.items and cache.wraps == 1
    cache.get(("side", 2), lambda: None)  # 2 most recent again: sits at 4..7
    _fill(cache, 4, 3)  # 7 + 3 fits? head = 4 after 3's buffer -> would overwrite 2: goes past it
    assert ("side", 2) in cache.items
    for key in (2, 3, 4):
        if ("side", key) in cache.items:
            assert (cache.items[("side", key)][0][0] == key).all()
    big = _fill(cache, 5, 20)  # larger than the pool: an array of its own
    assert big.size == 20 and not np.may_share_memory(big, cache.pool)


def test_a_wrong_overlap_would_be_caught():
    """The check above can fail: writing into a kept entry's region changes its values."""
    cache = GridCache(8 * 10, exact=False)
    a = _fill(cache, 1, 4)
    cache.pool[:2] = 9.0
    assert not (a == 1).all()
