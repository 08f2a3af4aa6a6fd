"""Bounds on joint sign events of two naive Bayes statistics, ``P[s1 Z_x > 0 and s2 Z_x2 > 0]``
(docs/mathematics.md, section 'Joint events and the bird polynomial'): the joint moments of the two
statistics from the moment engine, fed to the generic joint-event methods of
:mod:`momentbound.bounds.joint`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from momentbound.bounds.api import bound
from momentbound.bounds.joint import bird_bound, frechet_bounds, joint_sdp
from momentbound.bounds.problem import Event, MomentProblem, Support
from momentbound.bounds.result import BoundResult
from momentbound.errors import InvalidArgument
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments.core import joint_moments

__all__ = ["JOINT_METHODS", "naive_bayes_joint_bounds"]

#: the routes of :func:`naive_bayes_joint_bounds`
JOINT_METHODS = ("joint-sdp", "frechet", "bird")


def naive_bayes_joint_bounds(
    model: Any,
    N: int,
    x: Sequence[int] | int,
    x2: Sequence[int] | int,
    *,
    classes: tuple[int, int] = (0, 1),
    classes2: tuple[int, int] | None = None,
    signs: tuple[int, int] = (1, 1),
    method: str = "joint-sdp",
    degree: int = 2,
    single_method: str = "sdp",
    **options: Any,
) -> BoundResult:
    """Bounds on ``P[s1 Z_x > 0 and s2 Z_x2 > 0]`` for two naive Bayes statistics of one model.

    ``signs`` flips a statistic (``(1, -1)`` bounds ``P[Z_x > 0, Z_x2 < 0]``). ``method``:
    ``"joint-sdp"`` (bivariate moment relaxation of order ``degree``), ``"frechet"`` (from the
    two single-event bounds of ``single_method`` with ``2 * degree`` moments) or ``"bird"``
    (bird polynomial with ``degree`` moments of ``W``; small ranges only).

    Example
    -------
    >>> from momentbound.model import equal_cells_model
    >>> r = naive_bayes_joint_bounds(equal_cells_model((2,)), 4, (0,), (1,), method="frechet")
    >>> r.certified, r.lower <= r.upper
    (True, True)
    """
    if method not in JOINT_METHODS:
        raise InvalidArgument(f"method must be one of {JOINT_METHODS}, got {method!r}")
    if len(signs) != 2 or any(s not in (1, -1) for s in signs):
        raise InvalidArgument(f"signs must be a pair of +1/-1, got {signs!r}")
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
        raise InvalidArgument(f"degree must be a positive integer, got {degree!r}")
    z1 = naive_bayes_statistic(model, x, classes)
    z2 = naive_bayes_statistic(model, x2, classes2 if classes2 is not None else classes)
    z1 = z1 if signs[0] == 1 else -z1
    z2 = z2 if signs[1] == 1 else -z2
    if method == "bird":
        return bird_bound(z1, z2, model, N, degree, method=single_method, **options)
    k = 2 * degree
    jm = joint_moments(z1, z2, model, N, k, k, exact=True)
    s1, s2 = z1.support(N), z2.support(N)
    if method == "joint-sdp":
        return joint_sdp(jm.values, s1, s2, degree=degree, **options)
    singles = []
    for mom, (lo, hi) in ((tuple(jm.values[i][0] for i in range(k + 1)), s1), (tuple(jm.values[0][j] for j in range(k + 1)), s2)):
        res = bound(MomentProblem(mom, Support.grid(lo, hi), Event.gt(0)), single_method, **options)
        assert isinstance(res, BoundResult)
        singles.append(res)
    return frechet_bounds(singles[0], singles[1])
