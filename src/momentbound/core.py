"""What a result's numbers are (:class:`Kind`) and how far they are proven (:class:`Status`).

Shared by every result of the package: cdf bounds (:mod:`momentbound.bounds`), prediction
probabilities (:mod:`momentbound.probability`) and estimator moments
(:mod:`momentbound.estimators`). Re-exported by :mod:`momentbound.bounds` and
:mod:`momentbound.bounds.result`.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Kind", "Status"]


class Kind(Enum):
    """What a result's numbers are."""

    BOUND = "bound"  # guaranteed bounds
    APPROXIMATION = "approximation"  # e.g. Gram-Charlier series: no guarantee
    ESTIMATE = "estimate"  # Monte Carlo, with a confidence level
    EXACT = "exact"  # the true value


_STATUS_MESSAGES = {
    "OPTIMAL": "sharp: verified certificate and a matching feasible distribution (exact arithmetic)",
    "VALID": "valid: certificate verified on the whole support, sharpness not proven",
    "SHIFTED": "valid: certificate repaired by shifting its constant term to the verified value",
    "UNVERIFIED": "not proven: the certificate could not be verified; not a guaranteed bound",
    "APPROXIMATE": "approximation without guarantee",
    "ESTIMATED": "Monte Carlo estimate with a confidence interval",
    "EXACT": "exact value",
    "FAILED": "the method failed; see the message",
}


class Status(Enum):
    """Outcome of a bound computation; ``.message`` explains each member."""

    OPTIMAL = "optimal"
    VALID = "valid"
    SHIFTED = "shifted"
    UNVERIFIED = "unverified"
    APPROXIMATE = "approximate"
    ESTIMATED = "estimated"
    EXACT = "exact"
    FAILED = "failed"

    @property
    def message(self) -> str:
        return _STATUS_MESSAGES[self.name]

    @property
    def is_proven(self) -> bool:
        """Whether numbers with this status are mathematically guaranteed."""
        return self in (Status.OPTIMAL, Status.VALID, Status.SHIFTED, Status.EXACT)
