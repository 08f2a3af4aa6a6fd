"""Fast re-evaluation of compiled moments at new cell probabilities.

:class:`momentbound.moments.compiled.CompiledMoments` derives the ``p``-independent
structure once; this module evaluates the ``p``-dependent integer vectors ``gamma`` with
as few Python-level operations as possible. Same mathematics as
:mod:`momentbound.moments.polynomial_expectation` (exact integers throughout), two changes:

* **Closed-form block vectors.** For a block with two grid features ``A, B`` (every
  ``d = 2`` naive Bayes class) the conditional factorial-moment vector
  ``c[m] = sum_t S(e1,t1) t1! S(e2,t2) t2! [u^t] H^m / m!`` with
  ``H = h1 u1 + h2 u2 + h12 u1 u2`` is

  ``c(z) = sum_j (h12 z)^j / j! * T_e1^(j)(h1 z) * T_e2^(j)(h2 z)``,

  with ``T_e(x) = sum_t S(e, t) x^t`` the Touchard polynomial (expand
  ``exp(z h12 u1 u2)`` and apply the surjection weights to each factor). So
  ``c[m] = sum_{a+b+j=m} j! D_{e1,j}[a] D_{e2,j}[b] h1^a h2^b h12^j`` with the integer
  tables ``D_{e,j}[a] = S(e, a+j) C(a+j, j)``: the coefficients are derived once and
  the evaluation is one pass of C-level dot products over a monomial table. One grid
  feature: ``c(z) = T_e(h1 z)``; no grid feature: ``c = 1``. Blocks with three or more
  grid features use the general power-table evaluator of the engine.
* **Total-count chains and products in C.** Multiplying by the block total ``n`` is the
  linear map ``v -> x (P v + v')`` on falling-factorial vectors (four ``fmpz_poly``
  calls per step); the products over blocks are ``fmpz_poly`` multiplications. The
  ``p``-independent bookkeeping (which chain state each term needs) is flattened into
  integer indices at compile time.

What is left is about 800 flint calls and 30,000 small multi-limb products for the 12
moments of the 2x2x2 ``Z`` (about 2 ms on a loaded 2-core machine, against a 1 ms target),
see benchmarks/RESULTS.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from operator import itemgetter, mul
from typing import Any

from momentbound.moments.polynomial_expectation import Block, BlockEvaluator, StatisticLayout, stirling2_row

__all__ = ["FastPlan"]

Split = tuple[tuple[int, tuple[int, ...]], ...]


@lru_cache(maxsize=None)
def _touchard_derivative_table(e: int, j: int) -> tuple[int, ...]:
    """``D_{e,j}[a] = S(e, a + j) C(a + j, j)``: coefficients of ``T_e^(j)(x) / j!``."""
    row = stirling2_row(e)
    return tuple(row[a + j] * math.comb(a + j, j) for a in range(e - j + 1))


class TwoGridBlock:
    """Closed-form ``c`` vectors of a block with two grid features (see module doc)."""

    def __init__(self, block: Block, egs: Sequence[tuple[int, ...]]):
        subsets = dict(block.subsets)
        self.cells1 = tuple(subsets.get((1, 0), ()))
        self.cells2 = tuple(subsets.get((0, 1), ()))
        self.cells12 = tuple(subsets.get((1, 1), ()))
        self.amax = max(e[0] for e in egs)
        self.bmax = max(e[1] for e in egs)
        self.jmax = max(min(e) for e in egs)
        # Monomials h1^a h2^b h12^j. For a symmetric exponent pair (e, e) the coefficient
        # of (a, b, j) equals that of (b, a, j), so such terms share the symmetrised
        # monomial (h1^a h2^b + h1^b h2^a) h12^j: about half the terms.
        bases: dict[tuple[int, int, bool], int] = {}
        monos: dict[tuple[int, int], int] = {}

        def mono_index(a: int, b: int, j: int, sym: bool) -> int:
            key = (a, b, sym)
            if key not in bases:
                bases[key] = len(bases)
            mk = (bases[key], j)
            if mk not in monos:
                monos[mk] = len(monos)
            return monos[mk]

        self.plan: list[list[tuple[tuple[int, ...], Any]]] = []
        # the same terms as (coefficients, monomial indices), for moments/modular.py
        self.terms: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = []
        for e1, e2 in egs:
            per_m: list[dict[int, int]] = [{} for _ in range(e1 + e2 + 1)]
            for j in range(min(e1, e2) + 1):
                fj = math.factorial(j)
                d1 = _touchard_derivative_table(e1, j)
                d2 = _touchard_derivative_table(e2, j)
                for a, x in enumerate(d1):
                    if not x:
                        continue
                    for b, y in enumerate(d2):
                        if not y or (e1 == e2 and b < a):
                            continue
                        sym = e1 == e2 and a != b
                        k = mono_index(a, b, j, sym)
                        per_m[a + b + j][k] = per_m[a + b + j].get(k, 0) + fj * x * y
            entry = []
            self.terms.append([(tuple(t.values()), tuple(t.keys())) for t in per_m])
            for terms in per_m:
                coefs = tuple(terms.values())
                idx = list(terms.keys())
                # itemgetter with one index returns a scalar, not a tuple
                if len(idx) > 1:
                    getter: Any = itemgetter(*idx)
                elif idx:
                    getter = lambda v, i=idx[0]: (v[i],)  # noqa: E731
                else:
                    getter = lambda v: ()  # noqa: E731
                entry.append((coefs, getter))
            self.plan.append(entry)
        self.base_recipes = tuple(bases)  # (a, b, sym) in index order
        self.mono_recipes = tuple(monos)  # (base index, j) in index order

    def vectors(self, q: Sequence[int]) -> list[list[int]]:
        h1 = sum(q[c] for c in self.cells1)
        h2 = sum(q[c] for c in self.cells2)
        h12 = sum(q[c] for c in self.cells12)
        p1 = _powers(h1, max(self.amax, self.bmax))
        p2 = _powers(h2, max(self.amax, self.bmax))
        p12 = _powers(h12, self.jmax)
        base = [
            p1[a] * p2[b] + p1[b] * p2[a] if sym else p1[a] * p2[b]
            for a, b, sym in self.base_recipes
        ]
        mono = [base[i] * p12[j] for i, j in self.mono_recipes]
        return [[sum(map(mul, coefs, get(mono))) for coefs, get in entry] for entry in self.plan]


class OneGridBlock:
    """One grid feature: ``c[m] = S(e, m) h^m``."""

    def __init__(self, block: Block, egs: Sequence[tuple[int, ...]]):
        self.cells = tuple(dict(block.subsets).get((1,), ()))
        self.egs = [e[0] for e in egs]

    def vectors(self, q: Sequence[int]) -> list[list[int]]:
        h = sum(q[c] for c in self.cells)
        pw = _powers(h, max(self.egs))
        return [list(map(mul, stirling2_row(e), pw)) for e in self.egs]


class NoGridBlock:
    """No grid feature: ``c = 1``."""

    def __init__(self, block: Block, egs: Sequence[tuple[int, ...]]):
        self.n = len(egs)

    def vectors(self, q: Sequence[int]) -> list[list[int]]:
        return [[1] for _ in range(self.n)]


class GeneralBlock:
    """Three or more grid features: the engine's power-table evaluator."""

    def __init__(self, block: Block, egs: Sequence[tuple[int, ...]], grid_max: tuple[int, ...]):
        self.block = block
        self.egs = list(egs)
        self.grid_max = grid_max

    def vectors(self, q: Sequence[int]) -> list[list[int]]:
        ev = BlockEvaluator(self.block, q, self.grid_max)
        return [list(ev.c_vector(eg)) for eg in self.egs]


def _powers(h: int, n: int) -> list[int]:
    out = [1] * (n + 1)
    for i in range(1, n + 1):
        out[i] = out[i - 1] * h
    return out


class FastPlan:
    """``p``-dependent evaluation of ``gamma`` for a compiled statistic.

    ``gammas(q)`` returns, for every polynomial of ``splits``, integers ``gamma_w`` with
    ``E[poly] = sum_w (N)_w gamma_w / D^w`` where ``p_c = q_c / D``; exactly the
    numbers of :func:`momentbound.moments.polynomial_expectation.accumulate`.
    """

    def __init__(
        self,
        lay: StatisticLayout,
        splits: Sequence[Sequence[tuple[Split, int]]],
        grid_max: Sequence[tuple[int, ...]],
    ):
        self.lay = lay
        nb = len(lay.blocks)
        needs: list[dict[tuple[int, ...], int]] = [{} for _ in range(nb)]
        for poly in splits:
            for sp, _ in poly:
                for b, (e0, eg) in enumerate(sp):
                    if needs[b].get(eg, -1) < e0:
                        needs[b][eg] = e0
        self.egs = [sorted(nd) for nd in needs]
        self.max_e0 = [[needs[b][eg] for eg in self.egs[b]] for b in range(nb)]
        self.slot = [{eg: s for s, eg in enumerate(self.egs[b])} for b in range(nb)]
        self.blocks: list[Any] = []
        for b, blk in enumerate(lay.blocks):
            g = len(blk.grid)
            if g == 0:
                self.blocks.append(NoGridBlock(blk, self.egs[b]))
            elif g == 1:
                self.blocks.append(OneGridBlock(blk, self.egs[b]))
            elif g == 2:
                self.blocks.append(TwoGridBlock(blk, self.egs[b]))
            else:
                self.blocks.append(GeneralBlock(blk, self.egs[b], tuple(grid_max[b])))
        # offset of grid exponent s of block b in the flat chain list of that block
        self.base = []
        for b in range(nb):
            offs, o = [], 0
            for top in self.max_e0[b]:
                offs.append(o)
                o += top + 1
            self.base.append(offs)
        # terms of every polynomial as (coef, (flat chain index per block))
        self.terms = [
            [
                (coef, tuple(self.base[b][self.slot[b][eg]] + e0 for b, (e0, eg) in enumerate(sp)))
                for sp, coef in poly
            ]
            for poly in splits
        ]

    def _chains(self, b: int, cvecs: list[list[int]], P: Any) -> list[Any]:
        """Flat list: ``out[self.base[b][s] + e0]`` is the falling-factorial vector of
        ``n^e0 * (grid monomial s)`` of block ``b`` (``v -> x (P v + v')`` per step)."""
        from flint import fmpz_poly

        deriv = fmpz_poly.derivative
        lsh = fmpz_poly.left_shift
        out: list[Any] = []
        for vec, top in zip(cvecs, self.max_e0[b]):
            v = fmpz_poly(vec)
            out.append(v)
            for _ in range(top):
                v = lsh(v * P + deriv(v), 1)
                out.append(v)
        return out

    def gammas(self, q: Sequence[int]) -> list[list[int]]:
        from flint import fmpz, fmpz_poly

        betas = []
        for b, blk in enumerate(self.lay.blocks):
            cvecs = self.blocks[b].vectors(q)
            P = fmpz(sum(q[c] for c in blk.cells))
            betas.append(self._chains(b, cvecs, P))
        out = []
        zero = fmpz_poly(0)
        one = fmpz_poly(1)
        if len(betas) == 2:
            A, B = betas
            for terms in self.terms:
                acc = zero
                for coef, (ka, kb) in terms:
                    if coef == 1:
                        acc = acc + A[ka] * B[kb]
                    elif coef == -1:
                        acc = acc - A[ka] * B[kb]
                    else:
                        acc = acc + A[ka] * B[kb] * coef
                out.append(list(map(int, acc.coeffs())) or [0])
            return out
        for terms in self.terms:
            acc = zero
            for coef, parts in terms:
                prod = one
                for bd, key in zip(betas, parts):
                    prod = prod * bd[key]
                acc = acc + prod * coef
            out.append(list(map(int, acc.coeffs())) or [0])
        return out
