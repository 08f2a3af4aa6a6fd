"""Public moment API: raw, central and standardized moments, cumulants, joint moments."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional, Union

from momentbound.errors import InvalidArgument
from momentbound.model.statistics import Statistic, _check_N
from momentbound.moments.polynomial_expectation import expectation_vector, finish, layout, scaled_probabilities

if TYPE_CHECKING:
    from momentbound.model.cells import CellModel

__all__ = [
    "MomentSequence",
    "JointMoments",
    "raw_moments",
    "joint_moments",
    "central_moments",
    "standardized_moments",
    "cumulants",
    "expectation",
]

Value = Union[Fraction, float]


def _check_order(order: object, name: str = "order") -> int:
    from momentbound._validate import as_int

    return as_int(order, name, minimum=0)


def _check_model(stat: Statistic, model: "CellModel", name: str = "statistic") -> None:
    from momentbound.model.cells import CellModel

    if not isinstance(stat, Statistic):
        raise InvalidArgument(f"{name} must be a Statistic, got {type(stat).__name__}")
    if not isinstance(model, CellModel):
        raise InvalidArgument(f"model must be a CellModel, got {type(model).__name__}")
    if stat.n_cells != model.n_cells:
        raise InvalidArgument(
            f"{name} has {stat.n_cells} cells but the model has {model.n_cells}; build the "
            f"statistic from the same model"
        )


def _resolve_exact(model: "CellModel", exact: Optional[bool]) -> bool:
    if exact is None:
        return model.is_exact
    if exact and not model.is_exact:
        # float cells are exact dyadic rationals: the result is the exact moment of them
        return True
    return bool(exact)


def central_moments(raw: Sequence[Value]) -> list[Value]:
    """``E[(X - mu)^k]`` from raw moments ``m0 = 1, m1, ...`` (exact for Fractions).

    Examples
    --------
    >>> central_moments([Fraction(1), Fraction(1), Fraction(3)])
    [Fraction(1, 1), Fraction(0, 1), Fraction(2, 1)]
    """
    if not raw:
        return []
    m0 = raw[0]
    if m0 == 0:
        raise InvalidArgument("raw moments must have m0 != 0")
    mu = raw[1] / m0 if len(raw) > 1 else 0 * m0
    out = []
    for k in range(len(raw)):
        s = 0 * m0
        for i in range(k + 1):
            s += math.comb(k, i) * raw[i] * (-mu) ** (k - i)
        out.append(s / m0 if k else m0 / m0)
    return out


def standardized_moments(raw: Sequence[Value]) -> list[float]:
    """``E[((X - mu) / sigma)^k]`` as floats (computed from exact central moments).

    Raises ``InvalidArgument`` when the variance is zero.
    """
    cm = central_moments(raw)
    if len(cm) < 3:
        raise InvalidArgument("standardized moments need raw moments up to order >= 2")
    var = cm[2]
    if var <= 0:
        raise InvalidArgument("standardized moments are undefined: the variance is zero")
    out = []
    for k, c in enumerate(cm):
        if isinstance(c, Fraction):
            # exact ratio, one rounding: c / var^(k/2)
            if k % 2 == 0:
                out.append(float(c / var ** (k // 2)))
            else:
                out.append(float(c / var ** (k // 2)) / math.sqrt(var))
        else:
            out.append(float(c) / float(var) ** (k / 2))
    return out


def cumulants(raw: Sequence[Value]) -> list[Value]:
    """Cumulants ``kappa_1..kappa_n`` (``kappa_0 = 0``) from raw moments by the recursion
    ``kappa_n = m_n - sum_{i=1}^{n-1} C(n-1, i-1) kappa_i m_{n-i}``.

    Examples
    --------
    >>> cumulants([Fraction(1), Fraction(2), Fraction(5)])
    [Fraction(0, 1), Fraction(2, 1), Fraction(1, 1)]
    """
    if not raw:
        return []
    m0 = raw[0]
    if m0 != 1:
        raise InvalidArgument(f"cumulants need a probability measure (m0 = 1), got m0 = {m0}")
    k: list[Value] = [0 * m0]
    for n in range(1, len(raw)):
        s = raw[n]
        for i in range(1, n):
            s -= math.comb(n - 1, i - 1) * k[i] * raw[n - i]
        k.append(s)
    return k


@dataclass(frozen=True)
class MomentSequence:
    """Raw moments ``m_0 .. m_order`` of a statistic under ``Multinomial(N, p)``.

    ``values`` are exact ``Fraction`` when ``exact`` is true, else floats (each the
    correctly rounded exact moment of the float cell probabilities).
    """

    values: tuple[Value, ...]
    N: int
    exact: bool
    statistic: str = ""
    #: the exact rational moments behind float ``values`` (derived quantities such as
    #: central moments are computed from these, then rounded once: no cancellation)
    rational: Optional[tuple[Fraction, ...]] = field(default=None, repr=False, compare=False)
    #: how the exact values were computed ("flint", "modular", "engine", ...); the values
    #: do not depend on it
    engine: str = field(default="", repr=False, compare=False)

    def _base(self) -> tuple[Value, ...]:
        return self.rational if self.rational is not None else self.values

    def _out(self, vals: Sequence[Value]) -> tuple[Value, ...]:
        from momentbound._validate import to_float

        return tuple(vals) if self.exact else tuple(to_float(v, f"moment {k}") for k, v in enumerate(vals))

    @property
    def order(self) -> int:
        return len(self.values) - 1

    def __getitem__(self, k: int) -> Value:
        return self.values[k]

    def __len__(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> Value:
        return self.values[1]

    @property
    def variance(self) -> Value:
        return self.central()[2]

    def central(self) -> tuple[Value, ...]:
        """Central moments (from the exact moments; floats rounded once at the end)."""
        return self._out(central_moments(self._base()))

    def standardized(self) -> tuple[float, ...]:
        return tuple(standardized_moments(self._base()))

    def cumulants(self) -> tuple[Value, ...]:
        return self._out(cumulants(self._base()))

    def as_floats(self) -> tuple[float, ...]:
        from momentbound._validate import to_float

        return tuple(to_float(v, f"moment {k}", fix="keep the exact values") for k, v in enumerate(self.values))


def expectation(stat: Statistic, model: "CellModel", N: int, *, exact: Optional[bool] = None) -> Value:
    """``E[stat]`` under ``Multinomial(N, model.cells)``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2, 2))
    >>> expectation(naive_bayes_statistic(m, (0, 0)) ** 2, m, 4)
    Fraction(123, 16)
    """
    _check_model(stat, model)
    N = _check_N(N)
    q, D = scaled_probabilities(model.cells)
    (gamma,) = expectation_vector(layout(stat), [stat.terms], q)
    val = finish(gamma, N, D)
    from momentbound._validate import to_float

    return val if _resolve_exact(model, exact) else to_float(val, "the expectation")


#: :func:`raw_moments` refuses orders whose derivation is estimated to take longer than this
MAX_MOMENT_SECONDS = 60.0


def estimated_seconds(statistic: Statistic, order: int) -> float:
    """A deliberately pessimistic estimate of the one-time derivation cost of ``order`` moments.

    The powers ``Z^k`` of a statistic of degree ``deg`` have ``O(k^((deg + 5) / 2))``
    feature monomials to evaluate (measured on the naive Bayes ``Z_x``, degree ``2d - 1``:
    order 60 at ``d = 2`` about 5 s, order 36 at ``d = 3`` about 25 s, order 9 at ``d = 5``
    about 70 s); it does not depend on ``N``.
    """
    deg = max(statistic.degree, 1)
    return 1e-6 * float(order) ** ((deg + 5) / 2) * 4.0 ** max(0.0, (deg - 5) / 2)


def _check_work(statistic: Statistic, order: int, max_seconds: float | None) -> None:
    if max_seconds is None or order < 2:
        return
    est = estimated_seconds(statistic, order)
    if est > max_seconds:
        best = order
        while best > 1 and estimated_seconds(statistic, best) > max_seconds:
            best -= 1
        raise InvalidArgument(
            f"order={order} moments of {statistic.name or 'this statistic'} (degree {statistic.degree}) "
            f"would take about {est:.2g} s to derive (limit {max_seconds:g} s); use a smaller order "
            f"(at most {best} within the limit; in Python, max_seconds=None lifts it)"
        )


def raw_moments(
    statistic: Statistic, model: "CellModel", N: int, order: int, *, exact: Optional[bool] = None,
    max_seconds: float | None = MAX_MOMENT_SECONDS,
) -> MomentSequence:
    """Raw moments ``E[Z^k]``, ``k = 0..order``, exactly (docs/mathematics.md, section 'Factorial
    moments').

    Parameters
    ----------
    statistic:
        A polynomial statistic of the model's counts (e.g. :func:`naive_bayes_statistic`).
    model:
        Cell probabilities.
    N:
        Dataset size.
    order:
        Highest moment.
    exact:
        Return Fractions (default: when the model is exact). Floats are always computed
        exactly and rounded once at the end, so large ``N`` neither overflows nor cancels;
        a moment beyond the float range raises ``InvalidArgument`` (use ``exact=True``).
    max_seconds:
        Refuse (``InvalidArgument``, naming the largest order within the limit) when
        :func:`estimated_seconds` exceeds this; ``None`` disables the guard.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2, 2))
    >>> raw_moments(naive_bayes_statistic(m, (0, 0)), m, 4, 2).values
    (Fraction(1, 1), Fraction(0, 1), Fraction(123, 16))
    """
    _check_model(statistic, model)
    N = _check_N(N)
    order = _check_order(order)
    _check_work(statistic, order, max_seconds)
    from momentbound.moments.compiled import compile_moments

    return compile_moments(statistic, order)(N, model.cells, exact=_resolve_exact(model, exact))


@dataclass(frozen=True)
class JointMoments:
    """Table ``values[i][j] = E[X^i Y^j]`` for ``i <= max_i``, ``j <= max_j``."""

    values: tuple[tuple[Value, ...], ...]
    N: int
    exact: bool

    def __getitem__(self, ij: tuple[int, int]) -> Value:
        i, j = ij
        return self.values[i][j]

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.values), len(self.values[0]))


def _exact_joint_moments(
    stat_x: Statistic, stat_y: Statistic, model: "CellModel", N: int, pairs: Sequence[tuple[int, int]]
) -> dict[tuple[int, int], Any]:
    """Exact ``E[X^i Y^j]`` for each ``(i, j)`` in ``pairs``, in one engine run (inputs validated)."""
    # put both statistics on one feature list
    feats: list = []
    pos: dict = {}
    for f in stat_x.features + stat_y.features:
        if f.cells not in pos:
            pos[f.cells] = len(feats)
            feats.append(f)

    def lift(stat: Statistic) -> dict:
        out = {}
        for exps, coef in stat.terms:
            new = [0] * len(feats)
            for f, e in zip(stat.features, exps):
                new[pos[f.cells]] += e
            out[tuple(new)] = coef
        return out

    X, Y = lift(stat_x), lift(stat_y)
    one = {(0,) * len(feats): 1}

    def mul(a: dict, b: dict) -> dict:
        acc: dict = {}
        for ea, ca in a.items():
            for eb, cb in b.items():
                k = tuple(x + y for x, y in zip(ea, eb))
                acc[k] = acc.get(k, 0) + ca * cb
        return {k: v for k, v in acc.items() if v}

    xp = [one]
    for _ in range(max(i for i, _ in pairs)):
        xp.append(mul(xp[-1], X))
    yp = [one]
    for _ in range(max(j for _, j in pairs)):
        yp.append(mul(yp[-1], Y))
    polys = [list(mul(xp[i], yp[j]).items()) for i, j in pairs]
    lay_stat = Statistic.from_terms(model.n_cells, feats, {(0,) * len(feats): 1})
    q, D = scaled_probabilities(model.cells)
    gammas = expectation_vector(layout(lay_stat), polys, q)
    return {ij: finish(g, N, D) for ij, g in zip(pairs, gammas)}


def joint_moments(
    stat_x: Statistic,
    stat_y: Statistic,
    model: "CellModel",
    N: int,
    max_i: int,
    max_j: int,
    *,
    exact: Optional[bool] = None,
) -> JointMoments:
    """Joint moments ``E[X^i Y^j]`` for ``0 <= i <= max_i``, ``0 <= j <= max_j``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2,))
    >>> t = joint_moments(naive_bayes_statistic(m, (0,)), naive_bayes_statistic(m, (1,)), m, 2, 1, 1)
    >>> t[1, 1]
    Fraction(0, 1)
    """
    _check_model(stat_x, model, "stat_x")
    _check_model(stat_y, model, "stat_y")
    N = _check_N(N)
    max_i = _check_order(max_i, "max_i")
    max_j = _check_order(max_j, "max_j")
    pairs = [(i, j) for i in range(max_i + 1) for j in range(max_j + 1)]
    joint = _exact_joint_moments(stat_x, stat_y, model, N, pairs)
    ex = _resolve_exact(model, exact)
    vals = [joint[ij] for ij in pairs]
    if not ex:
        from momentbound._validate import to_float

        vals = [to_float(v, f"joint moment {ij}") for v, ij in zip(vals, pairs)]  # type: ignore[misc]
    rows = tuple(
        tuple(vals[i * (max_j + 1) + j] for j in range(max_j + 1)) for i in range(max_i + 1)
    )
    return JointMoments(rows, N, ex)
