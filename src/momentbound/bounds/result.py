"""Typed, frozen results of the bound methods: kinds, statuses, certificates."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from momentbound.core import Kind, Status
from momentbound.intervals import Enclosure

from .problem import AffineMap

__all__ = ["Kind", "Status", "Certificate", "Diagnostics", "BoundResult", "round_up", "round_down"]


def round_up(value: Fraction | float) -> float:
    """Smallest float >= value."""
    f = float(value)
    if isinstance(value, Fraction) and Fraction(f) < value:
        f = math.nextafter(f, math.inf)
    return f


def round_down(value: Fraction | float) -> float:
    """Largest float <= value."""
    f = float(value)
    if isinstance(value, Fraction) and Fraction(f) > value:
        f = math.nextafter(f, -math.inf)
    return f


@dataclass(frozen=True)
class Certificate:
    """A dual polynomial proving a bound.

    ``side="upper"``: ``p(x) >= 1_E(x)`` on the support, so ``P(E) <= E[p(X)] = value``.
    ``side="lower"``: ``p(x) <= 1_E(x)`` on the support, so ``P(E) >= value``.
    Under a shape constraint (``sos`` and ``shape-grid`` with a unimodal or symmetric law) the
    inequality holds on the averages that make up every law of the class, not point by point:
    ``sum_{x=a}^{b} (p(x) - 1_E(x)) >= 0`` for every integer range ``{a..b}`` containing the mode
    (``shape-grid``, unimodal), ``int_m^z (p - 1_E) >= 0`` for ``z >= m`` and ``<= 0`` for
    ``z <= m`` with ``p(m) >= 1_E(m)`` (``sos``, unimodal about ``m``; for an unknown mode, on the
    mode interval of the envelope), or ``p(c - t) + p(c + t) >= 1_E(c - t) + 1_E(c + t)`` (symmetric
    about ``c``); ``p`` itself may lie below ``1_E`` at some points. ``how`` names the class.
    ``p(x) = sum_k coefficients[k] * B_k(u)`` with ``u = domain_map.to_unit(x)`` and ``B_k``
    the Chebyshev polynomials ``T_k`` (``basis="chebyshev"``) or ``u^k`` (``"monomial"``).
    Coefficients are exact (Fractions) when the certificate was computed exactly.
    """

    side: str
    coefficients: tuple[Fraction | float, ...]
    basis: str
    domain_map: AffineMap
    value: Fraction
    verified: bool
    min_slack: float
    how: str

    def evaluate(self, x: Any) -> Any:
        """Floating-point value of the polynomial at ``x`` (array or scalar)."""
        import numpy as np
        from numpy.polynomial import chebyshev, polynomial

        u = self.domain_map.to_unit_float(np.asarray(x, dtype=float))
        c = np.array([float(v) for v in self.coefficients])
        return chebyshev.chebval(u, c) if self.basis == "chebyshev" else polynomial.polyval(u, c)

    def evaluate_exact(self, x: Any) -> Fraction:
        """Exact value at a rational ``x``."""
        from .basis import chebyshev_values_exact

        u = self.domain_map.to_unit(x)
        if self.basis == "chebyshev":
            vals = chebyshev_values_exact(u, len(self.coefficients) - 1)
        else:
            vals = tuple(u**k for k in range(len(self.coefficients)))
        return sum((Fraction(c) * v for c, v in zip(self.coefficients, vals)), Fraction(0))

    def complement_lower(self) -> Certificate:
        """The lower-bound certificate ``1 - p`` of ``P(E)`` from this upper certificate ``p`` of ``P(not E)``."""
        return Certificate(
            "lower",
            tuple([1 - Fraction(self.coefficients[0])] + [-Fraction(v) for v in self.coefficients[1:]]),
            self.basis,
            self.domain_map,
            1 - self.value,
            self.verified,
            self.min_slack,
            self.how,
        )


@dataclass(frozen=True)
class Diagnostics:
    """Typed diagnostics of a solve (unused fields keep their defaults)."""

    solver: str = ""
    solver_status: str = ""
    iterations: int = 0
    columns: int = 0
    exact_basis: bool = False
    shift: float = 0.0
    formula: str = ""
    notes: tuple[str, ...] = ()
    #: an upper bound on how far the reported bounds are from the optimum of the method's own
    #: program, when the solver did not reach that optimum to full accuracy (``sdp``); ``None``
    #: when not measured
    optimality_gap: float | None = None


@dataclass(frozen=True)
class BoundResult(Enclosure):
    """Lower and upper bounds (or an approximation / estimate / exact value) of ``P(E)``.

    ``lower`` and ``upper`` are floats rounded outward from the exact values
    ``exact_lower`` / ``exact_upper`` when those exist.  ``certified`` is true when every
    reported number is mathematically guaranteed (status OPTIMAL, VALID, SHIFTED or EXACT).
    """

    lower: float
    upper: float
    method: str
    kind: Kind
    status: Status
    message: str = ""
    certificates: tuple[Certificate, ...] = ()
    certified: bool = False
    seconds: float = 0.0
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    exact_lower: Fraction | None = None
    exact_upper: Fraction | None = None
    samples: int | None = None
    confidence: float | None = None

    @property
    def estimate(self) -> float | None:
        """The point value of an approximation or exact result (``lower == upper``), else ``None``."""
        return self.lower if self.lower == self.upper else None

    def contains(self, value: float | Fraction, tol: float = 0.0) -> bool:
        """Whether ``lower - tol <= value <= upper + tol``."""
        if isinstance(value, Fraction) and self.exact_lower is not None and self.exact_upper is not None and tol == 0:
            return self.exact_lower <= value <= self.exact_upper
        v = float(value)
        return self.lower - tol <= v <= self.upper + tol

    def summary(self) -> dict[str, Any]:
        """The fields the CLI prints (declared keys only)."""
        return {
            "method": self.method,
            "kind": self.kind.value,
            "lower": self.lower,
            "upper": self.upper,
            "certified": self.certified,
            "status": self.status.value,
            "seconds": self.seconds,
        }
