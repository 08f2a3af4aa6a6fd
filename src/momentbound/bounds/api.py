"""One entry point: ``bound(problem, method=...)``."""

from __future__ import annotations

from typing import Any

from momentbound.errors import InvalidArgument, SolverFailed

from .problem import MomentProblem
from momentbound.registry import lookup

from .registry import METHODS, BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status

__all__ = ["bound", "available_methods", "get_method", "no_method_reason"]


def get_method(method: str | BoundMethod) -> BoundMethod:
    """A method instance from a registered name or an instance."""
    if isinstance(method, BoundMethod):
        return method
    if isinstance(method, type) and issubclass(method, BoundMethod):
        return method()
    if not isinstance(method, str):
        raise InvalidArgument(f"method must be a name or a BoundMethod, got {method!r}")
    return lookup(METHODS, method, "method", also=("all",))()


def available_methods(problem: MomentProblem | None = None) -> tuple[str, ...]:
    """Registered method names (those applicable to ``problem`` if given), in preference order."""
    if problem is None:
        return tuple(METHODS)
    return tuple(name for name, cls in METHODS.items() if cls().unsupported(problem) is None)


def no_method_reason(problem: MomentProblem) -> str:
    """Why no registered method applies to ``problem``: the reason of each method that honours its features."""
    able = [(name, cls().unsupported(problem)) for name, cls in METHODS.items() if problem.features <= cls.features]
    reasons = "; ".join(f"{name}: {why}" for name, why in able if why is not None)
    return f"no method applies to this problem ({reasons or 'no method honours its features'})"


def bound(
    problem: MomentProblem,
    method: str | BoundMethod = "lp",
    *,
    allow_unverified: bool = False,
    solver: str | None = None,
    **options: Any,
) -> BoundResult | tuple[BoundResult, ...]:
    """Bounds on ``P(X in E)`` from the moments of ``X``.

    Parameters
    ----------
    problem : MomentProblem
    method : str or BoundMethod
        A registered name (see :data:`METHODS`), a method instance, or ``"all"`` for one
        result per applicable method (a tuple; methods that fail appear with status FAILED).
    allow_unverified : bool
        Return bound-kind results whose certificate could not be verified (status
        UNVERIFIED) instead of raising :class:`SolverFailed`.
    solver : str, optional
        Solve the method's optimisation problems through cvxpy with this installed solver
        (``"CLARABEL"``, ``"SCS"``, ``"HIGHS"``, ...; see
        :mod:`momentbound.bounds.formulations`) instead of the direct default path; the
        answer is verified and finished in exact arithmetic either way.  Applies to the
        methods that declare a ``solver`` option (``lp``, ``lp-dual``, ``sqp``, ``sdp``); with
        ``method="all"`` the other methods run unchanged.
    **options
        Method options (declared per method; unknown options raise ``InvalidArgument``).
        With ``method="all"`` each option goes to the methods that declare it (e.g. ``rng``
        and ``draws`` to ``sampling``, ``rng`` to ``gdts``); an option no method declares
        raises ``InvalidArgument``.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> r = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), "lp")
    >>> (r.exact_lower, r.exact_upper)
    (Fraction(0, 1), Fraction(1, 3))
    """
    if solver is not None:
        from .formulations import SOLVER_METHODS, check_solver

        solver = check_solver(solver)
        if not (isinstance(method, str) and method == "all") and "solver" not in get_method(method).options:
            raise InvalidArgument(
                f"method {get_method(method).name!r} solves no optimisation problem through a solver; "
                f"solver= applies to {', '.join(SOLVER_METHODS)}"
            )
        options = {**options, "solver": solver}
    if isinstance(method, str) and method == "all":
        declared = {k for cls in METHODS.values() for k in cls.options}
        unknown = sorted(set(options) - declared)
        if unknown:
            raise InvalidArgument(f"options {unknown} are declared by no method; declared options: {', '.join(sorted(declared))}")
        results = []
        for name, cls in METHODS.items():
            inst = cls()
            if inst.unsupported(problem) is not None:
                continue
            try:
                mine = {k: v for k, v in options.items() if k in cls.options}
                results.append(_checked(inst.solve(problem, **mine), allow_unverified))
            except SolverFailed as exc:
                partial = exc.result if isinstance(exc.result, BoundResult) else None
                results.append(
                    partial
                    if partial is not None and partial.status is Status.FAILED
                    else BoundResult(
                        0.0, 1.0, name, inst.kind, Status.FAILED, str(exc), diagnostics=Diagnostics(notes=(str(exc),))
                    )
                )
        if not results:
            raise InvalidArgument(no_method_reason(problem))
        return tuple(results)
    inst = get_method(method)
    return _checked(inst.solve(problem, **options), allow_unverified)


def _checked(result: BoundResult, allow_unverified: bool) -> BoundResult:
    if result.kind is Kind.BOUND and result.status is Status.FAILED and not allow_unverified:
        raise SolverFailed(
            f"method {result.method!r} failed ({result.message}); pass allow_unverified=True to see its partial result",
            result=result,
        )
    if result.kind is Kind.BOUND and result.status is Status.UNVERIFIED and not allow_unverified:
        failed = BoundResult(
            0.0,
            1.0,
            result.method,
            result.kind,
            Status.FAILED,
            f"{result.method}: certificate not verified ({result.message}); the only proven bounds are [0, 1]",
            certificates=result.certificates,
            diagnostics=result.diagnostics,
        )
        raise SolverFailed(
            f"method {result.method!r} produced an unverified bound ({result.message}); "
            "pass allow_unverified=True to see it anyway",
            result=failed,
        )
    return result
