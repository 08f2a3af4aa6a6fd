"""Moment-based backends: ``bound:<method>`` (guaranteed intervals) and ``series`` (approximation).

Both apply to two classes without smoothing (``alpha = 0``), where the naive Bayes prediction
at ``x`` is the sign of the statistic ``Z_x`` (docs/mathematics.md, section 'The decision
statistic Z') whenever both classes are
present in the training set. The single prediction probability is

* ``random``: ``g(0) = (P[Z > 0] + P[Z >= 0]) / 2 + c``, where ``c`` corrects the training sets
  with an empty class when ``d >= 2`` (then ``Z = 0`` while the present class wins when all
  its agreement counts are positive): ``c = (P[n_1 = 0, all A_j0 > 0] - P[n_0 = 0, all A_j1 > 0]) / 2``,
  exact by inclusion-exclusion;
* ``first``: ``g(0) = P[Z >= 0] - P[n_0 = 0]`` (``d >= 2``) or ``- P[n_0 = 0, A_1 = 0]`` (``d = 1``),
  for ``n > 0``.

``P[Z > 0]`` and ``P[Z >= 0]`` are bounded by :func:`momentbound.bounds.bound` from the exact
raw moments (``momentbound.moments.raw_moments``) on the exact integer support of ``Z``.
Pair terms: ``bound:<method>`` uses the Frechet bounds
``max(0, L_a + L_b - 1) <= E[g_a g_b] <= min(U_a, U_b)`` (valid for ``[0, 1]``-valued ``g``) from
the single intervals, optionally (``joint="sdp"``) intersected with the bivariate moment-SDP
bounds of ``bounds/joint.py`` on the joint sign events of ``(Z_x, Z_x2)`` (tighter, but
seconds per event); ``series`` uses a Gaussian copula with the
series marginals and the correlation of ``(Z_x, Z_x2)`` from the exact joint moments. The
cross-validation cross term needs moments of ``Z`` with a fixed training point, which the
moment engine does not provide: both backends raise ``InvalidArgument`` for ``cross``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from momentbound.core import Kind
from momentbound.errors import InvalidArgument, UnknownMethod
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model.cells import CellModel
from momentbound.probability.base import PredictionBackend, ProbabilityInterval, check_count

__all__ = ["MomentBoundBackend", "SeriesBackend", "empty_class_corrections", "JOINT_MODES", "make_bound_backend", "make_series_backend"]

#: pair terms: Frechet bounds from the single intervals, or those intersected with the
#: bivariate moment-SDP bounds of ``bounds/joint.py`` on the joint sign events of (Z_x, Z_x2)
JOINT_MODES = ("frechet", "sdp")


def _check_applies(model: CellModel, clf: NaiveBayes, who: str) -> None:
    if model.n_classes != 2 or clf.alpha_exact != 0:
        raise InvalidArgument(
            f"the {who} backend needs two classes and alpha = 0 (the prediction is the sign of Z_x); "
            f"got K = {model.n_classes}, alpha = {clf.alpha}; use backend='exact' or 'sampling'"
        )
    if clf.ties not in ("random", "first"):
        raise InvalidArgument(
            f"the {who} backend decides ties from the sign of Z_x, which cannot follow ties={clf.ties!r} (float "
            "rounding of CategoricalNB's log-probabilities); use backend='exact', backend='montecarlo' or ties='first'"
        )


def empty_class_corrections(model: CellModel, n: int, x: tuple[int, ...], ties: str) -> Fraction | float:
    """The exact correction ``c`` of ``g(0)`` for training sets with an empty class (see module doc)."""
    exact = model.is_exact
    one: Any = Fraction(1) if exact else 1.0
    conv = (lambda v: v) if exact else float
    pi = [conv(model.prior(k)) for k in range(2)]
    d = model.d
    if n == 0:
        return 0 * one
    if ties == "first":
        if d == 1:
            return -((pi[1] - conv(model.p(x, 1))) ** n)
        return -(pi[1] ** n)
    if d == 1:
        return 0 * one

    def all_agree_positive(k: int) -> Any:
        # P[all n points of class k, and for every j some point has attribute j == x^j]
        if pi[k] == 0:
            return 0 * one
        total = 0 * one
        for size in range(d + 1):
            for S in itertools.combinations(range(d), size):
                q = sum(
                    (conv(model.p(z, k)) for z in model.inputs() if all(z[j] != x[j] for j in S)),
                    0 * one,
                )
                total += (-1) ** size * q**n
        return total

    return (all_agree_positive(0) - all_agree_positive(1)) / 2


class _ZMoments:
    """Exact moments and support of ``Z_x`` for one model, input and size (cached per backend)."""

    def __init__(self, order: int) -> None:
        self.order = order
        self._cache: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    def get(self, model: CellModel, n: int, x: tuple[int, ...]) -> tuple[Any, Any]:
        key = (model, n, x)
        if key not in self._cache:
            from momentbound.model.statistics import naive_bayes_statistic
            from momentbound.moments import raw_moments

            stat = naive_bayes_statistic(model, x)
            mom = raw_moments(stat, model, n, self.order)
            self._cache[key] = (stat, mom)
        return self._cache[key]


class MomentBoundBackend(PredictionBackend):
    """``bound:<method>``: guaranteed intervals for the prediction probabilities.

    Parameters
    ----------
    method:
        A cdf-bound method of :mod:`momentbound.bounds` (e.g. ``"lp"``, ``"sdp"``, ``"prekopa"``).
    order:
        Number of moments of ``Z_x`` used.

    Examples
    --------
    >>> from momentbound.model import second_nb_model
    >>> r = MomentBoundBackend("lp", order=4).single(second_nb_model(), 6, (0, 0))
    >>> bool((r.lower <= r.upper).all())
    True
    """

    name: ClassVar[str] = "bound"
    kind_name: ClassVar[str] = "BOUND"

    def __init__(self, method: str = "lp", order: int = 6, joint: str = "frechet", **options: Any) -> None:
        from momentbound.bounds import available_methods, get_method

        moment_methods = [m for m in available_methods() if m not in ("exact", "sampling")]
        if method in ("all", "exact", "sampling"):
            fix = {"all": "'all' runs every method and gives no single interval",
                   "exact": "for the exact prediction probabilities use backend 'exact'",
                   "sampling": "for sampled prediction probabilities use backend 'sampling'"}[method]
            raise InvalidArgument(
                f"bound:<method> takes one moment-based cdf method, got {method!r} ({fix}); choose one of "
                f"{', '.join(moment_methods)}"
            )
        if method not in moment_methods:
            raise UnknownMethod(f"unknown cdf method {method!r} in bound:<method>; choose one of "
                                f"{', '.join(moment_methods)}")
        declared = get_method(method).options
        unknown = sorted(set(options) - set(declared))
        if unknown:
            # checked here, not at the first solve: a point-mass statistic never reaches the solver
            raise InvalidArgument(
                f"method {method!r} got unknown option(s) {unknown}; declared options: "
                f"{', '.join(sorted(declared)) or 'none'}"
            )
        if joint not in JOINT_MODES:
            raise InvalidArgument(f"joint must be one of {JOINT_MODES}, got {joint!r}")
        self.joint = joint
        self.method = method
        self.order = check_count(order, "order", minimum=1)
        self.options = options
        self._moments = _ZMoments(self.order)
        self._single_cache: dict[tuple[Any, ...], ProbabilityInterval] = {}

    @property
    def label(self) -> str:
        return f"bound:{self.method}"

    @property
    def kind(self) -> Kind:
        """``bound`` only when the cdf method guarantees its intervals; ``bound:series`` is an
        approximation (Edgeworth / Gram-Charlier, no guarantee) and says so."""
        from momentbound.bounds import get_method

        return get_method(self.method).kind

    def _event_interval(self, model: CellModel, n: int, x: tuple[int, ...], strict: bool) -> tuple[float, float]:
        from momentbound.bounds import Event, MomentProblem, Support, bound

        stat, mom = self._moments.get(model, n, x)
        lo, hi = stat.support(n)
        if lo == hi:  # a point mass: Z is constant
            v = float((lo > 0) if strict else (lo >= 0))
            return v, v
        problem = MomentProblem(tuple(mom.values), Support.grid(lo, hi), Event.gt(0) if strict else Event.ge(0))
        result = bound(problem, self.method, **self.options)
        return float(result.lower), float(result.upper)

    def _g0_interval(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> tuple[float, float]:
        c = float(empty_class_corrections(model, n, x, clf.ties))
        ge = self._event_interval(model, n, x, strict=False)
        if clf.ties == "first":
            if n == 0:
                return 1.0, 1.0
            return max(0.0, ge[0] + c), min(1.0, ge[1] + c)
        gt = self._event_interval(model, n, x, strict=True)
        return max(0.0, (gt[0] + ge[0]) / 2 + c), min(1.0, (gt[1] + ge[1]) / 2 + c)

    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> ProbabilityInterval:
        _check_applies(model, clf, self.label)
        key = (model, n, x, clf)
        if key not in self._single_cache:
            lo, hi = self._g0_interval(model, n, x, clf)
            self._single_cache[key] = ProbabilityInterval(np.array([lo, 1.0 - hi]), np.array([hi, 1.0 - lo]))
        return self._single_cache[key]

    def _pair(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> ProbabilityInterval:
        a = self._single(model, n, x, clf)
        b = self._single(model, n, x2, clf)
        lower = np.maximum(0.0, a.lower[:, None] + b.lower[None, :] - 1.0)
        upper = np.minimum(a.upper[:, None], b.upper[None, :])
        if x == x2 and clf.ties == "first":  # one deterministic prediction: different classes never co-occur
            lower = np.where(np.eye(2, dtype=bool), a.lower[:, None] * np.ones(2), 0.0)
            upper = np.where(np.eye(2, dtype=bool), a.upper[:, None] * np.ones(2), 0.0)
        if self.joint == "sdp" and x != x2 and n > 0:
            lo00, hi00 = self._joint_sdp_00(model, n, x, x2, clf)
            # E[g(0) g2(1)] = E[g(0)] - E[g(0) g2(0)], etc.
            sdp_lo = np.array([[lo00, a.lower[0] - hi00], [b.lower[0] - hi00, 1.0 - a.upper[0] - b.upper[0] + lo00]])
            sdp_hi = np.array([[hi00, a.upper[0] - lo00], [b.upper[0] - lo00, 1.0 - a.lower[0] - b.lower[0] + hi00]])
            lower = np.maximum(lower, sdp_lo)
            upper = np.minimum(upper, sdp_hi)
        return ProbabilityInterval(np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0))

    def _joint_sdp_00(
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> tuple[float, float]:
        """Bounds on ``E[g_x(0) g_x2(0)]`` from ``joint_sdp`` on the events ``{Z > t, Z2 > t2}``.

        ``random``: ``g(0) = (1{Z>0} + 1{Z>=0})/2 + delta`` with ``|delta| <= 1/2`` only when a class
        is empty (``d >= 2``), so ``E[g g2]`` is the mean of four joint events up to
        ``1.25 (pi_0^n + pi_1^n)``. ``first``: ``E[g g2] = P[Z >= 0, Z2 >= 0] - P[e e2]`` exactly,
        with ``e`` the empty-class event (see the module notes).
        """
        from momentbound.bounds.joint import joint_sdp
        from momentbound.model.statistics import naive_bayes_statistic
        from momentbound.moments import joint_moments

        degree = max(1, self.order // 2)
        sx, sy = naive_bayes_statistic(model, x), naive_bayes_statistic(model, x2)
        table = joint_moments(sx, sy, model, n, 2 * degree, 2 * degree)
        rows = [[table[i, j] for j in range(2 * degree + 1)] for i in range(2 * degree + 1)]
        supx, supy = sx.support(n), sy.support(n)

        def event(tx: int, ty: int) -> tuple[float, float]:
            if supx[1] <= tx or supy[1] <= ty:
                return 0.0, 0.0
            r = joint_sdp(rows, supx, supy, tx=tx, ty=ty, degree=degree)
            return float(r.lower), float(r.upper)

        pi0, pi1 = float(model.prior(0)), float(model.prior(1))
        if clf.ties == "first":
            lo, hi = event(-1, -1)
            if model.d >= 2:
                e = pi1**n
            else:
                e = max(0.0, pi1 - float(model.p(x, 1)) - float(model.p(x2, 1))) ** n
            return max(0.0, lo - e), min(1.0, hi - e)
        parts = [event(tx, ty) for tx in (0, -1) for ty in (0, -1)]
        lo = sum(p[0] for p in parts) / 4
        hi = sum(p[1] for p in parts) / 4
        slack = 0.0 if model.d == 1 else 1.25 * (pi0**n + pi1**n)
        return max(0.0, lo - slack), min(1.0, hi + slack)

    def _cross(self, model, n_common, n_a, n_b, point_a, point_b, clf):  # type: ignore[no-untyped-def]
        raise InvalidArgument(
            f"the {self.label} backend cannot bound the cross-validation cross term (it needs moments "
            "of Z_x with a fixed training point); use backend='exact' or 'sampling' for CV covariances"
        )

    def __repr__(self) -> str:
        return f"MomentBoundBackend(method={self.method!r}, order={self.order}, joint={self.joint!r})"


class SeriesBackend(MomentBoundBackend):
    """``series``: Edgeworth / Gram-Charlier approximations of the prediction probabilities.

    Single probabilities from the ``series`` cdf method of :mod:`momentbound.bounds`; pairs from
    a Gaussian copula with those marginals and the correlation of ``(Z_x, Z_x2)`` (exact joint
    moments). Kind ``approximation``: no guarantee.
    """

    name: ClassVar[str] = "series"
    kind_name: ClassVar[str] = "APPROXIMATION"

    def __init__(self, order: int = 6, expansion: str = "edgeworth") -> None:
        super().__init__("series", order=order, expansion=expansion)

    @property
    def label(self) -> str:
        return "series"

    def _single(self, model: CellModel, n: int, x: tuple[int, ...], clf: NaiveBayes) -> np.ndarray:  # type: ignore[override]
        r = super()._single(model, n, x, clf)
        return (r.lower + r.upper) / 2  # lower == upper for an approximation

    def _pair(  # type: ignore[override]
        self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...], clf: NaiveBayes
    ) -> np.ndarray:
        from scipy.stats import multivariate_normal, norm

        a = self._single(model, n, x, clf)
        b = self._single(model, n, x2, clf)
        rho = 1.0 if x == x2 else self._correlation(model, n, x, x2)
        out = np.zeros((2, 2))
        pa, pb = float(np.clip(a[0], 0.0, 1.0)), float(np.clip(b[0], 0.0, 1.0))
        if pa in (0.0, 1.0) or pb in (0.0, 1.0) or abs(rho) >= 1.0 - 1e-12:
            both = min(pa, pb) if rho > 0 else max(0.0, pa + pb - 1.0)
            if 0.0 < pa < 1.0 and 0.0 < pb < 1.0 and abs(rho) < 1.0 - 1e-12:
                both = pa * pb
        else:
            za, zb = norm.ppf(pa), norm.ppf(pb)
            both = float(multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, rho], [rho, 1.0]]).cdf([za, zb]))
        out[0, 0] = both
        out[0, 1] = pa - both
        out[1, 0] = pb - both
        out[1, 1] = 1.0 - pa - pb + both
        return np.clip(out, 0.0, 1.0)

    def _correlation(self, model: CellModel, n: int, x: tuple[int, ...], x2: tuple[int, ...]) -> float:
        from momentbound.model.statistics import naive_bayes_statistic
        from momentbound.moments import joint_moments

        t = joint_moments(naive_bayes_statistic(model, x), naive_bayes_statistic(model, x2), model, n, 2, 2)
        ex, ey = t[1, 0], t[0, 1]
        vx, vy = t[2, 0] - ex**2, t[0, 2] - ey**2
        if vx <= 0 or vy <= 0:
            return 0.0
        return float((t[1, 1] - ex * ey) / math.sqrt(float(vx) * float(vy)))

    def _cross(self, model, n_common, n_a, n_b, point_a, point_b, clf):  # type: ignore[no-untyped-def]
        raise InvalidArgument(
            "the series backend cannot approximate the cross-validation cross term (it needs moments "
            "of Z_x with a fixed training point); use backend='exact' or 'sampling' for CV covariances"
        )

    def __repr__(self) -> str:
        return f"SeriesBackend(order={self.order})"


def make_bound_backend(option: str | None) -> MomentBoundBackend:
    """The ``bound:<method>`` backend; ``option`` names the cdf method."""
    if not option:
        raise InvalidArgument("name the cdf method: backend='bound:<method>', e.g. 'bound:lp'")
    return MomentBoundBackend(option)


def make_series_backend(option: str | None) -> SeriesBackend:
    """The ``series`` backend (takes no option)."""
    return SeriesBackend()
