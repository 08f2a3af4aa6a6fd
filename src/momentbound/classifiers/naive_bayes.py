"""The categorical naive Bayes classifier, evaluated exactly from training counts.

Matches scikit-learn's ``CategoricalNB(alpha=alpha, force_alpha=True, min_categories=arities)``:
class prior ``N_k / N`` (not smoothed) and feature likelihood
``(N_{j,v,k} + alpha) / (N_k + alpha * a_j)``. Scores are compared exactly (rational
arithmetic), never in floating point, so ties are real ties, except under the ``sklearn`` rule,
which decides as ``CategoricalNB.predict`` does: the first maximum of its float64 joint
log-likelihood, so that float rounding of the logarithms decides exact ties.

This module holds the one implementation of its score and tie rules: :func:`score_keys`
(integer keys proportional to the class scores, exact comparisons without fractions),
:func:`tie_shares` (the ``random`` and ``first`` rules on those keys) and :func:`sklearn_shares`
(the ``sklearn`` rule); :func:`decision_shares` picks the one of a classifier.

References
----------
Dhurandhar & Dobra, Sections 6-7; docs/mathematics.md, sections 'The naive Bayes classifier' and
'Tie rules'.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational, Real
from typing import TYPE_CHECKING, Any, ClassVar

from decimal import Decimal

import numpy as np

from momentbound.classifiers.base import ExactForm, check_tables
from momentbound.errors import InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    from momentbound.model.cells import CellModel

__all__ = [
    "NaiveBayes", "TIE_RULES", "KEY_TIE_RULES", "decision_shares", "keys_fit_int64", "score_keys", "sklearn_logs",
    "sklearn_shares", "tie_shares",
]

TIE_RULES = ("random", "first", "sklearn")
#: the rules decided on exact score keys alone (the ``sklearn`` rule needs the float log-likelihoods)
KEY_TIE_RULES = ("random", "first")
#: ``ties="sklearn"`` takes ``alpha = p / 2^m`` with ``p, 2^m`` at most this: every smoothed count
#: ``c + alpha`` and every sum of them is then exact in float64, as the rule's logarithms assume
SKLEARN_ALPHA_MAX = 2**20


def _exact_alpha(alpha: object) -> Fraction:
    if isinstance(alpha, Decimal) and alpha.is_finite():
        alpha = Fraction(alpha)  # exact
    if isinstance(alpha, bool) or not isinstance(alpha, (Real, np.integer, np.floating, str)):
        raise InvalidArgument(
            f"alpha must be a finite number >= 0 (Laplace smoothing), got {alpha!r}"
        )
    try:
        if isinstance(alpha, str):
            value = Fraction(alpha.strip())
        elif isinstance(alpha, Rational):
            value = Fraction(int(alpha.numerator), int(alpha.denominator))
        elif isinstance(alpha, (int, np.integer)):
            value = Fraction(int(alpha))
        else:
            f = float(alpha)
            if not math.isfinite(f):
                raise InvalidArgument(
                    f"alpha must be a finite number >= 0 (Laplace smoothing), got {alpha!r}"
                )
            value = Fraction(f)  # exact binary value of the float
    except (ValueError, ZeroDivisionError) as exc:
        raise InvalidArgument(
            f"alpha must be a finite number >= 0 (Laplace smoothing), got {alpha!r}"
        ) from exc
    if value < 0:
        raise InvalidArgument(f"alpha must be >= 0 (Laplace smoothing), got {alpha!r}; use 0 for none")
    return value


def sklearn_alpha_problem(alpha: Fraction) -> str | None:
    """Why ``ties="sklearn"`` cannot take ``alpha`` (``None`` when it can)."""
    q = alpha.denominator
    if q & (q - 1) or q > SKLEARN_ALPHA_MAX or alpha.numerator > SKLEARN_ALPHA_MAX:
        return (
            f"ties='sklearn' needs alpha a small binary fraction like 0, 1, 0.5 or 0.25 (then every smoothed "
            f"count and their sums are exact in float64, as in CategoricalNB), got alpha={alpha}; "
            "use ties='first' for other alphas"
        )
    return None


@functools.lru_cache(maxsize=32)
def sklearn_logs(alpha: Fraction, arities: tuple[int, ...], n_max: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The float64 logarithms ``CategoricalNB`` takes, for counts ``0 .. n_max``.

    ``log_smoothed[c] = log(c + alpha)`` (a smoothed category count), ``log_class[j, n] =
    log(n + alpha a_j)`` (the sum of attribute ``j``'s smoothed counts in a class of ``n`` points:
    exact when :func:`sklearn_alpha_problem` is ``None``) and ``log_count[n] = log(n)`` (the class
    prior is ``log(n_k) - log(N)``). ``np.log`` on arrays, as scikit-learn calls it.
    """
    a = float(alpha)
    counts = np.arange(n_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_smoothed = np.log(counts + a)
        log_class = np.stack([np.log(counts + a * float(aj)) for aj in arities]) if arities else np.zeros((0, n_max + 1))
        log_count = np.log(counts)
    for arr in (log_smoothed, log_class, log_count):
        arr.flags.writeable = False
    return log_smoothed, log_class, log_count


def sklearn_shares(
    alpha: Fraction, arities: Sequence[int], totals: Sequence[object], agreements: Sequence[np.ndarray]
) -> tuple[np.ndarray, int]:
    """The ``sklearn`` rule: ``g`` (``(K,) + S``, 0/1 integers) and ``scale = 1``, as :func:`tie_shares`.

    ``CategoricalNB`` (``force_alpha=True``, ``min_categories`` = the arities) scores a class ``k`` of
    its ``classes_`` (the classes present in training) at ``x`` by the float64 sum
    ``(((0 + f_k0) + f_k1) + ...) + (log n_k - log N)`` with ``f_kj = log(A_jk + alpha) -
    log(n_k + alpha a_j)`` (``_joint_log_likelihood``) and predicts the first maximum
    (``np.argmax``): a class absent from training is never predicted, and when every present class
    scores ``-inf`` (``alpha = 0`` and an unseen value) the lowest present class wins. With no class
    present, class 0 (scikit-learn cannot fit an empty set).
    """
    K, d = len(totals), len(arities)
    tot = [np.asarray(t, dtype=np.int64) for t in totals]
    agree = [np.asarray(a, dtype=np.int64) for a in agreements]
    n_all = sum(tot)
    n_max = int(max(np.max(n_all, initial=0), *(int(np.max(a, initial=0)) for a in agree)))
    log_smoothed, log_class, log_count = sklearn_logs(alpha, tuple(int(a) for a in arities), n_max)
    shape = np.broadcast_shapes(*(a.shape[:-1] for a in agree), *(t.shape for t in tot))
    best = np.full(shape, -1, dtype=np.int64)
    top = np.full(shape, -np.inf)
    with np.errstate(invalid="ignore"):  # an absent class: log(0) - log(0) (never a candidate)
        for k in range(K):
            score = np.zeros(shape)
            for j in range(d):
                score = score + (log_smoothed[agree[k][..., j]] - log_class[j][tot[k]])
            score = score + (log_count[tot[k]] - log_count[n_all])
            take = (tot[k] > 0) & ((best < 0) | (score > top))
            best = np.where(take, k, best)
            top = np.where(take, score, top)
    best = np.where(best < 0, 0, best)
    return np.stack([(best == k).astype(np.int64) for k in range(K)]), 1


def decision_shares(
    clf: "NaiveBayes", arities: Sequence[int], totals: Sequence[object], agreements: Sequence[np.ndarray]
) -> tuple[np.ndarray, int]:
    """``(g, scale)`` of ``clf``'s score and tie rule on a grid of states (see :func:`tie_shares`)."""
    if clf.ties == "sklearn":
        return sklearn_shares(clf.alpha_exact, arities, totals, agreements)
    keys = score_keys(clf.alpha_exact, arities, totals, agreements)
    present = [np.asarray(t) > 0 for t in totals]
    return tie_shares(keys, present, clf.ties)


def keys_fit_int64(alpha: Fraction, arities: Sequence[int], n: int, n_classes: int) -> bool:
    """Whether every :func:`score_keys` key of a training set of at most ``n`` points fits in int64."""
    p, q = alpha.numerator, alpha.denominator
    n = max(int(n), 1)
    d, amax = len(arities), max(arities)
    bound = n * (q * n + p) ** d * max(1, (q * n + p * amax) ** d) ** (n_classes - 1)
    return bound < 2**62


def score_keys(
    alpha: Fraction, arities: Sequence[int], totals: Sequence[object], agreements: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Integer keys ordered like the naive Bayes class scores (one array per class).

    With ``alpha = p / q``, the score of class ``k`` is
    ``(N_k / N) prod_j (N_{j,x^j,k} + alpha) / (N_k + alpha a_j)``; multiplying every score by
    ``N q^d prod_i den_i`` (``den_i = prod_j (q N_i + p a_j)``) gives the integer key
    ``N_k prod_j (q A_jk + p) prod_{i != k} den_i``. A class with ``N_k = 0`` scores 0 (its
    ``den`` is replaced by 1 so it cannot zero the others). Keys are int64 when they provably fit,
    Python integers (object arrays) otherwise.

    Parameters
    ----------
    alpha:
        Smoothing, an exact ``Fraction``.
    arities:
        Attribute arities ``a_j``.
    totals:
        ``N_k`` per class: integers or integer arrays, broadcastable with the agreements.
    agreements:
        ``agreements[k]`` has shape ``S_k + (d,)``: ``A_jk = N_{j,x^j,k}`` on any grid of states.
    """
    p, q = alpha.numerator, alpha.denominator
    K = len(totals)
    tot = [np.asarray(t) for t in totals]
    n_max = int(np.max(sum(tot), initial=0))
    dtype = np.int64 if keys_fit_int64(alpha, arities, n_max, K) else object
    tot = [t.astype(dtype) for t in tot]
    dens = []
    for t in tot:
        den = np.ones_like(t)
        for a in arities:
            den = den * (q * t + p * a)
        dens.append(np.where(t > 0, den, 1))
    keys = []
    for k in range(K):
        A = np.asarray(agreements[k]).astype(dtype)
        num = (q * A + p).prod(axis=-1) * tot[k]
        for i in range(K):
            if i != k:
                num = num * dens[i]
        keys.append(num)
    return list(np.broadcast_arrays(*keys))


def tie_shares(keys: Sequence[np.ndarray], present: Sequence[object], ties: str) -> tuple[np.ndarray, int]:
    """Apply a tie rule to class keys: integer ``g`` of shape ``(K,) + S`` and ``scale``.

    ``g_x(y) = g[y] / scale``. ``random``: every class with the top key (absent classes included:
    they key 0) shares the prediction equally, ``scale = lcm(1..K)``. ``first``: among the classes
    present in the training data (``present[k]``, a bool or bool array), the lowest index with the
    top key wins; with no class present, class 0; ``scale = 1``.
    """
    if ties not in KEY_TIE_RULES:
        raise InvalidArgument(f"tie_shares decides the rules {KEY_TIE_RULES} on score keys, got {ties!r}")
    K = len(keys)
    shape = np.broadcast_shapes(*(np.shape(k) for k in keys), *(np.shape(p) for p in present))
    keys = [np.broadcast_to(k, shape) for k in keys]
    if ties == "random":
        scale = math.lcm(*range(1, K + 1))
        top = keys[0]
        for k in keys[1:]:
            top = np.maximum(top, k)
        eq = [k == top for k in keys]
        count = sum(e.astype(np.int64) for e in eq)
        return np.stack([e * (scale // count) for e in eq]).astype(np.int64), scale
    pres = [np.broadcast_to(np.asarray(p, dtype=bool), shape) for p in present]
    top = None
    for k, pk in zip(keys, pres):
        masked = np.where(pk, k, -1)
        top = masked if top is None else np.maximum(top, masked)
    g = np.zeros((K,) + shape, dtype=np.int64)
    taken = np.zeros(shape, dtype=bool)
    for k in range(K):
        win = pres[k] & (keys[k] == top) & ~taken
        g[k] = win
        taken |= win
    g[0] |= ~taken  # no class present: class 0
    return g, 1


@dataclass(frozen=True)
class NaiveBayes:
    """Categorical naive Bayes with an explicit tie rule and Laplace smoothing ``alpha``.

    Parameters
    ----------
    ties:
        ``"random"`` (the paper): an independent fair coin among the tied top classes at
        every prediction; every class (also one absent from the training data, whose
        score is 0) is a candidate. ``"first"`` (scikit-learn's argmax): only classes present
        in the training data are candidates and the lowest index wins among equal top
        (exact) scores; an empty training set predicts class 0. ``"sklearn"``: exactly
        ``CategoricalNB.predict`` (the first maximum of its float64 joint log-likelihood,
        :func:`sklearn_shares`): it differs from ``"first"`` only where two classes score the
        same and float rounding of the logarithms decides (needs ``alpha`` a small binary
        fraction such as 0, 1 or 0.5).
    alpha:
        Smoothing ``>= 0`` (exact: floats are converted to their exact binary value).

    Notes
    -----
    Score of class ``k`` at ``x``: ``(N_k/N) prod_j (N_{j,x^j,k} + alpha)/(N_k + alpha a_j)``;
    a class with ``N_k = 0`` scores 0. With ``alpha = 0`` and two classes that are both
    present, class 0 wins iff ``Z_x > 0`` (docs/mathematics.md, section 'The decision statistic Z').

    Examples
    --------
    >>> import numpy as np
    >>> nb = NaiveBayes(ties="first")
    >>> counts = np.array([[3, 1], [0, 2]])  # 1 attribute with 2 values, 2 classes
    >>> nb.predict_proba(counts, (0,))
    (Fraction(1, 1), Fraction(0, 1))
    """

    ties: str = "random"
    alpha: object = 0
    name: ClassVar[str] = "naive-bayes"
    naive_bayes_kernel: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "naive_bayes_kernel" not in cls.__dict__:  # a subclass may change the predictions: it says so itself
            cls.naive_bayes_kernel = False

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise InvalidArgument(
                f"ties must be one of {TIE_RULES}, got {self.ties!r}"
            )
        alpha = _exact_alpha(self.alpha)
        problem = sklearn_alpha_problem(alpha) if self.ties == "sklearn" else None
        if problem:
            raise InvalidArgument(problem)

    # ------------------------------------------------------------------ exact pieces
    @property
    def alpha_exact(self) -> Fraction:
        """``alpha`` as an exact ``Fraction``."""
        return _exact_alpha(self.alpha)

    def class_score(self, n_k: int, agreements: Sequence[int], arities: Sequence[int], n_total: int) -> Fraction:
        """Exact score of one class from its count ``n_k`` and ``A_jk = N_{j,x^j,k}``."""
        if n_k == 0 or n_total == 0:
            return Fraction(0)
        a = self.alpha_exact
        score = Fraction(n_k, n_total)
        for agree, arity in zip(agreements, arities):
            score *= (agree + a) / (n_k + a * arity)
        return score

    def decide(
        self,
        class_totals: Sequence[int],
        agreements: Sequence[Sequence[int]],
        arities: Sequence[int],
    ) -> tuple[Fraction, ...]:
        """``g_x(. | counts)`` from sufficient statistics.

        Parameters
        ----------
        class_totals:
            ``N_k`` for every class.
        agreements:
            ``agreements[k][j] = N_{j, x^j, k}`` (training points of class ``k`` whose attribute
            ``j`` equals ``x^j``).
        arities:
            Attribute arities ``a_j``.
        """
        totals = [int(n) for n in class_totals]
        g, scale = decision_shares(
            self, arities, totals, [np.array([int(a) for a in ag], dtype=np.int64) for ag in agreements]
        )
        return tuple(Fraction(int(v), scale) for v in g)

    # ------------------------------------------------------------------ the Classifier protocol
    def describe(self) -> str:
        return f"NaiveBayes(ties={self.ties!r}, alpha={self.alpha_exact})"

    def params(self) -> dict[str, Any]:
        a = self.alpha_exact
        return {"ties": self.ties, "alpha": float(a), "alpha_exact": f"{a.numerator}/{a.denominator}"}

    def exact_form(self, model: "CellModel") -> ExactForm:
        """Naive Bayes is its own exact form."""
        return ExactForm(model, self)

    def predict_tables(self, model: "CellModel", tables: np.ndarray) -> np.ndarray:
        """``g_x(y | T)`` at every input for count tables ``(R, n_cells)``: shape ``(R, n_inputs, K)``.

        Scores are compared exactly (integer keys, :func:`score_keys`); a random tie contributes
        its probability ``1 / #tied``.
        """
        arr = check_tables(model, tables)
        R, K, ar = arr.shape[0], model.n_classes, model.arities
        shaped = arr.reshape((R,) + ar + (K,))
        return np.stack([self.predict_inputs(shaped, ar, x) for x in model.inputs()], axis=1)

    def predict_inputs(self, tables: np.ndarray, arities: Sequence[int], x: Sequence[int]) -> np.ndarray:
        """``g_x(y | T)`` at one input for tables of shape ``(R,) + arities + (K,)``: ``(R, K)`` floats."""
        R, K, d = tables.shape[0], tables.shape[-1], len(arities)
        totals = tables.reshape(R, -1, K).sum(axis=1).astype(np.int64)  # (R, K)
        agree = np.empty((K, R, d), dtype=np.int64)
        for j in range(d):
            sel: list[Any] = [slice(None)] * (d + 2)
            sel[j + 1] = x[j]
            agree[:, :, j] = tables[tuple(sel)].reshape(R, -1, K).sum(axis=1).T
        g, scale = decision_shares(self, arities, list(totals.T), list(agree))
        return (g / scale).T

    # ------------------------------------------------------------------ from a count table
    def predict_proba(self, counts: object, x: Sequence[int] | int) -> tuple[Fraction, ...]:
        """``g_x(y | counts)`` for every class ``y`` from a full count table.

        Parameters
        ----------
        counts:
            Integer array of shape ``arities + (K,)`` (``N[x, k]``, as ``CellModel.as_array``).
        x:
            The input, one value per attribute.

        Examples
        --------
        >>> import numpy as np
        >>> NaiveBayes().predict_proba(np.array([[1, 1], [2, 0]]), 0)
        (Fraction(1, 2), Fraction(1, 2))
        """
        table = np.asarray(counts)
        if table.ndim < 2 or not np.issubdtype(table.dtype, np.integer):
            raise InvalidArgument(
                f"counts must be an integer array of shape arities + (K,), got dtype {table.dtype} "
                f"and shape {table.shape}"
            )
        if (table < 0).any():
            raise InvalidArgument("counts must be non-negative")
        arities = table.shape[:-1]
        xt = (int(x),) if isinstance(x, (int, np.integer)) else tuple(int(v) for v in x)
        if len(xt) != len(arities) or any(not 0 <= v < a for v, a in zip(xt, arities)):
            raise InvalidArgument(f"x must be an input of arities {arities}, got {x!r}")
        K = table.shape[-1]
        d = len(arities)
        totals = [int(table[..., k].sum()) for k in range(K)]
        agreements = []
        for k in range(K):
            row = []
            for j in range(d):
                axes = tuple(i for i in range(d) if i != j)
                marg = table[..., k].sum(axis=axes) if axes else table[..., k]
                row.append(int(marg[xt[j]]))
            agreements.append(row)
        return self.decide(totals, agreements, arities)

    def predict(self, counts: object, x: Sequence[int] | int) -> int:
        """Deterministic prediction (``ties="first"`` or ``"sklearn"``; ``random`` has no single answer)."""
        if self.ties == "random":
            raise InvalidArgument(
                "predict needs ties='first' or 'sklearn'; with ties='random' use predict_proba for the coin"
            )
        probs = self.predict_proba(counts, x)
        return int(max(range(len(probs)), key=lambda k: probs[k]))
