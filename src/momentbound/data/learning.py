"""Learning curves and sample sizes for data like yours (docs/howto.md, section 'Plan the evaluation
of a classifier on your data').

``E[GE_n]`` and ``Std[GE_n]`` over a grid of sizes ``n`` (exact where the exact backend's work
estimate allows it within ``exact_seconds``, else conditional Monte Carlo with its 95% interval),
the Bayes error of the model, the RMS against ``GE_n`` of an estimator at ``N, 2N, 4N, 8N``
(:func:`~momentbound.data.plan.accuracy_row`), and two sample sizes: the smallest ``n`` with
``E[GE_n] - Bayes error <= eps`` and the smallest ``n`` at which the estimator's RMS is ``<= r``
(doubling, then bisection on the point values; Monte Carlo points carry their intervals).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["LearningCurve", "learning_curve", "MAX_SIZE"]

#: the largest sample size searched for a target
MAX_SIZE = 1 << 20
GE_DRAWS = 4000


@dataclass(frozen=True)
class LearningCurve:
    """E[GE_n] and Std[GE_n] against n, the Bayes error, the estimator's RMS at N..8N, the sample sizes."""

    N: int
    bayes_error: float
    points: tuple[dict[str, Any], ...]
    estimator: str
    rms: tuple[dict[str, Any], ...]
    target_excess: dict[str, Any] | None
    target_rms: dict[str, Any] | None
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {"N": self.N, "bayes_error": self.bayes_error, "points": list(self.points), "estimator": self.estimator,
                "rms": list(self.rms), "target_excess": self.target_excess, "target_rms": self.target_rms,
                "seconds": self.seconds}

    def plot(self, path: str | None = None) -> Any:
        """E[GE_n] +- Std[GE_n] against n (log scale) with the Bayes error marked; saved when ``path``."""
        from matplotlib.figure import Figure  # no pyplot: no backend switch, nothing left open

        from momentbound.output import save_figure

        n = np.array([p["n"] for p in self.points])
        m = np.array([p["mean"] for p in self.points])
        s = np.array([p["std"] for p in self.points])
        fig = Figure(figsize=(7, 4.5))
        ax = fig.subplots()
        ax.plot(n, m, "o-", label="E[GE_n]")
        ax.fill_between(n, m - s, m + s, alpha=0.25, label="+- Std[GE_n]")
        ax.axhline(self.bayes_error, color="k", ls="--", label=f"Bayes error {self.bayes_error:.4f}")
        ax.axvline(self.N, color="tab:gray", ls=":", label=f"N = {self.N}")
        ax.set_xscale("log")
        ax.set_xlabel("training size n")
        ax.set_ylabel("generalization error")
        ax.legend()
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        if path is not None:
            save_figure(path, fig)
        return fig


def _ge_point(model: CellModel, n: int, clf: Any, engine: Any, rng: np.random.Generator,
              exact_seconds: float | None) -> dict[str, Any]:
    from momentbound import guard
    from momentbound.estimators import GE, estimator_moments

    if exact_seconds is not None:
        try:
            with guard.limits(exact_seconds):
                r = estimator_moments(model, n, GE(), classifier=clf, engine=engine)
            return {"n": n, "mean": float(r.mean), "std": math.sqrt(max(float(r.variance), 0.0)),
                    "mean_lower": float(r.mean), "mean_upper": float(r.mean), "kind": "exact"}
        except InvalidArgument:
            pass
    r = estimator_moments(model, n, GE(), classifier=clf, backend="montecarlo", rng=rng, draws=GE_DRAWS,
                          progress=False)
    return {"n": n, "mean": float(r.mean.estimate), "std": math.sqrt(max(float(r.variance.estimate), 0.0)),
            "mean_lower": float(r.mean.lower), "mean_upper": float(r.mean.upper), "kind": "montecarlo"}


def _smallest(ok: Callable[[int], tuple[bool, dict[str, Any]]], start: int) -> dict[str, Any]:
    """The smallest n >= start with ok(n): doubling, then bisection (ok is taken as monotone)."""
    lo, n = start - 1, start
    seen: dict[int, dict[str, Any]] = {}
    while True:
        good, info = ok(n)
        seen[n] = info
        if good:
            break
        if n >= MAX_SIZE:
            return {"n": None, "reached": False, "searched_up_to": n, "at_largest": info}
        lo, n = n, min(2 * n, MAX_SIZE)
    hi = n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        good, info = ok(mid)
        seen[mid] = info
        if good:
            hi = mid
        else:
            lo = mid
    return {"n": hi, "reached": True, "at_n": seen[hi]}


def learning_curve(
    data: Any,
    N: int | None = None,
    *,
    sizes: Any = None,
    estimator: str | None = None,
    classifier: Any = None,
    target_excess: float | None = None,
    target_rms: float | None = None,
    precision: float = 0.02,
    exact_seconds: float | None = 10.0,
    seed: int = 0,
    target: str | None = None,
    features: Any = None,
    prior: Any = None,
    model: str = "full",
    **load: Any,
) -> LearningCurve:
    """Learning curve of the classifier on a model fitted to data, and the sample sizes that reach a target.

    Parameters
    ----------
    data, N, target, features, prior, model, load:
        As for :func:`~momentbound.data.plan.advise`.
    sizes:
        The sizes of the curve (default 8 sizes from ``N/8`` to ``8N``, with ``N``).
    estimator:
        A key of :data:`~momentbound.data.plan.CANDIDATES`: the estimator whose RMS is given at
        ``N, 2N, 4N, 8N`` and searched by ``target_rms``. Default: the best of :func:`advise` at
        ``N`` (at 5% precision, no coverage).
    target_excess:
        ``eps``: the smallest ``n`` with ``E[GE_n] - Bayes error <= eps`` (up to 2^20; a
        classifier whose error stays above the Bayes error may never reach it, and the result
        says so).
    target_rms:
        ``r``: the smallest ``n`` at which the estimator's RMS against ``GE_n`` is ``<= r``.
    """
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.data.fitting import bayes_error
    from momentbound.data.plan import CANDIDATES, accuracy_row, advise, fitted_or_model, planning_size
    from momentbound.estimators import make_engine

    start = time.perf_counter()
    for name, value in (("target_excess", target_excess), ("target_rms", target_rms)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0
                                  or not math.isfinite(value)):
            raise InvalidArgument(f"{name} must be a positive number, got {value!r}")
    fitted = fitted_or_model(data, target, features, prior, model, load)
    N = planning_size(fitted, N)
    by_key = {c.key: c for c in CANDIDATES}
    if estimator is not None and estimator not in by_key:
        raise InvalidArgument(f"estimator must be a candidate key ({', '.join(by_key)}), got {estimator!r}")
    if sizes is None:
        sizes = sorted({max(2, round(N * 2 ** (k / 2))) for k in range(-6, 7)} | {N})
    sizes = [int(s) for s in sizes]
    if any(s < 1 for s in sizes):
        raise InvalidArgument(f"sizes must be positive integers, got {sizes}")
    clf = as_classifier(NaiveBayes() if classifier is None else classifier, fitted)
    plain = CellModel(fitted.arities, fitted.cells, fitted.n_classes).to_float()
    engine = make_engine(plain, classifier=clf, backend="exact")
    rng = np.random.default_rng(seed)
    if estimator is None:
        estimator = advise(plain, N, classifier=clf, precision=0.05, coverage=False, seed=seed, progress=False).best.key
    cand = by_key[estimator]
    bayes = bayes_error(plain)
    points = tuple(_ge_point(plain, n, clf, engine, rng, exact_seconds) for n in sizes)
    rms_rows = []
    for n in (N, 2 * N, 4 * N, 8 * N):
        r = accuracy_row(plain, n, cand, classifier=clf, engine=engine, rng=rng, precision=precision,
                         exact_seconds=exact_seconds, coverage=False)
        rms_rows.append({"n": n, "rms": r.rms, "rms_lower": r.rms_lower, "rms_upper": r.rms_upper, "kind": r.kind})
    excess = rms_target = None
    if target_excess is not None:
        def ok_excess(n: int) -> tuple[bool, dict[str, Any]]:
            p = _ge_point(plain, n, clf, engine, rng, exact_seconds)
            return p["mean"] - bayes <= target_excess, {**p, "excess": p["mean"] - bayes}

        excess = {"eps": target_excess, **_smallest(ok_excess, 2)}
    if target_rms is not None:
        smallest = max(2, min(s for s in range(2, 64) if _splits(cand, s)))

        def ok_rms(n: int) -> tuple[bool, dict[str, Any]]:
            r = accuracy_row(plain, n, cand, classifier=clf, engine=engine, rng=rng, precision=max(precision, 0.05),
                             exact_seconds=exact_seconds, coverage=False)
            return r.rms <= target_rms, {"n": n, "rms": r.rms, "rms_lower": r.rms_lower, "rms_upper": r.rms_upper}

        rms_target = {"r": target_rms, **_smallest(ok_rms, smallest)}
    return LearningCurve(N=N, bayes_error=bayes, points=points, estimator=cand.label, rms=tuple(rms_rows),
                         target_excess=excess, target_rms=rms_target, seconds=time.perf_counter() - start)


def _splits(cand: Any, n: int) -> bool:
    try:
        cand.build().split(n)
        return True
    except InvalidArgument:
        return False
