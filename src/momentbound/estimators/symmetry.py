"""Symmetries of a cell model under which every naive Bayes prediction term is invariant."""

from __future__ import annotations

import itertools
import math
from typing import Any

from momentbound.model.cells import CellModel

__all__ = ["input_symmetries", "transpose", "SYMMETRY_GROUP_CAP"]

SYMMETRY_GROUP_CAP = 5040


def input_symmetries(model: CellModel, cap: int = SYMMETRY_GROUP_CAP) -> list[tuple[int, ...]]:
    """Relabellings of the inputs that leave every cell probability unchanged.

    Candidates permute the values of each attribute and permute attributes of equal arity; a
    candidate is kept when ``p[sigma(x), k] = p[x, k]`` for every cell. Naive Bayes is equivariant
    under these maps (its score is a product over attributes of per-value counts), so every
    prediction probability term is constant on their orbits: ``pair(sigma x, sigma x') = pair(x, x')``
    and likewise for ``single`` and ``cross``. Returned as maps of input indices (identity first);
    when the candidate group has more than ``cap`` elements only the identity is returned.

    Examples
    --------
    >>> from momentbound.model import independent_1d_model
    >>> input_symmetries(independent_1d_model("2/5"))
    [(0, 1), (1, 0)]
    """
    ar, d, K = model.arities, model.d, model.n_classes
    inputs = list(model.inputs())
    identity = tuple(range(len(inputs)))
    attr_perms = [
        perm for perm in itertools.permutations(range(d)) if all(ar[perm[j]] == ar[j] for j in range(d))
    ]
    size = len(attr_perms) * math.prod(math.factorial(a) for a in ar)
    if size > cap:
        return [identity]
    index = {x: i for i, x in enumerate(inputs)}
    cells = model.cells
    maps = [identity]
    for perm in attr_perms:
        for values in itertools.product(*(itertools.permutations(range(a)) for a in ar)):
            images = []
            for x in inputs:
                y = [0] * d
                for j in range(d):
                    y[perm[j]] = values[j][x[j]]
                images.append(index[tuple(y)])
            m = tuple(images)
            if m == identity or m in maps:
                continue
            if all(cells[m[i] * K + k] == cells[i * K + k] for i in range(len(inputs)) for k in range(K)):
                maps.append(m)
    return maps


def transpose(values: list[list[Any]]) -> list[list[Any]]:
    return [list(row) for row in zip(*values)]
