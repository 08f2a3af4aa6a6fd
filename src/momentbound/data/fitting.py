"""Cell models fitted to data, and draws from their Dirichlet posterior (docs/mathematics.md,
section 'Fitted models').

* ``model="full"``: one probability per (input, class) cell. With ``prior=a`` the cells are the
  mean of the Dirichlet posterior ``Dir(n + a)``: ``(n_c + a) / (N + C a)`` for ``C`` cells;
  ``prior=0`` gives the empirical (maximum-likelihood) cells ``n_c / N``. The default is
  Jeffreys' prior ``a = 1/2`` on every cell.
* ``model="factorised"``: the class prior times class-conditional independent attributes,
  ``P(y) prod_j P(x_j | y)``, each factor the posterior mean of its own Dirichlet with the same
  ``a`` (``prior=0``: the empirical frequencies). For tables too sparse for the full model.

A :class:`FittedModel` is a :class:`~momentbound.model.cells.CellModel` (every function and
command that takes a model takes it) that also keeps the level names, the counts and the prior.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.data.loading import DataTable, plain_level, load_data
from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel, parse_number

__all__ = ["FittedModel", "SparseTableWarning", "fit_cells", "posterior_draws", "DEFAULT_PRIOR", "FIT_MODELS",
           "bayes_error"]

#: Jeffreys' Dirichlet(1/2, ..., 1/2) on the cells
DEFAULT_PRIOR = Fraction(1, 2)
FIT_MODELS = ("full", "factorised")


class SparseTableWarning(UserWarning):
    """The full model has more cells than the data has rows."""


class FittedModel(CellModel):
    """A :class:`CellModel` fitted to a :class:`~momentbound.data.DataTable`, with its names.

    Besides the cell model's attributes:

    Attributes
    ----------
    table:
        The data it was fitted to.
    prior:
        The Dirichlet concentration ``a`` of every cell (0: empirical cells).
    form:
        ``"full"`` or ``"factorised"``.
    """

    table: DataTable
    prior: Fraction
    form: str

    def __init__(self, arities: Any, cells: Any, n_classes: int, *, table: DataTable, prior: Fraction,
                 form: str) -> None:
        super().__init__(arities, cells, n_classes)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "prior", prior)
        object.__setattr__(self, "form", form)

    @property
    def features(self) -> tuple[str, ...]:
        return self.table.features

    @property
    def target(self) -> str:
        return self.table.target

    @property
    def levels(self) -> dict[str, tuple[Any, ...]]:
        return self.table.levels

    @property
    def n_data(self) -> int:
        """Rows of the data it was fitted to."""
        return self.table.N

    def cell_names(self) -> list[tuple[Any, ...]]:
        """Every cell as (feature levels..., class), in the cell order."""
        import itertools

        names = [self.levels[c] for c in self.features + (self.target,)]
        return list(itertools.product(*names))

    def describe(self) -> dict[str, Any]:
        """What JSON outputs say about the model: levels, cells, N of the data, prior."""
        return {
            "form": self.form,
            "prior": float(self.prior),
            "prior_exact": str(self.prior),
            "prior_text": prior_text(self.prior),
            "target": self.target,
            "features": list(self.features),
            "levels": {c: [plain_level(v) for v in self.levels[c]] for c in self.features + (self.target,)},
            "arities": list(self.arities),
            "n_classes": self.n_classes,
            "N_data": self.n_data,
            "cells": [float(c) for c in self.cells],
            "empty_cells": len(self.table.empty_cells()),
            "source": self.table.source,
        }

    def to_cell_model(self) -> CellModel:
        """The plain cell model (same cells, no names)."""
        return CellModel(self.arities, self.cells, self.n_classes)

    def __repr__(self) -> str:
        return (f"FittedModel({self.form}, prior={self.prior}, target={self.target!r}, "
                f"features={list(self.features)!r}, arities={self.arities}, N_data={self.n_data})")


def prior_text(prior: Fraction) -> str:
    if prior == 0:
        return "none (empirical, maximum-likelihood cells)"
    if prior == Fraction(1, 2):
        return "Jeffreys Dirichlet(1/2) on every cell"
    return f"Dirichlet({prior}) on every cell"


def _prior(prior: Any) -> Fraction:
    if isinstance(prior, str) and prior.strip().lower() in ("empirical", "none", "ml"):
        return Fraction(0)
    if isinstance(prior, str) and prior.strip().lower() == "jeffreys":
        return Fraction(1, 2)
    if isinstance(prior, str) and prior.strip().lower() in ("uniform", "laplace"):
        return Fraction(1)
    try:
        value = parse_number(prior, name="prior")
    except InvalidArgument:
        raise InvalidArgument(f"prior must be a number a >= 0 (Dirichlet concentration per cell), 'empirical', "
                              f"'jeffreys' or 'uniform', got {prior!r}") from None
    if not (isinstance(value, Fraction) or math.isfinite(value)) or value < 0:
        raise InvalidArgument(f"prior must be a finite number >= 0, got {prior!r}")
    return Fraction(value)


def _table(data: Any, target: str | None, features: Any, **load: Any) -> DataTable:
    if isinstance(data, FittedModel):
        return data.table
    if isinstance(data, DataTable):
        if target is not None and target != data.target:
            raise InvalidArgument(f"target {target!r} differs from the table's target {data.target!r}; "
                                  f"load the data again with that target")
        return data
    return load_data(data, target, features=features, **load)


def _full_cells(counts: np.ndarray, a: Fraction) -> list[Fraction]:
    flat = [int(c) for c in counts.reshape(-1)]
    total = sum(flat) + a * len(flat)
    return [(c + a) / total for c in flat]


def _factorised_cells(counts: np.ndarray, a: Fraction) -> list[Fraction]:
    d = counts.ndim - 1
    K = counts.shape[-1]
    N = int(counts.sum())
    class_n = counts.reshape(-1, K).sum(axis=0)
    prior = [(int(class_n[k]) + a) / (N + K * a) for k in range(K)]
    conditionals = []
    for j in range(d):
        axes = tuple(i for i in range(d) if i != j)
        m = counts.sum(axis=axes)  # (a_j, K)
        aj = m.shape[0]
        cond = [[(int(m[v, k]) + a) / (int(class_n[k]) + aj * a) if int(class_n[k]) + aj * a > 0 else Fraction(1, aj)
                 for k in range(K)] for v in range(aj)]
        conditionals.append(cond)
    cells = []
    import itertools

    for x in itertools.product(*(range(s) for s in counts.shape[:-1])):
        for k in range(K):
            p = prior[k]
            for j, v in enumerate(x):
                p *= conditionals[j][v][k]
            cells.append(p)
    return cells


def fit_cells(
    data: Any,
    target: str | None = None,
    *,
    features: Any = None,
    prior: Any = DEFAULT_PRIOR,
    model: str = "full",
    **load: Any,
) -> FittedModel:
    """A cell model fitted to categorical data.

    Parameters
    ----------
    data:
        A :class:`~momentbound.data.DataTable` or anything :func:`~momentbound.data.load_data` reads
        (a path, a DataFrame, ``(X, y)``); then ``target``, ``features`` and the keyword
        arguments of ``load_data`` (``bins``, ``count_column``, ``missing``) apply.
    prior:
        Dirichlet concentration ``a >= 0`` of every cell: the cells are the posterior mean.
        Default ``1/2`` (Jeffreys); ``0`` or ``"empirical"``: the maximum-likelihood cells
        (empty cells get probability 0); ``"uniform"``: ``a = 1`` (Laplace).
    model:
        ``"full"`` (one probability per cell) or ``"factorised"`` (class prior times
        class-conditional independent attributes).

    Returns
    -------
    FittedModel
        A :class:`~momentbound.model.cells.CellModel` with exact rational cells.

    Warns
    -----
    SparseTableWarning
        ``model="full"`` with more cells than rows of data.

    Examples
    --------
    >>> import pandas as pd
    >>> m = fit_cells(pd.DataFrame({"a": ["x", "y", "x", "y"], "c": [0, 1, 1, 1]}), "c", prior=0)
    >>> [str(c) for c in m.cells]
    ['1/4', '1/4', '0', '1/2']
    """
    if model not in FIT_MODELS:
        raise InvalidArgument(f"model must be one of {', '.join(FIT_MODELS)}, got {model!r}")
    a = _prior(prior)
    table = _table(data, target, features, **load)
    counts = table.counts()
    K = counts.shape[-1]
    if model == "full":
        if counts.size > table.N:
            warnings.warn(
                f"the full model has {counts.size} cells for {table.N} rows of data: most cell probabilities rest on "
                f"a few rows or on the prior alone; consider model='factorised' (--model factorised) or fewer features",
                SparseTableWarning, stacklevel=2)
        cells = _full_cells(counts, a)
    else:
        cells = _factorised_cells(counts, a)
    return FittedModel(table.arities, cells, K, table=table, prior=a, form=model)


def posterior_draws(data: Any, M: int, seed: int | None = None, *, target: str | None = None, features: Any = None,
                    prior: Any = None, model: str | None = None, **load: Any) -> list[FittedModel]:
    """``M`` cell models drawn from the Dirichlet posterior of the data's cells.

    ``data`` is a :class:`FittedModel` (its prior and form are used unless given) or anything
    :func:`fit_cells` takes. The full model draws the cells from ``Dir(n + a)``; the factorised
    model draws the class prior and each class-conditional attribute law from their own
    Dirichlet posteriors. The prior must be positive (``a > 0``): with ``a = 0`` an empty cell's
    posterior is undefined. Cells are floats.
    """
    from momentbound.guard import check

    if isinstance(M, bool) or not isinstance(M, (int, np.integer)) or M < 1:
        raise InvalidArgument(f"M must be a positive integer number of posterior draws, got {M!r}")
    if isinstance(data, FittedModel):
        a = data.prior if prior is None else _prior(prior)
        form = data.form if model is None else model
        table = data.table
    else:
        a = _prior(DEFAULT_PRIOR if prior is None else prior)
        form = model or "full"
        table = _table(data, target, features, **load)
    if form not in FIT_MODELS:
        raise InvalidArgument(f"model must be one of {', '.join(FIT_MODELS)}, got {form!r}")
    if a <= 0:
        raise InvalidArgument("posterior draws need a prior a > 0 (an empty cell has no posterior with a = 0); "
                              "use prior=0.5 (Jeffreys) or prior=1")
    counts = table.counts()
    check(f"{M} posterior draws of {counts.size} cells", seconds=M * counts.size * 1e-7,
          memory=8.0 * M * counts.size, fix="use fewer draws M")
    rng = np.random.default_rng(seed)
    K = counts.shape[-1]
    out = []
    for _ in range(int(M)):
        if form == "full":
            p = rng.dirichlet(counts.reshape(-1) + float(a))
        else:
            class_n = counts.reshape(-1, K).sum(axis=0)
            p = rng.dirichlet(class_n + float(a))
            d = counts.ndim - 1
            full = p.reshape((1,) * d + (K,))
            for j in range(d):
                axes = tuple(i for i in range(d) if i != j)
                m = counts.sum(axis=axes)
                cond = np.stack([rng.dirichlet(m[:, k] + float(a)) for k in range(K)], axis=1)  # (a_j, K)
                shape = [1] * d + [K]
                shape[j] = m.shape[0]
                full = full * cond.reshape(shape)
            p = full.reshape(-1)
        p = p / math.fsum(p)
        out.append(FittedModel(table.arities, p.tolist(), K, table=table, prior=a, form=form))
    return out


def bayes_error(model: CellModel) -> float:
    """The Bayes error ``1 - sum_x max_k P[X = x, Y = k]`` of a cell model."""
    arr = model.as_array().reshape(-1, model.n_classes)
    return float(1.0 - arr.max(axis=1).sum())
