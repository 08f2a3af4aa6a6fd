"""Public moment API: raw, central and standardized moments, cumulants, joint moments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional

from momentbound._validate import as_int
from momentbound.errors import InvalidArgument
from momentbound.model.statistics import Statistic
from momentbound.moments.arguments import check_order, check_statistic_model, resolve_exact
from momentbound.moments.compiled import compile_moments
from momentbound.moments.polynomial_expectation import expectation_vector, finish, layout, scaled_probabilities
from momentbound.moments.sequence import MomentSequence, Value, central_moments, cumulants, standardized_moments

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
    check_statistic_model(stat, model)
    N = as_int(N, "N", minimum=0)
    q, D = scaled_probabilities(model.cells)
    (gamma,) = expectation_vector(layout(stat), [stat.terms], q)
    val = finish(gamma, N, D)
    from momentbound._validate import to_float

    return val if resolve_exact(model, exact) else to_float(val, "the expectation")


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
    from momentbound.guard import seconds_limit

    max_seconds = seconds_limit(max_seconds)
    if max_seconds is None or order < 2:
        return
    est = estimated_seconds(statistic, order)
    if est > max_seconds:
        lo, hi = 1, order  # the largest order within the limit, by bisection (orders may be huge)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if estimated_seconds(statistic, mid) <= max_seconds else (lo, mid)
        best = lo
        from momentbound.errors import WorkLimitExceeded
        from momentbound.guard import option

        raise WorkLimitExceeded(
            f"{option('order', order)} moments of {statistic.name or 'this statistic'} (degree {statistic.degree}) "
            f"would take about {est:.2g} s to derive (limit {max_seconds:g} s); use a smaller order "
            f"(at most {best} within the limit), or {option('max_seconds', None)} to run it anyway"
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
    check_statistic_model(statistic, model)
    N = as_int(N, "N", minimum=0)
    order = check_order(order)
    _check_work(statistic, order, max_seconds)
    return compile_moments(statistic, order)(N, model.cells, exact=resolve_exact(model, exact))


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


def exact_joint_moments(
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
    check_statistic_model(stat_x, model, "stat_x")
    check_statistic_model(stat_y, model, "stat_y")
    N = as_int(N, "N", minimum=0)
    max_i = check_order(max_i, "max_i")
    max_j = check_order(max_j, "max_j")
    pairs = [(i, j) for i in range(max_i + 1) for j in range(max_j + 1)]
    joint = exact_joint_moments(stat_x, stat_y, model, N, pairs)
    ex = resolve_exact(model, exact)
    vals = [joint[ij] for ij in pairs]
    if not ex:
        from momentbound._validate import to_float

        vals = [to_float(v, f"joint moment {ij}") for v, ij in zip(vals, pairs)]  # type: ignore[misc]
    rows = tuple(
        tuple(vals[i * (max_j + 1) + j] for j in range(max_j + 1)) for i in range(max_i + 1)
    )
    return JointMoments(rows, N, ex)
