"""Certified bounds on a cdf from moments (docs/mathematics.md, section 'Bounds on a probability
from moments').

``bound(problem, method=...)`` is the entry point; :data:`METHODS` is filled by the literal
registry lines below (their order is the preference order, whatever the order of the imports).
Solver libraries (cvxpy, highspy) are imported inside the methods, not here.
"""

from __future__ import annotations

from .api import available_methods, bound, get_method
from .band import CdfBand, cdf_band
from .certificate import certify, verify_polynomial_dominates
from .feasibility import check_feasible
from .problem import AffineMap, Event, EventKind, MomentProblem, Shape, ShapeKind, Span, Support, SupportKind
from .multivariate import DiscreteLaw, MultivariateBound, multivariate_bound
from .registry import METHODS, BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status

from . import joint  # noqa: E402,F401 - joint bounds of several events
from .closed_form import ClosedFormMethod  # noqa: E402
from .exact import ExactMethod  # noqa: E402
from .gd import GDMethod, GDTSMethod  # noqa: E402
from .lp import LPDualMethod, LPMethod  # noqa: E402
from .prekopa import PrekopaMethod  # noqa: E402
from .sampling import SamplingMethod  # noqa: E402
from .sdp import SDPMethod  # noqa: E402
from .series import SeriesMethod  # noqa: E402
from .shape_closed_form import ShapeClosedFormMethod  # noqa: E402
from .shape_grid import ShapeGridMethod  # noqa: E402
from .sos import SOSMethod  # noqa: E402
from .sqp import SQPMethod  # noqa: E402

# the registry lines: their order is the preference order
METHODS["lp"] = LPMethod
METHODS["lp-dual"] = LPDualMethod
METHODS["prekopa"] = PrekopaMethod
METHODS["closed-form"] = ClosedFormMethod
METHODS["exact"] = ExactMethod
METHODS["sdp"] = SDPMethod
METHODS["sqp"] = SQPMethod
METHODS["gd"] = GDMethod
METHODS["gdts"] = GDTSMethod
METHODS["series"] = SeriesMethod
METHODS["sampling"] = SamplingMethod
METHODS["shape-closed-form"] = ShapeClosedFormMethod
METHODS["sos"] = SOSMethod
METHODS["shape-grid"] = ShapeGridMethod
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
    "verify_polynomial_dominates",
]
