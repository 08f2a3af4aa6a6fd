"""Laws of sums of iid points on ``{0,1}^D`` by powers of a discrete Fourier transform, and the
binomial windows that bound what such laws leave out (docs/mathematics.md, section 'The decision
statistic Z').

Shared by the large-``N`` routes of :mod:`momentbound.exact.zlaw` and
:mod:`momentbound.exact.two_class_predictions` and by the ``exact`` backend of
:mod:`momentbound.probability`.
"""

from __future__ import annotations

import math

import numpy as np

from momentbound.exact.predictions import ComponentSpace
from momentbound.model.cells import CellModel

__all__ = ["PowerLaw", "class_point_law", "dft_window_size", "fast_fft_length", "hoeffding_window"]


def class_point_law(model: CellModel, space: ComponentSpace, c: int) -> np.ndarray:
    """Law of one class-``c`` point's component indicators: an array on ``{0,1}^D`` (``D = space.dim``)
    whose entry at a signature is the probability, given class ``c``, of an input with that signature."""
    D = space.dim
    law = np.zeros((2,) * D)
    prior = float(model.prior(c))
    for z in model.inputs():
        pz = float(model.p(z, c))
        if pz > 0:
            law[space.signature(z)] += pz / prior
    return law


class PowerLaw:
    """Laws of sums of ``n`` iid copies of a point law on ``{0,1}^D``, by DFT powers.

    The DFT of the point law is computed once (``size`` per axis); the law of ``n`` copies is
    ``irfft(f ** n)`` (consecutive ``n``: one multiplication; otherwise in polar form).
    With ``size > n`` there is no wrap-around: the result is the law on ``0..n`` per axis,
    absolute error per entry ~1e-16 (negative rounding noise is clipped to 0). With a smaller
    ``size`` the result is the law of the sum modulo ``size``; :meth:`window_law` reads it on a
    window ``[lo, lo + size)`` per axis, exact up to the mass outside the window (which is
    folded in by the wrap-around and must be bounded by the caller).
    """

    def __init__(self, point_law: np.ndarray, size: int) -> None:
        self.D = point_law.ndim
        self.size = size
        self.shape = (size,) * self.D
        self.axes = tuple(range(self.D))
        self.f = np.fft.rfftn(point_law, s=self.shape, axes=self.axes)
        with np.errstate(divide="ignore"):
            self.logr = np.log(np.abs(self.f))
        self.theta = np.angle(self.f)
        self.marginals = [float(point_law.sum(axis=tuple(a for a in self.axes if a != j))[1]) for j in self.axes]
        self._last: tuple[int, np.ndarray] | None = None

    def _power(self, n: int) -> np.ndarray:
        if self._last is not None and self._last[0] == n - 1:
            power = self._last[1] * self.f  # consecutive sizes: one multiplication
        else:
            with np.errstate(under="ignore"):
                power = np.exp(n * self.logr) * np.exp(1j * (n * self.theta))
        self._last = (n, power)
        return power

    def law(self, n: int) -> np.ndarray:
        if n == 0:
            out = np.zeros((1,) * self.D)
            out[(0,) * self.D] = 1.0
            return out
        if n >= self.size:
            raise ValueError(f"DFT size {self.size} is too small for n = {n}; use window_law")
        out = np.fft.irfftn(self._power(n), s=self.shape, axes=self.axes)[tuple(slice(0, n + 1) for _ in range(self.D))]
        return np.clip(out, 0.0, None)

    def window(self, n: int) -> tuple[tuple[int, ...], float]:
        """Window start per axis (centred on the binomial marginals) and a Hoeffding bound on
        the mass outside ``[lo, lo + size)`` (summed over axes)."""
        L = self.size
        los, out = [], 0.0
        for r in self.marginals:
            lo = int(min(max(0, round(n * r - (L - 1) / 2)), max(0, n + 1 - L)))
            hi = lo + L - 1
            if lo > 0:
                out += math.exp(-2.0 * (n * r - lo) ** 2 / n) if n * r > lo else 1.0
            if hi < n:
                out += math.exp(-2.0 * (hi - n * r) ** 2 / n) if hi > n * r else 1.0
            los.append(lo)
        return tuple(los), min(out, 1.0)

    def window_law(self, n: int, lo: tuple[int, ...]) -> np.ndarray:
        """``out[i] ~ P(S = lo + i)`` for ``i`` in ``0..size-1`` per axis (law of ``S`` mod ``size``)."""
        if n == 0:
            out = np.zeros(self.shape)
            out[(0,) * self.D] = 1.0 if all(v == 0 for v in lo) else 0.0
            return out
        aliased = np.fft.irfftn(self._power(n), s=self.shape, axes=self.axes)
        out = np.roll(aliased, shift=tuple(-v for v in lo), axis=self.axes)
        return np.clip(out, 0.0, None)


def hoeffding_window(N: int, p: float, tail: float) -> tuple[int, int, float]:
    """Smallest symmetric window of ``Bin(N, p)`` with Hoeffding tail ``2 exp(-2 w^2 / N) <= tail``."""
    if tail <= 0 or N == 0:
        return 0, N, 0.0
    w = math.sqrt(N * math.log(2.0 / tail) / 2.0)
    lo = max(0, math.floor(N * p - w))
    hi = min(N, math.ceil(N * p + w))
    bound = 0.0
    if lo > 0:
        bound += math.exp(-2.0 * (N * p - lo) ** 2 / N)
    if hi < N:
        bound += math.exp(-2.0 * (hi - N * p) ** 2 / N)
    return lo, hi, min(bound, 1.0)


def fast_fft_length(n: int) -> int:
    """Smallest 2^i 3^j 5^k >= n (fast FFT length)."""
    best = 1 << max(0, (n - 1).bit_length())
    f5 = 1
    while f5 < 2 * n:
        f3 = f5
        while f3 < 2 * n:
            f2 = f3
            while f2 < n:
                f2 *= 2
            best = min(best, f2)
            f3 *= 3
        f5 *= 5
    return best


def dft_window_size(n_max: int, dim: int, tail: float) -> int:
    """DFT length for laws of up to ``n_max`` points on ``dim`` count axes: the whole range
    ``0..n_max``, or (``tail > 0``) a window per axis holding all but ``tail / (2 dim)`` of every
    binomial marginal (Hoeffding), read modulo the length, when that is shorter."""
    size = fast_fft_length(n_max + 1)
    if tail > 0:
        w = math.sqrt(n_max * math.log(4.0 * dim / tail) / 2.0)
        if 2 * w + 2 < size:
            size = fast_fft_length(int(2 * w) + 2)
    return size
