"""The simulation engine of the Monte Carlo estimator moments: count-table models, fold samplers,
running statistics with control variates, and the per-splitter simulations.

:func:`momentbound.estimators.montecarlo.monte_carlo_moments` runs these and returns the moments
with their intervals; the splitters' own ``simulate`` methods build on :class:`Simulation`
(docs/mathematics.md, "Monte Carlo control variates").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from momentbound.errors import ClassifierFailed, InvalidArgument
from momentbound.splitters.basic import (  # KFold, LeaveOneOut: used by the doctests
    GE,
    HoldOut,
    KFold,
    LeaveOneOut,
    SimulatedParts,
    check_model_and_estimator,
)
from momentbound.intervals import Interval
from momentbound.model.cells import CellModel
from momentbound.progress import check_progress

__all__ = [
    "DEFAULT_TIMEOUT", "Draws", "Simulation", "SimulatedParts", "TableModel", "check_arguments", "check_scheduler",
    "correlation_interval", "draw_covariance", "draw_mean", "draw_variance",
    "fit_scheduler", "interval_plus", "interval_sqrt", "memory_estimate",
    "DEFAULT_DRAWS", "MIN_DRAWS", "MAX_MEMORY", "SCHEDULERS",
]

DEFAULT_DRAWS = 10_000

#: Fewest draws accepted. The intervals are asymptotic (CLT and delta method): with few draws
#: they are too narrow (at 2 draws often of zero width; at 5 draws the 95% variance interval
#: held the exact value in about 67% of 200 runs, at 20 draws in about 83%), while from 200
#: draws on the measured coverage is close to the nominal level (docs/estimators.md).
MIN_DRAWS = 200

# int64 entries per chunk of fold tables (R_chunk * v * cells); bounds the memory of one chunk
_CHUNK_ENTRIES = 2_000_000

# control variates are used with at least this many draws per fitted coefficient
_CONTROL_DRAWS = 20


def _kernel_chunk(draws: int) -> int:
    """Draws per chunk: about 50 chunks (progress updates), at least 2,000 and at most 200,000."""
    return max(2_000, min(200_000, -(-draws // 50)))


class _IidFolds:
    """Sampler of independent fold tables ``F_i ~ Multinomial(s_i, p)`` (``KFold``)."""

    def __init__(self, m: "TableModel", sizes: tuple[int, ...]) -> None:
        self.model = m
        self.sizes = sizes

    def __call__(self, r: int, rng: np.random.Generator) -> np.ndarray:
        return np.stack([self.model.draw(rng, s, (r,)) for s in self.sizes], axis=1)


#: per-draw results larger than this (bytes) are refused before any work
MAX_MEMORY = 4 * 2**30

def memory_estimate(n_cells: int, folds: int, draws: int) -> int:
    """Bytes of the per-draw arrays of a run (errors, coin variances, GE and controls per fold and
    draw, the full-data table and its projections, two partitions for repeated splitters) plus one
    chunk of count tables."""
    from momentbound.estimators._nb_kernel import n_controls

    q = n_controls(n_cells)
    per_draw = 8 * (2 * 3 * folds + q + n_cells + 2 * n_table_controls(n_cells) + 10)
    return draws * per_draw + 8 * _CHUNK_ENTRIES * 4


# ----------------------------------------------------------------------------- validation
def check_arguments(model: object, N: object, estimator: object, classifier: object, draws: object,
           confidence: object, rng: object, progress: object = None) -> None:
    check_model_and_estimator(model, estimator)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or int(draws) < MIN_DRAWS:
        raise InvalidArgument(
            f"draws must be an integer >= {MIN_DRAWS} (number of sampled tables; below that the "
            f"confidence intervals do not hold their level), got {draws!r}; the default is {DEFAULT_DRAWS}"
        )
    if (isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating))
            or not (0 < float(confidence) < 1)):
        raise InvalidArgument(f"confidence must be a number in (0, 1) such as 0.95, got {confidence!r}")
    check_progress(progress)
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(
            f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed)), got {rng!r}"
        )


#: ``scheduler=`` values of :func:`monte_carlo_moments` besides addresses and clients
SCHEDULERS = ("local", "threads", "processes", "synchronous")


#: seconds to wait for the Dask scheduler at an address before giving up (``timeout=``)
DEFAULT_TIMEOUT = 5.0
#: the schedulers whose workers this process starts (``workers=`` applies to them only)
WORKER_SCHEDULERS = ("local", "threads", "processes")


def check_scheduler(scheduler: object, workers: object, classifier: object, timeout: object = DEFAULT_TIMEOUT) -> None:
    """``scheduler``, ``workers`` and ``timeout`` of :func:`monte_carlo_moments` (before any work).

    ``workers`` (``None``: 2) applies to the schedulers started here (:data:`WORKER_SCHEDULERS`);
    given with another scheduler it would be ignored, so it is refused.
    """
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or int(workers) < 1:
            raise InvalidArgument(f"workers must be an integer >= 1, got {workers!r}")
        if not (isinstance(scheduler, str) and scheduler in WORKER_SCHEDULERS):
            raise InvalidArgument(
                f"workers applies to scheduler='local', 'threads' or 'processes' (the workers this process "
                f"starts), not scheduler={scheduler!r}: drop workers, or pick one of those schedulers"
            )
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)) \
            or not (0 < float(timeout) < float("inf")):
        raise InvalidArgument(f"timeout must be a number of seconds > 0 such as {DEFAULT_TIMEOUT:g}, got {timeout!r}")
    if scheduler is None:
        return
    from momentbound.classifiers.base import classifier_member

    if isinstance(scheduler, str):
        if scheduler not in SCHEDULERS and "://" not in scheduler and ":" not in scheduler:
            raise InvalidArgument(
                f"scheduler must be one of {', '.join(SCHEDULERS)}, a Dask scheduler address such as "
                f"tcp://host:8786, or a distributed.Client; got {scheduler!r}"
            )
    else:
        from distributed import Client

        if not isinstance(scheduler, Client):
            raise InvalidArgument(
                f"scheduler must be one of {', '.join(SCHEDULERS)}, a Dask scheduler address such as "
                f"tcp://host:8786, or a distributed.Client; got {type(scheduler).__name__}"
            )
    if not classifier_member(classifier, "schedulable"):
        describe = getattr(classifier, "describe", None)
        raise InvalidArgument(
            f"scheduler applies to scikit-learn classifiers (one fit per table); "
            f"{describe() if callable(describe) else classifier!r} runs as a compiled naive Bayes kernel "
            "in this process: drop scheduler"
        )


@contextmanager
def fit_scheduler(scheduler: Any, workers: int, timeout: float = DEFAULT_TIMEOUT) -> Iterator[Any]:
    """What the fits run on: ``None``, a dask local scheduler name, or an open ``distributed.Client``
    (an address that does not answer within ``timeout`` seconds is an :class:`InvalidArgument`)."""
    if scheduler == "processes":  # one pool of worker processes for the whole run (dask makes one per call)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        import dask

        with ProcessPoolExecutor(int(workers), mp_context=multiprocessing.get_context("spawn")) as pool, \
                dask.config.set(pool=pool):
            yield scheduler
        return
    if scheduler is None or scheduler in SCHEDULERS[1:]:
        yield scheduler
        return
    from momentbound.parallel import dask_client

    with dask_client(None if scheduler == "local" else scheduler, n_workers=int(workers), timeout=timeout) as client:
        yield client


# ----------------------------------------------------------------------------- exact per-table parts
class TableModel:
    """Float cell probabilities, error weights ``w[x, y] = P[X = x, Y != y]`` and the inputs."""

    def __init__(self, model: CellModel, classifier: Any, scheduler: Any = None, workers: int = 2) -> None:
        self.scheduler = scheduler  # where fitted classifiers run (see monte_carlo_moments)
        self.workers = workers
        self.arities = tuple(model.arities)
        self.K = int(model.n_classes)
        probs = np.array([float(c) for c in model.cells], dtype=float)
        self.p = probs / probs.sum()
        self.shape = self.arities + (self.K,)
        cells = self.p.reshape(-1, self.K)  # (inputs, K), inputs in product order
        self.w = cells.sum(axis=1, keepdims=True) - cells  # P[X=x] - P[X=x, Y=y]
        self.inputs = list(np.ndindex(*self.arities))
        self.classifier = classifier
        self.model = model
        self.layout = _layout(model, classifier)

    def compiled(self, n: int) -> bool:
        """Whether the compiled naive Bayes kernels apply to training sets of up to ``n`` points."""
        from momentbound.classifiers.naive_bayes import keys_fit_int64

        return self.layout is not None and keys_fit_int64(
            self.classifier.alpha_exact, self.arities, n, self.K
        )

    def draw(self, rng: np.random.Generator, n: int, size: tuple[int, ...]) -> np.ndarray:
        """Count tables ``~ Multinomial(n, p)``, shape ``size + (inputs * K,)``."""
        return rng.multinomial(n, self.p, size=size)

    def predictions(self, tables: np.ndarray) -> np.ndarray:
        """``g_x(y | T)`` for flat tables ``(R, cells)``: shape ``(R, inputs, K)``."""
        if tables.shape[0] and self.compiled(int(tables.sum(axis=1).max())):
            from momentbound.estimators._nb_kernel import predict_tables

            return predict_tables(self.layout, tables)
        if self.scheduler is not None:
            return self.classifier.predict_tables(self.model, tables, scheduler=self.scheduler, workers=self.workers)
        return self.classifier.predict_tables(self.model, tables)

    def chunk(self, draws: int) -> int:
        """Draws per chunk: :func:`_kernel_chunk` for the compiled kernels; a classifier fitted per
        table (milliseconds a fit) advances the progress bar every 1% of the draws."""
        return _kernel_chunk(draws) if self.layout is not None else max(1, -(-draws // 100))

    def fit_chunk(self, draws: int, limit: int) -> int:
        """``limit`` draws per chunk (a memory bound), fewer for a classifier fitted per table (:meth:`chunk`)."""
        return limit if self.layout is not None else min(limit, self.chunk(draws))

    def ge(self, g: np.ndarray) -> np.ndarray:
        """Exact GE of each table from its predictions ``(R, inputs, K)``: shape ``(R,)``."""
        return np.einsum("rik,ik->r", g, self.w)


def _layout(model: CellModel, classifier: Any) -> Any:
    from momentbound.classifiers.base import classifier_member

    if not classifier_member(classifier, "naive_bayes_kernel"):
        return None
    from momentbound.estimators._nb_kernel import Layout

    a = classifier.alpha_exact
    return Layout(tuple(model.arities), model.n_classes, a.numerator, a.denominator, classifier.ties)


# ----------------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class _Bins:
    """A block of indicator controls ``1[index_r = b] - prob[b - 1]`` (``b = 1 .. len(prob)``; bin 0
    is the baseline), kept as the per-draw bin index instead of a dense matrix."""

    index: np.ndarray
    prob: np.ndarray


#: the control coefficients are fitted on at most this many draws of each half (fewer widened the
#: Var(CE) interval at N = 1000: 20,000 by 16%)
_FIT_DRAWS = 100_000
#: the projection of the table controls and its bins are built from at most this many draws of each
#: half (the same intervals as from 100,000 at N = 100 and 1000, to 0.3%)
_BIN_DRAWS = 20_000


def _halves(R: int) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """``(fit, use)`` pairs: the controls fitted on one half of the draws are used on the other."""
    half = R // 2
    a, b = slice(0, half), slice(half, R)
    return (a, b), (b, a)


def _fit_rows(part: slice, limit: int | None = None) -> slice:
    """The first ``limit`` (``_FIT_DRAWS``) draws of ``part`` (all of it when smaller)."""
    return slice(part.start, min(part.stop, part.start + (_FIT_DRAWS if limit is None else limit)))


class _Stats:
    """Point estimates and CLT intervals from per-draw values.

    ``controls`` (optional, ``(R, q)``) are per-draw control variates with known mean zero. The
    estimates subtract ``Z beta``, cross-fitted: ``beta`` is the least-squares coefficient fitted
    on the other half of the draws (its first ``_FIT_DRAWS``), so it is independent of the controls
    it multiplies and the estimate stays unbiased (fitting on the same draws biases it by ``O(q / R)``, which is many
    standard errors when the controls explain most of the noise). The interval uses the standard
    deviation of the residuals ``y - Z beta`` (``docs/mathematics.md``, "Monte Carlo control
    variates"). ``bins = (B_a, B_b)`` adds indicator controls built from the first (``B_a``) and
    the second half (``B_b``) of the draws (:func:`_table_controls`): ``B_a`` is fitted on the
    first half and used on the second, ``B_b`` the other way round, so every control is applied
    only to draws independent of how it was built.
    """

    def __init__(self, R: int, confidence: float, controls: np.ndarray | None = None,
                 bins: tuple[_Bins | None, _Bins | None] = (None, None)) -> None:
        self.R = R
        self.z = NormalDist().inv_cdf(0.5 + confidence / 2)
        self.controls: list[tuple[slice, slice, np.ndarray, np.ndarray, _Bins | None]] | None = None
        if controls is not None:
            from momentbound.estimators._nb_kernel import bin_sums, gram, psd_inverse

            fitted = []
            for (fit, use), blk in zip(_halves(R), bins):
                # the coefficients from at most _FIT_DRAWS draws of the half (their error adds a
                # fraction q / _FIT_DRAWS to the residual variance)
                fit = _fit_rows(fit)
                Z = controls[fit]
                n = Z.shape[0]
                # centred Gram matrix without a centred copy of the draws, in one compiled pass
                zbar = Z.mean(axis=0)
                G = gram(Z)
                raw = np.diag(G).copy()
                centred = G - n * np.outer(zbar, zbar)
                if blk is not None:  # indicator blocks from bin counts (the constant shift drops out)
                    idx, nb = blk.index[fit], blk.prob.size
                    sums, cnt = bin_sums(Z, np.ones(n), idx, nb + 1)
                    sums, cnt = sums[1:].T, cnt[1:]
                    cross = sums - np.outer(zbar, cnt)
                    centred = np.block([[centred, cross], [cross.T, np.diag(cnt) - np.outer(cnt, cnt) / n]])
                    raw = np.concatenate([raw, cnt])
                keep = np.diag(centred) > 1e-20 * (n + raw)  # constant columns: nothing
                inv = np.zeros_like(centred)
                if keep.any():
                    inv[np.ix_(keep, keep)] = psd_inverse(centred[np.ix_(keep, keep)])
                fitted.append((fit, use, inv, controls, blk))
            self.controls = fitted

    def with_controls(self, controls: np.ndarray,
                      bins: tuple[_Bins | None, _Bins | None] = (None, None)) -> "_Stats":
        """The same draws and level, with control variates (see the class docstring)."""
        return _Stats(self.R, 2 * NormalDist().cdf(self.z) - 1, controls, bins)

    def _adjust(self, y: np.ndarray) -> tuple[float, float]:
        """Mean of ``y`` minus its control part, and the standard error of that estimate."""
        if self.controls is None:
            return float(y.mean()), float(y.std(ddof=1)) / math.sqrt(self.R)
        from momentbound.estimators._nb_kernel import bin_sums, residuals

        resid = np.empty_like(y)
        for fit, use, gram_inv, Z, blk in self.controls:
            yf = y[fit] - y[fit].mean()
            # Z^T yf (and the bins' sums of yf) in one pass: all draws in bin 0 without indicator bins
            index = blk.index[fit] if blk is not None else np.zeros(yf.size, dtype=np.int64)
            nb = blk.prob.size if blk is not None else 0
            zy, by = bin_sums(Z[fit], yf, index, nb + 1)
            g = zy.sum(axis=0)
            if blk is not None:
                g = np.concatenate([g, by[1:]])
            beta = gram_inv @ g
            q = Z.shape[1]
            residuals(y, Z, beta[:q], use.start, use.stop, resid)
            if blk is not None:
                b = beta[q:]
                resid[use] -= np.concatenate([[0.0], b])[blk.index[use]] - float(blk.prob @ b)
        return float(resid.mean()), float(resid.std(ddof=1)) / math.sqrt(self.R)

    def mean(self, s: np.ndarray, lo: float = 0.0, hi: float = 1.0) -> Interval:
        m, se = self._adjust(s)
        half = self.z * se
        return _interval(m, m - half, m + half, lo, hi)

    def combined(self, c: np.ndarray, d: np.ndarray, *, nonneg: bool = True, centring: float = 0.0) -> Interval:
        """``mean(c) + R/(R-1) mean(d)`` with the interval ``+- z sd(c + d) / sqrt(R)``.

        ``centring``: the variance of the per-draw values ``d`` was centred with (``Var(s)`` for
        ``d = (s - mean s)^2``). The centring error ``(mean s - E s)^2`` is common to all draws, so
        the residual spread does not see it; when the controls explain nearly all of ``d`` it is the
        whole error. With controls the half-width therefore adds ``z^2 centring / R`` (the square of
        the mean's half-width), negligible otherwise."""
        est, se = self._adjust(c + d)
        est += float(d.mean()) / (self.R - 1)
        half = self.z * se
        if self.controls is not None:
            half += self.z**2 * centring / self.R
        return _interval(est, est - half, est + half, 0.0 if nonneg else -math.inf, math.inf)

    def variance(self, s: np.ndarray, cond: np.ndarray | None = None) -> Interval:
        """``Var`` of a quantity with conditional mean ``s`` and conditional variance ``cond``."""
        dev = (s - s.mean()) ** 2
        return self.combined(np.zeros_like(s) if cond is None else cond, dev, centring=float(dev.mean()))


#: bins of the projected count table (control variates, docs/mathematics.md)
_PROJECTION_BINS = 16
#: the projection's integer coefficients lie in [-64, 64]
_PROJECTION_SCALE = 64
#: at most this many support points of the projection's exact law
_PROJECTION_SUPPORT = 2**22


def projection_law(coef: np.ndarray, p: np.ndarray, N: int) -> tuple[int, np.ndarray]:
    """Law of ``u = sum_c coef[c] T[c]`` for ``T ~ Multinomial(N, p)`` and integer ``coef``.

    ``u`` is a sum of ``N`` iid one-point values (``coef[c]`` with probability ``p[c]``), so its
    probability generating polynomial is the ``N``-th power of the one-point one, computed by FFT
    (exact up to floating-point rounding, about ``1e-16`` per entry).

    Returns
    -------
    (lowest, pmf):
        ``P[u = lowest + k] = pmf[k]`` for ``k = 0 .. N * (max coef - min coef)``.
    """
    coef = np.asarray(coef, dtype=np.int64)
    lo = int(coef.min())
    size = N * (int(coef.max()) - lo) + 1
    length = 1 << max(0, (size - 1).bit_length())
    one = np.zeros(length)
    np.add.at(one, coef - lo, np.asarray(p, dtype=float))
    pmf = np.fft.irfft(np.fft.rfft(one) ** N, length)[:size]
    return N * lo, np.clip(pmf, 0.0, None)


def _projection_bins(T: np.ndarray, N: int, p: np.ndarray, target: np.ndarray, fit: slice) -> _Bins | None:
    """Bins of ``u = coef . T`` with their exact probabilities, for every draw.

    ``coef``: the least-squares direction of ``target`` on the tables of the draws ``fit``,
    rounded to integers; the bin edges: quantiles of ``u`` over those draws. ``None`` when
    ``target`` does not vary with the table."""
    from momentbound.estimators._nb_kernel import gram, psd_inverse

    Tf = T[fit].astype(float)
    Tc = Tf - Tf.mean(axis=0)
    y = target[fit] - target[fit].mean()
    coef = psd_inverse(gram(Tc)) @ np.einsum("rc,r->c", Tc, y)
    top = float(np.abs(coef).max()) if coef.size else 0.0
    scale = min(_PROJECTION_SCALE, _PROJECTION_SUPPORT // (2 * N))
    if not (top > 0 and math.isfinite(top)) or scale < 1:
        return None
    ci = np.rint(coef / top * scale).astype(np.int64)
    if ci.max() == ci.min():
        return None
    u = T @ ci
    lo, pmf = projection_law(ci, p, N)
    edges = np.unique(np.quantile(u[fit], np.linspace(0.0, 1.0, _PROJECTION_BINS + 1)[1:-1]))
    if edges.size == 0:
        return None
    prob = np.bincount(np.searchsorted(edges, np.arange(lo, lo + pmf.size), side="right"), weights=pmf,
                       minlength=edges.size + 1)
    return _Bins(np.searchsorted(edges, u, side="right"), prob[1:])


def _table_controls(T: np.ndarray, N: int, p: np.ndarray, target: np.ndarray) -> tuple[_Bins | None, _Bins | None]:
    """Bins of a projection of the full-data tables ``T`` built from each half of the draws (at most
    ``_BIN_DRAWS`` of them; the ``bins`` of :class:`_Stats`; ``docs/mathematics.md``, "Monte Carlo
    control variates")."""
    (a, _), (b, _) = _halves(T.shape[0])
    return (_projection_bins(T, N, p, target, _fit_rows(a, _BIN_DRAWS)),
            _projection_bins(T, N, p, target, _fit_rows(b, _BIN_DRAWS)))


def n_table_controls(n_cells: int) -> int:
    """Most indicator controls :func:`_table_controls` adds to the kernel's."""
    return _PROJECTION_BINS - 1


def _interval(est: float, lo: float, hi: float, floor: float, ceil: float) -> Interval:
    est = min(max(est, floor), ceil)
    return Interval(min(max(lo, floor), est), max(min(hi, ceil), est), est)


def draw_mean(s: np.ndarray, confidence: float, lo: float = 0.0, hi: float = 1.0) -> Interval:
    """The mean of independent per-draw values with its CLT interval (clipped to ``[lo, hi]``)."""
    return _Stats(s.size, confidence).mean(s, lo, hi)


def draw_variance(s: np.ndarray, confidence: float) -> Interval:
    """The unbiased variance of independent per-draw values with its delta-method interval."""
    return _Stats(s.size, confidence).variance(s)


def draw_covariance(a: np.ndarray, b: np.ndarray, confidence: float) -> Interval:
    """The unbiased covariance of paired per-draw values with its delta-method interval."""
    return _Stats(a.size, confidence).combined(np.zeros(a.size), (a - a.mean()) * (b - b.mean()), nonneg=False)


def correlation_interval(cov: Interval, va: Interval, vb: Interval) -> Interval | None:
    """The correlation's point estimate with the image of the three intervals (conservative);
    ``None`` when a variance estimate is 0."""
    if va.estimate <= 0 or vb.estimate <= 0:
        return None
    est = max(-1.0, min(1.0, cov.estimate / math.sqrt(va.estimate * vb.estimate)))
    lo_den = math.sqrt(max(va.lower, 0.0) * max(vb.lower, 0.0))
    hi_den = math.sqrt(va.upper * vb.upper)
    cands = [cov.lower / hi_den, cov.upper / hi_den]
    if lo_den > 0:
        cands += [cov.lower / lo_den, cov.upper / lo_den]
    else:
        cands += [-1.0 if cov.lower < 0 else 0.0, 1.0 if cov.upper > 0 else 0.0]
    lo = max(-1.0, min(min(cands), est))
    hi = min(1.0, max(max(cands), est))
    return Interval(lo, hi, est)


def interval_sqrt(v: Interval) -> Interval:
    return Interval(math.sqrt(v.lower), math.sqrt(v.upper), math.sqrt(v.estimate))


def interval_plus(a: Interval, b: Interval) -> Interval:
    return Interval(a.lower + b.lower, a.upper + b.upper, a.estimate + b.estimate)


# ----------------------------------------------------------------------------- the estimators
def _ge_draws(m: TableModel, n: int, draws: int, rng: np.random.Generator, advance: Any = None) -> np.ndarray:
    out = np.empty(draws)
    chunk = min(m.chunk(draws), max(1, _CHUNK_ENTRIES // max(1, m.p.size)))
    for start in range(0, draws, chunk):
        r = min(chunk, draws - start)
        out[start:start + r] = m.ge(m.predictions(m.draw(rng, n, (r,))))
        if advance is not None:
            advance(r)
    return out


def _fold_errors(m: TableModel, folds: np.ndarray, tested: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For fold tables ``(r, v, cells)`` whose first ``tested`` folds are test sets (each classifier
    trained on the other folds): expected error counts ``E`` and coin variances ``C``
    (``(r, tested)``), and the exact GE of the last tested fold's classifier (``(r,)``)."""
    r = folds.shape[0]
    total = folds.sum(axis=1)
    E = np.empty((r, tested))
    C = np.empty((r, tested))
    ge_last = np.empty(r)
    for i in range(tested):
        try:
            g = m.predictions(total - folds[:, i])  # (r, inputs, K)
        except ClassifierFailed as exc:  # name the fold (a hold-out or shuffle split has one tested part)
            where = f"in fold {i + 1} of {folds.shape[1]}" if tested > 1 else "on the training part of a split"
            raise exc.at(f"{where}, {exc.where}") from exc.__cause__
        gf = g.reshape(r, -1)
        counts = folds[:, i]
        E[:, i] = (counts * (1.0 - gf)).sum(axis=1)
        C[:, i] = (counts * gf * (1.0 - gf)).sum(axis=1)
        if i == tested - 1:
            ge_last = m.ge(g)
    return E, C, ge_last


def _cv_draws(
    m: TableModel, sizes: tuple[int, ...], sampler: Any, draws: int, rng: np.random.Generator,
    full: np.ndarray | None = None, advance: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw and fold: expected error count ``E``, coin variance ``C`` (both ``(R, v)``), and the
    exact GE of the last fold's classifier (training size ``N - s_v``; ``(R,)``).

    ``sampler(r, rng)`` draws ``r`` sets of fold count tables, shape ``(r, v, cells)``."""
    v = len(sizes)
    E = np.empty((draws, v))
    C = np.empty((draws, v))
    ge_last = np.empty(draws)
    chunk = min(m.chunk(draws), max(1, _CHUNK_ENTRIES // max(1, v * m.p.size)))
    for start in range(0, draws, chunk):
        r = min(chunk, draws - start)
        folds = sampler(r, rng)
        E[start:start + r], C[start:start + r], ge_last[start:start + r] = _fold_errors(m, folds, v)
        if full is not None:  # GE_N of the classifier trained on all the folds
            full[start:start + r] = m.ge(m.predictions(folds.sum(axis=1)))
        if advance is not None:
            advance(r)
    return E, C, ge_last


def _statistic(E: np.ndarray, sizes: tuple[int, ...], average: str) -> np.ndarray:
    """Per draw, the conditional mean of ``CE`` from the fold error counts ``E`` ``(R, v)``: pooled
    (``sum_i E_i / sum_i s_i``) or the mean of the fold error rates (``mean_i E_i / s_i``)."""
    s = np.asarray(sizes, dtype=float)
    return E.sum(axis=1) / s.sum() if average == "pooled" else (E / s).mean(axis=1)


def _coin(C: np.ndarray, sizes: tuple[int, ...], average: str) -> np.ndarray:
    """Per draw, the coin variance of ``CE`` given the tables (weights squared, as in :func:`_statistic`)."""
    s = np.asarray(sizes, dtype=float)
    return C.sum(axis=1) / s.sum() ** 2 if average == "pooled" else (C / s**2).sum(axis=1) / len(sizes) ** 2


@dataclass
class Draws:
    """Per-draw values kept when a :class:`Simulation` tracks the full-data GE (accuracy against ``GE_N``).

    ``cond[r]``: a conditional mean of the estimate given draw ``r``'s tables (unbiased for
    ``E[est | data]``); ``full[r]``: ``GE_N`` of the classifier trained on all ``N`` points of the draw;
    ``var_c``, ``var_d``: the two per-draw parts of the estimate's variance,
    ``Var(est) = mean(var_c) + R/(R-1) mean(var_d)`` (``var_d`` built from centred draws);
    ``train``: hold-out only, the GE of the classifier trained on the training part.
    """

    cond: np.ndarray
    full: np.ndarray
    var_c: np.ndarray
    var_d: np.ndarray
    train: np.ndarray | None = None


class Simulation:
    """The Monte Carlo context a splitter's ``simulate(sim, N)`` works with.

    It draws count tables of the model (``p``: flat cell probabilities; ``K``; ``arities``), runs
    the classifier on them and turns per-draw conditional means into interval estimates:
    :meth:`generalization`, :meth:`holdout`, and :meth:`folds` for any fold sampler
    (:meth:`iid_folds` for ``KFold``; stratified splitters bring their own).
    """

    def __init__(
        self, m: TableModel, draws: int, confidence: float, rng: np.random.Generator, progress: Any = None, *,
        track: bool = False,
    ) -> None:
        self.model = m
        self.draws = draws
        self.rng = rng
        self.stats = _Stats(draws, confidence)
        self.progress = progress  # advance(draws) after every chunk, or None
        #: keep per-draw values and the full-data GE in :attr:`record` (:class:`Draws`)
        self.track = track
        self.record: Draws | None = None
        self.used_controls = False

    def _advance(self, r: int) -> None:
        if self.progress is not None:
            self.progress.advance(r)

    def keep(
        self,
        cond: np.ndarray,
        full: np.ndarray,
        coin: np.ndarray | None = None,
        *,
        var_d: np.ndarray | None = None,
        train: np.ndarray | None = None,
    ) -> None:
        """Record per-draw values (when tracking): ``Var(est) = E[coin] + Var(cond)`` unless the
        splitter gives its own centred part ``var_d``."""
        if not self.track:
            return
        c = np.zeros_like(cond) if coin is None else coin
        d = (cond - cond.mean()) ** 2 if var_d is None else var_d
        self.record = Draws(cond, full, c, d, train)

    @property
    def p(self) -> np.ndarray:
        return self.model.p

    @property
    def K(self) -> int:
        return self.model.K

    @property
    def arities(self) -> tuple[int, ...]:
        return self.model.arities

    def generalization(self, n: int) -> SimulatedParts:
        ge = _ge_draws(self.model, n, self.draws, self.rng, self._advance)
        mean, var = self.stats.mean(ge), self.stats.variance(ge)
        self.keep(ge, ge)
        return SimulatedParts(mean, var, mean, var, n)

    def holdout(self, n_train: int, n_test: int) -> SimulatedParts:
        if self.track:
            return self._holdout_tracked(n_train, n_test)
        ge = _ge_draws(self.model, n_train, self.draws, self.rng, self._advance)
        st = self.stats
        mean = st.mean(ge)
        # given the training table the n_test errors are iid Bernoulli(GE)
        variance = st.variance(ge, ge * (1.0 - ge) / n_test)
        return SimulatedParts(mean, variance, mean, st.variance(ge), n_train, n_test)

    def _holdout_tracked(self, n_train: int, n_test: int) -> SimulatedParts:
        """Hold-out with the test table drawn too (``GE_N`` needs the full data)."""
        m, R, st = self.model, self.draws, self.stats
        cond, coin, full, train = (np.empty(R) for _ in range(4))
        chunk = m.fit_chunk(R, max(1, _CHUNK_ENTRIES // max(1, 2 * m.p.size)))
        for start in range(0, R, chunk):
            r = min(chunk, R - start)
            tr, te = m.draw(self.rng, n_train, (r,)), m.draw(self.rng, n_test, (r,))
            g = m.predictions(tr)
            gf = g.reshape(r, -1)
            sl = slice(start, start + r)
            cond[sl] = (te * (1.0 - gf)).sum(axis=1) / n_test
            coin[sl] = (te * gf * (1.0 - gf)).sum(axis=1) / n_test**2
            train[sl] = m.ge(g)
            full[sl] = m.ge(m.predictions(tr + te))
            self._advance(r)
        self.keep(cond, full, coin, train=train)
        mean = st.mean(train)
        variance = st.variance(train, train * (1.0 - train) / n_test)
        return SimulatedParts(mean, variance, mean, st.variance(train), n_train, n_test)

    def with_iid_ge(self, parts: SimulatedParts) -> SimulatedParts:
        """``parts`` with ``ge_mean``/``ge_variance`` of ``GE_n``, ``n = parts.train_size``, from i.i.d.
        training tables of ``n`` points: the quantity every backend reports beside an estimator
        (``docs/mathematics.md``, "Stratified cross-validation"), for splitters whose fold training
        sets are not i.i.d. (the stratified ones)."""
        ge = _ge_draws(self.model, parts.train_size, self.draws, self.rng)
        return dataclasses.replace(parts, ge_mean=self.stats.mean(ge), ge_variance=self.stats.variance(ge))

    def iid_folds(self, sizes: tuple[int, ...]) -> Any:
        """Sampler of independent fold tables ``F_i ~ Multinomial(s_i, p)`` (``KFold``)."""
        return _IidFolds(self.model, tuple(sizes))

    def folds(self, sizes: tuple[int, ...], sampler: Any, tested: int | None = None,
              average: str = "pooled") -> SimulatedParts:
        """Moments of ``CE = sum_i err_i / n`` from fold tables drawn by ``sampler``, the errors summed
        over the first ``tested`` folds (all by default) and ``n`` their number of points; with
        ``average="folds"`` (every fold tested) ``CE`` is the mean of the fold error rates ``err_i / s_i``."""
        st, R = self.stats, self.draws
        N = int(sum(sizes))
        if tested is not None and tested < len(sizes):
            return self._some_folds(sizes, sampler, tested)
        v = len(sizes)
        s = np.array(sizes, dtype=float)
        full = np.empty(R) if self.track else None
        if full is None and isinstance(sampler, _IidFolds) and self.model.compiled(N):
            E, C, ge_last, Z, T = self._kernel_folds(sizes)
            if R >= _CONTROL_DRAWS * (Z.shape[1] + n_table_controls(T.shape[1]) + 1):
                st = st.with_controls(Z, _table_controls(T, N, self.model.p, _statistic(E, sizes, average)))
                self.used_controls = True
        else:  # the numpy path also gives the full-data GE per draw when tracking
            E, C, ge_last = _cv_draws(self.model, sizes, sampler, R, self.rng, full, self._advance)
        ce = _statistic(E, sizes, average)
        coin = _coin(C, sizes, average)
        if full is not None:
            self.keep(ce, full, coin)
        coins = C.any()  # no coin variance with ties="first": skip its arrays
        mean = st.mean(ce)
        variance = st.variance(ce, coin if coins else None)
        D = E / s  # conditional mean of HE_i, centred below
        D -= D.mean(axis=0)
        D2 = np.einsum("ri,ri->r", D, D)
        # without the controls: they explain almost all of Var(HE_i) (VR ~1000 for small folds), and
        # then the O(1/R) bias of centring at the sample means is several standard errors
        fold_variance = self.stats.combined((C / s**2).mean(axis=1) if coins else np.zeros(R), D2 / v)
        rowsum = D.sum(axis=1)
        pairs = (rowsum * rowsum - D2) / (v * (v - 1))
        fold_covariance = st.combined(np.zeros(R), pairs, nonneg=False, centring=float(D2.mean()) / v)
        return SimulatedParts(
            mean, variance, self.stats.mean(ge_last), self.stats.variance(ge_last), N - N // v, None, v,
            tuple(sizes), fold_variance, fold_covariance,
        )

    def _some_folds(self, sizes: tuple[int, ...], sampler: Any, tested: int) -> SimulatedParts:
        st, R, m = self.stats, self.draws, self.model
        n_test = float(sum(sizes[:tested]))
        E = np.empty((R, tested))
        C = np.empty((R, tested))
        ge = np.empty(R)
        full = np.empty(R) if self.track else None
        chunk = m.fit_chunk(R, max(1, _CHUNK_ENTRIES // max(1, len(sizes) * m.p.size)))
        for start in range(0, R, chunk):
            r = min(chunk, R - start)
            folds = sampler(r, self.rng)
            E[start:start + r], C[start:start + r], ge[start:start + r] = _fold_errors(m, folds, tested)
            if full is not None:  # GE_N of the classifier trained on all the folds
                full[start:start + r] = m.ge(m.predictions(folds.sum(axis=1)))
            self._advance(r)
        ce, coin = E.sum(axis=1) / n_test, C.sum(axis=1) / n_test**2
        if full is not None:
            self.keep(ce, full, coin)
        mean = st.mean(ce)
        variance = st.variance(ce, coin)
        N = int(sum(sizes))
        return SimulatedParts(mean, variance, st.mean(ge), st.variance(ge), N - int(sizes[tested - 1]),
                              None, len(sizes), tuple(sizes))

    def _kernel_folds(
        self, sizes: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Independent fold tables through the compiled naive Bayes kernel, in chunks: per-fold
        errors, coin variances and GE, the kernel's controls and the full-data count tables."""
        from momentbound.estimators._nb_kernel import cv_draws, n_controls

        m, R = self.model, self.draws
        v = len(sizes)
        E, C, GE = np.empty((R, v)), np.empty((R, v)), np.empty((R, v))
        Z = np.empty((R, n_controls(m.p.size)))
        T = np.empty((R, m.p.size), dtype=np.int64)
        chunk = min(_kernel_chunk(R), max(1, _CHUNK_ENTRIES // max(1, sum(sizes))))
        for start in range(0, R, chunk):
            part = slice(start, min(R, start + chunk))
            cv_draws(m.layout, m.p, m.w, sizes, self.rng, E[part], C[part], GE[part], Z[part], T[part])
            self._advance(part.stop - start)
        ge_last = GE[:, -1]
        return E, C, ge_last, Z, T

    def repeated(self, sizes: tuple[int, ...], tested: int, sampler: Any, repeats: float,
                 average: str = "pooled") -> SimulatedParts:
        """The mean of ``repeats`` independent re-partitions of the same data (repeated CV, or
        ``ShuffleSplit`` with one tested fold: ``sizes = (test, train)``, ``tested = 1``).

        ``sampler(r, rng)`` draws two partitions of the same ``r`` datasets, ``(r, 2, v, cells)``.
        With ``e`` the error of one partition (conditional mean ``c_p`` given the partition's tables,
        conditional coin variance ``w_p``), ``Var(mean of R) = Var(e) / R + (1 - 1/R) Cov(e^(1), e^(2))``,
        and the covariance of two partitions is that of their conditional means (the coins are
        independent). ``repeats`` may be ``math.inf``.
        """
        st, R, m = self.stats, self.draws, self.model
        n_test = float(sum(sizes[:tested]))
        c = np.empty((R, 2))
        w = np.empty((R, 2))
        ge = np.empty(R)
        full = np.empty(R)
        chunk = m.fit_chunk(R, max(1, _CHUNK_ENTRIES // max(1, 2 * len(sizes) * m.p.size)))
        for start in range(0, R, chunk):
            r = min(chunk, R - start)
            both = sampler(r, self.rng)
            for part in range(2):
                E, C, g = _fold_errors(m, both[:, part], tested)
                c[start:start + r, part] = _statistic(E, sizes[:tested], average)
                w[start:start + r, part] = _coin(C, sizes[:tested], average)
                if part == 0:
                    ge[start:start + r] = g
                    if self.track:
                        full[start:start + r] = m.ge(m.predictions(both[:, 0].sum(axis=1)))
            self._advance(r)
        mean = st.mean(c.mean(axis=1))
        dev = c - c.mean()
        coin = w.mean(axis=1)
        square = (dev**2).mean(axis=1)
        cross = dev[:, 0] * dev[:, 1]
        single = st.combined(coin, square)
        between = st.combined(np.zeros(R), cross, nonneg=False)
        share = 0.0 if math.isinf(repeats) else 1.0 / repeats
        variance = st.combined(share * coin, share * square + (1.0 - share) * cross)
        self.keep(c[:, 0], full, share * coin, var_d=share * square + (1.0 - share) * cross)
        train = int(sum(sizes)) - int(sizes[tested - 1])
        return SimulatedParts(
            mean, variance, st.mean(ge), st.variance(ge), train, int(n_test) if tested == 1 else None,
            len(sizes) if tested > 1 else None, tuple(sizes) if tested > 1 else (),
            single_variance=single, repetition_covariance=between,
        )
