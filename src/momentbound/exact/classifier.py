"""The categorical naive Bayes classifier, evaluated exactly from training counts.

Matches scikit-learn's ``CategoricalNB(alpha=alpha, force_alpha=True, min_categories=arities)``:
class prior ``N_k / N`` (not smoothed) and feature likelihood
``(N_{j,v,k} + alpha) / (N_k + alpha * a_j)``. Scores are compared exactly (rational
arithmetic), never in floating point, so ties are real ties.

References
----------
Dhurandhar & Dobra, Sections 6-7 (SPEC section 4); /work/notes/estimators_contract.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational, Real

from decimal import Decimal

import numpy as np

from momentbound.errors import InvalidArgument

__all__ = ["NaiveBayes", "TIE_RULES"]

TIE_RULES = ("random", "first")


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
        scores; an empty training set predicts class 0.
    alpha:
        Smoothing ``>= 0`` (exact: floats are converted to their exact binary value).

    Notes
    -----
    Score of class ``k`` at ``x``: ``(N_k/N) prod_j (N_{j,x^j,k} + alpha)/(N_k + alpha a_j)``;
    a class with ``N_k = 0`` scores 0. With ``alpha = 0`` and two classes that are both
    present, class 0 wins iff ``Z_x > 0`` (SPEC section 4).

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

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise InvalidArgument(
                f"ties must be one of {TIE_RULES}, got {self.ties!r}"
            )
        _exact_alpha(self.alpha)

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
        n_total = int(sum(class_totals))
        scores = [
            self.class_score(int(n), ag, arities, n_total) for n, ag in zip(class_totals, agreements)
        ]
        return self.decide_scores(class_totals, scores)

    def decide_scores(self, class_totals: Sequence[int], scores: Sequence[Fraction]) -> tuple[Fraction, ...]:
        """Apply the tie rule to exact class scores (absent classes must score 0)."""
        K = len(scores)
        if self.ties == "random":
            top = max(scores)
            tied = [k for k in range(K) if scores[k] == top]
            share = Fraction(1, len(tied))
            return tuple(share if k in tied else Fraction(0) for k in range(K))
        candidates = [k for k in range(K) if class_totals[k] > 0]
        if not candidates:
            winner = 0
        else:
            top = max(scores[k] for k in candidates)
            winner = min(k for k in candidates if scores[k] == top)
        return tuple(Fraction(int(k == winner)) for k in range(K))

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
        """Deterministic prediction (``ties="first"`` only; ``random`` has no single answer)."""
        if self.ties != "first":
            raise InvalidArgument(
                "predict needs ties='first'; with ties='random' use predict_proba for the coin"
            )
        probs = self.predict_proba(counts, x)
        return int(max(range(len(probs)), key=lambda k: probs[k]))
