"""Sharp bounds on ``P(X in C)`` for ``X`` in ``R^n`` from its mean and covariance.

Vandenberghe, Boyd and Comanor, "Generalized Chebyshev bounds via semidefinite
programming", SIAM Review 49 (2007) (docs/mathematics.md, "Several variables").

``C`` is a polyhedron ``{x : A x <= b}`` or an ellipsoid ``{x : (x-c)^T P (x-c) <= r^2}``;
both are written as ``{x : g_k(x) <= 0 for all k}`` with quadratic ``g_k``.  With the second
moment matrix ``M = [[S, mu], [mu^T, 1]]`` (``S = Sigma + mu mu^T``):

* lower bound: ``P(X in C) >= 1 - max sum_i lambda_i`` over ``M_i = [[Z_i, z_i], [z_i^T,
  lambda_i]] >= 0`` with ``tr(G_i M_i) >= 0`` (the part of the law in ``{g_i >= 0}``) and
  ``sum_i M_i <= M``: the VBC semidefinite program for the complement, a union of
  half-spaces (or the outside of the ellipsoid).  It is sharp (VBC, section 2).
* upper bound: ``P(X in C) <= max lambda`` over one part ``M_C >= 0`` with
  ``tr(G_k M_C) <= 0`` for every ``k`` and ``M_C <= M``.  ``C`` is convex, so the part in
  ``C`` collapses to one atom at its mean (Jensen) and the program is sharp; without a
  support box it equals the Marshall-Olkin bound ``1 / (1 + d^2)`` with ``d`` the
  Mahalanobis distance from the mean to ``C``.

An optional support box ``lo <= X <= hi`` adds, for every part, the linear constraints
``lo lambda <= z <= hi lambda`` and the quadratic ones ``E[(X_j - lo_j)(hi_j - X_j)] >= 0``
(valid; sharpness is then decided by the extremal distribution's check).

Certificates: the dual of each program is a quadratic ``f(x) = [x;1]^T Q [x;1]``, ``>= 0``
where the rest of the law may be and ``>= 1`` on the bounded region (S-procedure); the solver's
dual matrices, made strictly positive definite by ``delta I``, are verified by exact rational
LDL^T pivots and ``tr(Q M)`` is computed exactly.  The programs run in standardized
coordinates ``u = (x - mu) / sd``.

Extremal distributions (VBC section 2): a half-space part collapses to the atom
``z_i / lambda_i`` with weight ``lambda_i`` (its excess ``Z_i - z_i z_i^T / lambda_i >= 0``
joins the remainder); an ellipsoid part is split into rank-one terms ``p p^T`` with
``p^T G p >= 0`` (Sturm and Zhang's rank-one decomposition); the remainder ``R >= 0`` is
split into rank-one terms whose last coordinates are all equal (a Householder rotation of
its square root), one atom each.  The check then recomputes the atoms' mean, covariance
and mass in ``C`` and compares them with the data and the bound.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from momentbound import guard
from momentbound.errors import InvalidArgument, SolverFailed
from momentbound.guard import DEFAULT_SECONDS

from .figures import save_png
from .result import Kind, Status, round_down, round_up

__all__ = ["DiscreteLaw", "MultivariateBound", "multivariate_bound", "work_estimate", "CHECK_TOL"]

#: tolerance of the a-posteriori check: masses absolute, moments and positions relative to the data's scale
CHECK_TOL = 1e-6
_SOLVER_STATUS_OK = ("optimal",)
#: weight moved to far atoms when a bound is a supremum that no distribution attains
EPSILON_MASS = 1e-8


@dataclass(frozen=True)
class DiscreteLaw:
    """A finite distribution in ``R^n``: ``atoms`` (k x n) and ``weights`` (k)."""

    atoms: np.ndarray
    weights: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        return self.weights @ self.atoms

    @property
    def covariance(self) -> np.ndarray:
        d = self.atoms - self.mean
        return (d * self.weights[:, None]).T @ d

    def mass(self, inside: Any) -> float:
        """Total weight of the atoms where ``inside(atom)`` is true."""
        return float(sum(w for x, w in zip(self.atoms, self.weights) if inside(x)))


@dataclass(frozen=True)
class MultivariateBound:
    """Sharp bounds on ``P(X in C)`` and the distributions attaining them.

    ``lower_law`` has the given mean/covariance and ``P(X in C) = lower`` (its atoms on the
    boundary of ``C`` count as outside: the infimum is attained for the open set);
    ``upper_law`` has ``P(X in C) = upper``.  ``lower``/``upper`` are the values of the dual
    certificates (quadratic functions ``f >= 1`` on the region, ``>= 0`` elsewhere), verified in
    exact arithmetic and rounded outward (``exact_lower``/``exact_upper``).  ``status`` is
    OPTIMAL when both are verified and both laws pass the a-posteriori check (moments and mass
    to :data:`CHECK_TOL`: the bounds are sharp to that accuracy), VALID when the certificates
    are verified but a law fails the check, UNVERIFIED (solver values) otherwise.
    """

    lower: float
    upper: float
    kind: Kind
    status: Status
    lower_law: DiscreteLaw | None
    upper_law: DiscreteLaw | None
    checks: dict[str, float]
    solver: str
    seconds: float
    message: str = ""
    mean: np.ndarray | None = None
    cov: np.ndarray | None = None
    constraints: tuple[np.ndarray, ...] = ()
    exact_lower: Fraction | None = None
    exact_upper: Fraction | None = None

    @property
    def certified(self) -> bool:
        """Whether both numbers are proven by verified certificates (OPTIMAL or VALID)."""
        return self.status.is_proven

    def figure(self, title: str | None = None) -> Any:
        """A matplotlib ``Figure`` (two dimensions): ``C``, the mean, a covariance ellipse and both extremal laws."""
        from matplotlib.figure import Figure

        if self.mean is None or self.cov is None or self.mean.size != 2:
            raise InvalidArgument("the extremal-distribution plot is drawn in two dimensions only")
        fig = Figure(figsize=(6.0, 6.6), layout="constrained")
        ax = fig.add_subplot()
        half = 4 * float(np.sqrt(np.max(np.diag(self.cov))))  # one scale for both axes (circles stay round)
        lo, hi = self.mean - half, self.mean + half
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 400), np.linspace(lo[1], hi[1], 400))
        pts = np.stack([gx, gy, np.ones_like(gx)], axis=-1)
        worst = np.max([np.einsum("...i,ij,...j->...", pts, G, pts) for G in self.constraints], axis=0)
        ax.contourf(gx, gy, worst, levels=[-np.inf, 0], colors=["tab:green"], alpha=0.15)
        ax.contour(gx, gy, worst, levels=[0], colors=["tab:green"], linewidths=1.2)
        w, V = np.linalg.eigh(self.cov)
        ang = np.linspace(0, 2 * np.pi, 200)
        ring = self.mean[:, None] + V @ (np.sqrt(np.maximum(w, 0))[:, None] * np.vstack([np.cos(ang), np.sin(ang)]))
        ax.plot(ring[0], ring[1], color="gray", lw=0.8, ls=":", label="mean +- 1 sd (covariance ellipse)")
        ax.plot(*self.mean, "k+", ms=12, label="mean")
        for law, colour, marker, name, value in (
            (self.lower_law, "tab:red", "o", "attains the lower bound", self.lower),
            (self.upper_law, "tab:blue", "s", "attains the upper bound", self.upper),
        ):
            if law is None:
                continue
            shown = np.all((law.atoms >= lo) & (law.atoms <= hi), axis=1)
            off = int((~shown).sum())
            label = f"{name} ({value:.4f})" + (f"; {off} far atom(s) of tiny weight off the plot" if off else "")
            ax.scatter(law.atoms[shown, 0], law.atoms[shown, 1], s=30 + 600 * law.weights[shown], c=colour,
                       marker=marker, alpha=0.6, edgecolors="k", label=label)
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
        ax.set_title(title or f"P(X in C) in [{self.lower:.4f}, {self.upper:.4f}]  (C shaded; marker area ~ weight)", fontsize=10)
        ax.set_aspect("equal")
        legend = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), fontsize=8, ncol=1)
        for handle in legend.legend_handles:
            if hasattr(handle, "set_sizes"):
                handle.set_sizes([40])
        return fig

    def plot(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """Write :meth:`figure` as a PNG (to a temporary name, then renamed into place)."""
        return save_png(self.figure(title), path)

    def summary(self) -> dict[str, Any]:
        """JSON-ready fields, including the extremal atoms and weights."""

        def law(d: DiscreteLaw | None) -> Any:
            if d is None:
                return None
            return {"atoms": d.atoms.tolist(), "weights": d.weights.tolist()}

        return {
            "lower": self.lower,
            "upper": self.upper,
            "kind": self.kind.value,
            "status": self.status.value,
            "certified": self.certified,
            "solver": self.solver,
            "seconds": self.seconds,
            "checks": dict(self.checks),
            "lower_law": law(self.lower_law),
            "upper_law": law(self.upper_law),
            "message": self.message,
        }


# -- input validation -----------------------------------------------------------------


def _vector(value: Any, name: str, n: int | None = None) -> np.ndarray:
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a vector of numbers, got {value!r}") from exc
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise InvalidArgument(f"{name} must be a nonempty vector of finite numbers, got {value!r}")
    if n is not None and v.size != n:
        raise InvalidArgument(f"{name} must have {n} entries (the dimension of the mean), got {v.size}")
    return v


def _matrix(value: Any, name: str, shape: tuple[int | None, int]) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a matrix of numbers, got {value!r}") from exc
    if a.ndim == 1 and shape[0] is None:
        a = a.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != shape[1] or (shape[0] is not None and a.shape[0] != shape[0]):
        want = f"({shape[0] if shape[0] is not None else 'm'}, {shape[1]})"
        raise InvalidArgument(f"{name} must have shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InvalidArgument(f"{name} must contain finite numbers only")
    return a


def _psd(a: np.ndarray, name: str, strict: bool) -> None:
    if not np.allclose(a, a.T, rtol=0, atol=1e-12 * max(1.0, float(np.max(np.abs(a))))):
        raise InvalidArgument(f"{name} must be symmetric, got {a.tolist()}")
    eig = np.linalg.eigvalsh(a)
    tol = 1e-12 * max(1.0, float(np.max(np.abs(eig))))
    if eig[0] < -tol or (strict and eig[0] <= tol):
        need = "positive definite" if strict else "positive semidefinite"
        raise InvalidArgument(f"{name} must be {need}; its smallest eigenvalue is {eig[0]:.3g}")


def _quadratics(n: int, polyhedron: Any, ellipsoid: Any) -> tuple[list[np.ndarray], str]:
    """The matrices ``G_k`` of ``g_k(x) = [x;1]^T G_k [x;1]``, with ``C = {g_k <= 0 for all k}``."""
    if (polyhedron is None) == (ellipsoid is None):
        raise InvalidArgument("give exactly one of polyhedron=(A, b) or ellipsoid=(P, c, r)")
    gs = []
    if polyhedron is not None:
        try:
            A_raw, b_raw = polyhedron
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"polyhedron must be a pair (A, b) meaning A x <= b, got {polyhedron!r}") from exc
        A = _matrix(A_raw, "polyhedron A", (None, n))
        b = _vector(b_raw, "polyhedron b", A.shape[0])
        for a_i, b_i in zip(A, b):
            if not np.any(a_i):
                raise InvalidArgument("polyhedron A has a zero row; drop it (0 <= b is not a constraint on x)")
            G = np.zeros((n + 1, n + 1))
            G[:n, n] = G[n, :n] = a_i / 2
            G[n, n] = -b_i
            gs.append(G)
        return gs, f"polyhedron with {A.shape[0]} faces"
    try:
        P_raw, c_raw, r_raw = ellipsoid
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"ellipsoid must be a triple (P, c, r) meaning (x-c)^T P (x-c) <= r^2, got {ellipsoid!r}") from exc
    P = _matrix(P_raw, "ellipsoid P", (n, n))
    _psd(P, "ellipsoid P", strict=True)
    c = _vector(c_raw, "ellipsoid c", n)
    r = float(r_raw)
    if not (math.isfinite(r) and r > 0):
        raise InvalidArgument(f"ellipsoid radius r must be a finite number > 0, got {r_raw!r}")
    G = np.zeros((n + 1, n + 1))
    G[:n, :n] = P
    G[:n, n] = G[n, :n] = -P @ c
    G[n, n] = c @ P @ c - r * r
    return [G], "ellipsoid"


def _g(G: np.ndarray, x: np.ndarray) -> float:
    v = np.append(x, 1.0)
    return float(v @ G @ v)


# -- extremal distributions ----------------------------------------------------------------


def _sqrt_psd(X: np.ndarray) -> np.ndarray:
    """Columns ``p_k`` with ``sum_k p_k p_k^T = X`` (negative rounding eigenvalues dropped)."""
    w, V = np.linalg.eigh((X + X.T) / 2)
    keep = w > 1e-12 * max(1.0, float(np.max(np.abs(w))))
    return V[:, keep] * np.sqrt(w[keep])


def _atoms_equal_last(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms and weights of a moment matrix ``X = [[Z, z], [z^T, mass]] >= 0``.

    The square root's columns are rotated (a Householder reflection) so that every column
    has the same last coordinate ``sqrt(mass / r)``; each column is then one atom.
    """
    n = X.shape[0] - 1
    Q = _sqrt_psd(X)
    r = Q.shape[1]
    if r == 0 or X[n, n] <= 0:
        return np.zeros((0, n)), np.zeros(0)
    last = Q[n, :]
    norm = float(np.linalg.norm(last))
    target = np.full(r, 1.0 / math.sqrt(r))
    u = last / norm - target
    if np.linalg.norm(u) > 1e-14:
        u = u / np.linalg.norm(u)
        Q = Q - 2 * np.outer(Q @ u, u)
    lastc = Q[n, :]
    return (Q[:n, :] / lastc).T, lastc**2


def _sturm_zhang(X: np.ndarray, G: np.ndarray) -> list[np.ndarray]:
    """Rank-one terms ``p p^T`` summing to ``X`` with ``p^T G p = tr(G X) / rank`` each.

    Sturm and Zhang, "On cones of nonnegative quadratic functions", Math. Oper. Res. 28 (2003).
    """
    ps = list(_sqrt_psd(X).T)
    out = []
    while ps:
        delta = sum(float(p @ G @ p) for p in ps) / len(ps)
        vals = [float(p @ G @ p) - delta for p in ps]
        i = int(np.argmax(vals))
        j = int(np.argmin(vals))
        if (vals[i] <= 1e-14 and vals[j] >= -1e-14) or len(ps) == 1:
            out.extend(ps)
            break
        pi, pj = ps[i], ps[j]
        # (pi + g pj)^T (G - delta I_*) (pi + g pj) = 0 with the quadratic a g^2 + 2 b g + c
        a, b, c = vals[j], float(pi @ G @ pj), vals[i]
        disc = max(b * b - a * c, 0.0)
        g = (-b - math.sqrt(disc)) / a if abs(a) > 1e-300 else -c / (2 * b)
        s = math.sqrt(1 + g * g)
        out.append((pi + g * pj) / s)
        ps[j] = (pj - g * pi) / s
        del ps[i]
    return out


def _atoms_from_terms(terms: Sequence[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Atoms/weights of rank-one terms; also the second-moment trace carried by terms at infinity."""
    atoms, weights, lost = [], [], 0.0
    for p in terms:
        if abs(p[n]) > 1e-9 * max(1.0, float(np.linalg.norm(p))):
            atoms.append(p[:n] / p[n])
            weights.append(p[n] ** 2)
        else:
            lost += float(p[:n] @ p[:n])
    return np.array(atoms).reshape(-1, n), np.array(weights), lost


def _finish(pieces: list[tuple[np.ndarray, np.ndarray]], R: np.ndarray, n: int) -> DiscreteLaw:
    """The law made of ``pieces`` plus atoms for the remainder moment matrix ``R >= 0``.

    A remainder with (almost) no mass but second moment left is the limit of mass escaping
    to infinity: the bound is a supremum that is not attained.  A weight ``EPSILON_MASS``
    is then borrowed from the heaviest atom, which makes the remainder realizable; the law
    is within that weight of extremal.
    """
    scale = max(1.0, float(np.max(np.abs(R))))
    if R[n, n] < EPSILON_MASS and float(np.trace(R[:n, :n])) > 1e-9 * scale:
        k = max(range(len(pieces)), key=lambda i: float(np.max(pieces[i][1], initial=0.0)))
        atoms, weights = pieces[k]
        j = int(np.argmax(weights))
        take = min(EPSILON_MASS, float(weights[j]))
        v = np.append(atoms[j], 1.0)
        R = R + take * np.outer(v, v)
        weights = weights.copy()
        weights[j] -= take
        pieces[k] = (atoms, weights)
    pieces = pieces + [_atoms_equal_last(R)]
    atoms = np.vstack([a.reshape(-1, n) for a, _ in pieces])
    weights = np.concatenate([w for _, w in pieces])
    keep = weights > 1e-13
    return DiscreteLaw(atoms[keep], weights[keep])


# -- the two programs ----------------------------------------------------------------------


def _box_matrices(n: int, box: tuple[np.ndarray, np.ndarray] | None) -> list[np.ndarray]:
    """Matrices ``B`` with ``tr(B M_part) >= 0`` for a part supported in the box ``lo <= x <= hi``.

    ``x_j - lo_j >= 0``, ``hi_j - x_j >= 0`` and ``(x_j - lo_j)(hi_j - x_j) >= 0``, lifted.
    """
    if box is None:
        return []
    lo, hi = box
    out = []
    for j in range(n):
        for sign, end in ((1.0, lo[j]), (-1.0, hi[j])):
            B = np.zeros((n + 1, n + 1))
            B[j, n] = B[n, j] = sign / 2
            B[n, n] = -sign * end
            out.append(B)
        B = np.zeros((n + 1, n + 1))
        B[j, j] = -1.0
        B[j, n] = B[n, j] = (lo[j] + hi[j]) / 2
        B[n, n] = -lo[j] * hi[j]
        out.append(B)
    return out


@dataclass(frozen=True)
class _MassCertificate:
    """``P(X in parts) <= tr(Q M)`` with ``Q = F + sum_r rho_r B_r``, verified in exact arithmetic.

    The dual of the mass program: ``F >= 0`` (so the quadratic ``[x;1]^T Q [x;1] >= 0`` where the
    remainder may live) and ``F + sum_r rho_r B_r - E - sum_j tau_ij B_ij >= 0`` for every part
    (so it is ``>= 1`` on that part's region), ``tau, rho >= 0``.  The float duals are made
    strictly feasible by adding ``delta I`` to ``F`` and checked by exact LDL^T pivots.
    """

    value: Fraction
    delta: float
    verified: bool


def _exact_pd(S: np.ndarray) -> bool:
    """Whether the float matrix ``S`` (read exactly) is positive definite: exact LDL^T pivots > 0."""
    k = S.shape[0]
    A = [[Fraction(float(S[i, j])) for j in range(k)] for i in range(k)]
    for c in range(k):
        piv = A[c][c]
        if piv <= 0:
            return False
        for i in range(c + 1, k):
            f = A[i][c] / piv
            if f:
                for j in range(c + 1, k):
                    A[i][j] -= f * A[c][j]
    return True


def _certify_mass(M: np.ndarray, F: np.ndarray, rho: Sequence[float], residual: Sequence[np.ndarray],
                  taus: Sequence[Sequence[float]], parts: Sequence[Sequence[np.ndarray]]) -> _MassCertificate:
    n1 = M.shape[0]
    E = np.zeros((n1, n1))
    E[-1, -1] = 1.0
    rho = [max(0.0, float(r)) for r in rho]
    F = (F + F.T) / 2
    base = F + sum((r * B for r, B in zip(rho, residual)), np.zeros((n1, n1)))
    slacks = [F] + [base - E - sum((max(0.0, float(t)) * B for t, B in zip(ts, bs)), np.zeros((n1, n1)))
                    for ts, bs in zip(taus, parts)]
    norm = max(1.0, max(float(np.max(np.abs(S))) for S in slacks))
    delta = max(0.0, -min(float(np.linalg.eigvalsh((S + S.T) / 2)[0]) for S in slacks)) + 1e-12 * norm
    ok = all(_exact_pd((S + S.T) / 2 + delta * np.eye(n1)) for S in slacks)
    Q = base + delta * np.eye(n1)
    value = sum((Fraction(float(Q[i, j])) * Fraction(float(M[i, j])) for i in range(n1) for j in range(n1)), Fraction(0))
    return _MassCertificate(value, delta, ok)


def _solve(problem: Any, solver: str | None, what: str) -> None:
    import cvxpy as cp

    from momentbound.quiet import quiet_native_output

    try:
        with quiet_native_output():
            problem.solve(solver=solver or cp.CLARABEL, verbose=False)
    except cp.error.SolverError as exc:
        raise SolverFailed(f"{what}: the solver {solver or 'CLARABEL'} failed: {exc}") from exc
    if problem.status not in _SOLVER_STATUS_OK:
        raise SolverFailed(f"{what}: the solver {solver or 'CLARABEL'} returned status {problem.status!r}")


def _mass_program(M: np.ndarray, parts: Sequence[Sequence[np.ndarray]], residual: Sequence[np.ndarray],
                  solver: str | None, what: str) -> tuple[float, list[np.ndarray], _MassCertificate]:
    """``max sum_i lambda_i`` over parts ``M_i >= 0`` with ``tr(B M_i) >= 0`` for their ``B``'s and a
    remainder ``R = M - sum_i M_i >= 0`` with ``tr(B R) >= 0`` for the ``residual`` ``B``'s."""
    import cvxpy as cp

    n1 = M.shape[0]
    Ms = [cp.Variable((n1, n1), symmetric=True, name=f"M_{i}") for i in range(len(parts))]
    part_cons = [[cp.trace(B @ Mi) >= 0 for B in bs] for Mi, bs in zip(Ms, parts)]
    R = M - sum(Ms)
    psd_R = R >> 0
    res_cons = [cp.trace(B @ R) >= 0 for B in residual]
    cons = [Mi >> 0 for Mi in Ms] + [c for cs in part_cons for c in cs] + [psd_R] + res_cons
    prob = cp.Problem(cp.Maximize(sum(Mi[n1 - 1, n1 - 1] for Mi in Ms)), cons)
    _solve(prob, solver, what)
    values = [(np.array(Mi.value) + np.array(Mi.value).T) / 2 for Mi in Ms]
    cert = _certify_mass(
        M,
        np.array(psd_R.dual_value),
        [float(c.dual_value) for c in res_cons],
        residual,
        [[float(c.dual_value) for c in cs] for cs in part_cons],
        parts,
    )
    return float(prob.value), values, cert


def _lower_side(M: np.ndarray, gs: list[np.ndarray], linear: bool, box: Any,
                solver: str | None) -> tuple[float, DiscreteLaw, float, _MassCertificate]:
    """``max P(X in complement)``; the law attaining it; the second moment lost at infinity; the certificate."""
    n = M.shape[0] - 1
    boxm = _box_matrices(n, box)
    residual = ([-G for G in gs] + boxm) if box is not None else []
    value, Xs, cert = _mass_program(M, [[G] + boxm for G in gs], residual, solver, "lower bound (mass outside C)")
    Rv = M.copy()
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    lost = 0.0
    for G, X in zip(gs, Xs):
        lam = X[n, n]
        Rv = Rv - X
        if lam <= 1e-12:
            continue
        if linear:
            z = X[:n, n]
            pieces.append((np.array([z / lam]), np.array([lam])))
            Rv = Rv + X - np.outer(np.append(z, lam), np.append(z, lam)) / lam  # the excess joins R
        else:
            atoms, weights, l_ = _atoms_from_terms(_sturm_zhang(X, G), n)
            pieces.append((atoms, weights))
            lost += l_
    return value, _finish(pieces, Rv, n), lost, cert


def _upper_side(M: np.ndarray, gs: list[np.ndarray], box: Any,
                solver: str | None) -> tuple[float, list[DiscreteLaw], _MassCertificate]:
    """``max P(X in C)``, candidate laws attaining it (the first that passes the check is kept), the certificate.

    First candidate: the part in ``C`` collapsed to one atom at its mean.  Second (one
    constraint only): the part split by Sturm-Zhang into atoms with ``g <= 0``, i.e. inside
    ``C``, which keeps the law inside a support box when the remainder has no mass.  Third:
    the part split into rank-one terms of equal height (checked like the others).
    """
    n = M.shape[0] - 1
    boxm = _box_matrices(n, box)
    value, (X,), cert = _mass_program(M, [[-G for G in gs] + boxm], boxm, solver, "upper bound (mass in C)")
    lam = X[n, n]
    laws = []
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    Rv = M - X
    if lam > 1e-12:
        z = X[:n, n]
        pieces.append((np.array([z / lam]), np.array([lam])))
        Rv = Rv + X - np.outer(np.append(z, lam), np.append(z, lam)) / lam
    laws.append(_finish(pieces, Rv, n))
    if len(gs) == 1 and lam > 1e-12:
        atoms, weights, _ = _atoms_from_terms(_sturm_zhang(X, -gs[0]), n)
        laws.append(_finish([(atoms, weights)], M - X, n))
    if lam > 1e-12:  # the part in C split into equal-height rank-one terms (keeps its spread)
        laws.append(_finish([_atoms_equal_last(X)], M - X, n))
    return value, laws, cert


def work_estimate(n: int, faces: int) -> tuple[float, float]:
    """Rough seconds and peak bytes of :func:`multivariate_bound` in dimension ``n`` with ``faces``
    constraints (one for an ellipsoid): ``faces`` semidefinite blocks of side ``n + 1``. Calibrated on
    one core with CLARABEL (polyhedra of random faces): n = 12, 24 faces 1.6 s; 16, 48: 9.8 s;
    24, 24: 11.7 s; 32, 32: 47.5 s and 560 MB above the 130 MB of the loaded libraries."""
    side = float(n) + 1.0
    return 0.3 + 5e-5 * faces * side**3, 1.5e8 + 20.0 * faces * side**4


def multivariate_bound(
    mean: Sequence[float] | np.ndarray,
    cov: Any,
    *,
    polyhedron: tuple[Any, Any] | None = None,
    ellipsoid: tuple[Any, Any, Any] | None = None,
    support: tuple[Any, Any] | None = None,
    solver: str | None = None,
    max_seconds: float | None = DEFAULT_SECONDS,
    max_memory: float | None = None,
) -> MultivariateBound:
    """Sharp lower and upper bounds on ``P(X in C)`` from ``E[X]`` and ``Cov(X)``.

    Parameters
    ----------
    mean : vector (n)
    cov : matrix (n x n), positive semidefinite
    polyhedron : (A, b), optional
        ``C = {x : A x <= b}`` (``A`` is m x n).
    ellipsoid : (P, c, r), optional
        ``C = {x : (x - c)^T P (x - c) <= r^2}`` with ``P`` positive definite.
    support : (lo, hi), optional
        A box that contains ``X`` almost surely.
    solver : str, optional
        A cvxpy solver name (default CLARABEL).
    max_seconds, max_memory : float, optional
        Refuse (``WorkLimitExceeded``, ``MemoryLimitExceeded``) before any work when the estimated
        time or memory (bytes; ``None``: 80% of this machine's memory) of the two programs exceeds
        them (:func:`work_estimate`); ``max_seconds=None`` lifts the time limit.

    Returns
    -------
    MultivariateBound
        ``lower``, ``upper``, the extremal laws and the a-posteriori checks.

    Example
    -------
    >>> r = multivariate_bound([0.0], [[1.0]], polyhedron=([[1.0]], [2.0]))  # P(X <= 2)
    >>> round(r.lower, 6), round(r.upper, 6), r.status.value  # Cantelli: 4 / 5
    (0.8, 1.0, 'optimal')
    """
    start = time.perf_counter()
    mu = _vector(mean, "mean")
    n = mu.size
    Sigma = _matrix(cov, "cov", (n, n))
    gs, shape = _quadratics(n, polyhedron, ellipsoid)
    seconds, memory = work_estimate(n, len(gs))
    guard.check(f"the multivariate bound in dimension n = {n} with {len(gs)} constraint(s)", seconds=seconds,
                memory=memory, max_seconds=max_seconds, **({} if max_memory is None else {"max_memory": max_memory}),
                fix="use fewer dimensions or faces")
    _psd(Sigma, "cov", strict=False)
    box = None
    if support is not None:
        try:
            lo_raw, hi_raw = support
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"support must be a box (lo, hi), got {support!r}") from exc
        lo, hi = _vector(lo_raw, "support lo", n), _vector(hi_raw, "support hi", n)
        if np.any(lo >= hi) or np.any(mu < lo) or np.any(mu > hi):
            raise InvalidArgument(f"support box needs lo < hi and lo <= mean <= hi, got lo={lo}, hi={hi}, mean={mu}")
        box = (lo, hi)
    if solver is not None:
        import cvxpy as cp

        if not isinstance(solver, str) or solver.upper() not in cp.installed_solvers():
            raise InvalidArgument(f"solver must be one of the installed cvxpy solvers {cp.installed_solvers()}, got {solver!r}")
        solver = solver.upper()
    # the programs run in standardized coordinates u = (x - mu) / sd (probabilities are invariant;
    # g(x) = [u;1]^T T^T G T [u;1] with x = T [u;1]), which keeps the SDPs and certificates well scaled
    sd = np.sqrt(np.diag(Sigma))
    sd = np.where(sd > 0, sd, 1.0)
    T = np.eye(n + 1)
    T[:n, :n] = np.diag(sd)
    T[:n, n] = mu
    with np.errstate(over="ignore", invalid="ignore"):
        gs_u = [T.T @ G @ T for G in gs]
        box_u = None if box is None else ((box[0] - mu) / sd, (box[1] - mu) / sd)
    # (x - mean) / sd must be representable: squares of numbers past ~1e154 overflow a double
    if not all(np.all(np.isfinite(G)) and np.max(np.abs(G)) < 1e300 for G in gs_u) or (
        box_u is not None and not all(np.all(np.isfinite(v)) for v in box_u)
    ):
        raise InvalidArgument(
            "the set C lies too far from the mean, or is too large, for floating point: in standardized "
            "coordinates (x - mean) / sd its description overflows a double (about 1.8e308); rescale X "
            "(divide the mean, the set and sqrt of the covariance by a power of ten) or bring C closer to the mean"
        )
    M = np.zeros((n + 1, n + 1))
    M[:n, :n] = Sigma / np.outer(sd, sd)
    M[n, n] = 1.0
    linear = polyhedron is not None
    out_value, lower_law, lost, out_cert = _lower_side(M, gs_u, linear, box_u, solver)
    in_value, upper_laws, in_cert = _upper_side(M, gs_u, box_u, solver)
    lower_law = DiscreteLaw(mu + lower_law.atoms * sd, lower_law.weights)
    upper_laws = [DiscreteLaw(mu + law.atoms * sd, law.weights) for law in upper_laws]
    proven = out_cert.verified and in_cert.verified
    if proven:  # the verified dual certificates give the reported numbers, rounded outward
        exact_lower = max(Fraction(0), 1 - out_cert.value)
        exact_upper = min(Fraction(1), in_cert.value)
        lower, upper = round_down(exact_lower), round_up(exact_upper)
    else:
        exact_lower = exact_upper = None
        lower = min(1.0, max(0.0, 1.0 - out_value))
        upper = min(1.0, max(0.0, in_value))

    # every check is relative: masses are absolute, positions relative to the spread, covariances
    # to the largest entry, constraint values to the size of g at that point
    tol = CHECK_TOL
    spread = max(float(np.sqrt(np.max(np.diag(Sigma)))), 1e-300)
    cov_scale = max(float(np.max(np.abs(Sigma))), 1e-300)

    def g_tol(G: np.ndarray, x: np.ndarray) -> float:
        return tol * float(np.max(np.abs(G))) * (1.0 + float(x @ x))

    def inside_closed(x: np.ndarray) -> bool:
        return all(_g(G, x) <= g_tol(G, x) for G in gs)

    def inside_open(x: np.ndarray) -> bool:
        return all(_g(G, x) < -g_tol(G, x) for G in gs)

    def in_box(law: DiscreteLaw) -> float:
        if box is None or law.atoms.size == 0:
            return 0.0
        width = float(np.max(box[1] - box[0]))
        return float(max(np.max(box[0] - law.atoms), np.max(law.atoms - box[1]), 0.0)) / width

    def law_checks(name: str, law: DiscreteLaw) -> dict[str, float]:
        out = {
            f"{name}_mass_error": abs(float(law.weights.sum()) - 1.0),
            f"{name}_mean_error": float(np.max(np.abs(law.mean - mu))) / spread if law.atoms.size else math.inf,
            f"{name}_cov_error": float(np.max(np.abs(law.covariance - Sigma))) / cov_scale if law.atoms.size else math.inf,
            f"{name}_box_violation": in_box(law),
        }
        if name == "lower":
            # the infimum is attained with boundary atoms outside C (open C)
            out["lower_in_C_error"] = max(law.mass(inside_open) - lower, lower - law.mass(inside_closed), 0.0)
        else:
            out["upper_in_C_error"] = abs(law.mass(inside_closed) - upper)
        return out

    checks = law_checks("lower", lower_law)
    checks["lower_second_moment_at_infinity"] = lost / max(float(np.trace(M[:n, :n])), 1e-300)  # standardized
    candidates = [law_checks("upper", law) for law in upper_laws]
    pick = next((i for i, c in enumerate(candidates) if all(v <= tol for v in c.values())), 0)
    upper_law = upper_laws[pick]
    checks.update(candidates[pick])
    ok = all(v <= tol for v in checks.values())
    status = Status.UNVERIFIED if not proven else (Status.OPTIMAL if ok else Status.VALID)
    worst = max(checks, key=lambda k: checks[k])
    cert_note = (f"dual certificates verified in exact arithmetic (shifts {out_cert.delta:.1g}, {in_cert.delta:.1g})"
                 if proven else "a dual certificate could not be verified: the numbers are solver values, not proven")
    law_note = (f"both extremal distributions reproduce the mean, covariance and bounds (relative errors <= {tol:.0e})"
                if ok else f"extremal distribution check failed ({worst} = {checks[worst]:.3g}): sharpness not shown")
    message = f"{shape} in R^{n}: {cert_note}; {law_note}"
    return MultivariateBound(lower, upper, Kind.BOUND, status, lower_law, upper_law, checks,
                             solver or "CLARABEL", time.perf_counter() - start, message, mu, Sigma, tuple(gs),
                             exact_lower, exact_upper)
