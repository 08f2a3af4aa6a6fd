"""Exact prediction probabilities of naive Bayes by summing over sufficient counts.

Given the class counts ``(n_0..n_{K-1})`` (multinomial over the class priors), the
classes of an iid training set are independent, and the naive Bayes score of class
``k`` at an input ``x`` depends only on ``n_k`` and the agreement counts
``A_jk(x) = N_{j, x^j, k}`` (docs/mathematics.md, section 'The decision statistic Z'). For one or
two inputs, the agreement counts of a
class are linear functions of the counts of a few *components* ``(j, v)`` ("attribute ``j``
equals ``v``"); the law of those component counts given ``n_k`` is built by a recursion over
points on a dense grid. The engine then sums over class counts and per-class states:
no sum over datasets.

Arithmetic is exact (``Fraction``) for exact models or floating point; the comparison of
scores is always exact (integer cross-multiplication), so ties are real ties.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes, decision_shares
from momentbound.model.cells import CellModel

__all__ = [
    "work_estimate",
    "ComponentSpace",
    "class_laws",
    "class_count_splits",
    "decide_grid",
    "single_probabilities",
    "pair_probabilities",
    "cross_probabilities",
    "overlap_probabilities",
]

Input = tuple[int, ...]


# ---------------------------------------------------------------------------- components
@dataclass(frozen=True)
class ComponentSpace:
    """Free count components ``(j, v)`` needed for the agreement counts of some inputs.

    For attribute ``j``, the values used by the inputs are counted; when they cover all
    ``a_j`` values, the last one is implicit (``n - sum of the others``).
    """

    arities: tuple[int, ...]
    inputs: tuple[Input, ...]
    comps: tuple[tuple[int, int], ...] = field(init=False)
    implicit: tuple[tuple[int, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        comps: list[tuple[int, int]] = []
        implicit: list[tuple[int, int]] = []
        for j, a in enumerate(self.arities):
            vals = sorted({r[j] for r in self.inputs})
            if len(vals) == a:
                implicit.append((j, vals[-1]))
                vals = vals[:-1]
            comps.extend((j, v) for v in vals)
        object.__setattr__(self, "comps", tuple(comps))
        object.__setattr__(self, "implicit", tuple(implicit))

    @property
    def dim(self) -> int:
        return len(self.comps)

    def signature(self, z: Input) -> tuple[int, ...]:
        return tuple(int(z[j] == v) for j, v in self.comps)

    def agreements(self, coords: np.ndarray, n: int, r: Input) -> np.ndarray:
        """Agreement counts ``A_j(r)`` (shape ``(S, d)``) from component counts (shape ``(S, D)``)."""
        cols = []
        imp = dict(self.implicit)
        for j in range(len(self.arities)):
            if imp.get(j) == r[j]:
                idx = [i for i, (jj, _) in enumerate(self.comps) if jj == j]
                cols.append(n - coords[:, idx].sum(axis=1))
            else:
                cols.append(coords[:, self.comps.index((j, r[j]))])
        return np.stack(cols, axis=1)


def _is_rational(mode: str) -> bool:
    return mode == "rational"


def _zero(mode: str) -> object:
    return Fraction(0) if _is_rational(mode) else 0.0


def _as_number(value: object, mode: str) -> object:
    return Fraction(value) if _is_rational(mode) else float(value)


def class_laws(
    model: CellModel, space: ComponentSpace, k: int, n_max: int, mode: str
) -> list[np.ndarray]:
    """Law of the component counts of ``n`` class-``k`` points, for ``n = 0..n_max``.

    Entry ``[n]`` is a dense array of shape ``(n + 1,) * D`` (object array of Fractions in
    rational mode). Built by adding one point at a time.
    """
    D = space.dim
    dtype = object if _is_rational(mode) else float
    prior = model.prior(k)
    sig_prob: dict[tuple[int, ...], object] = {}
    if prior > 0:
        for z in model.inputs():
            pz = model.p(z, k)
            if pz > 0:
                s = space.signature(z)
                q = _as_number(pz, mode) / _as_number(prior, mode)
                sig_prob[s] = sig_prob.get(s, _zero(mode)) + q
    first = np.zeros((1,) * D, dtype=dtype)
    first[(0,) * D] = _as_number(1, mode)
    laws = [first]
    for n in range(1, n_max + 1):
        new = np.zeros((n + 1,) * D, dtype=dtype)
        if _is_rational(mode):
            new[...] = Fraction(0)
        prev = laws[-1]
        for s, q in sig_prob.items():
            new[tuple(slice(si, si + n) for si in s)] += q * prev
        laws.append(new)
    return laws


def law_rows(law: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nonzero states of a dense law: coordinates ``(S, D)`` (int64) and probabilities ``(S,)``."""
    idx = np.nonzero(law != 0)
    coords = np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((1, 0), dtype=np.int64)
    return coords, law[idx]


def class_count_splits(model: CellModel, n: int, mode: str) -> Iterator[tuple[tuple[int, ...], object]]:
    """All class-count vectors with total ``n`` and their multinomial probabilities."""
    K = model.n_classes
    priors = [_as_number(model.prior(k), mode) for k in range(K)]

    def rec(k: int, left: int) -> Iterator[tuple[int, ...]]:
        if k == K - 1:
            yield (left,)
            return
        for c in range(left + 1):
            for rest in rec(k + 1, left - c):
                yield (c,) + rest

    rational = _is_rational(mode)
    # float mode: in log space (the coefficient and the powers alone overflow or underflow at large n)
    logs = None if rational else [math.log(p) if p > 0 else -math.inf for p in priors]
    for split in rec(0, n):
        if any(c > 0 and priors[k] == 0 for k, c in enumerate(split)):
            continue
        if logs is not None:
            log_prob = math.lgamma(n + 1) + sum(c * lp - math.lgamma(c + 1) for c, lp in zip(split, logs) if c)
            yield split, math.exp(log_prob)
            continue
        coef = math.factorial(n)
        for c in split:
            coef //= math.factorial(c)
        prob = _as_number(coef, mode)
        for c, p in zip(split, priors):
            if c:
                prob = prob * p**c
        yield split, prob


# ---------------------------------------------------------------------------- decisions
def decide_grid(
    clf: NaiveBayes,
    arities: Sequence[int],
    totals: Sequence[int],
    agreements: Sequence[np.ndarray],
) -> tuple[np.ndarray, int]:
    """Vectorised ``g_x(y | counts)`` over a grid of per-class states.

    Parameters
    ----------
    totals:
        Class counts ``n_k`` (fixed over the grid).
    agreements:
        ``agreements[k]`` has shape ``G_k + (d,)``; the ``G_k`` are mutually broadcastable.

    Returns
    -------
    (g, scale):
        Integer array ``g`` of shape ``(K,) + broadcast shape`` and an integer ``scale`` with
        ``g_x(y) = g[y] / scale`` (``scale = lcm(1..K)`` for ``random``, 1 otherwise); the
        score and tie rules are those of :func:`momentbound.classifiers.naive_bayes.decision_shares`.
    """
    return decision_shares(clf, arities, [int(n) for n in totals], agreements)


# ---------------------------------------------------------------------------- helpers
def _axis_shape(K: int, axis: int, size: int, extra: int = 0) -> tuple[int, ...]:
    shape = [1] * (K + extra)
    shape[axis] = size
    return tuple(shape)


def _outer_weights(probs: Sequence[np.ndarray], total_axes: int, offset: int = 0) -> np.ndarray:
    w = None
    for i, pr in enumerate(probs):
        arr = pr.reshape(_axis_shape(total_axes, offset + i, len(pr)))
        w = arr if w is None else w * arr
    return w


def _grid_agreements(rows: Sequence[np.ndarray], total_axes: int, offset: int = 0) -> list[np.ndarray]:
    out = []
    for i, r in enumerate(rows):
        shape = list(_axis_shape(total_axes, offset + i, r.shape[0])) + [r.shape[1]]
        out.append(r.reshape(shape))
    return out


def _unique_rows(rows: np.ndarray, probs: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    if rows.shape[0] <= 1:
        return rows, probs
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    if _is_rational(mode):
        acc = np.empty(len(uniq), dtype=object)
        acc[...] = Fraction(0)
        for i, p in zip(inv, probs):
            acc[i] += p
    else:
        acc = np.bincount(inv, weights=probs.astype(float), minlength=len(uniq))
    return uniq, acc


class _ClassTables:
    """Per-class agreement rows at every class count, for a tuple of inputs."""

    def __init__(self, model: CellModel, inputs: Sequence[Input], n_max: int, mode: str) -> None:
        self.model = model
        self.inputs = tuple(inputs)
        self.space = ComponentSpace(model.arities, self.inputs)
        self.mode = mode
        self.laws = [class_laws(model, self.space, k, n_max, mode) for k in range(model.n_classes)]
        self._cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def rows(self, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Agreement rows ``(S, d * len(inputs))`` (inputs concatenated) and their probabilities."""
        key = (k, n)
        if key not in self._cache:
            coords, probs = law_rows(self.laws[k][n])
            agree = np.concatenate([self.space.agreements(coords, n, r) for r in self.inputs], axis=1)
            self._cache[key] = _unique_rows(agree, probs, self.mode)
        return self._cache[key]


def _zeros(shape: tuple[int, ...], mode: str) -> np.ndarray:
    if _is_rational(mode):
        out = np.empty(shape, dtype=object)
        out[...] = Fraction(0)
        return out
    return np.zeros(shape)


def _scaled(value: object, scale: int, mode: str) -> object:
    return value * Fraction(1, scale) if _is_rational(mode) else value / scale


# ---------------------------------------------------------------------------- public sums
def single_probabilities(model: CellModel, n: int, x: Input, clf: NaiveBayes, mode: str) -> np.ndarray:
    """``E[g_x(y | T)]`` for ``|T| = n`` by summing over class counts and per-class states."""
    K = model.n_classes
    tables = _ClassTables(model, [x], n, mode)
    out = _zeros((K,), mode)
    for split, p_split in class_count_splits(model, n, mode):
        rows = [tables.rows(k, split[k]) for k in range(K)]
        agree = _grid_agreements([r for r, _ in rows], K)
        w = _outer_weights([pr for _, pr in rows], K) * p_split
        g, scale = decide_grid(clf, model.arities, split, agree)
        for y in range(K):
            out[y] += _scaled((w * g[y]).sum(), scale, mode)
    return out


def pair_probabilities(
    model: CellModel, n: int, x: Input, x2: Input, clf: NaiveBayes, mode: str
) -> np.ndarray:
    """``E[g_x(y | T) g_x2(y' | T)]`` (independent coins), shape ``(K, K)``."""
    K, d = model.n_classes, model.d
    tables = _ClassTables(model, [x, x2], n, mode)
    out = _zeros((K, K), mode)
    for split, p_split in class_count_splits(model, n, mode):
        rows = [tables.rows(k, split[k]) for k in range(K)]
        agree = _grid_agreements([r for r, _ in rows], K)
        w = _outer_weights([pr for _, pr in rows], K) * p_split
        g1, s1 = decide_grid(clf, model.arities, split, [a[..., :d] for a in agree])
        g2, s2 = decide_grid(clf, model.arities, split, [a[..., d:] for a in agree])
        for y in range(K):
            wy = w * g1[y]
            for y2 in range(K):
                out[y, y2] += _scaled((wy * g2[y2]).sum(), s1 * s2, mode)
    return out


def _expected_g_with_extra(
    model: CellModel,
    clf: NaiveBayes,
    x: Input,
    base_totals: tuple[int, ...],
    base_rows: Sequence[np.ndarray],
    extra_tables: _ClassTables,
    n_extra: int,
    point: tuple[Input, int] | None,
    mode: str,
) -> np.ndarray:
    """``E[g_x(. | base + extra + point)]`` over the random ``extra`` sample, on the base grid.

    ``base_rows[k]`` (shape ``(S_k, d)``) are the base agreement counts at ``x`` of class ``k``;
    returns shape ``(K, S_0, ..., S_{K-1})``. ``point=None``: no fixed point is added.
    """
    K, d = model.n_classes, model.d
    if point is None:
        yp = -1  # no class receives the fixed point
        bump = np.zeros(d, dtype=np.int64)
    else:
        zp, yp = point
        bump = np.array([int(zp[j] == x[j]) for j in range(d)], dtype=np.int64)
    base_agree = _grid_agreements(base_rows, 2 * K)
    out = _zeros((K,) + tuple(len(r) for r in base_rows), mode)
    for split, p_split in class_count_splits(model, n_extra, mode):
        ex = [extra_tables.rows(k, split[k]) for k in range(K)]
        ex_agree = _grid_agreements([r for r, _ in ex], 2 * K, offset=K)
        w = _outer_weights([pr for _, pr in ex], 2 * K, offset=K) * p_split
        totals = tuple(base_totals[k] + split[k] + int(k == yp) for k in range(K))
        agree = [base_agree[k] + ex_agree[k] + (bump if k == yp else 0) for k in range(K)]
        g, scale = decide_grid(clf, model.arities, totals, agree)
        extra_axes = tuple(range(K, 2 * K))
        for y in range(K):
            out[y] += _scaled((g[y] * w).sum(axis=extra_axes), scale, mode)
    return out


def cross_probabilities(
    model: CellModel,
    n_common: int,
    n_a: int,
    n_b: int,
    point_a: tuple[Input, int],
    point_b: tuple[Input, int],
    clf: NaiveBayes,
    mode: str,
) -> np.ndarray:
    """``E[g_{x_a}(a | C + B' + point_b) g_{x_b}(b | C + A' + point_a)]`` (docs/mathematics.md,
    section 'Cross-validation').

    Given ``C``, the two predictions are independent; the sum runs over the class counts
    and per-class agreement states of ``C``, each weighted by the exact conditional
    prediction probabilities of the two classifiers.
    """
    K, d = model.n_classes, model.d
    xa, xb = point_a[0], point_b[0]
    common = _ClassTables(model, [xa, xb], n_common, mode)
    extra_a = _ClassTables(model, [xa], n_b, mode)  # B' enters T_A (predicts at x_a)
    extra_b = _ClassTables(model, [xb], n_a, mode)  # A' enters T_B (predicts at x_b)
    out = _zeros((K, K), mode)
    for split, p_split in class_count_splits(model, n_common, mode):
        rows = [common.rows(k, split[k]) for k in range(K)]
        w = _outer_weights([pr for _, pr in rows], K) * p_split
        f_a = _expected_g_with_extra(
            model, clf, xa, split, [r[:, :d] for r, _ in rows], extra_a, n_b, point_b, mode
        )
        f_b = _expected_g_with_extra(
            model, clf, xb, split, [r[:, d:] for r, _ in rows], extra_b, n_a, point_a, mode
        )
        for a in range(K):
            wa = w * f_a[a]
            for b in range(K):
                out[a, b] += (wa * f_b[b]).sum()
    return out


def overlap_probabilities(
    model: CellModel,
    n_common: int,
    n_a: int,
    n_b: int,
    x_a: Input,
    x_b: Input,
    clf: NaiveBayes,
    mode: str,
) -> np.ndarray:
    """``E[g_{x_a}(a | C + B) g_{x_b}(b | C + A)]`` with ``C``, ``A``, ``B`` independent iid samples
    of sizes ``n_common``, ``n_a``, ``n_b`` and no fixed points (the printed Lemma 2's pair term,
    docs/mathematics.md, section 'Cross-validation'); shape ``(K, K)``.

    The sum of :func:`cross_probabilities` without the two test points: given ``C`` the two
    classifiers are independent; the sum runs over the class counts and per-class agreement
    states of ``C``.
    """
    K, d = model.n_classes, model.d
    common = _ClassTables(model, [x_a, x_b], n_common, mode)
    extra_a = _ClassTables(model, [x_a], n_b, mode)  # B enters the classifier predicting at x_a
    extra_b = _ClassTables(model, [x_b], n_a, mode)  # A enters the classifier predicting at x_b
    out = _zeros((K, K), mode)
    for split, p_split in class_count_splits(model, n_common, mode):
        rows = [common.rows(k, split[k]) for k in range(K)]
        w = _outer_weights([pr for _, pr in rows], K) * p_split
        f_a = _expected_g_with_extra(model, clf, x_a, split, [r[:, :d] for r, _ in rows], extra_a, n_b, None, mode)
        f_b = _expected_g_with_extra(model, clf, x_b, split, [r[:, d:] for r, _ in rows], extra_b, n_a, None, mode)
        for a in range(K):
            wa = w * f_a[a]
            for b in range(K):
                out[a, b] += (wa * f_b[b]).sum()
    return out


#: above this many class splits, :func:`work_estimate` returns its largest term (a lower
#: bound of the sum, already far beyond any feasible work) instead of enumerating them
_MAX_SPLITS_ENUMERATED = 200_000


def _split_grid_sizes(model: CellModel, n: int, dim: int) -> list[int]:
    """Upper bounds ``prod_k (n_k + 1)^dim`` of the per-split state grids, one per class split.

    Only classes with a positive prior take points. Past ``_MAX_SPLITS_ENUMERATED`` splits
    the list holds the single largest term (the most even split), which bounds the total
    from below: enough to refuse, and computed without enumerating.
    """
    K = sum(1 for k in range(model.n_classes) if model.prior(k) > 0)
    if math.comb(n + K - 1, K - 1) > _MAX_SPLITS_ENUMERATED:
        q, r = divmod(n, K)
        return [(q + 2) ** (dim * r) * (q + 1) ** (dim * (K - r))]

    def rec(k: int, left: int) -> Iterator[int]:
        if k == K - 1:
            yield (left + 1) ** dim
            return
        for c in range(left + 1):
            for rest in rec(k + 1, left - c):
                yield (c + 1) ** dim * rest

    return list(rec(0, n))


def work_estimate(model: CellModel, kind: str, sizes: tuple[int, ...], inputs: tuple[Input, ...]) -> int:
    """Rough number of state combinations the generic engine visits (to refuse hopeless calls).

    ``kind`` is ``"single"``, ``"pair"`` (``sizes = (n,)``) or ``"cross"``
    (``sizes = (n_common, n_a, n_b)``, ``inputs = (x_a, x_b)``).
    """
    if kind in ("single", "pair"):
        dim = ComponentSpace(model.arities, inputs).dim
        return sum(_split_grid_sizes(model, sizes[0], dim))
    nc, na, nb = sizes
    dim_c = ComponentSpace(model.arities, inputs).dim
    dim_a = ComponentSpace(model.arities, inputs[:1]).dim
    dim_b = ComponentSpace(model.arities, inputs[1:]).dim
    extra = sum(_split_grid_sizes(model, nb, dim_a)) + sum(_split_grid_sizes(model, na, dim_b))
    return sum(_split_grid_sizes(model, nc, dim_c)) * max(extra, 1)
