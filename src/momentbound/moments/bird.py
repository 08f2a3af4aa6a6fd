"""The "bird" polynomial of the paper (docs/mathematics.md, section 'Joint events and the bird
polynomial'): one statistic for a joint event.

For integers ``X, Y`` in ``[-a, a]``,

``W = (X + a)^r X^2 Y + (Y + a)^r Y^2 X = X Y [ (X + a)^r X + (Y + a)^r Y ]``

satisfies ``W > 0  iff  X > 0 and Y > 0`` once ``r`` is large enough. Then
``P[X > 0, Y > 0] = P[W > 0]`` and the moments of ``W`` come from the joint moments of
``(X, Y)``.

The smallest valid exponent. If ``X, Y`` have the same sign the claim holds for every
``r``; for ``x >= 1``, ``y = -b`` (``1 <= b <= a``) we need ``W <= 0``, i.e.
``(x + a)^r x >= (a - b)^r b``. The left side grows with ``x``, so ``x = 1`` is the worst
case, and the condition is monotone in ``r`` (``a + 1 > a - b``). Hence

``r*(a) = max_{1 <= b <= a} min{ r >= 0 : (a + 1)^r >= b (a - b)^r }``

(with ``0^0 = 1``: ``b = a`` forces ``r >= 1`` when ``a >= 2``, ``b = 1`` needs nothing).
The paper's closed form ``max_{1<b<a} floor(ln b / ln((a+1)/(a-b))) + 1`` is the smallest
``r`` with a *strict* inequality; it differs from ``r*`` exactly when
``(a + 1)^r = b (a - b)^r`` has an integer solution (then ``W = 0``, which is fine):
for ``a <= 300`` only at ``a = 5`` (paper 2, true 1). Both are computed with exact
integer comparisons (floats only give the first guess). ``r*`` grows linearly in ``a``
(``r*(100) = 28``, ``r*(200) = 56``), so for ``Z_x`` (``a ~ N^3 / 7``) the degree of ``W``
explodes: see :func:`bird_moments` and the documented cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from momentbound.errors import DegreeCapExceeded, InvalidArgument

if TYPE_CHECKING:
    from momentbound.model.cells import CellModel
    from momentbound.model.statistics import Statistic

__all__ = [
    "bird_exponent",
    "bird_exponent_paper",
    "bird_exponent_bruteforce",
    "bird_polynomial",
    "bird_coefficients",
    "bird_moments",
    "BirdMoments",
    "DEFAULT_DEGREE_CAP",
]

#: Largest total degree in ``(X, Y)`` of the joint moments :func:`bird_moments` may need
#: (``order * (r + 3)``). Measured costs are in ``docs/moments.md``.
DEFAULT_DEGREE_CAP = 36


#: Largest ``a`` for :func:`bird_exponent` and :func:`bird_exponent_paper`: both visit every
#: ``1 < b < a`` in float chunks (about 7 s each at ``a = 1e8``, 90 s at ``1e9``).
MAX_A = 2 * 10**8

#: Largest ``a`` for :func:`bird_exponent_bruteforce`: it evaluates ``sign(W)`` on a grid of
#: ``(2a + 1)^2`` points (about 27 bytes each: 1 GB at ``a = 3000``).
MAX_A_BRUTEFORCE = 1500


def _check_a(a: object, limit: int | None = MAX_A, what: str = "the closed-form search") -> int:
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
        raise InvalidArgument(f"a must be a positive integer (the range bound), got {a!r}")
    if int(a) < 1:
        raise InvalidArgument(f"a must be a positive integer (the range bound), got {a}")
    if limit is not None and int(a) > limit:
        raise InvalidArgument(
            f"a = {int(a)} is too large for {what}, which supports a <= {limit:,} (its work grows "
            f"with a); use a smaller a"
        )
    return int(a)


#: Above this many bits, ``(a + 1)^r`` is compared in certified ball arithmetic (arb)
#: instead of exact integers.
_EXACT_BITS = 200_000


def _compare(a: int, b: int, r: int) -> int:
    """Sign of ``(a + 1)^r - b (a - b)^r`` (with ``0^0 = 1``), decided exactly: integers,
    or for huge powers certified arb balls (exact integers if a ball straddles 0)."""
    if r == 0:
        return (1 > b) - (1 < b)
    if b == a:
        return 1  # (a - b)^r = 0
    if r * (a + 1).bit_length() > _EXACT_BITS:
        import flint

        old = flint.ctx.prec
        try:
            for prec in (128, 512, 4096):
                flint.ctx.prec = prec
                diff = r * (flint.arb(a + 1).log() - flint.arb(a - b).log()) - flint.arb(b).log()
                if diff > 0:
                    return 1
                if diff < 0:
                    return -1
        finally:
            flint.ctx.prec = old
    lhs, rhs = (a + 1) ** r, b * (a - b) ** r
    return (lhs > rhs) - (lhs < rhs)


def _holds(a: int, b: int, r: int) -> bool:
    """``(a + 1)^r >= b (a - b)^r``."""
    return _compare(a, b, r) >= 0


def _min_r_for_b(a: int, b: int, guess: float | None = None) -> int:
    """Smallest ``r >= 0`` with ``(a + 1)^r >= b (a - b)^r`` (exact)."""
    if b <= 1:
        return 0
    if b == a:
        return 1  # 0^0 = 1 < b at r = 0; 0 afterwards
    if guess is None:
        guess = math.log(b) / math.log((a + 1) / (a - b))
    r = max(math.ceil(guess), 0)
    while r > 0 and _holds(a, b, r - 1):
        r -= 1
    while not _holds(a, b, r):
        r += 1
    return r


def _ratio_candidates(a: int, margin: float = 2.0) -> list[tuple[int, float]]:
    """``(b, g(b))`` with ``g(b) = ln b / ln((a+1)/(a-b))`` within ``margin`` of the maximum
    over ``1 < b < a`` (float, chunked); the exact answer is ``ceil(g)`` up to float error,
    which is far below the margin, so the maximum is among these candidates."""
    best = -math.inf
    keep: list[tuple[int, float]] = []
    chunk = 1 << 20
    for start in range(2, a, chunk):
        bs = np.arange(start, min(a, start + chunk), dtype=np.float64)
        g = np.log(bs) / (np.log1p(bs / (a - bs + 0.0) + 1.0 / (a - bs)) )
        gmax = float(g.max())
        if gmax > best:
            best = gmax
            keep = [(b, v) for b, v in keep if v >= best - margin]
        idx = np.nonzero(g >= best - margin)[0]
        keep.extend((int(bs[i]), float(g[i])) for i in idx)
    return [(b, v) for b, v in keep if v >= best - margin]


def bird_exponent(a: int) -> int:
    """Smallest ``r`` with ``W > 0 iff X > 0 and Y > 0`` on ``[-a, a]^2`` (closed form).

    ``max_b`` of the exact per-``b`` minimum; floats only select the candidate ``b``
    (those within 2 of the float maximum), every candidate is decided exactly.

    Examples
    --------
    >>> bird_exponent(10), bird_exponent(100), bird_exponent(200)
    (3, 28, 56)
    """
    a = _check_a(a)
    best = 1 if a >= 2 else 0  # b = a (and b = 1, which needs r >= 0)
    for b, g in _ratio_candidates(a):
        best = max(best, _min_r_for_b(a, b, g))
    return best


def bird_exponent_paper(a: int) -> int:
    """The paper's closed form ``max_{1<b<a} floor(ln b / ln((a+1)/(a-b))) + 1``.

    Valid (``W > 0 iff X > 0, Y > 0``) but not always the smallest exponent; defined for
    ``a >= 3`` (the maximum is over an empty set below). Floors are decided exactly.

    Examples
    --------
    >>> bird_exponent_paper(5), bird_exponent(5)
    (2, 1)
    """
    a = _check_a(a)
    if a < 3:
        raise InvalidArgument(
            f"the paper's closed form needs a >= 3 (no b with 1 < b < a), got a={a}; "
            f"use bird_exponent(a)"
        )
    best = 0
    for b, g in _ratio_candidates(a):
        # floor(g) + 1 = smallest r with (a+1)^r > b (a-b)^r (strict)
        r = max(math.floor(g) + 1, 1)
        while r > 1 and _strict(a, b, r - 1):
            r -= 1
        while not _strict(a, b, r):
            r += 1
        best = max(best, r)
    return best


def _strict(a: int, b: int, r: int) -> bool:
    """``(a + 1)^r > b (a - b)^r``."""
    return _compare(a, b, r) > 0


def _t_parts(a: int, r: int, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sign and log-magnitude of ``t(v) = (v + a)^r v`` (``0^0 = 1``)."""
    base = (v + a).astype(float)
    sign = np.sign(v) * ((base > 0) | (r == 0))
    with np.errstate(divide="ignore"):
        log = np.log(np.abs(v).astype(float)) + (r * np.log(base) if r else 0.0)
    return sign, np.where(sign == 0, -np.inf, log)


def _sign_W(a: int, r: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Exact sign of ``W`` on the grid ``xs x ys`` (rows x, columns y).

    ``W = x y S`` with ``S = t(x) + t(y)``, ``t(v) = (v + a)^r v``; ``sign(S)`` compares
    ``|t|`` in logarithms and re-checks near-ties with exact integers.
    """
    sx, lx = _t_parts(a, r, xs)
    sy, ly = _t_parts(a, r, ys)
    sx, lx = sx[:, None], lx[:, None]
    sy, ly = sy[None, :], ly[None, :]
    with np.errstate(invalid="ignore"):
        diff = lx - ly  # nan only where both t vanish (then sx == sy)
        sS = np.where(sx == sy, sx, np.where(diff > 0, sx, np.where(diff < 0, sy, 0)))
        near = (sx != sy) & (np.abs(diff) < 1e-9 * (1.0 + np.abs(lx)))
    for i, j in zip(*np.nonzero(near)):
        xi, yj = int(xs[i]), int(ys[j])
        exact = (xi + a) ** r * xi + (yj + a) ** r * yj
        sS[i, j] = (exact > 0) - (exact < 0)
    return np.sign(xs)[:, None] * np.sign(ys)[None, :] * sS


def _valid(a: int, r: int, quadrant: bool = False) -> bool:
    """Does ``W > 0 iff x > 0 and y > 0`` hold on the grid (or on ``x > 0 > y`` only)?"""
    if quadrant:
        xs, ys = np.arange(1, a + 1), np.arange(-a, 0)
    else:
        xs = ys = np.arange(-a, a + 1)
    want = (xs[:, None] > 0) & (ys[None, :] > 0)
    return bool(np.array_equal(_sign_W(a, r, xs, ys) > 0, want))


def bird_exponent_bruteforce(a: int) -> int:
    """Smallest valid ``r`` by exhaustive evaluation of ``sign(W)`` on ``[-a, a]^2``.

    Validity is monotone in ``r`` (module docstring), and only the quadrants with
    opposite signs depend on ``r`` (``W`` is symmetric in ``X, Y``), so the search
    bisects on the quadrant ``x > 0 > y``; the answer is then confirmed on the *full*
    grid: ``r`` valid and ``r - 1`` invalid.

    Examples
    --------
    >>> bird_exponent_bruteforce(10)
    3
    """
    a = _check_a(a, MAX_A_BRUTEFORCE,
                 f"the exhaustive search (about {27 * (2 * int(a) + 1) ** 2 / 1e9:.2g} GB for the grid)"
                 if isinstance(a, (int, np.integer)) and not isinstance(a, bool) else "the exhaustive search")
    hi = 1
    while not _valid(a, hi, quadrant=True):
        hi *= 2
    lo = -1  # invalid sentinel
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 0 and _valid(a, mid, quadrant=True):
            hi = mid
        else:
            lo = mid
    if not _valid(a, hi) or (hi > 0 and _valid(a, hi - 1)):  # pragma: no cover
        raise RuntimeError(f"bird exponent search is not monotone at a={a}")
    return hi


def bird_coefficients(a: int, r: int) -> dict[tuple[int, int], int]:
    """``W`` as ``{(i, j): c}`` with ``W = sum c X^i Y^j`` (exact integers)."""
    a = _check_a(a, None)
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        raise InvalidArgument(f"r must be a non-negative integer, got {r!r}")
    out: dict[tuple[int, int], int] = {}
    for i in range(r + 1):
        c = math.comb(r, i) * a ** (r - i)
        out[(i + 2, 1)] = out.get((i + 2, 1), 0) + c
        out[(1, i + 2)] = out.get((1, i + 2), 0) + c
    return out


def bird_polynomial(X: Any, Y: Any, a: int, r: Optional[int] = None) -> Any:
    """``W = (X + a)^r X^2 Y + (Y + a)^r Y^2 X`` for numbers, arrays, sympy or Statistics.

    ``r`` defaults to :func:`bird_exponent` ``(a)``. Python ints stay exact; numpy integer
    arrays overflow silently for large ``r`` (use ``dtype=object``).

    Examples
    --------
    >>> [bird_polynomial(x, y, 10) > 0 for x, y in [(1, 1), (1, -10), (-3, 2), (0, 5)]]
    [True, False, False, False]
    """
    a = _check_a(a, None)
    if r is None:
        r = bird_exponent(a)
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        raise InvalidArgument(f"r must be a non-negative integer, got {r!r}")
    return (X + a) ** r * X**2 * Y + (Y + a) ** r * Y**2 * X


@dataclass(frozen=True)
class BirdMoments:
    """Moments of ``W`` with the parameters that produced them."""

    a: int
    r: int
    degree: int  # degree of W in (X, Y)
    moments: Any  # MomentSequence of W


def bird_moments(
    stat_x: "Statistic",
    stat_y: "Statistic",
    model: "CellModel",
    N: int,
    order: int,
    a: Optional[int] = None,
    r: Optional[int] = None,
    degree_cap: int = DEFAULT_DEGREE_CAP,
    *,
    exact: Optional[bool] = None,
) -> BirdMoments:
    """Moments ``E[W^k]``, ``k = 0..order``, of the bird polynomial of two statistics.

    ``a`` defaults to the larger absolute support bound of ``X`` and ``Y`` at ``N`` and
    ``r`` to :func:`bird_exponent` ``(a)``. ``W^k`` is expanded in ``(X, Y)`` and each
    ``E[X^i Y^j]`` comes from :func:`joint_moments` machinery (exact).

    Raises
    ------
    DegreeCapExceeded
        When ``order * (r + 3)`` (the joint-moment degree needed) exceeds ``degree_cap``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2,))
    >>> b = bird_moments(naive_bayes_statistic(m, (0,)), naive_bayes_statistic(m, (1,)), m, 2, 1)
    >>> b.a, b.r, b.degree
    (2, 1, 4)
    """
    from momentbound._validate import as_int
    from momentbound.moments.arguments import check_order, check_statistic_model, resolve_exact
    from momentbound.moments.core import exact_joint_moments
    from momentbound.moments.sequence import MomentSequence

    check_statistic_model(stat_x, model, "stat_x")
    check_statistic_model(stat_y, model, "stat_y")
    N = as_int(N, "N", minimum=0)
    order = check_order(order)
    if isinstance(degree_cap, bool) or not isinstance(degree_cap, int) or degree_cap < 1:
        raise InvalidArgument(f"degree_cap must be a positive integer, got {degree_cap!r}")
    if a is None:
        lx, hx = stat_x.support(N)
        ly, hy = stat_y.support(N)
        a = max(1, -lx, hx, -ly, hy)
    a = _check_a(a)
    if r is None:
        r = bird_exponent(a)
    coeffs = bird_coefficients(a, r)
    degree = r + 3
    need = order * degree
    if need > degree_cap:
        raise DegreeCapExceeded(
            f"bird polynomial for a={a} needs r={r}, so W has degree {degree} in (X, Y) and "
            f"E[W^{order}] needs joint moments of total degree {need} > degree_cap={degree_cap}. "
            f"r*(a) grows linearly in a (a ~ N^3/7 for the 2x2x2 naive Bayes Z), so this "
            f"route does not scale; raise degree_cap only for small a, or use the alternatives: "
            f"Frechet bounds from the marginal probabilities, a bivariate moment SDP on (X, Y), "
            f"or exact computation of P[X > 0, Y > 0].",
            degree=need,
            cap=degree_cap,
        )
    # W^k as dicts in (X, Y)
    powers: list[dict[tuple[int, int], int]] = [{(0, 0): 1}]
    for _ in range(order):
        acc: dict[tuple[int, int], int] = {}
        for (i1, j1), c1 in powers[-1].items():
            for (i2, j2), c2 in coeffs.items():
                key = (i1 + i2, j1 + j2)
                acc[key] = acc.get(key, 0) + c1 * c2
        powers.append(acc)
    pairs = sorted({ij for p in powers for ij in p})
    joint = exact_joint_moments(stat_x, stat_y, model, N, pairs)  # one engine run
    values = []
    for p in powers:
        total = sum((c * joint[ij] for ij, c in p.items()), start=joint[(0, 0)] * 0)
        values.append(total)
    ex = resolve_exact(model, exact)
    vals = tuple(values) if ex else tuple(float(v) for v in values)
    return BirdMoments(
        a, r, degree, MomentSequence(vals, N, ex, f"W(a={a}, r={r})", rational=tuple(values))
    )
