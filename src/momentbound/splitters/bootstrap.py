"""Resubstitution and the bootstrap family of error estimators (Efron & Tibshirani 1997).

All of them are computed from one dataset of ``N`` points and the classifier trained on it; the
definitions, with the finite-``B`` conventions, are in ``docs/mathematics.md`` ("Resubstitution
and the bootstrap"):

* :class:`Resubstitution` -- the error of the full-data classifier on its own ``N`` points;
* :class:`Bootstrap` -- the leave-one-out bootstrap ``Err(1)``: point ``i`` is predicted only by
  classifiers trained on bootstrap samples that leave it out. ``B=None`` is the ideal
  ``B -> infinity`` estimate, ``(1/N) sum_i E[loss at i | i not in the sample]``, a function of the
  data's count table: given ``i`` is out, the sample is ``N`` uniform draws from the other
  ``N - 1`` points, with cell counts ``Multinomial(N, C_{-i} / (N - 1))``;
* :class:`Point632` -- ``0.368 resubstitution + 0.632 Err(1)``;
* :class:`Point632Plus` -- Efron & Tibshirani's .632+ (no-information rate, relative overfitting);
* :class:`OutOfBag` -- bagging's out-of-bag error with ``B`` samples: each point is predicted by the
  majority vote of the classifiers whose sample leaves it out (Breiman 1996).

Exact moments (``backend="exact"``) come from sums over the data's count tables
(:mod:`momentbound.exact.tables`): resubstitution, ideal ``Err(1)``, ideal .632 and ideal .632+
(which, with tie coins entering as their probabilities, is a function of the table too); past the
table limit, resubstitution, ``Err(1)``, .632 and .632+ of the 0-1 error are summed over naive Bayes'
sufficient statistics where :mod:`momentbound.exact.resub_states` has a route (each splitter names its
``state_statistic``; .632+ on pairs of half tables, :mod:`momentbound.exact.row_halves`, with the inputs of
its delta-method approximation); ``Err(1)``, .632 and .632+ also below that limit where the count tables'
ideal bootstrap would sum over every pair of tables past its own. Finite ``B``
and the out-of-bag vote are simulated (``backend="montecarlo"``).
Resubstitution, ideal ``Err(1)`` and ideal .632 take every linear statistic of the confusion matrix
(``metric=``) on the count tables: each point's loss under the metric's loss matrix, weighed by the
metric's weights of the data's class counts (a recall divides by them, fixed in each table); .632+,
finite ``B`` and the out-of-bag vote refuse them (``metric_refusal`` names the reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from momentbound.guard import active, option

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.splitters.basic import ExactParts, SimulatedParts, Split, SplitterDefaults, check_size, table_law

__all__ = [
    "Resubstitution",
    "Bootstrap",
    "Point632",
    "Point632Plus",
    "OutOfBag",
    "WEIGHT_632",
    "table_law",
    "plus_value",
    "plus_gradient",
    "finite_bootstrap",
    "simulate_extra_variance",
]

#: the .632 weight of ``Err(1)`` (``1 - 0.368``), as an exact fraction
WEIGHT_632 = Fraction(632, 1000)
MAX_TRINOMIAL_WORK = 10**9  # multiply-adds of the closed-form Err(1) inside a simulation (N ~ 1250, ~3-5 s)

# int64 entries per chunk of bootstrap tables in a simulation
_CHUNK_ENTRIES = 4_000_000


def _check_B(B: object, *, required: bool = False) -> int | None:
    if B is None and not required:
        return None
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or int(B) < 1:
        need = "a positive integer number of bootstrap samples" + ("" if required else " or None (ideal B -> infinity)")
        raise InvalidArgument(f"B must be {need}, got {B!r}")
    return int(B)


def _split(N: int, what: str) -> Split:
    n = check_size(N)
    if n < 2:
        raise ImpossibleSplit(f"{what} needs N >= 2 points (a point must be left out), got N={n}")
    return Split(n, ())


def _finite_needs_montecarlo(splitter: Any) -> None:
    raise InvalidArgument(
        f"{splitter.describe()} with a finite number of bootstrap samples is simulated: use "
        f"{option('backend', 'montecarlo')} ({'no --bootstraps' if active() and active().cli else 'B=None'} gives "
        "the ideal B -> infinity estimate, which has exact moments)"
    )


def _only_exact(splitter: Any, covariance: str) -> None:
    if covariance != "exact":
        raise InvalidArgument(
            f"covariance={covariance!r} only concerns cross-validation; {splitter.describe()} has no "
            "fold covariance: use covariance='exact'"
        )


def _moments(law: Any, N: int, value: np.ndarray, coin: np.ndarray | None = None) -> tuple[Any, Any]:
    mean = law.expect(N, value)
    second = law.expect(N, value * value if coin is None else value * value + coin)
    return mean, second


def plus_value(resub: Any, err1: Any, gamma: Any) -> np.ndarray:
    """The .632+ estimate (Efron & Tibshirani 1997, eq. 32), elementwise, exact for ``Fraction`` arrays.

    ``Err1' = min(Err1, gamma)``; ``R' = (Err1' - err) / (gamma - err)`` when ``Err1 > err`` and
    ``gamma > err``, else 0; ``.632+ = .368 err + .632 Err1 + (Err1' - err) .368 .632 R' / (1 - .368 R')``.
    """
    r = np.asarray(resub)
    exact = r.dtype == object
    a = WEIGHT_632 if exact else float(WEIGHT_632)
    b = 1 - a
    e = np.asarray(err1, dtype=r.dtype)
    g = np.asarray(gamma, dtype=r.dtype)
    e1 = np.minimum(e, g)
    ok = (e > r) & (g > r)
    rel = np.where(ok, (e1 - r) / np.where(ok, g - r, 1), 0 * r)
    return b * r + a * e + (e1 - r) * (b * a * rel) / (1 - b * rel)


# ----------------------------------------------------------------------------- splitters
def _per_table(splitter: Any, law: Any, N: int, engine: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """The splitter's conditional mean and coin variance per table, for the engine's linear statistic
    (its metric or ``loss``, ``per_table_rule``; neither: the 0-1 error, ``per_table``)."""
    from momentbound.splitters.stratified import engine_rule

    if getattr(engine, "loss", None) is None and getattr(engine, "metric", None) is None:
        return splitter.per_table(law, N)
    return splitter.per_table_rule(law, N, engine_rule(engine))


def _named(python: str, cli: str) -> str:
    """A splitter as the caller names it: ``cli`` inside the command line, else ``python``."""
    return cli if active() and active().cli else python


def _ratio_refusal(splitter: Any, metric: Any) -> str | None:
    """The bootstrap family's :meth:`~momentbound.splitters.SplitterDefaults.metric_refusal`: a finite number
    of samples has no exact route (each point's loss is averaged over the random number of samples that
    leave it out, then over the random number of points left out at least once)."""
    if getattr(splitter, "B", None) is not None:
        return (f"with B={splitter.B} bootstrap samples each point's loss is divided by the random number of samples "
                "that leave it out, and their sum by the random number of points left out, a ratio simulated only "
                f"for the 0-1 error; give {_named('B=None', 'no --bootstraps')} (the ideal "
                "B -> infinity estimate, exact for every linear metric)")
    return None


def _past_table_limit(splitter: Any, engine: Any, N: int) -> bool:
    """Whether the sums over sufficient statistics replace the count tables for the splitter's
    ``state_statistic`` (without computing them): the 0-1 error in float arithmetic, the count tables of
    ``N`` points past the table-sum limit (or, for ``Err(1)``, .632 and .632+, their ideal bootstrap summed
    over every pair of tables past its limit) and a route of :mod:`momentbound.exact.resub_states` applies."""
    from momentbound.exact import resub_states
    from momentbound.exact.tables import MAX_TABLES, MAX_TABLES_EXACT, table_count

    statistic = getattr(splitter, "state_statistic", None)
    metric = getattr(engine, "metric", None)
    if statistic is None or getattr(engine, "loss", None) is not None or (
            metric is not None and not metric.is_error):
        return False
    backend = engine.backend
    if str(getattr(backend, "name", "")) != "exact" or getattr(backend, "arithmetic", None) == "rational":
        return False
    rational = _rational(engine, N)
    if table_count(N, engine.model.n_cells) <= (MAX_TABLES_EXACT if rational else MAX_TABLES) and not (
            statistic != "resubstitution" and _generic_bootstrap_refused(engine, N, rational)):
        return False
    return resub_states.route(engine.model, engine.classifier, statistic, N) is not None


def _rational(engine: Any, N: int) -> bool:
    """Whether the count tables of ``N`` points would be summed in rational arithmetic."""
    mode = getattr(engine.backend, "mode", None)
    return bool(engine.model.is_exact and (mode is None or mode(engine.model, N) == "rational"))


def _state_route(splitter: Any, engine: Any, N: int) -> Any:
    """The sums over sufficient statistics (:mod:`momentbound.exact.resub_states`) of the splitter's
    ``state_statistic`` where they replace the count tables (:func:`_past_table_limit`); ``None``: sum over
    the count tables."""
    from momentbound.exact import resub_states
    from momentbound.guard import seconds_limit

    if not _past_table_limit(splitter, engine, N):
        return None
    statistic, backend, rational = splitter.state_statistic, engine.backend, _rational(engine, N)
    cache = engine.__dict__.setdefault("_state_moments", {})
    if (statistic, N) not in cache:
        result = resub_states.state_moments(engine.model, engine.classifier, N, statistic,
                                            tail=float(getattr(backend, "tail", 1e-13)),
                                            # the limit as set now; a limits() block (--max-seconds) governs
                                            max_seconds=seconds_limit(resub_states.MAX_SECONDS))
        if hasattr(backend, "dropped_mass_bound"):
            backend.dropped_mass_bound = max(backend.dropped_mass_bound, 2 * result.dropped_mass_bound)
        cache[(statistic, N)] = result
        if not rational:  # the same sums give E[GE_N] and E[GE_N^2]: the engine need not sum them again
            for name, value in (("_ge1", result.ge_mean), ("_ge2", result.ge_second)):
                store = getattr(engine, name, None)
                if isinstance(store, dict):
                    store.setdefault(N, value)
    return cache[(statistic, N)]


def _generic_bootstrap_refused(engine: Any, N: int, rational: bool) -> bool:
    """Whether the count tables' ideal bootstrap would sum over every pair of tables
    (:meth:`~momentbound.exact.tables.TableLaw.bootstrap_losses` without its fast form) past its limit."""
    from momentbound.exact.tables import (MAX_BOOTSTRAP_WORK, MAX_BOOTSTRAP_WORK_EXACT, fast_bootstrap_applies,
                                          table_count)

    if fast_bootstrap_applies(engine.model, engine.classifier) and not rational:
        return False
    count = table_count(N, engine.model.n_cells)
    return count * count * engine.model.n_cells > (MAX_BOOTSTRAP_WORK_EXACT if rational else MAX_BOOTSTRAP_WORK)


class _TableMoments:
    """``assemble`` and ``full_product`` of an estimator that is a function of the count table
    (``per_table(law, N)``: conditional mean and tie-coin variance, or ``None``); past the table-sum
    limit, the sums over sufficient statistics of its ``state_statistic`` where they apply."""

    def assemble(self: Any, engine: Any, N: int, covariance: str) -> ExactParts:
        _only_exact(self, covariance)
        if getattr(self, "B", None) is not None:
            _finite_needs_montecarlo(self)
        self.split(N)
        states = _state_route(self, engine, N)
        if states is not None:
            return ExactParts(states.mean, states.second, N, route=states.route)
        law = table_law(engine, N)
        value, coin = _per_table(self, law, N, engine)
        mean, second = _moments(law, N, value, coin)
        return ExactParts(mean, second, N, route="count-tables")

    def exact_progress(self: Any, engine: Any, N: int, covariance: str) -> None:
        return None  # sums over the count tables report no progress

    def full_product(self: Any, engine: Any, N: int) -> Any:
        """``E[est GE_N]`` (exact joint term with the full-data GE)."""
        if getattr(self, "B", None) is not None:
            _finite_needs_montecarlo(self)
        self.split(N)
        states = _state_route(self, engine, N)
        if states is not None:
            return states.joint
        law = table_law(engine, N)
        loss = getattr(engine, "loss", None)
        return law.expect(N, _per_table(self, law, N, engine)[0] * (law.ge(N) if loss is None else law.ge(N, loss)))


@dataclass(frozen=True)
class Resubstitution(SplitterDefaults):
    """Resubstitution (apparent, training) error: the full-data classifier's error on its own points.

    Examples
    --------
    >>> Resubstitution().split(5).train_sizes
    (5,)
    """

    name: ClassVar[str] = "resubstitution"
    #: the statistic of :mod:`momentbound.exact.resub_states` (sums over sufficient statistics)
    state_statistic: ClassVar[str | None] = "resubstitution"

    def split(self, N: int) -> Split:
        return Split(check_size(N), ())

    def describe(self) -> str:
        return "Resubstitution()"

    def params(self) -> dict[str, Any]:
        return {}

    #: every linear statistic of the confusion matrix on the training points has exact moments
    linear_metrics: ClassVar[bool] = True

    def per_table(self, law: Any, N: int) -> tuple[np.ndarray, np.ndarray | None]:
        """The estimate's conditional mean and tie-coin variance given the count table."""
        return law.resubstitution(N)

    #: its statistic divides by the class counts of the data, fixed in each table of the exact route
    class_rates: ClassVar[bool] = True

    def per_table_rule(self, law: Any, N: int, rule: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`per_table` of a linear statistic (a count rule: its base loss matrix and the weights of
        the class counts of the ``N`` points, :meth:`~momentbound.exact.tables.TableLaw.rule_statistics`)."""
        r, v, _ = law.rule_statistics(N, rule)
        return r, v

    assemble = _TableMoments.assemble
    full_product = _TableMoments.full_product
    exact_progress = _TableMoments.exact_progress

    def simulate(self, sim: Any, N: int) -> Any:
        return _simulate_family(sim, N, self)


@dataclass(frozen=True)
class Bootstrap(SplitterDefaults):
    """The leave-one-out bootstrap ``Err(1)`` of Efron & Tibshirani (1997).

    Parameters
    ----------
    B:
        Number of bootstrap samples; ``None`` (default) is the ideal ``B -> infinity`` estimate.
        With finite ``B``, point ``i``'s error is the mean loss over the samples that leave it out,
        and ``Err(1)`` the mean over the points left out by at least one sample (the ``B`` samples are
        redrawn in the rare case that no sample leaves any point out: the moments are conditional
        on the estimate being defined).

    Examples
    --------
    >>> Bootstrap().describe(), Bootstrap(50).describe()
    ('Bootstrap(B=inf)', 'Bootstrap(B=50)')
    """

    B: int | None = field(default=None, metadata={"help": "Bootstrap samples B (absent: the ideal B -> infinity)", "flags": ('--bootstraps',)})
    name: ClassVar[str] = "bootstrap"
    state_statistic: ClassVar[str | None] = "bootstrap"

    def __post_init__(self) -> None:
        object.__setattr__(self, "B", _check_B(self.B))

    def split(self, N: int) -> Split:
        return _split(N, "the leave-one-out bootstrap")

    def describe(self) -> str:
        return f"{type(self).__name__}(B={'inf' if self.B is None else self.B})"

    def params(self) -> dict[str, Any]:
        return {"bootstraps": self.B}

    #: every linear statistic of the confusion matrix of the ``N`` out-of-sample predictions (ideal ``B``)
    linear_metrics: ClassVar[bool] = True
    #: a recall or a balanced error divides by the class counts of the data, fixed in each table
    class_rates: ClassVar[bool] = True

    def per_table(self, law: Any, N: int) -> tuple[np.ndarray, np.ndarray | None]:
        return law.bootstrap(N), None

    def per_table_rule(self, law: Any, N: int, rule: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """``Err1`` of a linear statistic per table: each point's loss under the rule's base matrix averaged
        over the bootstrap samples that leave it out, weighed by the rule's weights of the data's class counts."""
        return law.rule_statistics(N, rule)[2], None

    def metric_refusal(self, metric: Any) -> str | None:
        return _ratio_refusal(self, metric)

    assemble = _TableMoments.assemble
    full_product = _TableMoments.full_product
    exact_progress = _TableMoments.exact_progress

    def simulate(self, sim: Any, N: int) -> Any:
        self.split(N)
        return _simulate_family(sim, N, self)


@dataclass(frozen=True)
class Point632(Bootstrap):
    """Efron's .632 estimate, ``0.368 resubstitution + 0.632 Err(1)`` (``B`` as in :class:`Bootstrap`).

    Linear in resubstitution and ``Err(1)``: with ``B=None`` its exact moments follow from their
    joint moments over the count tables.
    """

    name: ClassVar[str] = "632"
    state_statistic: ClassVar[str | None] = "632"

    def per_table(self, law: Any, N: int) -> tuple[np.ndarray, np.ndarray | None]:
        r, v = law.resubstitution(N)
        a = WEIGHT_632 if law.exact else float(WEIGHT_632)
        return (1 - a) * r + a * law.bootstrap(N), (1 - a) * (1 - a) * v

    def per_table_rule(self, law: Any, N: int, rule: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """``0.368`` resubstitution ``+ 0.632`` ``Err1`` of the same linear statistic, per table."""
        r, v, err1 = law.rule_statistics(N, rule)
        a = WEIGHT_632 if law.exact else float(WEIGHT_632)
        return (1 - a) * r + a * err1, (1 - a) * (1 - a) * v


@dataclass(frozen=True)
class Point632Plus(Bootstrap):
    """Efron & Tibshirani's .632+ estimate (``B`` as in :class:`Bootstrap`).

    With ``err`` the resubstitution error, ``gamma`` the no-information error rate (every training
    label paired with every training prediction of the full-data classifier) and
    ``Err1' = min(Err(1), gamma)``: ``R = (Err1' - err) / (gamma - err)`` if ``Err(1) > err`` and
    ``gamma > err``, else 0; ``.632+ = .368 err + .632 Err(1) + (Err1' - err) .368 .632 R / (1 - .368 R)``
    (eq. 32; with ``Err(1) <= gamma`` it is ``(1 - w) err + w Err(1)``, ``w = 0.632 / (1 - 0.368 R)``).
    The estimate is not linear; tie coins enter as their probabilities (each loss is its
    expectation over the coin). ``B=None``: a function of the count table, exact by table sums; past
    their limit, on one attribute with ``alpha = 0`` (ties ``random``, or ``first`` with two classes), by
    pairs of half tables (:mod:`momentbound.exact.row_halves`, route ``"row-halves"``). :meth:`delta` gives
    the delta-method approximation, a separate, labelled value (on the same count tables or half tables).
    """

    name: ClassVar[str] = "632plus"
    #: not a sum of per-point terms, but a function of sums of row functions on one attribute
    #: (:mod:`momentbound.exact.row_halves`)
    state_statistic: ClassVar[str | None] = "632plus"

    def per_table(self, law: Any, N: int) -> tuple[np.ndarray, np.ndarray | None]:
        key = ("632plus", N)
        if key not in law._cache:
            r = law.resubstitution(N)[0]
            e = law.bootstrap(N)
            g = law.no_information(N)
            law._cache[key] = plus_value(r, e, g)
        return law._cache[key], None

    def delta(self, engine: Any, N: int) -> tuple[float, float]:
        """Delta-method approximation ``(mean, variance)`` of ideal .632+: ``f(mu)`` and
        ``grad f(mu)' Sigma grad f(mu)`` with ``mu``, ``Sigma`` the exact mean and covariance of
        ``(err, Err(1), gamma)`` (the gradient in closed form, :func:`plus_gradient`): over the count tables, and
        where the pairs of half tables give the exact moments (past the table-sum limit), from the same
        half tables (:func:`momentbound.exact.row_halves.delta_inputs`, float arithmetic)."""
        self.split(N)
        if _past_table_limit(self, engine, N):
            mu, second = _halves_delta_inputs(engine, N)
            return _delta(mu, second - np.outer(mu, mu))
        law = table_law(engine, N)
        parts = [law.resubstitution(N)[0], law.bootstrap(N), law.no_information(N)]
        mu = np.array([float(law.expect(N, x)) for x in parts])
        sigma = np.array([[float(law.expect(N, x * y)) for y in parts] for x in parts]) - np.outer(mu, mu)
        return _delta(mu, sigma)

    def metric_refusal(self, metric: Any) -> str | None:
        return _ratio_refusal(self, metric) or (
            ".632+ weighs Err(1) by the relative overfitting rate, a ratio of differences with the no-information "
            f"error rate, so it is not linear in the losses; {_named('Point632()', '--splitter 632')} (.632) is, "
            "and has exact moments of every linear metric")

    def approximation(self, engine: Any, N: int) -> tuple[float, float] | None:
        """Ideal ``B``: the delta-method approximation (:meth:`delta`) beside the exact moments (on the
        count tables, or past their limit on the half tables); ``None`` with finite ``B``."""
        if self.B is not None:
            return None
        return self.delta(engine, N)


def _delta(mu: np.ndarray, sigma: np.ndarray) -> tuple[float, float]:
    """``f(mu)`` and ``grad f(mu)' sigma grad f(mu)`` for ``f`` the .632+ estimate of ``(err, Err(1), gamma)``
    (:func:`plus_gradient`)."""
    grad = plus_gradient(*(float(v) for v in mu))
    value = float(plus_value(np.array([mu[0]]), np.array([mu[1]]), np.array([mu[2]]))[0])
    return value, float(max(grad @ sigma @ grad, 0.0))


def plus_gradient(r: float, e: float, g: float) -> np.ndarray:
    """The gradient of the .632+ estimate (:func:`plus_value`) in ``(err, Err(1), gamma)``: with
    ``u = min(Err(1), gamma) - err``, ``v = gamma - err`` and ``D = v - .368 u`` the estimate is
    ``.368 err + .632 Err(1) + .368 .632 u^2 / D`` when ``Err(1) > err`` and ``gamma > err``, else the first
    two terms (one-sided at ``Err(1) = gamma``: the ``gamma`` side)."""
    a = float(WEIGHT_632)
    b = 1 - a
    if not (e > r and g > r):
        return np.array([b, a, 0.0])
    u, v = min(e, g) - r, g - r
    D = v - b * u
    du = a * b * u * (2 * D + b * u) / (D * D)
    dv = -a * b * u * u / (D * D)
    return np.array([b - du - dv, a + (du if e < g else 0.0), (0.0 if e < g else du) + dv])


def _halves_delta_inputs(engine: Any, N: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`momentbound.exact.row_halves.delta_inputs` of the engine's model: those of its exact .632+
    moments if computed, else from new half tables (kept on the engine) after the guards on time and memory
    (the half tables without the loop over their pairs)."""
    from momentbound.exact import resub_states, row_halves
    from momentbound.guard import seconds_limit

    exact = engine.__dict__.get("_state_moments", {}).get(("632plus", N))
    if exact is not None and exact.delta_inputs is not None:  # the exact moments' half tables gave them
        return exact.delta_inputs
    cache = engine.__dict__.setdefault("_delta_inputs", {})
    if N not in cache:
        model, clf = engine.model, engine.classifier
        seconds = row_halves.delta_seconds(model, N, clf)
        limit = seconds_limit(resub_states.MAX_SECONDS)
        if limit is not None and seconds > limit:
            raise InvalidArgument(
                f"the delta-method inputs of .632+ on pairs of half tables at N={N} would take about {seconds:.2g} s "
                f"on one core (limit {limit:g} s); use a smaller {option('N')}, or {resub_states.lift_seconds()} to run it "
                "anyway")
        memory = resub_states.memory_estimate(model, N, "632plus", clf)
        if memory > resub_states.MAX_MEMORY:
            raise InvalidArgument(
                f"the delta-method inputs of .632+ on pairs of half tables at N={N} would hold about "
                f"{memory / 2**30:.3g} GiB (limit {resub_states.MAX_MEMORY / 2**30:.3g} GiB); use a smaller {option('N')}")
        fm = model.to_float() if model.is_exact else model
        cache[N] = row_halves.delta_inputs(fm, clf, N)
    return cache[N]


@dataclass(frozen=True)
class OutOfBag(SplitterDefaults):
    """Bagging's out-of-bag error with ``B`` bootstrap samples (Breiman 1996).

    Every point left out by at least one sample is predicted by the majority vote of the classifiers
    whose sample leaves it out (a tied vote goes to the lowest class index, as ``numpy.argmax``; a
    classifier's own tie coin is drawn for its vote); the estimate is the share of those points that
    are misclassified. :class:`Bootstrap` ``Err(1)`` instead averages the losses of the individual
    classifiers. Simulated only (``backend="montecarlo"``).
    """

    B: int = field(metadata={"help": "Bootstrap samples B", "flags": ('--bootstraps',)})
    name: ClassVar[str] = "oob"

    def __post_init__(self) -> None:
        object.__setattr__(self, "B", _check_B(self.B, required=True))

    def split(self, N: int) -> Split:
        return _split(N, "the out-of-bag error")

    def describe(self) -> str:
        return f"OutOfBag(B={self.B})"

    def params(self) -> dict[str, Any]:
        return {"bootstraps": self.B}

    def metric_refusal(self, metric: Any) -> str | None:
        return ("each point is predicted by a majority vote of the classifiers that leave it out, simulated only "
                f"for the 0-1 error; {_named('Bootstrap()', '--splitter bootstrap without --bootstraps')} (the ideal "
                "Err(1)) averages their losses instead, and has exact moments of every linear metric")

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        raise InvalidArgument(
            f"{self.describe()} (a vote of B classifiers) is simulated: use backend='montecarlo'"
        )

    def exact_progress(self, engine: Any, N: int, covariance: str) -> None:
        return None  # simulated only

    def simulate(self, sim: Any, N: int) -> Any:
        self.split(N)
        return _simulate_family(sim, N, self)


# ----------------------------------------------------------------------------- simulation
def _simulate_family(sim: Any, N: int, splitter: Any) -> Any:
    """Monte Carlo of the bootstrap family: draws datasets, and for finite ``B`` the bootstrap samples."""

    m, R, st = sim.model, sim.draws, sim.stats
    B = getattr(splitter, "B", None)
    cond, coin, full = np.zeros(R), np.zeros(R), np.empty(R)
    second = np.zeros(R) if (B is None and isinstance(splitter, Bootstrap)) else None
    per_draw = (B or 1) * m.p.size * 2 + N * (B or 1)
    chunk = max(1, _CHUNK_ENTRIES // max(1, per_draw))
    for start in range(0, R, chunk):
        r = min(chunk, R - start)
        sl = slice(start, start + r)
        if B is None:
            tables = m.draw(sim.rng, N, (r,))
            parts = _ideal_parts(sim, tables, N, splitter)
        else:
            parts = _finite_parts(sim, N, B, r, splitter)
        cond[sl], coin[sl], full[sl] = parts[0], parts[1], parts[2]
        if second is not None:
            second[sl] = parts[3]
    if second is None:
        sim.keep(cond, full, coin)
        variance = st.variance(cond, coin)
    else:  # two independent unbiased evaluations of Err1(T): Var from their product
        dev1, dev2 = cond - cond.mean(), second - second.mean()
        both = (cond + second) / 2
        sim.keep(both, full, coin, var_d=dev1 * dev2)
        variance = st.combined(coin, dev1 * dev2)
        cond = both
    mean = st.mean(cond)
    return SimulatedParts(mean, variance, st.mean(full), st.variance(full), N)


def _ideal_parts(sim: Any, tables: np.ndarray, N: int, splitter: Any) -> tuple[np.ndarray, ...]:
    """Per table: the estimate's conditional mean, coin variance, GE_N (and a second evaluation)."""
    from momentbound.exact.tables import bootstrap_fast, fast_bootstrap_applies, trinomial_order_work

    m = sim.model
    K = m.K
    g = m.predictions(tables)
    gf = g.reshape(len(tables), -1)
    e = 1.0 - gf
    full = m.ge(g)
    resub = (tables * e).sum(axis=1) / N
    resub_coin = (tables * e * gf).sum(axis=1) / N**2
    if isinstance(splitter, Resubstitution):
        return resub, resub_coin, full
    form_ok = hasattr(m.classifier, "alpha_exact") and fast_bootstrap_applies(m.model, m.classifier)
    if form_ok and trinomial_order_work(N) > MAX_TRINOMIAL_WORK:
        if isinstance(splitter, Point632Plus):
            raise InvalidArgument(
                f"Point632Plus(B=None) at N={N} needs Err(1) of every drawn table in closed form, "
                f"about {trinomial_order_work(N):.2g} multiply-adds (limit {MAX_TRINOMIAL_WORK:.0e}); give a "
                "finite B (e.g. Point632Plus(B=200)) or a smaller N"
            )
        form_ok = False  # the closed form costs O(N^3) terms: unbiased bootstrap draws instead
    if form_ok:
        err1 = (tables * bootstrap_fast(m.model, m.classifier, tables, N)).sum(axis=1) / N
        err1_b = err1
    else:
        err1, err1_b = _bootstrap_draw(sim, tables, N), _bootstrap_draw(sim, tables, N)
    a = float(WEIGHT_632)
    if isinstance(splitter, Point632Plus):
        if not form_ok:
            raise InvalidArgument(
                "Point632Plus(B=None) is not linear in Err(1), so its simulation needs Err(1) of every "
                "drawn table exactly, which is available for one attribute, two classes and alpha = 0; "
                "give a finite B (e.g. Point632Plus(B=200)) for this model"
            )
        t3 = tables.reshape(len(tables), -1, K)
        q = (t3.sum(axis=2)[:, :, None] * g).sum(axis=1) / N
        gamma = ((t3.sum(axis=1) / N) * (1.0 - q)).sum(axis=1)
        value = plus_value(resub, err1, gamma)
        return value, np.zeros(len(tables)), full, value
    if isinstance(splitter, Point632):
        return ((1 - a) * resub + a * err1, (1 - a) ** 2 * resub_coin, full, (1 - a) * resub + a * err1_b)
    return err1, np.zeros(len(tables)), full, err1_b


def _bootstrap_draw(sim: Any, tables: np.ndarray, N: int) -> np.ndarray:
    """An unbiased draw of ``Err1(T)``: for every cell ``c`` one bootstrap table
    ``S ~ Multinomial(N, (T - delta_c) / (N - 1))`` and ``(1/N) sum_c T[c] e_c(S)``."""
    m = sim.model
    r, cells = tables.shape
    out = np.zeros(r)
    for c in range(cells):
        rows = np.nonzero(tables[:, c] > 0)[0]
        if len(rows) == 0:
            continue
        base = tables[rows].astype(float)
        base[:, c] -= 1
        S = sim.rng.multinomial(N, base / (N - 1))
        gS = m.predictions(S).reshape(len(rows), -1)
        out[rows] += tables[rows, c] * (1.0 - gS[:, c])
    return out / N


def _finite_parts(sim: Any, N: int, B: int, r: int, splitter: Any) -> tuple[np.ndarray, ...]:
    """The real procedure with ``B`` bootstrap samples on ``r`` datasets drawn point by point."""
    m, rng = sim.model, sim.rng
    n_cells, K = m.p.size, m.K
    points = rng.choice(n_cells, size=(r, N), p=m.p)  # (r, N) cell of every point
    onehot = np.zeros((r, N, n_cells), dtype=np.int64)
    np.put_along_axis(onehot, points[:, :, None], 1, axis=2)
    full_tables = onehot.sum(axis=1)
    sim.last_tables = full_tables  # the datasets' count tables (paired comparisons)
    mult = rng.multinomial(N, np.full(N, 1.0 / N), size=(r, B))  # (r, B, N)
    out = mult == 0
    undefined = ~out.any(axis=(1, 2))
    while undefined.any():  # no sample leaves any point out: redraw those samples
        idx = np.nonzero(undefined)[0]
        mult[idx] = rng.multinomial(N, np.full(N, 1.0 / N), size=(len(idx), B))
        out = mult == 0
        undefined = ~out.any(axis=(1, 2))
    boot = np.einsum("rbn,rnc->rbc", mult, onehot)  # (r, B, cells)
    g = m.predictions(boot.reshape(r * B, n_cells)).reshape(r, B, -1)  # g_{x_c}(y_c | S) per cell
    g_pts = np.take_along_axis(g, np.broadcast_to(points[:, None, :], (r, B, N)), axis=2)  # (r, B, N)
    n_out = out.sum(axis=1)  # (r, N) samples leaving point i out
    valid = n_out > 0
    n_valid = valid.sum(axis=1)
    gfull = m.predictions(full_tables)
    full = m.ge(gfull)
    if isinstance(splitter, OutOfBag):
        y = points % K
        inputs = points // K
        probs = g.reshape(r, B, -1, K)  # (r, B, inputs, K)
        p_pts = np.take_along_axis(probs, np.broadcast_to(inputs[:, None, :, None], (r, B, N, K)), axis=2)
        u = rng.random((r, B, N, 1))
        labels = (np.cumsum(p_pts, axis=3) <= u).sum(axis=3).clip(max=K - 1)  # a draw of each vote
        votes = np.stack([((labels == k) & out).sum(axis=1) for k in range(K)], axis=2)  # (r, N, K)
        wrong = (votes.argmax(axis=2) != y) & valid
        cond = wrong.sum(axis=1) / n_valid
        return cond, np.zeros(r), full
    e = 1.0 - g_pts
    per_point = np.where(valid, (e * out).sum(axis=1) / np.maximum(n_out, 1), 0.0)
    coin_point = np.where(valid, (e * (1.0 - e) * out).sum(axis=1) / np.maximum(n_out, 1) ** 2, 0.0)
    err1 = per_point.sum(axis=1) / n_valid
    err1_coin = coin_point.sum(axis=1) / n_valid**2
    gf = gfull.reshape(r, -1)
    resub = (full_tables * (1.0 - gf)).sum(axis=1) / N
    resub_coin = (full_tables * (1.0 - gf) * gf).sum(axis=1) / N**2
    a = float(WEIGHT_632)
    if isinstance(splitter, Point632Plus):
        t3 = full_tables.reshape(r, -1, K)
        q = (t3.sum(axis=2)[:, :, None] * gfull).sum(axis=1) / N
        gamma = ((t3.sum(axis=1) / N) * (1.0 - q)).sum(axis=1)
        return plus_value(resub, err1, gamma), np.zeros(r), full
    if isinstance(splitter, Point632):
        return (1 - a) * resub + a * err1, (1 - a) ** 2 * resub_coin + a * a * err1_coin, full
    return err1, err1_coin, full


def finite_bootstrap(B: object) -> Bootstrap:
    """The leave-one-out bootstrap with a finite number ``B`` of bootstrap samples (required)."""
    return Bootstrap(_check_B(B, required=True))


def simulate_extra_variance(sim: Any, N: int, splitter: Bootstrap) -> Any:
    """The Monte Carlo of :func:`momentbound.estimators.bootstrap_extra_variance` on a prepared
    simulation ``sim`` (its model, draws, confidence and generator) of datasets of ``N`` points.

    Returns the interval of ``Var(Err(1)_B) - Var(Err(1)_ideal)`` (the method is described there)."""
    m, R = sim.model, sim.draws
    n = splitter.split(N).N
    finite, coin, ideal1, ideal2 = (np.empty(R) for _ in range(4))
    chunk = max(1, _CHUNK_ENTRIES // max(1, splitter.B * (m.p.size * 2 + n)))
    for start in range(0, R, chunk):
        r = min(chunk, R - start)
        sl = slice(start, start + r)
        finite[sl], coin[sl], _ = _finite_parts(sim, n, splitter.B, r, splitter)
        first, _, _, second = _ideal_parts(sim, sim.last_tables, n, Bootstrap())
        ideal1[sl], ideal2[sl] = first, second
    centre = (ideal1.mean() + ideal2.mean()) / 2
    d = (finite - finite.mean()) ** 2 - (ideal1 - centre) * (ideal2 - centre)
    return sim.stats.combined(coin, d, nonneg=False)
