"""Symbolic moments: ``E[Z^k]`` as a sympy polynomial in ``N`` and the cell probabilities.

This path is deliberately independent of the structured engine: it expands ``Z^k`` in
the *atoms* (groups of cells that belong to exactly the same features; for the 2x2x2
naive Bayes statistic these are the 8 cells) with python-flint, and replaces each
monomial by its multinomial moment from the factorial moments (docs/mathematics.md, section
'Factorial moments'):

``E[prod_a M_a^{v_a}] = sum_{j <= v} prod_a S(v_a, j_a) (N)_{|j|} prod_a q_a^{j_a}``.

Expansion cost grows fast with ``k`` (``Z^6`` of the 2x2x2 model has 63,540 monomials);
use it for formulas and as a cross-check, and :func:`raw_moments` for numbers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from momentbound.errors import InvalidArgument
from momentbound.model.statistics import Statistic
from momentbound.moments.polynomial_expectation import stirling2_row

__all__ = ["symbolic_moment", "cell_probability_symbols", "N_SYMBOL", "substitute"]


def _sympy():
    import sympy

    return sympy


@lru_cache(maxsize=None)
def _n_symbol():
    return _sympy().Symbol("N", integer=True, nonnegative=True)


def __getattr__(name: str) -> Any:
    if name == "N_SYMBOL":
        return _n_symbol()
    raise AttributeError(name)


@lru_cache(maxsize=None)
def cell_probability_symbols(n_cells: int) -> tuple:
    """Sympy symbols ``p_0 .. p_{C-1}`` for the cell probabilities."""
    return tuple(_sympy().symbols(f"p_0:{n_cells}", nonnegative=True))


def _atoms(stat: Statistic) -> list[tuple[int, ...]]:
    groups: dict[tuple[int, ...], list[int]] = {}
    for c in range(stat.n_cells):
        sig = tuple(1 if c in f.cells else 0 for f in stat.features)
        if any(sig):
            groups.setdefault(sig, []).append(c)
    return [tuple(v) for v in groups.values()]


def symbolic_moment(statistic: Statistic, k: int) -> Any:
    """``E[Z^k]`` as a sympy expression in ``N`` and ``p_0..p_{C-1}``.

    Parameters
    ----------
    statistic:
        The statistic ``Z``.
    k:
        Moment order (keep it small: the expansion of ``Z^k`` grows quickly).

    Returns
    -------
    sympy.Poly
        Integer polynomial in the generators ``(N, p_0, ..., p_{C-1})`` (call
        ``.as_expr()`` for an expression; the falling factorials ``(N)_w`` are expanded).

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> z = naive_bayes_statistic(CellModel.uniform((2,)), (0,))
    >>> symbolic_moment(z, 1).as_expr()
    N*p_0 - N*p_1
    """
    if not isinstance(statistic, Statistic):
        raise InvalidArgument(f"statistic must be a Statistic, got {type(statistic).__name__}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InvalidArgument(f"k must be a non-negative integer, got {k!r}")
    import flint

    sp = _sympy()
    atoms = _atoms(statistic)
    A = len(atoms)
    gens_all = (_n_symbol(),) + cell_probability_symbols(statistic.n_cells)
    if A == 0 or k == 0:
        const = statistic.evaluate([0] * statistic.n_cells) ** k
        return sp.Poly(sp.Integer(const), *gens_all, domain="ZZ")
    ctx = flint.fmpz_mpoly_ctx.get(tuple(f"M{a}" for a in range(A)), "lex")
    gens = ctx.gens()
    feat_polys = []
    for f in statistic.features:
        terms = [gens[a] for a, cells in enumerate(atoms) if cells[0] in f.cells]
        acc = ctx.from_dict({})
        for t in terms:
            acc = acc + t
        feat_polys.append(acc)
    z = ctx.from_dict({})
    for exps, coef in statistic.terms:
        t = ctx.from_dict({(0,) * A: coef})
        for fp, e in zip(feat_polys, exps):
            if e:
                t = t * fp**e
        z = z + t
    zk = z**k
    # factorial-moment substitution, in variables (q_0..q_{A-1}, w) where w^j marks (N)_j
    ctx2 = flint.fmpz_mpoly_ctx.get(tuple(f"q{a}" for a in range(A)) + ("w",), "lex")
    cache: dict[tuple[int, int], Any] = {}

    def touchard(a: int, v: int):
        key = (a, v)
        if key not in cache:
            d = {}
            for j, s in enumerate(stirling2_row(v)):
                if s:
                    e = [0] * (A + 1)
                    e[a] = j
                    e[A] = j
                    d[tuple(e)] = s
            cache[key] = ctx2.from_dict(d)
        return cache[key]

    result = ctx2.from_dict({})
    one = ctx2.from_dict({(0,) * (A + 1): 1})
    for exps, coef in zk.terms():
        t = one * int(coef)
        for a, v in enumerate(exps):
            if v:
                t = t * touchard(a, v)
        result = result + t
    # group by the power of w, substitute atoms -> sums of cell probabilities and
    # w^j -> (N)_j, all in flint; sympy only sees the final dictionary
    n_c = statistic.n_cells
    ctx3 = flint.fmpz_mpoly_ctx.get(("N",) + tuple(f"p_{c}" for c in range(n_c)), "lex")
    g3 = ctx3.gens()
    zero3 = ctx3.from_dict({})
    q_sub = []
    for cells in atoms:
        acc3 = zero3
        for c in cells:
            acc3 = acc3 + g3[1 + c]
        q_sub.append(acc3)
    by_w: dict[int, dict] = {}
    for exps, coef in result.terms():
        by_w.setdefault(exps[A], {})[tuple(exps[:A])] = int(coef)
    ctx_q = flint.fmpz_mpoly_ctx.get(tuple(f"q{a}" for a in range(A)), "lex")
    total = zero3
    for w, d in by_w.items():
        poly_q = ctx_q.from_dict(d)
        poly_p = poly_q.compose(*q_sub, ctx=ctx3)
        ff = ctx3.from_dict({(0,) * (n_c + 1): 1})
        for i in range(w):
            ff = ff * (g3[0] - i)
        total = total + ff * poly_p
    gens = (_n_symbol(),) + cell_probability_symbols(n_c)
    return sp.Poly.from_dict({e: int(c) for e, c in total.terms()} or {(0,) * (n_c + 1): 0}, gens, domain="ZZ")


def substitute(poly: Any, N: int, probs: Any) -> Any:
    """Evaluate a :func:`symbolic_moment` polynomial exactly at ``(N, probs)``."""
    from fractions import Fraction

    vals = [Fraction(int(N))] + [Fraction(v) for v in probs]
    if len(vals) != len(poly.gens):
        raise InvalidArgument(
            f"probs must have {len(poly.gens) - 1} entries (one per cell), got {len(probs)}"
        )
    total = Fraction(0)
    for exps, coef in poly.terms():
        t = Fraction(int(coef))
        for v, e in zip(vals, exps):
            if e:
                t *= v**e
        total += t
    return total
