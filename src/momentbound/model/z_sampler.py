"""The naive Bayes statistic ``Z_x`` on many count tables at once, and a Monte Carlo sampler of it
(the ``statistic_sampler`` of a :class:`momentbound.bounds.MomentProblem` for the ``sampling`` method).

:func:`naive_bayes_z` evaluates the same polynomial as
:func:`momentbound.model.statistics.naive_bayes_statistic`, vectorised over the rows of a count array.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument

__all__ = ["naive_bayes_sampler", "naive_bayes_z"]


def naive_bayes_z(model: Any, counts: np.ndarray, x: Sequence[int] | int, classes: Sequence[int] = (0, 1)) -> np.ndarray:
    """``Z_x^{k,l}`` for every row of ``counts`` (shape ``(draws, n_cells)``), exact integers.

    ``Z = N_l^(d-1) prod_j N^j_{x^j,k} - N_k^(d-1) prod_j N^j_{x^j,l}`` (docs/mathematics.md,
    section 'The decision statistic Z').
    Uses int64 when ``N^(2d-1)`` fits, Python integers otherwise.

    Example
    -------
    >>> from momentbound.model import equal_cells_model
    >>> naive_bayes_z(equal_cells_model((2, 2)), np.array([[1, 0, 0, 0, 0, 0, 0, 0]]), (0, 0)).tolist()
    [0]
    """
    xt = model.check_input(x)
    k, l = (int(c) for c in classes)
    if k == l or not (0 <= k < model.n_classes and 0 <= l < model.n_classes):
        raise InvalidArgument(f"classes must be two different class indices in 0..{model.n_classes - 1}, got {classes!r}")
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] != model.n_cells:
        raise InvalidArgument(f"counts must have shape (draws, {model.n_cells}), got {c.shape}")
    d = model.d
    N = int(c[0].sum()) if len(c) else 0
    big = N > 0 and (2 * d - 1) * math.log2(max(N, 2)) + 2 > 62
    arr = c.astype(object) if big else c.astype(np.int64)
    cube = arr.reshape((len(c),) + tuple(model.arities) + (model.n_classes,))
    axes = tuple(range(1, d + 1))

    def agree(j: int, cls: int) -> np.ndarray:
        sl = cube[(slice(None),) + tuple(xt[j] if i == j else slice(None) for i in range(d)) + (cls,)]
        return sl.reshape(len(c), -1).sum(axis=1)

    n_k = cube[..., k].sum(axis=axes)
    n_l = cube[..., l].sum(axis=axes)
    prod_k = np.ones(len(c), dtype=arr.dtype)
    prod_l = np.ones(len(c), dtype=arr.dtype)
    for j in range(d):
        prod_k = prod_k * agree(j, k)
        prod_l = prod_l * agree(j, l)
    return n_l ** (d - 1) * prod_k - n_k ** (d - 1) * prod_l


def naive_bayes_sampler(model: Any, N: int, x: Sequence[int] | int, classes: Sequence[int] = (0, 1)) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A ``(rng, size) -> samples of Z_x`` callable for :attr:`MomentProblem.statistic_sampler`.

    Count tables are drawn with ``rng.multinomial(N, p, size)`` (no datasets are generated).

    Example
    -------
    >>> from momentbound.model import equal_cells_model
    >>> s = naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0))
    >>> s(np.random.default_rng(0), 5).shape
    (5,)
    """
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 0:
        raise InvalidArgument(f"N must be a non-negative integer, got {N!r}")
    model.check_input(x)
    probs = np.array([float(p) for p in model.cells])
    probs = probs / probs.sum()

    def sample(rng: np.random.Generator, size: int) -> np.ndarray:
        return naive_bayes_z(model, rng.multinomial(int(N), probs, size=int(size)), x, classes)

    # CPU time per draw for the work guard of the sampling method (measured: 0.9-1.4e-7 s per cell
    # and draw for 4 to 32 cells, N from 6 to 1e6)
    sample.seconds_per_draw = 2e-7 * len(probs)  # type: ignore[attr-defined]
    # numpy draws int64 counts: beyond that the sampler cannot run (the sampling method says so)
    sample.unavailable = (f"N = {N} is beyond numpy's 64-bit counts (N < 2^62)"  # type: ignore[attr-defined]
                          if N >= 2**62 else None)

    return sample
