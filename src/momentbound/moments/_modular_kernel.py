"""The numba kernel of :mod:`momentbound.moments.modular` (imported lazily: importing numba
costs about half a second). Residues are float64 below ``2**24``; see that module for why
every operation is exact."""

import numpy as np
from numba import njit

__all__ = ["kernel"]



@njit(cache=True, inline="always")
def reduce(x: float, p: float, pinv: float) -> float:
    """``x mod p`` for an exact float ``0 <= x < 2**53``."""
    r = x - np.floor(x * pinv) * p
    if r < 0.0:
        r += p
    elif r >= p:
        r -= p
    return r


@njit(cache=True)
def block(qres, primes, pinv, cells_flat, cells_off, base, mono, npow1, npow12,
          slot_len, rng_start, rng_end, rng_off, term_mono, term_coef, chain_off,
          max_e0, key_len, mv, chain):
    """Class-vector coefficients and their total-count chains, modulo every prime, written
    into the work arrays ``mv`` (monomials) and ``chain`` (only entries ``w < key_len`` of
    each chain key are written and read)."""
    nP = primes.shape[0]
    h = np.zeros((4, nP))
    for i in range(4):
        for c in range(cells_off[i], cells_off[i + 1]):
            cell = cells_flat[c]
            for j in range(nP):
                h[i, j] += qres[cell, j]
        for j in range(nP):
            h[i, j] = reduce(h[i, j], primes[j], pinv[j])
    p1 = np.ones((npow1, nP))
    p2 = np.ones((npow1, nP))
    p12 = np.ones((npow12, nP))
    for a in range(1, npow1):
        for j in range(nP):
            p1[a, j] = reduce(p1[a - 1, j] * h[0, j], primes[j], pinv[j])
            p2[a, j] = reduce(p2[a - 1, j] * h[1, j], primes[j], pinv[j])
    for a in range(1, npow12):
        for j in range(nP):
            p12[a, j] = reduce(p12[a - 1, j] * h[2, j], primes[j], pinv[j])
    nb = base.shape[0]
    bv = np.empty((nb, nP))
    for i in range(nb):
        a = base[i, 0]
        b = base[i, 1]
        if base[i, 2]:
            for j in range(nP):
                bv[i, j] = reduce(reduce(p1[a, j] * p2[b, j], primes[j], pinv[j])
                                  + reduce(p1[b, j] * p2[a, j], primes[j], pinv[j]),
                                  primes[j], pinv[j])
        else:
            for j in range(nP):
                bv[i, j] = reduce(p1[a, j] * p2[b, j], primes[j], pinv[j])
    nm = mono.shape[0]
    for i in range(nm):
        bi = mono[i, 0]
        jj = mono[i, 1]
        for j in range(nP):
            mv[i, j] = reduce(bv[bi, j] * p12[jj, j], primes[j], pinv[j])
    acc = np.zeros(nP)
    for s in range(slot_len.shape[0]):
        L = slot_len[s]
        k0 = chain_off[s]
        for m in range(L):
            r0 = rng_off[s] + m
            acc[:] = 0.0
            cnt = 0
            for t in range(rng_start[r0], rng_end[r0]):
                mi = term_mono[t]
                for j in range(nP):
                    acc[j] += term_coef[t, j] * mv[mi, j]
                cnt += 1
                if cnt == 31:  # residues < 2**24: 32 products stay below 2**53
                    for j in range(nP):
                        acc[j] = reduce(acc[j], primes[j], pinv[j])
                    cnt = 0
            for j in range(nP):
                chain[k0, m, j] = reduce(acc[j], primes[j], pinv[j])
        # n * (n)_w = (n)_(w+1) + w (n)_w: out[w] = P prev[w-1] + w prev[w]
        for e0 in range(1, max_e0[s] + 1):
            k = k0 + e0
            ln = L + e0
            for j in range(nP):
                chain[k, 0, j] = 0.0
            for w in range(1, ln - 1):
                fw = float(w)
                for j in range(nP):
                    chain[k, w, j] = reduce(h[3, j] * chain[k - 1, w - 1, j]
                                            + fw * chain[k - 1, w, j], primes[j], pinv[j])
            for j in range(nP):  # top coefficient: the previous vector has length ln - 1
                chain[k, ln - 1, j] = reduce(h[3, j] * chain[k - 1, ln - 2, j], primes[j], pinv[j])


@njit(cache=True)
def kernel(qres, Nres, Dres, primes, pinv,
           a_cf, a_co, a_base, a_mono, a_np1, a_np12, a_sl, a_rs, a_re, a_ro, a_tm, a_tc,
           a_off, a_me, a_kl,
           b_cf, b_co, b_base, b_mono, b_np1, b_np12, b_sl, b_rs, b_re, b_ro, b_tm, b_tc,
           b_off, b_me, b_kl,
           t_poly, t_a, t_b, t_coef, wdeg, npoly, mva, ca, mvb, cb, G):
    """``num_k = E[Z^k] D^(W_k)`` modulo every prime (one row per order ``k``); ``mva``,
    ``ca``, ``mvb``, ``cb`` and ``G`` are reused work arrays (no allocation per call)."""
    nP = primes.shape[0]
    block(qres, primes, pinv, a_cf, a_co, a_base, a_mono, a_np1, a_np12, a_sl, a_rs,
          a_re, a_ro, a_tm, a_tc, a_off, a_me, a_kl, mva, ca)
    block(qres, primes, pinv, b_cf, b_co, b_base, b_mono, b_np1, b_np12, b_sl, b_rs,
          b_re, b_ro, b_tm, b_tc, b_off, b_me, b_kl, mvb, cb)
    wmax = G.shape[1] - 1
    G[:, :, :] = 0.0
    pending = np.zeros(npoly, dtype=np.int64)
    xa = np.empty(nP)
    for t in range(t_poly.shape[0]):
        k = t_poly[t]
        ka = t_a[t]
        kb = t_b[t]
        la = a_kl[ka]
        lb = b_kl[kb]
        for a in range(la):
            for j in range(nP):
                xa[j] = reduce(ca[ka, a, j] * t_coef[t, j], primes[j], pinv[j])
            for b in range(lb):
                for j in range(nP):
                    G[k, a + b, j] += xa[j] * cb[kb, b, j]
            pending[k] += 1
            if pending[k] == 31:  # each entry got at most 31 products since its last reduction
                for w in range(wmax + 1):
                    for j in range(nP):
                        G[k, w, j] = reduce(G[k, w, j], primes[j], pinv[j])
                pending[k] = 0
    for k in range(npoly):
        for w in range(wmax + 1):
            for j in range(nP):
                G[k, w, j] = reduce(G[k, w, j], primes[j], pinv[j])
    # num_k = sum_w G[k, w] (N)_w D^(W_k - w)
    ff = np.ones((wmax + 1, nP))
    dp = np.ones((wmax + 1, nP))
    for w in range(1, wmax + 1):
        for j in range(nP):
            f = Nres[j] - (w - 1)
            if f < 0.0:
                f += primes[j]
            ff[w, j] = reduce(ff[w - 1, j] * f, primes[j], pinv[j])
            dp[w, j] = reduce(dp[w - 1, j] * Dres[j], primes[j], pinv[j])
    out = np.zeros((npoly, nP))
    for k in range(npoly):
        W = wdeg[k]
        for w in range(W + 1):
            for j in range(nP):
                x = reduce(G[k, w, j] * ff[w, j], primes[j], pinv[j])
                out[k, j] += reduce(x * dp[W - w, j], primes[j], pinv[j])
        for j in range(nP):
            out[k, j] = reduce(out[k, j], primes[j], pinv[j])
    return out


@njit(cache=True)
def crt_limbs(res, primes, pinv, inv, mi_limbs, out):
    """Chinese remainder step, in 32-bit limbs: for each row ``k``,
    ``out[k] = sum_i ((res[k, i] * inv[i]) mod p_i) * M_i`` (``M_i = M / p_i``, ``inv[i]`` its
    inverse mod ``p_i``) as little-endian 32-bit limbs with carries propagated. The value is
    below ``n * M``; the caller reduces it modulo ``M`` (one big-integer operation)."""
    nrow = out.shape[0]
    nl = out.shape[1]
    n = primes.shape[0]
    acc = np.zeros(nl, dtype=np.uint64)
    mask = np.uint64(0xFFFFFFFF)
    for k in range(nrow):
        acc[:] = 0
        for i in range(n):
            c = np.uint64(reduce(res[k, i] * inv[i], primes[i], pinv[i]))
            for l in range(mi_limbs.shape[1]):
                acc[l] += c * mi_limbs[i, l]  # < 2**24 * 2**32 per term
            if (i + 1) % 128 == 0:  # keep every limb below 2**63: propagate carries
                carry = np.uint64(0)
                for l in range(nl):
                    v = acc[l] + carry
                    acc[l] = v & mask
                    carry = v >> np.uint64(32)
        carry = np.uint64(0)
        for l in range(nl):
            v = acc[l] + carry
            out[k, l] = v & mask
            carry = v >> np.uint64(32)
