"""Exact law of the two-class naive Bayes statistic ``Z_x`` (docs/mathematics.md, section 'The
decision statistic Z').

``Z_x = N_l^(d-1) prod_j N^j_{x^j,k} - N_k^(d-1) prod_j N^j_{x^j,l}`` (class ``k`` beats ``l`` when
``Z > 0``). Given the class counts ``(n_k, n_l)`` (trinomial with the other classes), the two
classes are independent and each needs only the joint law of its ``d`` agreement counts with
``x``; so ``Z = a P_k - b P_l`` with independent ``P_k = prod_j A_jk``, ``P_l`` and constants
``a = n_l^(d-1)``, ``b = n_k^(d-1)``.

* :func:`z_distribution`: the whole pmf (exact ``Fraction`` for exact models and small ``N``).
* :func:`prob_z_positive`: ``P[Z > 0]``, ``P[Z = 0]``, ``P[Z < 0]``, also for large ``N``
  (floating point: per-class laws from a power of the discrete Fourier transform of one
  point's law, and cumulative sums over the values of ``P_l``; class-count splits whose total
  probability is below ``tail`` are dropped, with a rigorous Hoeffding bound on the dropped
  mass reported).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.exact.dft_laws import PowerLaw, class_point_law, dft_window_size, hoeffding_window
from momentbound.exact.predictions import ComponentSpace, class_laws, law_rows
from momentbound.model.cells import CellModel

__all__ = ["ZDistribution", "ZSignProbabilities", "estimated_seconds", "z_distribution", "prob_z_positive", "prob_z_in"]

Number = Union[Fraction, float]
ARITHMETICS = ("auto", "rational", "float")
#: z_distribution's limit on the cells of its dense per-class laws (float64: 8 bytes each)
MAX_LAW_CELLS = 3.2e7


@dataclass(frozen=True)
class ZDistribution:
    """The pmf of ``Z_x``: sorted distinct ``values`` and their ``probs``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> z = z_distribution(equal_cells_model((2, 2)), 2, (0, 0))
    >>> z.prob_positive() + z.prob_zero() + z.prob_negative()
    Fraction(1, 1)
    """

    N: int
    x: tuple[int, ...]
    classes: tuple[int, int]
    values: tuple[int, ...]
    probs: tuple[Number, ...]
    exact: bool

    def pmf(self) -> tuple[tuple[int, Number], ...]:
        """``((value, probability), ...)``, e.g. for ``MomentProblem(pmf=...)``."""
        return tuple(zip(self.values, self.probs))

    def _sum(self, keep: object) -> Number:
        zero: Number = Fraction(0) if self.exact else 0.0
        return sum((p for v, p in zip(self.values, self.probs) if keep(v)), zero)  # type: ignore[operator]

    def prob_positive(self) -> Number:
        return self._sum(lambda v: v > 0)

    def prob_zero(self) -> Number:
        return self._sum(lambda v: v == 0)

    def prob_negative(self) -> Number:
        return self._sum(lambda v: v < 0)

    def moment(self, k: int) -> Number:
        """Raw moment ``E[Z^k]`` (exact when the pmf is exact)."""
        zero: Number = Fraction(0) if self.exact else 0.0
        return sum((p * v**k for v, p in zip(self.values, self.probs)), zero)  # type: ignore[operator]


@dataclass(frozen=True)
class ZSignProbabilities:
    """``P[Z > 0]``, ``P[Z = 0]``, ``P[Z < 0]`` of the naive Bayes statistic.

    ``dropped_mass_bound`` bounds the error from truncation (0 when nothing was truncated):
    the probability of the class-count splits that were not summed, plus twice the mass
    outside the per-class windows of the DFT laws (large ``N``). Each of ``positive``,
    ``zero``, ``negative`` is within ``dropped_mass_bound`` of the exact value, up to
    floating-point rounding (about 1e-12 absolute).
    """

    positive: Number
    zero: Number
    negative: Number
    N: int
    x: tuple[int, ...]
    classes: tuple[int, int]
    exact: bool
    dropped_mass_bound: float
    seconds: float


def _check(model: CellModel, N: object, x: object, classes: object) -> tuple[int, tuple[int, ...], tuple[int, int]]:
    if not isinstance(model, CellModel):
        raise InvalidArgument(f"model must be a CellModel, got {type(model).__name__}")
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or int(N) < 0:
        raise InvalidArgument(f"N must be an integer >= 0, got {N!r}")
    xt = model.check_input(x)  # type: ignore[arg-type]
    try:
        k, l = (int(c) for c in classes)  # type: ignore[union-attr]
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"classes must be a pair of class indices like (0, 1), got {classes!r}") from exc
    model.check_class(k, name="classes[0]")
    model.check_class(l, name="classes[1]")
    if k == l:
        raise InvalidArgument(f"classes must be two different classes, got {classes!r}")
    return int(N), xt, (k, l)


def _mode(model: CellModel, N: int, arithmetic: str, rational_max_n: int) -> str:
    if arithmetic not in ARITHMETICS:
        raise InvalidArgument(f"arithmetic must be one of {ARITHMETICS}, got {arithmetic!r}")
    if arithmetic == "rational":
        if not model.is_exact:
            raise InvalidArgument("arithmetic='rational' needs an exact model (Fraction cells); use 'float'")
        return "rational"
    if arithmetic == "float":
        return "float"
    return "rational" if model.is_exact and N <= rational_max_n else "float"


def _split_probs(model: CellModel, N: int, classes: tuple[int, int], mode: str) -> dict[tuple[int, int], Number]:
    """Law of the class counts ``(n_k, n_l)`` (trinomial with the other classes together)."""
    k, l = classes
    rational = mode == "rational"
    conv = Fraction if rational else float
    pk, pl = conv(model.prior(k)), conv(model.prior(l))
    pr = 1 - pk - pl
    logs = {} if rational else {name: (math.log(v) if v > 0 else -math.inf) for name, v in (("k", pk), ("l", pl), ("r", pr))}
    out: dict[tuple[int, int], Number] = {}
    for nk in range(N + 1):
        if nk and pk == 0:
            break
        # the other classes absent: n_l is determined (no loop over it)
        nls = range(N - nk, N - nk + 1) if pr == 0 else range(N - nk + 1)
        for nl in nls:
            nr = N - nk - nl
            if (nl and pl == 0) or (nr and pr == 0):
                continue
            if rational:
                out[(nk, nl)] = math.comb(N, nk) * math.comb(N - nk, nl) * pk**nk * pl**nl * pr**nr
            else:
                # log space: the binomial coefficients of large N do not fit in a float
                log_p = math.lgamma(N + 1) - math.lgamma(nk + 1) - math.lgamma(nl + 1) - math.lgamma(nr + 1)
                log_p += sum(n * logs[name] for n, name in ((nk, "k"), (nl, "l"), (nr, "r")) if n)
                out[(nk, nl)] = math.exp(log_p)
    return out


def _product_law(model: CellModel, space: ComponentSpace, laws: list[np.ndarray], n: int, x: tuple[int, ...], mode: str) -> dict[int, Number]:
    coords, probs = law_rows(laws[n])
    A = space.agreements(coords, n, x)
    if mode != "rational":
        values, inverse = np.unique(A.astype(np.int64).prod(axis=1), return_inverse=True)
        sums = np.bincount(inverse.reshape(-1), weights=np.asarray(probs, dtype=float), minlength=len(values))
        return dict(zip(values.tolist(), sums.tolist()))
    out: dict[int, Number] = {}
    for row, p in zip(A.tolist(), probs):
        v = math.prod(row)
        out[v] = out.get(v, Fraction(0)) + p
    return out


def z_distribution(
    model: CellModel,
    N: int,
    x: tuple[int, ...] | int,
    classes: tuple[int, int] = (0, 1),
    *,
    arithmetic: str = "auto",
    rational_max_n: int = 12,
    max_pairs: int = 20_000_000,
) -> ZDistribution:
    """The exact pmf of ``Z_x`` for training sets of ``N`` iid points.

    Parameters
    ----------
    model, N, x:
        The data model, the sample size and the input.
    classes:
        ``(k, l)``: ``Z > 0`` means class ``k`` beats class ``l``.
    arithmetic:
        ``"rational"`` (exact ``Fraction``), ``"float"``, or ``"auto"`` (rational for exact models
        with ``N <= rational_max_n``).
    max_pairs:
        Refuse (``InvalidArgument``) when the pmf would need more state pairs than this; use
        :func:`prob_z_positive` for large ``N``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> z = z_distribution(equal_cells_model((2, 2)), 3, (0, 0))
    >>> z.prob_positive() == z.prob_negative()
    True
    """
    N, xt, (k, l) = _check(model, N, x, classes)
    mode = _mode(model, N, arithmetic, rational_max_n)
    d = model.d
    space = ComponentSpace(model.arities, (xt,))
    # the per-class laws keep a dense grid for every n <= N: refuse before building them when
    # that alone is out of reach (the pmf itself is then far beyond max_pairs)
    law_cells = 2 * (N + 2) ** (space.dim + 1) / (space.dim + 1)
    if law_cells > MAX_LAW_CELLS:
        raise InvalidArgument(
            f"the pmf of Z at N={N} with d={d} needs per-class laws of about {law_cells:.1e} cells "
            f"(limit {MAX_LAW_CELLS:.0e}); use prob_z_positive for P[Z > 0] at large N, or a smaller N"
        )
    laws = {c: class_laws(model, space, c, N, mode) for c in (k, l)}
    splits = _split_probs(model, N, (k, l), mode)
    plaw: dict[tuple[int, int], dict[int, Number]] = {}

    def pl(c: int, n: int) -> dict[int, Number]:
        if (c, n) not in plaw:
            plaw[(c, n)] = _product_law(model, space, laws[c], n, xt, mode)
        return plaw[(c, n)]

    total_pairs = 0
    for nk, nl in splits:  # stops at the first split past the limit
        total_pairs += len(pl(k, nk)) * len(pl(l, nl))
        if total_pairs > max_pairs:
            break
    if total_pairs > max_pairs:
        raise InvalidArgument(
            f"the pmf of Z at N={N} needs more than {max_pairs} state pairs (max_pairs); "
            "use prob_z_positive for P[Z > 0] at large N, or raise max_pairs"
        )
    if mode == "rational":
        acc: dict[int, Number] = {}
        for (nk, nl), ps in splits.items():
            a, b = nl ** (d - 1), nk ** (d - 1)
            for vk, qk in pl(k, nk).items():
                for vl, ql in pl(l, nl).items():
                    z = a * vk - b * vl
                    acc[z] = acc.get(z, Fraction(0)) + ps * qk * ql
        vals = sorted(acc)
        return ZDistribution(N, xt, (k, l), tuple(vals), tuple(acc[v] for v in vals), True)
    zs, ws = [], []
    for (nk, nl), ps in splits.items():
        a, b = nl ** (d - 1), nk ** (d - 1)
        lk, ll = pl(k, nk), pl(l, nl)
        vk = np.fromiter(lk.keys(), dtype=np.int64)
        qk = np.fromiter(lk.values(), dtype=float)
        vl = np.fromiter(ll.keys(), dtype=np.int64)
        ql = np.fromiter(ll.values(), dtype=float)
        zs.append((a * vk[:, None] - b * vl[None, :]).ravel())
        ws.append((ps * qk[:, None] * ql[None, :]).ravel())
    z = np.concatenate(zs)
    w = np.concatenate(ws)
    vals, inv = np.unique(z, return_inverse=True)
    probs = np.bincount(inv.reshape(-1), weights=w, minlength=len(vals))
    return ZDistribution(N, xt, (k, l), tuple(int(v) for v in vals), tuple(float(p) for p in probs), False)


# ----------------------------------------------------------------------------- large N
def _binom_pmf(N: int, p: float, ks: np.ndarray) -> np.ndarray:
    if p <= 0:
        return (ks == 0).astype(float)
    if p >= 1:
        return (ks == N).astype(float)
    lg = np.array([math.lgamma(N + 1) - math.lgamma(k + 1) - math.lgamma(N - k + 1) for k in ks])
    return np.exp(lg + ks * math.log(p) + (N - ks) * math.log1p(-p))


def _products_on_grid(space: ComponentSpace, n: int, x: tuple[int, ...]) -> np.ndarray:
    """``prod_j A_j`` on the dense grid; for one input the components are the ``A_j`` themselves."""
    if space.comps == tuple((j, v) for j, v in enumerate(x)):
        out = np.ones((1,) * space.dim, dtype=np.int64)
        for axis in np.ix_(*([np.arange(n + 1, dtype=np.int64)] * space.dim)):
            out = out * axis
        return out.ravel()
    D = space.dim
    coords = np.indices((n + 1,) * D).reshape(D, -1).T.astype(np.int64)
    A = np.maximum(space.agreements(coords, n, x), 0)
    return A.prod(axis=1)


def _sign_probs_split(
    Pk: np.ndarray, wk: np.ndarray, Pl: np.ndarray, wl: np.ndarray, a: int, b: int
) -> tuple[float, float, float]:
    """``P[a Pk - b Pl > 0], = 0, < 0`` for independent integer ``Pk``, ``Pl`` (weights ``wk``, ``wl``)."""
    tot_k, tot_l = float(wk.sum()), float(wl.sum())
    # compress class k to its distinct values
    if int(Pk.max(initial=0)) <= 8_000_000:
        pmf_k = np.bincount(Pk, weights=wk)
        vk = np.flatnonzero(pmf_k)
        wk = pmf_k[vk]
    else:
        vk = Pk
    u = a * vk
    if b == 0:
        pos = float(wk[u > 0].sum()) * tot_l
        zero = float(wk[u == 0].sum()) * tot_l
        return pos, zero, tot_k * tot_l - pos - zero
    vmax = int(Pl.max(initial=0))
    if vmax <= 8_000_000 and int(u.max(initial=0)) < 2**51:
        pmf = np.bincount(Pl, weights=wl, minlength=vmax + 1)
        cdf = np.concatenate([[0.0], np.cumsum(pmf)])  # cdf[v] = P(Pl < v)
        # b Pl < u  <=>  Pl < ceil(u / b); float quotients are exact here (operands < 2**51)
        q = u / float(b)
        thr = np.clip(np.ceil(q), 0, vmax + 1).astype(np.int64)
        lt = cdf[thr]
        fq = np.floor(q)
        exact_div = (fq == q) & (fq <= vmax)
        eq = np.where(exact_div, pmf[np.clip(fq, 0, vmax).astype(np.int64)], 0.0)
    else:
        order = np.argsort(Pl, kind="stable")
        vs = Pl[order] * b
        cw = np.concatenate([[0.0], np.cumsum(wl[order])])
        lt = cw[np.searchsorted(vs, u, side="left")]
        eq = cw[np.searchsorted(vs, u, side="right")] - lt
    pos = float(wk @ lt)
    zero = float(wk @ eq)
    return pos, zero, tot_k * tot_l - pos - zero


#: default time limit of :func:`prob_z_positive` (seconds)
MAX_SECONDS = 300.0
#: seconds per counted operation of :func:`prob_z_positive` by number of attributes (lower
#: estimates from runs on a 2-core x86-64 machine; one attribute measured 7.5e-9 to 2.5e-8, two
#: 5e-9 to 9e-9, three and four 1.3e-9 to 1.6e-9), and per class-count split (2e-4 to 2.4e-4)
SECONDS_PER_OPERATION = {1: 7.5e-9, 2: 5e-9, 3: 1.3e-9}
SECONDS_PER_SPLIT = 2e-4


def estimated_seconds(model: CellModel, N: int, tail: float = 1e-13) -> float:
    """Estimated run time of :func:`prob_z_positive` in floating point (seconds, a lower estimate).

    Counts, over the class-count splits that are summed, the sort and search work on the
    per-class value grids (``min(n + 1, size)^d`` states) and the DFT power steps.
    """
    dim = model.d
    if model.n_classes == 2:
        p = float(model.prior(0))
        lo, hi, _ = hoeffding_window(N, p, tail)
        splits = np.arange(lo, hi + 1, dtype=float)
        n_max = max(hi, N - lo)
    else:
        # every (n_k, n_l) split is summed: about N^2 / 2 of them, at typical sizes
        count = (N + 1) * (N + 2) / 2
        splits = np.full(min(int(count), 1), N / model.n_classes, dtype=float)
        n_max = N
    size = dft_window_size(n_max, dim, tail)
    states_k = np.minimum(splits + 1, size) ** dim
    states_l = np.minimum(N - splits + 1, size) ** dim
    grid = float(size) ** dim
    ops = (states_k + states_l) * np.log2(states_l + 2) + 2 * grid * math.log2(grid + 2)
    n_splits = len(splits) if model.n_classes == 2 else (N + 1) * (N + 2) / 2
    total = float(ops.sum()) if model.n_classes == 2 else float(ops[0]) * n_splits
    return total * SECONDS_PER_OPERATION[min(dim, 3)] + n_splits * SECONDS_PER_SPLIT


def prob_z_positive(
    model: CellModel,
    N: int,
    x: tuple[int, ...] | int,
    classes: tuple[int, int] = (0, 1),
    *,
    arithmetic: str = "auto",
    rational_max_n: int = 12,
    tail: float = 1e-13,
    max_seconds: float | None = MAX_SECONDS,
) -> ZSignProbabilities:
    """``P[Z_x > 0]`` (and ``= 0``, ``< 0``) for training sets of ``N`` iid points.

    Parameters
    ----------
    tail:
        Float mode only: class-count splits outside a window whose Hoeffding tail bound is at
        most ``tail`` are skipped; the bound is reported as ``dropped_mass_bound``. Pass 0 to
        sum every split.
    max_seconds:
        Refuse (``InvalidArgument``) before any work when the estimated run time is longer
        (the estimate counts the elementary operations of the sums below and errs on the short
        side); ``None`` disables the check.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> r = prob_z_positive(equal_cells_model((2, 2)), 4, (0, 0))
    >>> r.positive == r.negative, r.exact
    (True, True)
    """
    start = time.perf_counter()
    N, xt, (k, l) = _check(model, N, x, classes)
    mode = _mode(model, N, arithmetic, rational_max_n)
    if mode == "rational":
        z = z_distribution(model, N, xt, (k, l), arithmetic="rational")
        return ZSignProbabilities(
            z.prob_positive(), z.prob_zero(), z.prob_negative(), N, xt, (k, l), True, 0.0,
            time.perf_counter() - start,
        )
    if not (isinstance(tail, (int, float)) and 0 <= tail < 1):
        raise InvalidArgument(f"tail must be a number in [0, 1), got {tail!r}")
    if max_seconds is not None and not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise InvalidArgument(f"max_seconds must be a positive number or None, got {max_seconds!r}")
    d = model.d
    space = ComponentSpace(model.arities, (xt,))
    pk_ = float(model.prior(k))
    two = model.n_classes == 2
    from momentbound.guard import check

    check(f"P[Z > 0] at N={N} with d={d}", seconds=estimated_seconds(model, N, tail), max_seconds=max_seconds,
          fix="bound it from the moments of Z instead (momentbound.bound, or backend='bound:lp' / 'sampling' for "
          "estimator moments), use a smaller N")
    if two:
        lo, hi, dropped = hoeffding_window(N, pk_, tail)
        n_max = {k: hi, l: N - lo}
    else:
        lo, hi, dropped = 0, N, 0.0
        n_max = {k: N, l: N}
    # DFT size: the whole range 0..n, or (large n) a window per axis holding all but
    # ``tail`` of each binomial marginal, read modulo the size (error <= 2 * outside mass)
    size = dft_window_size(max(n_max.values()), space.dim, tail)
    power = {
        c: PowerLaw(class_point_law(model, space, c), size) if float(model.prior(c)) > 0 else None for c in (k, l)
    }
    cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, float]] = {}
    arange = np.arange(size, dtype=np.int64)

    def law(c: int, n: int) -> tuple[np.ndarray, np.ndarray, float]:
        if (c, n) not in cache:
            pw = power[c]
            if pw is None:  # prior 0: only n = 0 has probability
                dense = np.zeros((n + 1,) * space.dim)
                dense[(0,) * space.dim] = 1.0 if n == 0 else 0.0
                cache[(c, n)] = (_products_on_grid(space, n, xt), dense.ravel(), 0.0)
            elif n < size:
                cache[(c, n)] = (_products_on_grid(space, n, xt), pw.law(n).ravel(), 0.0)
            else:
                lo, outside = pw.window(n)
                prods = np.ones((1,) * space.dim, dtype=np.int64)
                for axis in np.ix_(*[lo_j + arange for lo_j in lo]):
                    prods = prods * axis  # one input: the components are the agreement counts
                cache[(c, n)] = (prods.ravel(), pw.window_law(n, lo).ravel(), outside)
        return cache[(c, n)]

    pos = zero = neg = 0.0
    if two:
        nks = np.arange(lo, hi + 1)
        weights = _binom_pmf(N, pk_, nks)
        split_list = [((int(nk), N - int(nk)), float(w)) for nk, w in zip(nks, weights)]
    else:
        split_list = list(_split_probs(model, N, (k, l), "float").items())
    block = 32
    for i, ((nk, nl), ps) in enumerate(split_list):
        if two and i % block == 0:
            # class l runs downwards while class k runs upwards: precompute the block's class-l
            # laws upwards so both use one DFT multiplication per step
            for (_, nl2), _p in reversed(split_list[i : i + block]):
                law(l, nl2)
        if ps == 0:
            cache.pop((k, nk), None)
            cache.pop((l, nl), None)
            continue
        Pk, wk, out_k = law(k, nk)
        Pl, wl, out_l = law(l, nl)
        dropped += ps * 2.0 * (out_k + out_l)
        a, b = nl ** (d - 1), nk ** (d - 1)
        p, z0, q = _sign_probs_split(Pk, wk, Pl, wl, a, b)
        pos += ps * p
        zero += ps * z0
        neg += ps * q
        cache.pop((k, nk), None)
        cache.pop((l, nl), None)
    return ZSignProbabilities(pos, zero, neg, N, xt, (k, l), False, dropped, time.perf_counter() - start)


def prob_z_in(
    model: CellModel,
    N: int,
    x: tuple[int, ...] | int,
    event: object,
    classes: tuple[int, int] = (0, 1),
    *,
    arithmetic: str = "auto",
    rational_max_n: int = 12,
) -> Number:
    """``P[Z_x in E]`` for an event ``E`` on the integers, without the whole pmf of ``Z_x``.

    Given the class counts, ``Z = a P_k - b P_l`` with independent ``P_k``, ``P_l`` (module
    notes); for every value ``v`` of ``P_k`` the event's integer pieces ``lo <= Z <= hi`` are
    ranges of ``P_l`` (``b > 0``), read off the cumulative law of ``P_l`` by a binary search.
    The work is about ``(|P_k| + |P_l|) log |P_l|`` per split instead of ``|P_k| |P_l|`` (the
    pairs :func:`z_distribution` enumerates). ``event`` is a
    :class:`momentbound.bounds.problem.Event`; arithmetic as in :func:`z_distribution`.

    Examples
    --------
    >>> from momentbound.bounds.problem import Event
    >>> from momentbound.model import equal_cells_model
    >>> m = equal_cells_model((2, 2))
    >>> prob_z_in(m, 6, (0, 0), Event.ge(5)) == z_distribution(m, 6, (0, 0))._sum(lambda v: v >= 5)
    True
    """
    from momentbound.bounds.problem import Support

    N, xt, (k, l) = _check(model, N, x, classes)
    mode = _mode(model, N, arithmetic, rational_max_n)
    if not hasattr(event, "pieces") or not hasattr(event, "indicator"):
        raise InvalidArgument(f"event must be a momentbound.bounds.problem.Event, got {event!r}")
    d = model.d
    space = ComponentSpace(model.arities, (xt,))
    law_cells = 2 * (N + 2) ** (space.dim + 1) / (space.dim + 1)
    if law_cells > MAX_LAW_CELLS:
        raise InvalidArgument(
            f"P(Z in E) at N={N} with d={d} needs per-class laws of about {law_cells:.1e} cells "
            f"(limit {MAX_LAW_CELLS:.0e}); use prob_z_positive for sign events at large N, or a smaller N"
        )
    if mode == "rational":
        law = z_distribution(model, N, xt, (k, l), arithmetic="rational")
        return law._sum(event.indicator)  # type: ignore[attr-defined]
    # |Z| <= N^(d-1) * N^d: integer arithmetic in int64 while that fits, Python integers beyond
    big = N ** (2 * d - 1) >= 2**62
    top = N ** (2 * d - 1) + 1
    pieces = [(int(pc.lo), int(pc.hi)) for pc in event.pieces(Support.grid(-top, top)) if pc.target == 1]  # type: ignore[attr-defined]
    laws = {c: class_laws(model, space, c, N, mode) for c in (k, l)}
    splits = _split_probs(model, N, (k, l), mode)
    plaw: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def pl(c: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        if (c, n) not in plaw:
            law = _product_law(model, space, laws[c], n, xt, mode)
            vals = np.fromiter(law.keys(), dtype=np.int64)
            order = np.argsort(vals)
            probs = np.fromiter(law.values(), dtype=float)[order]
            plaw[(c, n)] = (vals[order].astype(object) if big else vals[order], probs)
        return plaw[(c, n)]

    total = 0.0
    for (nk, nl), ps in splits.items():
        a, b = nl ** (d - 1), nk ** (d - 1)
        vk, qk = pl(k, nk)
        vl, ql = pl(l, nl)
        if b == 0:  # Z = a P_k whatever P_l is
            inside = np.array([bool(event.indicator(int(a * v))) for v in vk])  # type: ignore[attr-defined]
            total += ps * float(qk[inside].sum()) * float(ql.sum())
            continue
        cum = np.concatenate([[0.0], np.cumsum(ql)])
        hit = np.zeros(len(vk))
        for lo, hi in pieces:
            # lo <= a v - b w <= hi  <=>  ceil((a v - hi) / b) <= w <= floor((a v - lo) / b)
            w_lo = -((hi - a * vk) // b)
            w_hi = (a * vk - lo) // b
            i_lo = np.searchsorted(vl, np.asarray(w_lo, dtype=vl.dtype), side="left")
            i_hi = np.searchsorted(vl, np.asarray(w_hi, dtype=vl.dtype), side="right")
            hit += np.maximum(cum[i_hi] - cum[i_lo], 0.0)
        total += ps * float(qk @ hit)
    return total
