"""Fast exact cross-validation cross term for one attribute, two classes, ``alpha = 0``.

With ``alpha = 0`` the one-attribute naive Bayes prediction at ``x`` depends on the training
counts only through ``D = N[x, 0] - N[x, 1]`` (class 0 wins iff ``D > 0``), except for the
``first`` rule's empty-class case ``E0 = {N[x,0] = N[x,1] = 0 and no class-0 point}``, where the
present class 1 wins. Writing ``g = h(D) + 1_{E0} (-1, 1)`` (the second part only for
``first``), the cross term

``E[g_{x_a}(. | C + B' + point_b) (x) g_{x_b}(. | C + A' + point_a)]``

splits into a sum over the joint law of ``(D^C_{x_a}, D^C_{x_b})`` of the shared part ``C``
(a two-dimensional lattice walk, built from binomials with BLAS matrix products) times the
conditional prediction probabilities given ``C``, plus closed-form ``E0`` corrections.
``O(n^3)`` flops with tiny constants; no sum over datasets.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model.cells import CellModel

__all__ = ["cross_1d_alpha0", "overlap_1d_alpha0", "walk_law", "applies"]

Point = tuple[tuple[int, ...], int]


def applies(model: CellModel, clf: NaiveBayes) -> bool:
    return model.d == 1 and model.n_classes == 2 and clf.alpha_exact == 0 and clf.ties in ("random", "first")


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])


def _xlogy(k: np.ndarray, p: float) -> np.ndarray:
    if p > 0:
        return k * math.log(p)
    return np.where(k == 0, 0.0, -np.inf)


def _binomial_rows(n_max: int, prob: float) -> np.ndarray:
    """Matrix ``B[m, k] = Binomial(k; m, prob)`` for ``m, k = 0..n_max``."""
    lf = _log_factorials(n_max)
    m = np.arange(n_max + 1)[:, None]
    k = np.arange(n_max + 1)[None, :]
    valid = k <= m
    kk = np.where(valid, k, 0)
    rest = np.where(valid, m - k, 0)
    logp = lf[m] - lf[kk] - lf[rest] + _xlogy(kk, prob) + _xlogy(rest, 1.0 - prob)
    # entries with k > m are not probabilities (their log-coefficient lf[m] is huge): give them
    # log-probability -inf before exponentiating, so only genuine log-pmfs (<= 0) reach exp
    logp = np.where(valid, logp, -np.inf)
    return np.exp(logp)


def _walk_given_hits(h_max: int, up: float) -> np.ndarray:
    """``M[h, i + h_max] = P(D = i | h hits)`` with ``D = 2 * #up - h`` (``#up ~ Bin(h, up)``)."""
    B = _binomial_rows(h_max, up)
    M = np.zeros((h_max + 1, 2 * h_max + 1))
    h = np.arange(h_max + 1)[:, None]
    k = np.arange(h_max + 1)[None, :]
    cols = (2 * k - h + h_max).ravel()
    rows = np.broadcast_to(h, (h_max + 1, h_max + 1)).ravel()
    mask = (k <= h).ravel()
    np.add.at(M, (rows[mask], cols[mask]), B.ravel()[mask])
    return M


def _cell(model: CellModel, x: int, k: int) -> float:
    return float(model.p((x,), k))


@lru_cache(maxsize=512)
def walk_law(model: CellModel, m: int, x: int) -> np.ndarray:
    """Law of ``D = N[x,0] - N[x,1]`` over ``m`` iid points, on ``-m..m`` (index ``i + m``)."""
    p0, p1 = _cell(model, x, 0), _cell(model, x, 1)
    s = p0 + p1
    hits = _binomial_rows(m, s)[m]  # P(h hits)
    up = p0 / s if s > 0 else 0.0
    M = _walk_given_hits(m, up)
    out = hits @ M
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def joint_walk_law(model: CellModel, nc: int, xa: int, xb: int) -> np.ndarray:
    """Joint law of ``(D_{x_a}, D_{x_b})`` over ``nc`` iid points, ``x_a != x_b``; index ``(i + nc, j + nc)``."""
    pa0, pa1 = _cell(model, xa, 0), _cell(model, xa, 1)
    pb0, pb1 = _cell(model, xb, 0), _cell(model, xb, 1)
    sa, sb = pa0 + pa1, pb0 + pb1
    Ha = _binomial_rows(nc, sa)[nc]  # hits at x_a
    cond = sb / (1.0 - sa) if sa < 1.0 else 0.0
    Hb = _binomial_rows(nc, min(cond, 1.0))  # hits at x_b given the remaining points
    tri = Ha[:, None] * Hb[::-1, :]  # tri[ha, hb] = P(ha) P(hb | nc - ha)
    Ma = _walk_given_hits(nc, pa0 / sa if sa > 0 else 0.0)
    Mb = _walk_given_hits(nc, pb0 / sb if sb > 0 else 0.0)
    out = Ma.T @ tri @ Mb
    out.setflags(write=False)
    return out


def _restricted_down_walk(m: int, prob_down: float) -> np.ndarray:
    """Law of ``-Bin(m, prob_down)`` on ``-m..m``."""
    out = np.zeros(2 * m + 1)
    out[: m + 1] = _binomial_rows(m, prob_down)[m][::-1]
    return out


def _h_matrix(shift_law: np.ndarray, radius_shift: int, offset: int, radius: int, ties: str) -> np.ndarray:
    """``F[i + radius] = E[h(i + offset + S)]`` for ``i = -radius..radius``; ``S`` has law
    ``shift_law`` on ``-radius_shift..radius_shift``. Shape ``(2 radius + 1, 2)``."""
    cdf = np.concatenate([[0.0], np.cumsum(shift_law)])  # cdf[k] = P(S < k - radius_shift)
    i = np.arange(-radius, radius + 1)
    # P(i + offset + S > 0) = P(S > -(i + offset)) ; P(... = 0) = P(S = -(i + offset))
    t = -(i + offset)
    idx_le = np.clip(t + radius_shift + 1, 0, len(shift_law))  # number of S values <= t
    idx_lt = np.clip(t + radius_shift, 0, len(shift_law))
    p_le = cdf[idx_le]
    p_lt = cdf[idx_lt]
    total = cdf[-1]
    p_gt = total - p_le
    p_eq = p_le - p_lt
    if ties == "random":
        win0 = p_gt + 0.5 * p_eq
    else:
        win0 = p_gt + p_eq
    return np.stack([win0, total - win0], axis=1)


def _offset(point: Point | None, x: int) -> int:
    if point is None:
        return 0
    (z,), y = point
    if z != x:
        return 0
    return 1 if y == 0 else -1


def cross_1d_alpha0(
    model: CellModel, n_common: int, n_a: int, n_b: int, point_a: Point, point_b: Point, clf: NaiveBayes
) -> np.ndarray:
    """The cross term (contract of ``PredictionBackend.cross``) for ``d = 1, K = 2, alpha = 0``."""
    return _two_walks(model, n_common, n_a, n_b, point_a[0][0], point_b[0][0], point_a, point_b, clf)


def overlap_1d_alpha0(
    model: CellModel, n_common: int, n_a: int, n_b: int, x_a: tuple[int, ...], x_b: tuple[int, ...], clf: NaiveBayes
) -> np.ndarray:
    """``E[g_{x_a}(. | C + B) g_{x_b}(. | C + A)]`` without fixed points (the printed Lemma 2's
    pair term; ``ExactBackend.overlap``) for ``d = 1, K = 2, alpha = 0``."""
    return _two_walks(model, n_common, n_a, n_b, x_a[0], x_b[0], None, None, clf)


def _two_walks(
    model: CellModel,
    n_common: int,
    n_a: int,
    n_b: int,
    xa: int,
    xb: int,
    point_a: Point | None,
    point_b: Point | None,
    clf: NaiveBayes,
) -> np.ndarray:
    """``E[g_{xa}(. | C + B' [+ point_b]) g_{xb}(. | C + A' [+ point_a])]``; ``None``: no fixed point."""
    nc = n_common
    # laws of the private parts
    law_bp = walk_law(model, n_b, xa)  # B' enters T_A (prediction at x_a)
    law_ap = walk_law(model, n_a, xb)
    F_A = _h_matrix(law_bp, n_b, _offset(point_b, xa), nc, clf.ties)
    F_B = _h_matrix(law_ap, n_a, _offset(point_a, xb), nc, clf.ties)
    # joint law of the shared part
    if xa == xb:
        law_c = walk_law(model, nc, xa)
        out = (F_A * law_c[:, None]).T @ F_B
    else:
        joint = joint_walk_law(model, nc, xa, xb)  # P(D_a = i, D_b = j)
        out = F_A.T @ joint @ F_B
    if clf.ties == "first":
        out = out + _first_rule_corrections(model, nc, n_a, n_b, xa, xb, point_a, point_b)
    return out


def _first_rule_corrections(
    model: CellModel,
    nc: int,
    n_a: int,
    n_b: int,
    xa: int,
    xb: int,
    point_a: Point | None,
    point_b: Point | None,
) -> np.ndarray:
    """Terms of ``E[g_A g_B]`` involving ``E0`` (a non-empty training set without class-0 points
    and without class-1 points at x). ``None`` points: no fixed point in the training sets."""
    delta = np.array([-1.0, 1.0])
    pi1 = float(model.prior(1))
    rho_a = pi1 - _cell(model, xa, 1)  # mass of G_a = {(z, 1): z != x_a}
    rho_b = pi1 - _cell(model, xb, 1)
    # E0 needs the fixed point (if any) in G_x, and a non-empty training set
    in_ga = lambda pt, x, n_random: (pt[1] == 1 and pt[0][0] != x) if pt is not None else n_random > 0  # noqa: E731
    out = np.zeros((2, 2))

    def e0_and_other(rho: float, x_e0: int, n_e0_private: int, x_other: int, n_other_private: int,
                     other_private_law: np.ndarray, other_offset: int) -> np.ndarray:
        """``E[1_{E0 at x_e0} h(D at x_other)]`` with ``C`` restricted to ``G_{x_e0}``; the training
        set with ``E0`` has ``n_e0_private`` private random points (not inferred from ``x_e0``:
        ``x_a == x_b`` is allowed with ``n_a != n_b``)."""
        p_e0 = max(rho, 0.0) ** (nc + n_e0_private)  # 0 ** 0 == 1
        if p_e0 == 0:
            return np.zeros(2)
        if x_other != x_e0 and nc > 0:
            down = _cell(model, x_other, 1) / rho
            law_c = _restricted_down_walk(nc, min(down, 1.0))
        else:
            law_c = np.zeros(2 * nc + 1)
            law_c[nc] = 1.0
        F = _h_matrix(other_private_law, n_other_private, other_offset, nc, "first")
        return p_e0 * (law_c @ F)

    law_ap = walk_law(model, n_a, xb)
    law_bp = walk_law(model, n_b, xa)
    e0a = in_ga(point_b, xa, nc + n_b)  # point_b is part of T_A
    e0b = in_ga(point_a, xb, nc + n_a)
    if e0a:
        hb = e0_and_other(rho_a, xa, n_b, xb, n_a, law_ap, _offset(point_a, xb))
        out += np.outer(delta, hb)
    if e0b:
        ha = e0_and_other(rho_b, xb, n_a, xa, n_b, law_bp, _offset(point_b, xa))
        out += np.outer(ha, delta)
    if e0a and e0b:
        rho_ab = pi1 - _cell(model, xa, 1) - (_cell(model, xb, 1) if xb != xa else 0.0)
        p = max(rho_ab, 0.0) ** nc * max(rho_a, 0.0) ** n_b * max(rho_b, 0.0) ** n_a
        out += p * np.outer(delta, delta)
    return out
