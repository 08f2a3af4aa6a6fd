"""Polynomial statistics of the cell counts, and the naive Bayes decision statistic.

A :class:`Statistic` is a polynomial with integer coefficients in *features*, where each
feature is a sum of cell counts (a class count ``N_k``, an attribute-class count
``N^j_{v,k}``, or a single cell). Keeping the features, instead of expanding into cell
counts, is what lets the moment engine exploit the structure (docs/mathematics.md, sections 'The
decision statistic Z' and
'Factorial moments'): the
naive Bayes ``Z_x`` is a two-term polynomial in six features, while ``Z_x^12`` expanded
in the cell counts of the 2x2x2 model has millions of monomials.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from momentbound.errors import InvalidArgument, InvalidModel
from momentbound.model.enumeration import count_tables, n_count_tables

if TYPE_CHECKING:
    import sympy

    from momentbound.model.cells import CellModel

__all__ = [
    "Feature",
    "Statistic",
    "NaiveBayesStructure",
    "naive_bayes_statistic",
    "cell_statistic",
    "SUPPORT_ENUMERATION_LIMIT",
]

#: Largest number of count tables :meth:`Statistic.support` enumerates for a statistic
#: without known structure.
SUPPORT_ENUMERATION_LIMIT = 2_000_000

Exponents = tuple[int, ...]


@dataclass(frozen=True)
class Feature:
    """A sum of cell counts ``sum_{c in cells} N_c`` with a descriptive name."""

    name: str
    cells: frozenset[int]

    def evaluate(self, counts: Sequence[int]) -> int:
        return sum(counts[c] for c in self.cells)


@dataclass(frozen=True)
class NaiveBayesStructure:
    """How ``Z_x^{k,l}`` is built from class-wise sums (used for exact support bounds).

    ``Z = N_l^(d-1) prod_j N^j_{x^j,k} - N_k^(d-1) prod_j N^j_{x^j,l}``.
    """

    x: tuple[int, ...]
    k: int
    l: int
    d: int
    class_count_k: int  # feature index of N_k
    class_count_l: int  # feature index of N_l
    agree_k: tuple[int, ...]  # feature indices of N^j_{x^j,k}, j = 1..d
    agree_l: tuple[int, ...]


@dataclass(frozen=True)
class Statistic:
    """A polynomial with integer coefficients in sums of cell counts.

    Parameters
    ----------
    n_cells:
        Number of cells of the model the statistic lives on.
    features:
        The sums of cell counts the polynomial is written in.
    terms:
        ``((exponents, coefficient), ...)``: exponents has one entry per feature.
    name:
        Human-readable name (``"Z_(0, 0)^{0,1}"``).
    structure:
        Optional :class:`NaiveBayesStructure` for the naive Bayes statistic.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> z = naive_bayes_statistic(equal_cells_model((2, 2)), (0, 0))
    >>> z.degree, z.evaluate((1, 0, 0, 0, 0, 0, 0, 0)), z.support(3)
    (3, 0, (-4, 4))
    """

    n_cells: int
    features: tuple[Feature, ...]
    terms: tuple[tuple[Exponents, int], ...]
    name: str = ""
    structure: Optional[NaiveBayesStructure] = field(default=None, compare=False)

    # ------------------------------------------------------------------ construction
    @staticmethod
    def from_terms(
        n_cells: int,
        features: Sequence[Feature],
        terms: Mapping[Exponents, int] | Iterable[tuple[Exponents, int]],
        name: str = "",
        structure: Optional[NaiveBayesStructure] = None,
    ) -> "Statistic":
        """Normalise (merge equal features, drop zero terms, sort) and build."""
        items = list(terms.items()) if isinstance(terms, Mapping) else list(terms)
        feats: list[Feature] = []
        where: dict[frozenset[int], int] = {}
        remap: list[int] = []
        for f in features:
            for c in f.cells:
                if not 0 <= c < n_cells:
                    raise InvalidArgument(
                        f"feature {f.name!r} uses cell {c}, outside 0..{n_cells - 1}"
                    )
            if f.cells not in where:
                where[f.cells] = len(feats)
                feats.append(f)
            remap.append(where[f.cells])
        acc: dict[Exponents, int] = {}
        for exps, coef in items:
            if len(exps) != len(features):
                raise InvalidArgument(
                    f"term exponents {exps} must have one entry per feature ({len(features)})"
                )
            new = [0] * len(feats)
            for i, e in enumerate(exps):
                if int(e) < 0:
                    raise InvalidArgument(f"term exponents must be non-negative, got {exps}")
                new[remap[i]] += int(e)
            key = tuple(new)
            acc[key] = acc.get(key, 0) + int(coef)
        if structure is not None and remap != list(range(len(features))):
            structure = None
        clean = tuple(sorted((k, v) for k, v in acc.items() if v != 0))
        return Statistic(n_cells, tuple(feats), clean, name, structure)

    @staticmethod
    def constant(n_cells: int, value: int) -> "Statistic":
        return Statistic.from_terms(n_cells, [], {(): int(value)}, name=str(value))

    # ------------------------------------------------------------------ properties
    @cached_property
    def degree(self) -> int:
        """Total degree in the cell counts (each feature is linear)."""
        return max((sum(e) for e, _ in self.terms), default=0)

    @property
    def term_dict(self) -> dict[Exponents, int]:
        return dict(self.terms)

    @cached_property
    def expr(self) -> "sympy.Expr":
        """The statistic as a sympy expression in the cell counts ``N_0 .. N_{C-1}``."""
        import sympy

        cells = sympy.symbols(f"N_0:{self.n_cells}", integer=True, nonnegative=True)
        fs = [sympy.Add(*(cells[c] for c in sorted(f.cells))) for f in self.features]
        return sympy.Add(
            *(coef * sympy.Mul(*(fs[i] ** e for i, e in enumerate(exps))) for exps, coef in self.terms)
        )

    @cached_property
    def feature_expr(self) -> "sympy.Expr":
        """The statistic in its descriptive features (``N_k``, ``N^j_{v,k}``)."""
        import sympy

        fs = [sympy.Symbol(f.name, integer=True, nonnegative=True) for f in self.features]
        return sympy.Add(
            *(coef * sympy.Mul(*(fs[i] ** e for i, e in enumerate(exps))) for exps, coef in self.terms)
        )

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, counts: Sequence[int]) -> int:
        """Exact value at one count table.

        Examples
        --------
        >>> from momentbound.model import equal_cells_model
        >>> naive_bayes_statistic(equal_cells_model((2,)), (0,)).evaluate((3, 1, 0, 2))
        2
        """
        if len(counts) != self.n_cells:
            raise InvalidArgument(
                f"counts must have one entry per cell ({self.n_cells}), got {len(counts)}"
            )
        fv = [f.evaluate(counts) for f in self.features]
        total = 0
        for exps, coef in self.terms:
            t = coef
            for v, e in zip(fv, exps):
                if e:
                    t *= v**e
            total += t
        return total

    def support(self, N: int) -> tuple[int, int]:
        """Exact ``(min, max)`` of the statistic over all count tables with total ``N``.

        Derived from the structure for the naive Bayes statistic (fast for large ``N``);
        otherwise by enumeration of at most :data:`SUPPORT_ENUMERATION_LIMIT` tables.

        Examples
        --------
        >>> from momentbound.model import equal_cells_model
        >>> naive_bayes_statistic(equal_cells_model((2, 2)), (0, 0)).support(10)
        (-147, 147)
        """
        N = _check_N(N)
        if self.structure is not None:
            d = self.structure.d
            # Z <= N_l^(d-1) prod_j A_j <= N_l^(d-1) N_k^d, attained by putting all class-k
            # points in cell (x, k) and all class-l points in a cell that disagrees with x
            # (every arity is >= 2); the minimum is the mirror image. f(n) = (N-n)^(d-1) n^d
            # is log-concave on [0, N] with its real maximum at n* = dN / (2d - 1), so the
            # integer maximum is at floor(n*) or floor(n*) + 1.
            n0 = d * N // (2 * d - 1)
            best = max((N - n) ** (d - 1) * n**d for n in (n0, n0 + 1) if 0 <= n <= N)
            return (-best, best)
        n_tab = n_count_tables(self.n_cells, N)
        if n_tab > SUPPORT_ENUMERATION_LIMIT:
            raise InvalidArgument(
                f"support of {self.name or 'this statistic'} at N={N} would enumerate {n_tab} "
                f"count tables (limit {SUPPORT_ENUMERATION_LIMIT}); use a smaller N or a "
                f"statistic with known structure (naive_bayes_statistic)"
            )
        vals = [self.evaluate(t) for t in count_tables(self.n_cells, N)]
        return (min(vals), max(vals))

    # ------------------------------------------------------------------ algebra
    def _combine(self, other: "Statistic") -> tuple[list[Feature], dict, dict]:
        if self.n_cells != other.n_cells:
            raise InvalidArgument(
                f"statistics live on models with different numbers of cells "
                f"({self.n_cells} and {other.n_cells})"
            )
        feats = list(self.features)
        where = {f.cells: i for i, f in enumerate(feats)}
        pos_other = []
        for f in other.features:
            if f.cells not in where:
                where[f.cells] = len(feats)
                feats.append(f)
            pos_other.append(where[f.cells])
        n = len(feats)

        def lift(terms, positions):
            out = {}
            for exps, coef in terms:
                new = [0] * n
                for p, e in zip(positions, exps):
                    new[p] += e
                out[tuple(new)] = coef
            return out

        return feats, lift(self.terms, range(len(self.features))), lift(other.terms, pos_other)

    def _coerce(self, other: Any) -> "Statistic":
        if isinstance(other, Statistic):
            return other
        if isinstance(other, int) and not isinstance(other, bool):
            return Statistic.constant(self.n_cells, other)
        raise InvalidArgument(
            f"statistics combine with statistics or integers, got {type(other).__name__}"
        )

    def __add__(self, other: Any) -> "Statistic":
        o = self._coerce(other)
        feats, a, b = self._combine(o)
        acc = dict(a)
        for k, v in b.items():
            acc[k] = acc.get(k, 0) + v
        return Statistic.from_terms(self.n_cells, feats, acc, name=f"({self.name} + {o.name})")

    __radd__ = __add__

    def __neg__(self) -> "Statistic":
        return Statistic.from_terms(
            self.n_cells, self.features, [(e, -c) for e, c in self.terms], name=f"-{self.name}"
        )

    def __sub__(self, other: Any) -> "Statistic":
        return self + (-self._coerce(other))

    def __rsub__(self, other: Any) -> "Statistic":
        return self._coerce(other) + (-self)

    def __mul__(self, other: Any) -> "Statistic":
        o = self._coerce(other)
        feats, a, b = self._combine(o)
        acc: dict[Exponents, int] = {}
        for ea, ca in a.items():
            for eb, cb in b.items():
                key = tuple(x + y for x, y in zip(ea, eb))
                acc[key] = acc.get(key, 0) + ca * cb
        return Statistic.from_terms(self.n_cells, feats, acc, name=f"{self.name}*{o.name}")

    __rmul__ = __mul__

    def __pow__(self, k: int) -> "Statistic":
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidArgument(f"power must be a non-negative integer, got {k!r}")
        out = Statistic.constant(self.n_cells, 1)
        base = self
        while k:
            if k & 1:
                out = out * base
            k >>= 1
            if k:
                base = base * base
        return Statistic.from_terms(out.n_cells, out.features, out.terms, name=f"({self.name})^{k}")

    def __repr__(self) -> str:
        return f"Statistic({self.name or 'unnamed'}, degree={self.degree}, terms={len(self.terms)})"


def _check_N(N: object) -> int:
    from momentbound._validate import as_int

    return as_int(N, "N", minimum=0)


def cell_statistic(model: "CellModel", terms: Mapping[Exponents, int], name: str = "") -> Statistic:
    """A polynomial written directly in the cell counts (one feature per cell).

    Examples
    --------
    >>> from momentbound.model import CellModel
    >>> s = cell_statistic(CellModel((2,), ["1/4"] * 4), {(1, 0, 0, 0): 1, (0, 2, 0, 0): -3})
    >>> s.evaluate((2, 1, 0, 1))
    -1
    """
    feats = [Feature(f"N_{c}", frozenset([c])) for c in range(model.n_cells)]
    return Statistic.from_terms(model.n_cells, feats, terms, name=name or "cell polynomial")


def _check_classes(model: "CellModel", classes: object) -> tuple[int, int]:
    try:
        pair = tuple(classes)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgument(
            f"classes must be a pair of class indices (k, l), got {classes!r}"
        ) from None
    if len(pair) != 2:
        raise InvalidArgument(f"classes must be a pair of class indices (k, l), got {classes!r}")
    out = []
    for name, v in zip(("k", "l"), pair):
        if isinstance(v, (np.integer, np.ndarray)):
            v = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
            v = int(v) if isinstance(v, np.integer) else v
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"classes[{name}] must be an integer class index, got {v!r}")
        if not 0 <= v < model.n_classes:
            raise InvalidArgument(
                f"classes must be indices in 0..{model.n_classes - 1}, got {v} (model has "
                f"{model.n_classes} classes)"
            )
        out.append(int(v))
    if out[0] == out[1]:
        raise InvalidArgument(
            f"classes must be two different classes (k, l), got ({out[0]}, {out[1]})"
        )
    return out[0], out[1]


def naive_bayes_statistic(
    model: "CellModel", x: Sequence[int] | int, classes: Sequence[int] = (0, 1)
) -> Statistic:
    """The naive Bayes decision statistic ``Z_x^{k,l}`` (docs/mathematics.md, section 'The
    decision statistic Z').

    ``Z_x = N_l^(d-1) prod_j N^j_{x^j,k} - N_k^(d-1) prod_j N^j_{x^j,l}``: class ``k`` beats
    class ``l`` at input ``x`` iff ``Z_x > 0`` (no smoothing; ``Z_x = 0`` is a tie).

    Parameters
    ----------
    model:
        The cell model (only its shape is used).
    x:
        Input ``(x^1, ..., x^d)``, each ``0 <= x^j < a_j``.
    classes:
        Ordered pair ``(k, l)`` of different 0-based class indices.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> z = naive_bayes_statistic(equal_cells_model((2, 2)), (1, 0))
    >>> z.degree, len(z.terms)
    (3, 2)

    References
    ----------
    Dhurandhar & Dobra, Section 7; docs/mathematics.md, section 'The decision statistic Z'.
    """
    from momentbound._validate import as_int, as_int_tuple

    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        x = (as_int(x, "x"),)
    x = as_int_tuple(x, "x", example="(0, 1), one value per attribute", what="a tuple of attribute values",
                     item="an integer attribute value")
    try:
        xt = model.check_input(x)
    except InvalidModel as exc:
        raise InvalidArgument(str(exc)) from exc
    k, l = _check_classes(model, classes)
    d = model.d
    K = model.n_classes
    inputs = list(model.inputs())

    def cls_cells(c: int) -> frozenset[int]:
        return frozenset(i * K + c for i in range(len(inputs)))

    def agree_cells(j: int, c: int) -> frozenset[int]:
        return frozenset(i * K + c for i, inp in enumerate(inputs) if inp[j] == xt[j])

    feats = [Feature(f"N_{k}", cls_cells(k)), Feature(f"N_{l}", cls_cells(l))]
    feats += [Feature(f"N^{j}_{xt[j]},{k}", agree_cells(j, k)) for j in range(d)]
    feats += [Feature(f"N^{j}_{xt[j]},{l}", agree_cells(j, l)) for j in range(d)]
    # d = 1: N^0_{x,k} is a single cell, distinct from N_k since the arity is >= 2
    t1 = [0, d - 1] + [1] * d + [0] * d
    t2 = [d - 1, 0] + [0] * d + [1] * d
    structure = NaiveBayesStructure(
        x=xt,
        k=k,
        l=l,
        d=d,
        class_count_k=0,
        class_count_l=1,
        agree_k=tuple(range(2, 2 + d)),
        agree_l=tuple(range(2 + d, 2 + 2 * d)),
    )
    return Statistic.from_terms(
        model.n_cells,
        feats,
        [(tuple(t1), 1), (tuple(t2), -1)],
        name=f"Z_{xt}^{{{k},{l}}}",
        structure=structure,
    )
