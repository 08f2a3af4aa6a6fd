"""Exact expectations of polynomials in sums of multinomial counts (docs/mathematics.md, section
'Factorial moments').

The mathematics (all exact integer arithmetic):

* Features ``F_r = sum_{c in S_r} N_c`` are grouped into *blocks*: connected components
  of features that share cells. For the naive Bayes statistic the blocks are the two
  classes. A feature equal to the union of its block's cells is the block *total*
  (the class count ``N_k``); the others are *grid* features.
* Given the block count ``n``, the block's cells are ``Multinomial(n, p_c / P)`` with
  ``P`` the block probability, and the factorial-moment generating function gives
  ``E[prod_r (F_r)_{t_r} | n] = prod_r t_r! sum_m C(n, m) [u^t] (H(u) / P)^m`` with
  ``H(u) = sum_{c in block} p_c (prod_{r: c in S_r} (1 + u_r) - 1) = sum_T h_T u^T``.
  With ``F^e = sum_t S(e, t) (F)_t`` (Stirling numbers of the second kind),
  ``E[prod_r F_r^{e_r} | n] = sum_m (n)_m c[m] / P^m``,
  ``c[m] = sum_t prod_r S(e_r, t_r) t_r! [u^t] H^m / m!`` (an integer polynomial in ``h``).
* The block total's power ``n^{e_0}`` moves to the falling-factorial basis with
  ``n (n)_m = (n)_{m+1} + m (n)_m``, and across blocks
  ``E[prod_b (n_b)_{u_b}] = (N)_{sum u_b} prod_b P_b^{u_b}``. So
  ``E[prod F^e] = sum_w (N)_w gamma_w`` where ``gamma`` is the convolution over blocks of
  ``beta_b[u] = sum_m L_{e_0}[u, m] c_b[m] P_b^{u - m}``.
* Probabilities are written ``q_c / D`` with integers ``q_c`` and one common
  denominator ``D`` (floats are exact dyadic rationals), every intermediate is an integer,
  and the only division is the final one by ``D^w``: no overflow, no cancellation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.model.statistics import Exponents, Statistic

__all__ = ["StatisticLayout", "layout", "scaled_probabilities", "expectation_vector", "finish", "falling"]


# ---------------------------------------------------------------- combinatorial tables
@lru_cache(maxsize=None)
def stirling2_row(e: int) -> tuple[int, ...]:
    """``(S(e, 0), ..., S(e, e))``."""
    row = [1]
    for n in range(1, e + 1):
        new = [0] * (n + 1)
        for k in range(1, n + 1):
            new[k] = k * (row[k] if k < len(row) else 0) + row[k - 1]
        row = new
    return tuple(row)


@lru_cache(maxsize=None)
def surjection_weights(e: int) -> tuple[int, ...]:
    """``S(e, t) * t!`` for ``t = 0..e`` (number of surjections of an e-set onto a t-set)."""
    return tuple(s * math.factorial(t) for t, s in enumerate(stirling2_row(e)))


@lru_cache(maxsize=None)
def _weights_array(e: int) -> np.ndarray:
    return np.array(surjection_weights(e), dtype=object)


@lru_cache(maxsize=None)
def _factorials(n: int) -> tuple[int, ...]:
    return tuple(math.factorial(m) for m in range(n + 1))


def falling(N: int, w: int) -> int:
    """Falling factorial ``(N)_w``."""
    out = 1
    for i in range(w):
        out *= N - i
    return out


# ---------------------------------------------------------------- layout of a statistic
@dataclass(frozen=True)
class Block:
    """A connected group of features: their cells, the total feature and the grid."""

    cells: tuple[int, ...]
    total: int | None  # feature index of the block total, if any
    grid: tuple[int, ...]  # feature indices of the grid features
    subsets: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    # subsets: (T as a 0/1 vector over the grid, cells c with S_c containing T)


@dataclass(frozen=True)
class StatisticLayout:
    """Blocks of the features of a statistic (structure the engine exploits)."""

    n_cells: int
    blocks: tuple[Block, ...]
    feature_block: tuple[int, ...]  # block index of each feature

    def split(self, exps: Exponents) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Per block: ``(total exponent, grid exponents)``."""
        out = []
        for b in self.blocks:
            e0 = exps[b.total] if b.total is not None else 0
            out.append((e0, tuple(exps[r] for r in b.grid)))
        return tuple(out)


def layout(stat: Statistic) -> StatisticLayout:
    """Group the features of ``stat`` into blocks (cached per statistic)."""
    return _layout(stat.n_cells, tuple(f.cells for f in stat.features))


@lru_cache(maxsize=256)
def _layout(n_cells: int, feats: tuple[frozenset[int], ...]) -> StatisticLayout:
    parent = list(range(len(feats)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for i, cells in enumerate(feats):
        for c in cells:
            if c in owner:
                parent[find(i)] = find(owner[c])
            else:
                owner[c] = i
    comps: dict[int, list[int]] = {}
    for i in range(len(feats)):
        comps.setdefault(find(i), []).append(i)
    blocks = []
    feature_block = [0] * len(feats)
    for bi, members in enumerate(comps.values()):
        cells = frozenset().union(*(feats[i] for i in members))
        total = next((i for i in members if feats[i] == cells), None)
        grid = tuple(i for i in members if i != total)
        # H(u) = sum_T h_T u^T, h_T = sum of p_c over cells whose feature set contains T
        sets: dict[tuple[int, ...], list[int]] = {}
        for c in sorted(cells):
            sig = tuple(1 if c in feats[r] else 0 for r in grid)
            sets.setdefault(sig, []).append(c)
        subsets: dict[tuple[int, ...], list[int]] = {}
        for sig, cs in sets.items():
            ones = [j for j, s in enumerate(sig) if s]
            for size in range(1, len(ones) + 1):
                for combo in itertools.combinations(ones, size):
                    vec = tuple(1 if j in combo else 0 for j in range(len(grid)))
                    subsets.setdefault(vec, []).extend(cs)
        blocks.append(
            Block(
                cells=tuple(sorted(cells)),
                total=total,
                grid=grid,
                subsets=tuple((t, tuple(sorted(cs))) for t, cs in sorted(subsets.items())),
            )
        )
        for i in members:
            feature_block[i] = bi
    return StatisticLayout(n_cells, tuple(blocks), tuple(feature_block))


# ---------------------------------------------------------------- probabilities
def scaled_probabilities(probs: Sequence[Any]) -> tuple[tuple[int, ...], int]:
    """Integers ``q_c`` and a common denominator ``D`` with ``p_c = q_c / D`` exactly.

    Floats are converted exactly (a float is a dyadic rational), so no rounding happens
    before the final division.
    """
    fr = []
    for i, p in enumerate(probs):
        if isinstance(p, (float, np.floating)):
            if not math.isfinite(float(p)):
                raise InvalidArgument(f"probs[{i}] must be finite, got {p}")
            fr.append(Fraction(float(p)))
        else:
            fr.append(Fraction(p))
    D = 1
    for f in fr:
        D = D * f.denominator // math.gcd(D, f.denominator)
    return tuple(int(f.numerator * (D // f.denominator)) for f in fr), D


# ---------------------------------------------------------------- block vectors
class BlockEvaluator:
    """Power table of ``H`` for one block at fixed probabilities, and its block vectors."""

    def __init__(self, block: Block, q: Sequence[int], grid_max: tuple[int, ...]):
        self.block = block
        self.P = sum(q[c] for c in block.cells)
        self.grid_max = grid_max
        g = len(block.grid)
        self.M = sum(grid_max)
        shape = (self.M + 1,) + tuple(e + 1 for e in grid_max)
        table = np.zeros(shape, dtype=object)
        table[(0,) * (g + 1)] = 1
        terms = []
        for tvec, cs in block.subsets:
            h = sum(q[c] for c in cs)
            if h and all(t <= e for t, e in zip(tvec, grid_max)):
                terms.append((tvec, h))
        for m in range(1, self.M + 1):
            prev = table[m - 1]
            cur = table[m]
            for tvec, h in terms:
                dst = tuple(slice(t, None) for t in tvec)
                src = tuple(slice(0, e + 1 - t) for t, e in zip(tvec, grid_max))
                cur[dst] += h * prev[src]
        self.table = table
        self._c_cache: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._poly_cache: dict[tuple[int, tuple[int, ...]], Any] = {}

    def c_vector(self, eg: tuple[int, ...]) -> tuple[int, ...]:
        """``c[m] = sum_t prod_r S(e_r,t_r) t_r! [u^t] H^m / m!`` for ``m = 0..sum(eg)``."""
        hit = self._c_cache.get(eg)
        if hit is not None:
            return hit
        res = self._c_vector(eg)
        self._c_cache[eg] = res
        return res

    def _c_vector(self, eg: tuple[int, ...]) -> tuple[int, ...]:
        mmax = sum(eg)
        arr = self.table[(slice(0, mmax + 1),) + tuple(slice(0, e + 1) for e in eg)]
        for e in reversed(eg):  # contract the last grid axis each time
            arr = arr @ _weights_array(e)
        out = []
        facts = _factorials(mmax)
        for m, v in enumerate(arr.tolist()):
            quot, rem = divmod(v, facts[m])
            if rem:  # pragma: no cover - an integrality theorem; guards against a bug
                raise RuntimeError(f"internal error: non-integral factorial moment at m={m}")
            out.append(quot)
        return tuple(out)


def _poly_beta(ev: "BlockEvaluator", e0: int, eg: tuple[int, ...]):
    """``beta`` as a flint polynomial; same recursion as :meth:`BlockEvaluator.beta`
    (``v' = P x v + x v'(x)``, i.e. ``v'[u] = P v[u-1] + u v[u]``), in C."""
    key = (e0, eg)
    hit = ev._poly_cache.get(key)
    if hit is None:
        from flint import fmpz_poly

        if e0 == 0:
            hit = fmpz_poly(list(ev.c_vector(eg)))
        else:
            v = _poly_beta(ev, e0 - 1, eg)
            hit = ev.P * v.left_shift(1) + v.derivative().left_shift(1)
        ev._poly_cache[key] = hit
    return hit


def accumulate(
    evals: Sequence["BlockEvaluator"],
    poly: Sequence[tuple[tuple[tuple[int, tuple[int, ...]], ...], int]],
) -> list[int]:
    """``gamma = sum_terms coef * conv_b beta_b`` (polynomial products in flint)."""
    from flint import fmpz_poly

    acc = fmpz_poly(0)
    for sp, coef in poly:
        vec = fmpz_poly(coef)
        for ev, part in zip(evals, sp):
            vec = vec * _poly_beta(ev, *part)
        acc += vec
    out = [int(c) for c in acc.coeffs()]
    return out or [0]


def expectation_vector(
    lay: StatisticLayout,
    polys: Sequence[Sequence[tuple[Exponents, int]]],
    q: Sequence[int],
) -> list[list[int]]:
    """For each polynomial, integers ``gamma_w`` with ``E[poly] = sum_w (N)_w gamma_w / D^w``."""
    splits = [[(lay.split(e), coef) for e, coef in poly] for poly in polys]
    nb = len(lay.blocks)
    grid_max = []
    for b in range(nb):
        g = len(lay.blocks[b].grid)
        mx = [0] * g
        for poly in splits:
            for sp, _ in poly:
                for j, e in enumerate(sp[b][1]):
                    mx[j] = max(mx[j], e)
        grid_max.append(tuple(mx))
    evals = [BlockEvaluator(lay.blocks[b], q, grid_max[b]) for b in range(nb)]
    return [accumulate(evals, poly) for poly in splits]


def finish(gamma: Sequence[Any], N: int, D: int) -> Fraction:
    """``sum_w (N)_w gamma_w / D^w`` as an exact Fraction (``gamma``: ints or fmpz)."""
    W = len(gamma) - 1
    num = 0
    ff = 1
    Dp = D**W
    for w, g in enumerate(gamma):
        if w > 0:
            ff *= N - (w - 1)
            Dp //= D
        if ff == 0:
            break
        if g:
            num += g * ff * Dp
    return Fraction(int(num), D**W)
