"""Direct scalar naive Bayes classifier in exact arithmetic (test oracle).

Written from docs/mathematics.md (sections 'The naive Bayes classifier' and 'Tie rules') without
looking at the package:
class ``k``'s score at ``x`` is

    (N_k / N) * prod_j (N_{j, x^j, k} + alpha) / (N_k + alpha * a_j)

computed in ``Fraction`` from an explicit list of training points ``(x, y)``. A class with
``N_k = 0`` has score 0 (its prior is 0; with ``alpha = 0`` the 0/0 likelihood is also
treated as 0). Tie rules:

* ``random``: a fair choice among all classes with the top score (absent classes too,
  when the top score is 0);
* ``first``: only classes present in the training data are candidates; among those with the
  top score the lowest index wins; an empty training set predicts class 0.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

Point = tuple[tuple[int, ...], int]

TIE_RULES = ("random", "first")


def cells_of(arities: Sequence[int], n_classes: int) -> list[Point]:
    """The cells ``(x, y)`` in CellModel order (class fastest)."""
    return [
        (tuple(x), y)
        for *x, y in itertools.product(*(range(a) for a in arities), range(n_classes))
    ]


def points_from_table(table: Sequence[int], arities: Sequence[int], n_classes: int) -> list[Point]:
    """Expand a count table (cell order) into an explicit list of points."""
    cells = cells_of(arities, n_classes)
    if len(table) != len(cells):
        raise ValueError(f"table has {len(table)} entries, expected {len(cells)}")
    points: list[Point] = []
    for cell, count in zip(cells, table):
        points.extend([cell] * int(count))
    return points


def class_scores(
    points: Sequence[Point],
    arities: Sequence[int],
    n_classes: int,
    x: Sequence[int],
    alpha: Fraction | int = 0,
) -> list[Fraction]:
    """Exact naive Bayes scores of every class at ``x``, from the training points."""
    alpha = Fraction(alpha)
    n = len(points)
    scores = []
    for k in range(n_classes):
        n_k = sum(1 for (_, y) in points if y == k)
        if n_k == 0:
            scores.append(Fraction(0))
            continue
        score = Fraction(n_k, n)
        for j, a_j in enumerate(arities):
            n_jvk = sum(1 for (xx, y) in points if y == k and xx[j] == x[j])
            score *= (n_jvk + alpha) / (n_k + alpha * a_j)
        scores.append(score)
    return scores


def predict_distribution(
    points: Sequence[Point],
    arities: Sequence[int],
    n_classes: int,
    x: Sequence[int],
    ties: str,
    alpha: Fraction | int = 0,
) -> tuple[Fraction, ...]:
    """``g_x(y | training points)`` for every class ``y``: the probability of predicting ``y``."""
    if ties not in TIE_RULES:
        raise ValueError(f"unknown tie rule {ties!r}")
    scores = class_scores(points, arities, n_classes, x, alpha)
    if ties == "random":
        top = max(scores)
        tied = [k for k in range(n_classes) if scores[k] == top]
        return tuple(Fraction(1, len(tied)) if k in tied else Fraction(0) for k in range(n_classes))
    present = sorted({y for (_, y) in points})
    if not present:
        winner = 0
    else:
        top = max(scores[k] for k in present)
        winner = min(k for k in present if scores[k] == top)
    return tuple(Fraction(1) if k == winner else Fraction(0) for k in range(n_classes))


def top_is_tied(
    points: Sequence[Point],
    arities: Sequence[int],
    n_classes: int,
    x: Sequence[int],
    alpha: Fraction | int = 0,
) -> bool:
    """True when two or more training classes share the top exact score at ``x``."""
    present = sorted({y for (_, y) in points})
    if len(present) < 2:
        return False
    scores = class_scores(points, arities, n_classes, x, alpha)
    top = max(scores[k] for k in present)
    return sum(1 for k in present if scores[k] == top) >= 2


def all_tables(n: int, n_cells: int):
    """Every count table of ``n`` points over ``n_cells`` cells (compositions of ``n``)."""
    if n_cells == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in all_tables(n - first, n_cells - 1):
            yield (first,) + rest


def table_probability(table: Sequence[int], cells: Sequence[Fraction]) -> Fraction:
    """Multinomial probability of a count table."""
    n = sum(table)
    coef = math.factorial(n)
    for c in table:
        coef //= math.factorial(c)
    prob = Fraction(coef)
    for c, p in zip(table, cells):
        if c:
            prob *= Fraction(p) ** c
    return prob
