"""One small exception hierarchy for momentbound.

Every error says which argument was wrong, what its value was, and how to fix it.
Subclasses also derive from the matching builtin (``ValueError``, ``RuntimeError``)
so that generic handlers keep working.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MomentboundError",
    "InvalidArgument",
    "InvalidModel",
    "InvalidProbability",
    "InfeasibleMoments",
    "ImpossibleSplit",
    "DegreeCapExceeded",
    "SolverFailed",
    "ClassifierFailed",
    "UnknownMethod",
    "DestinationError",
    "MemoryLimitExceeded",
    "WorkLimitExceeded",
]


class MomentboundError(Exception):
    """Base class of every error raised by momentbound."""


class InvalidArgument(MomentboundError, ValueError):
    """An argument has a wrong type or value (the message names it and the fix)."""


class InvalidModel(InvalidArgument):
    """Cell probabilities, arities or number of classes do not define a valid model."""


class InvalidProbability(InvalidArgument):
    """A value that must be a probability is negative, above one, or NaN."""


class InfeasibleMoments(MomentboundError, ValueError):
    """No distribution on the given support has the given moments.

    ``condition`` names the failed check (e.g. ``"hankel"``, ``"localizing"``,
    ``"support"``, ``"m0"``).
    """

    def __init__(self, message: str, *, condition: str = "unknown") -> None:
        super().__init__(message)
        self.condition = condition


class MemoryLimitExceeded(InvalidArgument):
    """An exact computation would hold more memory than its limit (``ExactBackend.max_memory``)."""


class ImpossibleSplit(InvalidArgument):
    """A hold-out or cross-validation split cannot be made for the given N."""


class DegreeCapExceeded(MomentboundError, ValueError):
    """A requested polynomial (e.g. the bird polynomial) exceeds the configured degree cap."""

    def __init__(self, message: str, *, degree: int, cap: int) -> None:
        super().__init__(message)
        self.degree = degree
        self.cap = cap


class SolverFailed(MomentboundError, RuntimeError):
    """A numerical solver failed; ``result`` carries whatever partial result exists."""

    def __init__(self, message: str, *, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class ClassifierFailed(SolverFailed):
    """A plug-in classifier (e.g. a scikit-learn estimator) raised while fitting or predicting.

    One line naming the classifier, where it failed (``where``: the fold, or the training set) and
    the original error (``reason``); the original exception is chained as ``__cause__``.
    """

    def __init__(self, classifier: str = "", where: str = "", reason: str = "") -> None:
        super().__init__(f"classifier {classifier} failed {where}: {reason}")
        self.classifier = classifier
        self.where = where
        self.reason = reason

    def __reduce__(self) -> Any:  # keep the fields when a Dask worker sends the error back
        return (type(self), (self.classifier, self.where, self.reason))

    def at(self, where: str) -> "ClassifierFailed":
        """The same failure, located more precisely (e.g. ``"in fold 2 of 5"``)."""
        return ClassifierFailed(self.classifier, where, self.reason)


class UnknownMethod(InvalidArgument):
    """A method, backend or solver name is not registered (the message lists the valid ones)."""


class DestinationError(InvalidArgument):
    """An output destination cannot be used: not a folder, not writable, in use, or occupied.

    ``path`` is the offending path; ``reason`` one of ``"not-a-folder"``, ``"not-a-file"``,
    ``"unwritable"``, ``"exists"``, ``"occupied"``, ``"locked"``, ``"stale-lock"``,
    ``"no-space"``, ``"incomplete"``.
    """

    def __init__(self, message: str, *, path: Any = None, reason: str = "unwritable") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


class WorkLimitExceeded(InvalidArgument):
    """A computation would take longer than its time limit (``max_seconds``); refused before any work."""
