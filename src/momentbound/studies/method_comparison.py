"""The paper's Tables 4-6: every cdf method on ``P[Z_(0,0) > 0]`` of the 2x2x2 equal-cells model.

:func:`compare_methods` builds the moment problem for each ``N`` (moments from the moment
engine, support from the statistic's exact range, a Monte Carlo sampler for the ``sampling``
method), runs every applicable registered method, times it, and compares with the exact
value from :func:`momentbound.exact.prob_z_positive`.  The CLI ``momentbound compare`` and
``benchmarks/bench_bounds.py`` print its rows.

References
----------
Dhurandhar & Dobra, Section 7.3, Tables 4-6; docs/mathematics.md, section 'The paper's studies'.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument, MomentboundError, SolverFailed

from momentbound.bounds.api import available_methods, bound
from momentbound.bounds.problem import Event, MomentProblem, Support
from momentbound.bounds.result import BoundResult, Kind, Status

__all__ = ["CompareRow", "CompareTable", "compare_methods", "table4_problem"]

@dataclass(frozen=True)
class CompareRow:
    """One method at one ``N``: what it returned, how long it took, and whether it holds the truth.

    ``contains_exact`` is ``None`` for approximations (a point value cannot contain anything)
    and for failed runs; ``error`` is ``|lower - exact|`` for approximations. A failed run has
    ``kind=None`` and ``status=Status.FAILED`` (``"failed"`` in both columns of :meth:`as_dict`).
    """

    method: str
    N: int
    kind: Kind | None
    status: Status
    certified: bool
    seconds: float
    lower: float
    upper: float
    width: float
    exact: float
    contains_exact: bool | None
    error: float | None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "N": self.N,
            "kind": "failed" if self.kind is None else self.kind.value,
            "status": self.status.value,
            "certified": self.certified,
            "seconds": self.seconds,
            "lower": self.lower,
            "upper": self.upper,
            "width": self.width,
            "exact": self.exact,
            "contains_exact": self.contains_exact,
            "error": self.error,
            "note": self.note,
        }


@dataclass(frozen=True)
class CompareTable:
    """Rows of :func:`compare_methods` plus the setting they were computed for."""

    rows: tuple[CompareRow, ...]
    order: int
    event: str
    model: str

    COLUMNS = ("method", "N", "kind", "status", "certified", "seconds", "lower", "upper", "width", "exact", "contains_exact", "error", "note")

    def to_csv(self) -> str:
        """The rows as CSV text (header first)."""
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.COLUMNS)
        for r in self.rows:
            d = r.as_dict()
            w.writerow([d[c] for c in self.COLUMNS])
        return buf.getvalue()


def table4_problem(N: int, order: int = 6, *, x: tuple[int, ...] = (0, 0)) -> tuple[MomentProblem, Any]:
    """The Table 4 moment problem for ``N``: ``P[Z_x > 0]``, 2x2x2 equal cells, exact moments.

    Returns ``(problem, statistic)``; the problem carries a Monte Carlo sampler.

    Example
    -------
    >>> p, z = table4_problem(10, 4)
    >>> p.order, str(p.support)
    (4, 'grid:-147:147')
    """
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    from momentbound.model.z_sampler import naive_bayes_sampler

    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise InvalidArgument(f"N must be a positive integer, got {N!r}")
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise InvalidArgument(f"order must be a positive integer, got {order!r}")
    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, x)
    mom = raw_moments(z, model, int(N), int(order))
    lo, hi = z.support(int(N))
    problem = MomentProblem(
        tuple(mom.values),
        Support.grid(lo, hi),
        Event.gt(0),
        statistic_sampler=naive_bayes_sampler(model, int(N), x),
        name=f"P[Z_{x} > 0], 2x2x2 equal cells, N={N}",
    )
    return problem, z


_RNG_METHODS = ("gdts", "sampling")

#: Largest dataset size of :func:`compare_methods`: its exact column (``prob_z_positive``)
#: grows in time and memory with ``N`` (tens of gigabytes at ``N = 1e8``).
MAX_N = 5_000


def compare_methods(
    Ns: Sequence[int] = (10, 100, 1000),
    order: int = 6,
    *,
    methods: Sequence[str] | None = None,
    rng: np.random.Generator | int | None = 0,
    draws: int = 1000,
) -> CompareTable:
    """Run every applicable method (or ``methods``) on the Table 4 problem for each ``N``.

    Parameters
    ----------
    Ns : sequence of int
        Dataset sizes.
    order : int
        Number of moments (the paper uses 6).
    methods : sequence of str, optional
        Registered method names; default: every method that applies.
    rng : Generator, int or None
        Randomness for ``gdts`` and ``sampling``.
    draws : int
        Samples for the ``sampling`` method.

    Example
    -------
    >>> t = compare_methods((10,), 4, methods=("sdp",))
    >>> row = t.rows[-1]
    >>> row.method, row.contains_exact
    ('sdp', True)
    """
    from momentbound.exact import prob_z_positive
    from momentbound.model import equal_cells_model

    from momentbound.bounds.api import get_method

    from momentbound._validate import as_seed

    gen = as_seed(rng, "rng")
    if isinstance(Ns, (str, bytes)) or not hasattr(Ns, "__iter__"):
        raise InvalidArgument(f"Ns must be a sequence of dataset sizes like (10, 100), got {Ns!r}")
    from momentbound._validate import as_int

    Ns = [as_int(n, "Ns entry", minimum=1) for n in Ns]
    if not Ns:
        raise InvalidArgument("Ns must name at least one dataset size, got an empty sequence")
    if max(Ns) > MAX_N:
        raise InvalidArgument(f"Ns entry {max(Ns)} is above MAX_N = {MAX_N}: the exact column would need "
                              f"gigabytes; compare at N <= {MAX_N}, or bound one method at larger N")
    order = as_int(order, "order", minimum=1)
    draws = as_int(draws, "draws", minimum=1)
    if methods is not None:
        for name in methods:
            get_method(name)  # raises UnknownMethod with the registered list
    rows: list[CompareRow] = []
    for N in Ns:
        problem, _ = table4_problem(N, order)
        t0 = time.perf_counter()
        truth_res = prob_z_positive(equal_cells_model((2, 2)), int(N), (0, 0))
        t_exact = time.perf_counter() - t0
        truth = float(truth_res.positive)
        rows.append(
            CompareRow(
                "exact", int(N), Kind.EXACT, Status.EXACT, True, t_exact, truth, truth, 0.0, truth, True, 0.0,
                f"momentbound.exact.prob_z_positive (dropped mass <= {truth_res.dropped_mass_bound:.1g})",
            )
        )
        names = list(methods) if methods is not None else [m for m in available_methods(problem) if m != "exact"]
        for name in names:
            opts: dict[str, Any] = {}
            if name in _RNG_METHODS:
                opts["rng"] = gen
            if name == "sampling":
                opts["draws"] = draws
            note = ""
            start = time.perf_counter()
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    res = bound(problem, name, allow_unverified=True, **opts)
                if caught:
                    note = "; ".join(sorted({str(w.message).split(";")[0] for w in caught}))
            except (SolverFailed, MomentboundError) as exc:
                rows.append(
                    CompareRow(name, int(N), None, Status.FAILED, False, time.perf_counter() - start, 0.0, 1.0, 1.0, truth, None, None, str(exc)[:200])
                )
                continue
            assert isinstance(res, BoundResult)
            rows.append(_row(res, int(N), truth, note))
    return CompareTable(tuple(rows), int(order), "gt:0", "2x2x2 equal cells, x = (0, 0)")


def _row(res: BoundResult, N: int, truth: float, note: str) -> CompareRow:
    approx = res.kind is Kind.APPROXIMATION
    contains = None if approx else bool(res.lower - 1e-12 <= truth <= res.upper + 1e-12)
    return CompareRow(
        res.method,
        N,
        res.kind,
        res.status,
        res.certified,
        res.seconds,
        res.lower,
        res.upper,
        res.width,
        truth,
        contains,
        abs(res.lower - truth) if approx else None,
        note,
    )
