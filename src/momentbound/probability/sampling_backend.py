"""The ``sampling`` backend: conditional Monte Carlo over training count tables.

Training count tables are drawn from ``Multinomial(n, p)`` (never individual datasets of
points), and the prediction probabilities ``g_x(y | T)`` of each drawn table are evaluated
exactly (integer score comparison, the tie coin as its probability 1/#tied). The estimate is
the mean over draws with a normal (CLT) confidence interval clipped to ``[0, 1]``; kind
``estimate``.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import ClassVar

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model.cells import CellModel
from momentbound.probability.base import PredictionBackend, ProbabilityInterval, check_count

__all__ = ["SamplingBackend", "make_sampling_backend"]


class SamplingBackend(PredictionBackend):
    """Conditional Monte Carlo estimates with confidence intervals.

    Parameters
    ----------
    draws:
        Number of sampled training count tables per probability (at least 2).
    confidence:
        Two-sided level of the normal interval, in (0, 1).
    rng:
        ``numpy.random.Generator``; a fresh unseeded one when ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> from momentbound.model import independent_1d_model
    >>> b = SamplingBackend(draws=2000, rng=np.random.default_rng(1))
    >>> r = b.single(independent_1d_model("2/5"), 10, (0,))
    >>> bool(r.lower[0] <= r.estimate[0] <= r.upper[0]), r.draws
    (True, 2000)
    """

    name: ClassVar[str] = "sampling"
    kind_name: ClassVar[str] = "ESTIMATE"

    def __init__(self, draws: int = 20_000, confidence: float = 0.95, rng: np.random.Generator | None = None) -> None:
        self.draws = check_count(draws, "draws", minimum=2)
        if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
            raise InvalidArgument(f"confidence must be a number in (0, 1), got {confidence!r}")
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise InvalidArgument(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")
        self.confidence = float(confidence)
        self.rng = rng if rng is not None else np.random.default_rng()

    def _tables(self, model: CellModel, n: int) -> np.ndarray:
        probs = np.array([float(c) for c in model.cells])
        probs = probs / probs.sum()
        out = self.rng.multinomial(n, probs, size=self.draws)
        return out.reshape((self.draws,) + model.arities + (model.n_classes,))

    def _interval(self, samples: np.ndarray) -> ProbabilityInterval:
        mean = samples.mean(axis=0)
        sd = samples.std(axis=0, ddof=1)
        zq = NormalDist().inv_cdf(0.5 + self.confidence / 2)
        half = zq * sd / math.sqrt(self.draws)
        return ProbabilityInterval(
            np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0), mean, self.draws, self.confidence
        )

    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> ProbabilityInterval:
        g = clf.predict_inputs(self._tables(model, n), model.arities, x)
        return self._interval(g)

    def _pair(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> ProbabilityInterval:
        t = self._tables(model, n)
        g1 = clf.predict_inputs(t, model.arities, x)
        g2 = clf.predict_inputs(t, model.arities, x2)
        return self._interval(g1[:, :, None] * g2[:, None, :])

    def _cross(
        self,
        model: CellModel,
        n_common: int,
        n_a: int,
        n_b: int,
        point_a: tuple[tuple[int, ...], int],
        point_b: tuple[tuple[int, ...], int],
        clf: NaiveBayes,
    ) -> ProbabilityInterval:
        c = self._tables(model, n_common)
        ta = c + self._tables(model, n_b)
        tb = c + self._tables(model, n_a)
        ta[(slice(None),) + point_b[0] + (point_b[1],)] += 1
        tb[(slice(None),) + point_a[0] + (point_a[1],)] += 1
        ga = clf.predict_inputs(ta, model.arities, point_a[0])
        gb = clf.predict_inputs(tb, model.arities, point_b[0])
        return self._interval(ga[:, :, None] * gb[:, None, :])

    def __repr__(self) -> str:
        return f"SamplingBackend(draws={self.draws}, confidence={self.confidence})"


def make_sampling_backend(option: str | None) -> SamplingBackend:
    """The ``sampling`` backend (takes no option)."""
    return SamplingBackend()
