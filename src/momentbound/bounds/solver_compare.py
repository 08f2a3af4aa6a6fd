"""Every optimisation method under every cvxpy solver: bound, certificate, solver status and time.

:func:`compare_solvers` runs each method of :data:`~.formulations.SOLVER_METHODS` on one
problem by its direct default path and through cvxpy with each requested solver, and says
for each run whether it finished, what its (exactly verified) certificate status is, what
the solver reported, and whether it agrees with the direct path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from momentbound.errors import InfeasibleMoments, InvalidArgument, MomentboundError

from .problem import MomentProblem
from .result import BoundResult, Status

__all__ = ["SolverRow", "SolverTable", "compare_solvers", "DIRECT"]

#: the label of the default (non-cvxpy) path in the table
DIRECT = "direct"
#: two finished runs agree when their bounds differ by at most this (exact values: equal if both sharp)
AGREE_TOL = 1e-6


@dataclass(frozen=True)
class SolverRow:
    """One method under one solver (``solver == "direct"``: the default path).

    ``finished`` is false when the run raised (solver error, a solver without the needed
    cone, no verifiable answer; ``note`` says why), returned no proven bound, or stopped its
    iteration early (``solver_status`` says ``stopped``: the bound holds but is loose).  ``status`` is the
    certificate status of the result (``failed`` when it did not finish), ``solver_status``
    what the numerical solver reported, ``agrees`` whether the bounds match the direct path
    (``None`` when either did not finish).
    """

    method: str
    solver: str
    finished: bool
    status: Status
    certified: bool
    solver_status: str
    lower: float
    upper: float
    seconds: float
    agrees: bool | None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "solver": self.solver,
            "finished": self.finished,
            "status": self.status.value,
            "certified": self.certified,
            "solver_status": self.solver_status,
            "lower": self.lower,
            "upper": self.upper,
            "seconds": self.seconds,
            "agrees": self.agrees,
            "note": self.note,
        }


@dataclass(frozen=True)
class SolverTable:
    """Rows of :func:`compare_solvers` for one problem."""

    rows: tuple[SolverRow, ...]
    problem: str

    COLUMNS = ("method", "solver", "finished", "status", "certified", "solver_status", "lower", "upper", "seconds", "agrees", "note")

    def unfinished(self) -> tuple[SolverRow, ...]:
        """The runs that did not finish."""
        return tuple(r for r in self.rows if not r.finished)


def _agree(a: BoundResult, b: BoundResult) -> bool:
    exact = (a.exact_lower, a.exact_upper, b.exact_lower, b.exact_upper)
    if a.status is Status.OPTIMAL and b.status is Status.OPTIMAL and None not in exact:
        return (a.exact_lower, a.exact_upper) == (b.exact_lower, b.exact_upper)
    return abs(a.lower - b.lower) <= AGREE_TOL and abs(a.upper - b.upper) <= AGREE_TOL


def compare_solvers(
    problem: MomentProblem,
    *,
    methods: Sequence[str] | None = None,
    solvers: Sequence[str] | None = None,
    options: dict[str, dict[str, Any]] | None = None,
) -> SolverTable:
    """Run each method directly and through each cvxpy solver; tabulate what happened.

    Parameters
    ----------
    problem : MomentProblem
    methods : sequence of str, optional
        Methods to run (default: those of ``lp``, ``lp-dual``, ``sqp``, ``sdp`` that apply).
    solvers : sequence of str, optional
        cvxpy solver names (default: every installed solver).  Unknown names raise
        ``InvalidArgument`` before anything runs.
    options : dict, optional
        Per-method options, e.g. ``{"sqp": {"max_iter": 20}}``.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> t = compare_solvers(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)),
    ...                     methods=("lp",), solvers=("HIGHS",))
    >>> [(r.solver, r.status.value, r.agrees) for r in t.rows]
    [('direct', 'optimal', True), ('HIGHS', 'optimal', True)]
    """
    from .api import get_method
    from .formulations import SOLVER_METHODS, check_solver, installed_solvers

    if not isinstance(problem, MomentProblem):
        raise InvalidArgument(f"problem must be a MomentProblem, got {type(problem).__name__}")
    names = list(solvers) if solvers is not None else list(installed_solvers())
    names = [check_solver(s) for s in names]
    if methods is None:
        chosen = [m for m in SOLVER_METHODS if get_method(m).applies(problem) is None]
    else:
        chosen = list(methods)
        bad = [m for m in chosen if m not in SOLVER_METHODS]
        if bad:
            raise InvalidArgument(f"methods {bad} solve no optimisation problem through a solver; choose from {', '.join(SOLVER_METHODS)}")
        for m in chosen:
            reason = get_method(m).applies(problem)
            if reason is not None:
                raise InvalidArgument(f"method {m!r} does not apply to this problem: {reason}")
    opts = options or {}
    rows: list[SolverRow] = []
    for method in chosen:
        direct: BoundResult | None = None
        for solver in [DIRECT] + names:
            kw = dict(opts.get(method, {}))
            if solver != DIRECT:
                kw["solver"] = solver
            res, note, seconds = _run(problem, method, kw)
            if solver == DIRECT:
                direct = res
            both = res is not None and direct is not None and _finished(res) and _finished(direct)
            agrees = _agree(res, direct) if both else None  # type: ignore[arg-type]
            if res is None:
                rows.append(SolverRow(method, solver, False, Status.FAILED, False, "", 0.0, 1.0, seconds, None, note))
            else:
                rows.append(SolverRow(method, solver, _finished(res), res.status, res.certified,
                                      res.diagnostics.solver_status, res.lower, res.upper, seconds, agrees, note))
    return SolverTable(tuple(rows), problem.name or f"P(X in {problem.event}) on {problem.support}, {problem.order} moments")


def _finished(res: BoundResult) -> bool:
    """A run finished when it returned a proven bound, its iteration did not stop early and its
    solver reported success (an exchange on inaccurately solved masters has not converged)."""
    state = res.diagnostics.solver_status.replace("optimal_inaccurate", "")
    return res.status.is_proven and not any(word in state for word in ("stopped", "inaccurate", "box-limited", "unconfirmed"))


def _run(problem: MomentProblem, method: str, kw: dict[str, Any]) -> tuple[BoundResult | None, str, float]:
    from .api import bound

    start = time.perf_counter()
    try:
        res = bound(problem, method, allow_unverified=True, **kw)
    except InfeasibleMoments:
        raise
    except MomentboundError as exc:
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}", time.perf_counter() - start
    assert isinstance(res, BoundResult)
    return res, res.message[:200] if res.status is Status.UNVERIFIED else "", time.perf_counter() - start
