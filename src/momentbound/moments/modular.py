"""Exact moments at a new ``(N, p)`` by multimodular arithmetic in a compiled kernel.

Same mathematics as :mod:`momentbound.moments.integer_plan` (closed-form class vectors, the
class-total chains, the products over blocks and the final sum over falling factorials),
evaluated modulo a set of primes below ``2**24`` by one numba kernel, then reassembled
with the Chinese remainder theorem:

* every quantity is an integer polynomial in the scaled probabilities ``q_c``, ``N`` and
  ``D`` (``p_c = q_c / D``); the kernel returns ``num_k = E[Z^k] * D^(W_k)`` modulo each
  prime, where ``W_k`` is the degree of the ``k``-th moment's falling-factorial vector.
  Nothing is ever divided modulo a prime, so no prime needs to be coprime to ``D``;
* residues are kept below ``2**24`` in float64, so a product of two residues is below
  ``2**48``, and up to 32 such products add up exactly (below ``2**53``) before one
  reduction ``x - floor(x / p) * p`` (corrected by one ``p`` either way);
* the number of primes comes from a rigorous bound: ``|E[Z^k]| <= max|Z|^k`` and
  ``max|Z| <= sum_terms |coef| * N^degree``, so with ``M = prod(primes) > 2 * max|num_k|``
  the symmetric residue modulo ``M`` *is* ``num_k``. The result is exact, not rounded.

The kernel covers statistics whose blocks have at most two grid features (every naive
Bayes statistic with one or two attributes, one class pair) and at most two blocks;
:class:`momentbound.moments.compiled.CompiledMoments` uses the python-flint integer plan
for the rest and for sweeps over ``N`` at a fixed ``p`` (which reuse its cached
``p``-dependent vectors). Both are exact and agree bit for bit (tests).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from momentbound.moments.polynomial_expectation import stirling2_row

__all__ = ["ModularPlan", "PRIME_BITS"]

PRIME_BITS = 24
_MIN_PRIME_BITS = PRIME_BITS - 1  # every prime used exceeds 2**23


_PRIMES: list[int] = []


@lru_cache(maxsize=None)
def _prime_list(n: int) -> tuple[int, ...]:
    """The ``n`` largest primes below ``2**24``, in decreasing order."""
    from sympy import prevprime

    p = _PRIMES[-1] if _PRIMES else 1 << PRIME_BITS
    while len(_PRIMES) < n:
        p = int(prevprime(p))
        _PRIMES.append(p)
    return tuple(_PRIMES[:n])


def _capacity(n: int, have: int) -> int:
    return max(n, 2 * have, 32) if n > have else have


class _ResidueTable:
    """Residues of fixed integers modulo the first primes, as a ``(len, capacity)`` array
    with ``capacity >= n`` (doubling when exceeded): the kernel reads columns ``j < n``."""

    def __init__(self, values: Sequence[int]):
        self.values = list(values)
        self.full = np.zeros((len(self.values), 0))

    def __call__(self, n: int) -> np.ndarray:
        if n > self.full.shape[1]:
            cap = _capacity(n, self.full.shape[1])
            self.full = _residues(self.values, cap) if self.values else np.zeros((0, cap))
        return self.full


@lru_cache(maxsize=None)
def _basis(n: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
    """For the first ``n`` primes: the primes and their reciprocals (float64), the modulus
    ``M = prod(primes)``, the inverses of ``M / p_i`` modulo ``p_i`` and the 32-bit limbs of
    ``M / p_i`` (the Chinese remainder step)."""
    ps = _prime_list(n)
    primes = np.asarray(ps, dtype=np.float64)
    M = math.prod(ps)
    nl = (M.bit_length() + 31) // 32
    limbs = np.zeros((n, nl), dtype=np.uint64)
    inv = np.zeros(n)
    for i, p in enumerate(ps):
        Mi = M // p
        inv[i] = pow(Mi % p, -1, p)
        limbs[i] = np.frombuffer(Mi.to_bytes(4 * nl, "little"), dtype="<u4")
    return primes, 1.0 / primes, M, inv, limbs


def _residues(values: Sequence[int], n: int) -> np.ndarray:
    """``values[i] mod primes[j]`` as a float64 array of shape ``(len(values), n)``."""
    ps = _prime_list(n)
    if all(-(1 << 62) < v < (1 << 62) for v in values):
        arr = np.asarray(values, dtype=np.int64)[:, None] % np.asarray(ps, dtype=np.int64)[None, :]
        return arr.astype(np.float64)
    return np.array([[v % p for p in ps] for v in values], dtype=np.float64)


class _BlockTables:
    """Prime-independent integer tables of one block for the kernel."""

    def __init__(self, blk: Any, fast_block: Any, max_e0: Sequence[int], base: Sequence[int]):
        from momentbound.moments import integer_plan as fp

        cells = tuple(blk.cells)
        if isinstance(fast_block, fp.TwoGridBlock):
            hsets = [fast_block.cells1, fast_block.cells2, fast_block.cells12]
            recipes = [(a, b, int(sym)) for a, b, sym in fast_block.base_recipes]
            monos = list(fast_block.mono_recipes)
            slots = fast_block.terms  # per slot: per m: (coefs, mono indices)
        elif isinstance(fast_block, fp.OneGridBlock):
            hsets = [fast_block.cells, (), ()]
            top = max(fast_block.egs)
            recipes = [(m, 0, 0) for m in range(top + 1)]
            monos = [(m, 0) for m in range(top + 1)]
            slots = []
            for e in fast_block.egs:
                row = stirling2_row(e)
                slots.append([((row[m],), (m,)) if row[m] else ((), ()) for m in range(e + 1)])
        elif isinstance(fast_block, fp.NoGridBlock):
            hsets = [(), (), ()]
            recipes = [(0, 0, 0)]
            monos = [(0, 0)]
            slots = [[((1,), (0,))] for _ in range(fast_block.n)]
        else:  # pragma: no cover - guarded by ModularPlan.supported
            raise TypeError("blocks with three or more grid features are not supported")
        flat: list[int] = []
        off = [0]
        for s in list(hsets) + [cells]:
            flat.extend(s)
            off.append(len(flat))
        self.cells_flat = np.asarray(flat, dtype=np.int64)
        self.cells_off = np.asarray(off, dtype=np.int64)
        self.base = np.asarray(recipes, dtype=np.int64).reshape(-1, 3)
        self.mono = np.asarray(monos, dtype=np.int64).reshape(-1, 2)
        self.npow1 = int(max(max(r[0], r[1]) for r in recipes)) + 1
        self.npow12 = int(max(m[1] for m in monos)) + 1
        slot_len, rng_start, rng_end, rng_off = [], [], [], []
        term_mono: list[int] = []
        self.term_coef: list[int] = []
        for per_m in slots:
            rng_off.append(len(rng_start))
            slot_len.append(len(per_m))
            for coefs, idx in per_m:
                rng_start.append(len(term_mono))
                term_mono.extend(idx)
                self.term_coef.extend(coefs)
                rng_end.append(len(term_mono))
        self.slot_len = np.asarray(slot_len, dtype=np.int64)
        self.rng_start = np.asarray(rng_start, dtype=np.int64)
        self.rng_end = np.asarray(rng_end, dtype=np.int64)
        self.rng_off = np.asarray(rng_off, dtype=np.int64)
        self.term_mono = np.asarray(term_mono, dtype=np.int64)
        self.chain_off = np.asarray(base, dtype=np.int64)
        self.max_e0 = np.asarray(max_e0, dtype=np.int64)
        key_len = []
        for length, top in zip(slot_len, max_e0):
            key_len.extend(length + e0 for e0 in range(top + 1))
        self.key_len = np.asarray(key_len, dtype=np.int64)
        self.maxlen = int(max(key_len))
        self.coef_residues = _ResidueTable(self.term_coef)

    def args(self, n: int) -> tuple[Any, ...]:
        return (
            self.cells_flat, self.cells_off, self.base, self.mono, self.npow1, self.npow12,
            self.slot_len, self.rng_start, self.rng_end, self.rng_off, self.term_mono,
            self.coef_residues(n), self.chain_off, self.max_e0, self.key_len,
        )


class _Unit:
    """A block with no cells and the constant polynomial 1 (single-block statistics)."""

    def __init__(self) -> None:
        self.cells_flat = np.zeros(0, dtype=np.int64)
        self.cells_off = np.zeros(5, dtype=np.int64)
        self.base = np.zeros((1, 3), dtype=np.int64)
        self.mono = np.zeros((1, 2), dtype=np.int64)
        self.npow1 = self.npow12 = 1
        self.slot_len = np.ones(1, dtype=np.int64)
        self.rng_start = np.zeros(1, dtype=np.int64)
        self.rng_end = np.ones(1, dtype=np.int64)
        self.rng_off = np.zeros(1, dtype=np.int64)
        self.term_mono = np.zeros(1, dtype=np.int64)
        self.chain_off = np.zeros(1, dtype=np.int64)
        self.max_e0 = np.zeros(1, dtype=np.int64)
        self.key_len = np.ones(1, dtype=np.int64)
        self.maxlen = 1

    def args(self, n: int) -> tuple[Any, ...]:
        return (
            self.cells_flat, self.cells_off, self.base, self.mono, self.npow1, self.npow12,
            self.slot_len, self.rng_start, self.rng_end, self.rng_off, self.term_mono,
            np.ones((1, n)), self.chain_off, self.max_e0, self.key_len,
        )


class ModularPlan:
    """Multimodular evaluation of a :class:`~momentbound.moments.integer_plan.FastPlan`."""

    def __init__(self, fast: Any, statistic: Any):
        blocks = list(fast.blocks)
        lay = fast.lay
        tabs: list[Any] = [
            _BlockTables(blk, fb, fast.max_e0[b], fast.base[b])
            for b, (blk, fb) in enumerate(zip(lay.blocks, blocks))
        ]
        if len(tabs) == 1:
            tabs.append(_Unit())
        self.tabs = tabs
        t_poly, t_a, t_b, t_coef, wdeg = [], [], [], [], []
        la, lb = tabs[0].key_len, tabs[1].key_len
        for k, terms in enumerate(fast.terms):
            w = 0
            for coef, keys in terms:
                ka = keys[0]
                kb = keys[1] if len(keys) > 1 else 0
                t_poly.append(k)
                t_a.append(ka)
                t_b.append(kb)
                t_coef.append(coef)
                w = max(w, int(la[ka]) + int(lb[kb]) - 2)
            wdeg.append(w)
        self.t_poly = np.asarray(t_poly, dtype=np.int64)
        self.t_a = np.asarray(t_a, dtype=np.int64)
        self.t_b = np.asarray(t_b, dtype=np.int64)
        self.t_coef = t_coef
        self.wdeg = np.asarray(wdeg, dtype=np.int64)
        self.W = [int(w) for w in wdeg]
        self.npoly = len(fast.terms)
        # max |statistic| <= sum |coef| N^degree: a rigorous bound for the CRT modulus
        self.stat_terms = [(abs(c), sum(e)) for e, c in statistic.term_dict.items()]
        # naive Bayes: Z = N_l^(d-1) prod N^j_k - N_k^(d-1) prod N^j_l is a difference of two
        # non-negative terms, each at most max_{a+b<=N} a^(d-1) b^d
        st = getattr(statistic, "structure", None)
        self.nb_d = st.d if st is not None else None
        self._tcoef_res = _ResidueTable(self.t_coef)
        self._work: Any = None

    @staticmethod
    def supported(fast: Any) -> bool:
        from momentbound.moments import integer_plan as fp

        ok = (fp.NoGridBlock, fp.OneGridBlock, fp.TwoGridBlock)
        return 1 <= len(fast.blocks) <= 2 and all(isinstance(b, ok) for b in fast.blocks)

    def zmax(self, N: int) -> int:
        """A rigorous upper bound on ``max |statistic|`` over count tables of total ``N``."""
        if self.nb_d is not None:
            d = self.nb_d
            num = N ** (2 * d - 1) * (d - 1) ** (d - 1) * d**d
            den = (2 * d - 1) ** (2 * d - 1)
            return max(1, -(-num // den))
        return sum(c * N**d for c, d in self.stat_terms) or 1

    def n_primes(self, N: int, D: int) -> int:
        zmax = self.zmax(N)
        bits = max(k * zmax.bit_length() + w * D.bit_length() for k, w in enumerate(self.W))
        return max(1, -(-(bits + 2) // _MIN_PRIME_BITS))

    def numerators(self, q: Sequence[int], D: int, N: int) -> list[int]:
        """``num_k = E[stat^k] * D^(W_k)`` exactly, for every order ``k``."""
        n = self.n_primes(N, D)
        primes, pinv, M, inv, mi_limbs = _basis(n)
        qres = _residues(list(q), n)
        nd = _residues([N, D], n)
        tc = self._tcoef_res(n)
        work = self._work
        if work is None or n > work[0].shape[1]:  # reused: no allocation (page faults) per call
            cap = _capacity(n, 0 if work is None else work[0].shape[1])
            ta, tb = self.tabs
            work = (
                np.zeros((ta.mono.shape[0], cap)), np.zeros((len(ta.key_len), ta.maxlen, cap)),
                np.zeros((tb.mono.shape[0], cap)), np.zeros((len(tb.key_len), tb.maxlen, cap)),
                np.zeros((self.npoly, max(self.W) + 1, cap)),
            )
            self._work = work
        compiled = _compiled()
        res = compiled.kernel(
            qres, nd[0], nd[1], primes, pinv,
            *self.tabs[0].args(n), *self.tabs[1].args(n),
            self.t_poly, self.t_a, self.t_b, tc, self.wdeg, self.npoly, *work,
        )
        # sum_i c_i M_i < n M: 7 more bits than M, at most two more limbs
        limbs = np.zeros((res.shape[0], mi_limbs.shape[1] + 2), dtype=np.uint64)
        compiled.crt_limbs(res, primes, pinv, inv, mi_limbs, limbs)
        half = M >> 1
        out = []
        raw = limbs.astype("<u4").tobytes()
        width = 4 * limbs.shape[1]
        for k in range(res.shape[0]):
            if k == 0:  # E[stat^0] = 1
                out.append(D ** self.W[0])
                continue
            x = int.from_bytes(raw[k * width:(k + 1) * width], "little") % M
            out.append(x - M if x > half else x)
        return out


def _compiled() -> Any:
    """The numba module (numba is imported on first use; machine code is cached on disk)."""
    from momentbound.moments import _modular_kernel

    return _modular_kernel
