"""Certified bounds on a cdf from moments (docs/mathematics.md, section 'Bounds on a probability
from moments').

``bound(problem, method=...)`` is the entry point; methods register themselves in
:data:`METHODS` when their module is imported below (one import line per module).
Solver libraries (cvxpy, highspy) are imported inside the methods, not here.
"""

from __future__ import annotations

from .api import available_methods, bound, get_method
from .band import CdfBand, cdf_band
from .certificate import certify, verify_polynomial_dominates
from .feasibility import check_feasible
from .problem import AffineMap, Event, EventKind, MomentProblem, Shape, ShapeKind, Span, Support, SupportKind
from .multivariate import DiscreteLaw, MultivariateBound, multivariate_bound
from .registry import METHODS, BoundMethod, register
from .result import BoundResult, Certificate, Diagnostics, Kind, Status

# method modules: importing registers them (order = preference order)
from . import lp  # noqa: E402,F401
from . import prekopa  # noqa: E402,F401
from . import closed_form  # noqa: E402,F401
from . import exact  # noqa: E402,F401
from . import sdp  # noqa: E402,F401
from . import sqp  # noqa: E402,F401
from . import gd  # noqa: E402,F401
from . import series  # noqa: E402,F401
from . import sampling  # noqa: E402,F401
from . import joint  # noqa: E402,F401
from . import shape_closed_form  # noqa: E402,F401
from . import sos  # noqa: E402,F401
from . import shape_grid  # noqa: E402,F401
from .formulations import Formulation, formulation, installed_solvers  # noqa: E402

__all__ = [
    "AffineMap",
    "BoundMethod",
    "BoundResult",
    "CdfBand",
    "Certificate",
    "Diagnostics",
    "DiscreteLaw",
    "Event",
    "EventKind",
    "Formulation",
    "Kind",
    "METHODS",
    "MomentProblem",
    "Shape",
    "ShapeKind",
    "Span",
    "MultivariateBound",
    "Status",
    "Support",
    "SupportKind",
    "available_methods",
    "bound",
    "cdf_band",
    "certify",
    "check_feasible",
    "formulation",
    "installed_solvers",
    "get_method",
    "multivariate_bound",
    "register",
    "verify_polynomial_dominates",
]
