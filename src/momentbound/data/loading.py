"""Categorical data in, a validated table of counts out (docs/mathematics.md, section 'Fitted models').

:func:`load_data` reads a CSV or Parquet path, a pandas ``DataFrame``, ``(X, y)`` arrays or a
frequency table (one row per cell and a count column, the form of R's ``datasets::Titanic``),
and returns a :class:`DataTable`: every used column coded as integers, its levels in order, the
weight (count) of every row and the number ``N`` of rows of data.

Rules (nothing is guessed):

* categorical columns (strings, integers, booleans, pandas categoricals) are taken as they are;
  their levels are the pandas categories in order, else the sorted distinct values;
* a floating-point column is numeric and is refused unless a binning rule is given for it:
  ``bins=K`` (quantile bins, applied to every numeric column), ``bins={"col": K}`` or
  ``bins={"col": [e0, e1, ...]}`` (explicit edges; values outside them are refused);
* a missing value is refused with its row and column named, unless ``missing="drop"`` (drop the
  row) or ``missing="category"`` (a level ``"<missing>"`` of that feature; never for the target);
* refused as well: an unknown target or feature, a target with a single class, a feature with a
  single level, a count column that is not made of non-negative integers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument

__all__ = ["DataTable", "load_data", "MISSING_LEVEL", "MISSING_RULES", "plain_level"]

#: the level given to missing values with ``missing="category"``
MISSING_LEVEL = "<missing>"
MISSING_RULES = ("refuse", "drop", "category")


@dataclass(frozen=True)
class DataTable:
    """Rows of categorical data coded as integers, with their levels and weights.

    Attributes
    ----------
    target:
        The class column.
    features:
        The attribute columns, in order (the model's attributes ``X_1, ..., X_d``).
    levels:
        ``{column: (level_0, level_1, ...)}``: the value of each code, for every column used.
    codes:
        ``(rows, d + 1)`` integer array: the features' codes, then the target's.
    weights:
        Number of data rows each row stands for (1 for row data; the count column of a
        frequency table).
    source:
        Where the data came from (a path, ``"DataFrame"`` or ``"arrays"``).
    binning:
        ``{column: edges}`` for every numeric column that was binned.
    dropped:
        Rows dropped by ``missing="drop"``.
    """

    target: str
    features: tuple[str, ...]
    levels: dict[str, tuple[Any, ...]]
    codes: np.ndarray
    weights: np.ndarray
    source: str = "DataFrame"
    binning: dict[str, tuple[float, ...]] = field(default_factory=dict)
    dropped: int = 0

    @property
    def N(self) -> int:
        """Rows of data (the sum of the counts of a frequency table)."""
        return int(self.weights.sum())

    @property
    def arities(self) -> tuple[int, ...]:
        return tuple(len(self.levels[f]) for f in self.features)

    @property
    def classes(self) -> tuple[Any, ...]:
        return self.levels[self.target]

    def counts(self) -> np.ndarray:
        """Count of every (input, class) cell, shape ``arities + (K,)`` (the class varies fastest)."""
        shape = self.arities + (len(self.classes),)
        flat = np.ravel_multi_index(tuple(self.codes.T), shape) if len(self.codes) else np.zeros(0, dtype=int)
        out = np.bincount(flat, weights=self.weights, minlength=math.prod(shape))
        return np.rint(out).astype(np.int64).reshape(shape)

    def empty_cells(self) -> list[tuple[Any, ...]]:
        """The (feature levels..., class) cells with no row, by level names, in cell order."""
        counts = self.counts()
        names = [self.levels[c] for c in self.features + (self.target,)]
        return [tuple(n[i] for n, i in zip(names, idx)) for idx in zip(*np.nonzero(counts == 0))]

    def summary(self) -> dict[str, Any]:
        """N, the levels of each column in order, the number of cells and the empty cells."""
        return {
            "source": self.source,
            "N": self.N,
            "target": self.target,
            "features": list(self.features),
            "levels": {c: [plain_level(v) for v in self.levels[c]] for c in self.features + (self.target,)},
            "cells": int(self.counts().size),
            "empty_cells": [[plain_level(v) for v in cell] for cell in self.empty_cells()],
            "binning": {c: list(e) for c, e in self.binning.items()},
            "dropped_rows": self.dropped,
        }

    def __repr__(self) -> str:
        return (f"DataTable(N={self.N}, target={self.target!r}, features={list(self.features)!r}, "
                f"arities={self.arities}, classes={len(self.classes)})")


def plain_level(value: Any) -> Any:
    """A level as a JSON-friendly Python value."""
    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


# ----------------------------------------------------------------------------- reading
def _frame(source: Any, target: str | None) -> tuple[Any, str, str | None]:
    """A pandas DataFrame from the source, its description, and the target for (X, y)."""
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return source, "DataFrame", target
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise InvalidArgument(f"data: no file {str(path)!r}; give a CSV or Parquet file")
        suffix = path.suffix.lower()
        try:
            if suffix in (".parquet", ".pq"):
                return pd.read_parquet(path), str(path), target
            if suffix in (".csv", ".txt", ".tsv"):
                sep = "\t" if suffix == ".tsv" else ","
                return pd.read_csv(path, sep=sep, keep_default_na=True), str(path), target
        except (ValueError, OSError, ImportError) as exc:
            raise InvalidArgument(f"data: cannot read {str(path)!r}: {' '.join(str(exc).split())}") from exc
        raise InvalidArgument(f"data: {str(path)!r} is neither .csv, .tsv nor .parquet; convert it or rename it")
    if isinstance(source, tuple) and len(source) == 2:
        X, y = source
        Xf = X.copy() if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))
        if not isinstance(X, pd.DataFrame):
            Xf.columns = [f"x{j}" for j in range(Xf.shape[1])]
            for c in Xf.columns:  # numpy object arrays: restore each column's own type
                Xf[c] = pd.Series(list(Xf[c])).infer_objects()
        yname = target or (getattr(y, "name", None) or "y")
        ys = pd.Series(np.asarray(y), name=yname)
        if len(ys) != len(Xf):
            raise InvalidArgument(f"data: X has {len(Xf)} rows but y has {len(ys)}; give one label per row")
        if yname in Xf.columns:
            raise InvalidArgument(f"data: the target name {yname!r} is also a column of X; rename one")
        Xf = Xf.reset_index(drop=True)
        Xf[yname] = ys.values
        return Xf, "arrays", yname
    raise InvalidArgument(
        f"data must be a CSV or Parquet path, a pandas DataFrame or a pair (X, y), got {type(source).__name__}")


def _levels(series: Any) -> tuple[Any, ...]:
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        return tuple(series.cat.categories)
    values = series.dropna().unique()
    try:
        return tuple(sorted(values))
    except TypeError:  # mixed types: sorted by their text, stated in the docs
        return tuple(sorted(values, key=str))


def _is_numeric(series: Any) -> bool:
    import pandas as pd

    return pd.api.types.is_float_dtype(series.dtype)


def _bin(series: Any, rule: Any, column: str) -> tuple[Any, tuple[float, ...]]:
    """Quantile bins (an integer K) or explicit edges: the binned column as labels, and the edges."""
    import pandas as pd

    values = series.astype(float)
    if isinstance(rule, (int, np.integer)) and not isinstance(rule, bool):
        if rule < 2:
            raise InvalidArgument(f"bins for {column!r} must be at least 2 quantile bins, got {rule}")
        edges = np.unique(np.quantile(values.dropna(), np.linspace(0, 1, int(rule) + 1)))
        if len(edges) < 3:
            raise InvalidArgument(f"column {column!r} has too few distinct values for {rule} quantile bins; "
                                  f"give explicit edges or treat it as categorical")
    else:
        try:
            edges = np.asarray([float(e) for e in rule])
        except (TypeError, ValueError):
            raise InvalidArgument(f"bins for {column!r} must be an integer K or a list of edges, got {rule!r}") from None
        if len(edges) < 3 or np.any(np.diff(edges) <= 0) or not np.all(np.isfinite(edges)):
            raise InvalidArgument(f"edges for {column!r} must be at least 3 finite increasing numbers "
                                  f"(2 or more bins), got {list(rule)}")
        outside = values.notna() & ((values < edges[0]) | (values > edges[-1]))
        if outside.any():
            i = int(np.flatnonzero(outside.to_numpy())[0])
            raise InvalidArgument(f"column {column!r}, row {i + 1}: value {values.iloc[i]:g} is outside the edges "
                                  f"[{edges[0]:g}, {edges[-1]:g}]; widen the edges")
    labels = [f"[{a:g}, {b:g}{']' if j == len(edges) - 2 else ')'}" for j, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]
    binned = pd.cut(values, edges, labels=labels, include_lowest=True, right=False)
    # the last bin is closed on the right: the maximum belongs to it
    binned = binned.where(values != edges[-1], labels[-1])
    return pd.Series(pd.Categorical(binned, categories=labels), index=series.index), tuple(float(e) for e in edges)


def load_data(
    source: Any,
    target: str | None = None,
    *,
    features: Sequence[str] | None = None,
    bins: int | Mapping[str, Any] | None = None,
    count_column: str | None = None,
    missing: str = "refuse",
) -> DataTable:
    """Load categorical data: a CSV/Parquet path, a DataFrame, ``(X, y)`` or a frequency table.

    Parameters
    ----------
    source:
        A path (``.csv``, ``.tsv``, ``.parquet``), a pandas ``DataFrame`` or a pair ``(X, y)``.
    target:
        The class column (required except for ``(X, y)``, where it names ``y``; default ``"y"``).
    features:
        The attribute columns, in order; default every other column (except ``count_column``
        and an unnamed row-number column such as R's ``rownames``).
    bins:
        The binning rule of numeric (floating-point) columns: ``K`` quantile bins for all of them,
        or ``{column: K or [edges]}``. A numeric column without a rule is refused.
    count_column:
        Frequency-table form: the column holding how many rows each row stands for.
    missing:
        ``"refuse"`` (default), ``"drop"`` the rows with a missing value in a used column, or
        ``"category"``: a level ``"<missing>"`` for features (a missing class is always refused
        unless dropped).

    Examples
    --------
    >>> import pandas as pd
    >>> t = load_data(pd.DataFrame({"a": ["x", "y", "x"], "c": [0, 1, 1]}), "c")
    >>> t.N, t.levels["a"], t.counts().tolist()
    (3, ('x', 'y'), [[0, 1], [0, 1]])
    """
    import pandas as pd

    if missing not in MISSING_RULES:
        raise InvalidArgument(f"missing must be one of {', '.join(MISSING_RULES)}, got {missing!r}")
    frame, where, target = _frame(source, target)
    if target is None:
        raise InvalidArgument("target is required: name the class column (--target COL)")
    columns = [str(c) for c in frame.columns]
    frame = frame.copy()
    frame.columns = columns
    if target not in columns:
        raise InvalidArgument(f"target {target!r} is not a column of the data; the columns are {', '.join(columns)}")
    if count_column is not None and count_column not in columns:
        raise InvalidArgument(f"count column {count_column!r} is not a column of the data; the columns are "
                              f"{', '.join(columns)}")
    if features is None:
        skip = {target, count_column, "rownames", "Unnamed: 0"}
        features = [c for c in columns if c not in skip]
    features = [str(f) for f in features]
    for f in features:
        if f not in columns:
            raise InvalidArgument(f"feature {f!r} is not a column of the data; the columns are {', '.join(columns)}")
        if f in (target, count_column):
            raise InvalidArgument(f"feature {f!r} is the {'target' if f == target else 'count column'}; "
                                  f"leave it out of the features")
    if len(set(features)) != len(features):
        raise InvalidArgument(f"features name a column twice: {features}")
    if not features:
        raise InvalidArgument("no feature column: give at least one attribute besides the target")
    bins_for: dict[str, Any] = {}
    if isinstance(bins, Mapping):
        for c in bins:
            if c not in features:
                raise InvalidArgument(f"bins names {c!r}, which is not a feature ({', '.join(features)})")
        bins_for = dict(bins)
    elif bins is not None:
        bins_for = {f: bins for f in features if _is_numeric(frame[f])}
        if not bins_for:
            raise InvalidArgument(f"bins={bins!r} is given but no feature is numeric; drop it")
    if count_column is not None:
        w = frame[count_column]
        bad = w.isna() | ~w.apply(lambda v: isinstance(v, (int, np.integer, float, np.floating)) and float(v) >= 0
                                  and float(v).is_integer())
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise InvalidArgument(f"count column {count_column!r}, row {i + 1}: {w.iloc[i]!r} is not a non-negative "
                                  f"integer count")
        weights = w.astype(np.int64).to_numpy()
    else:
        weights = np.ones(len(frame), dtype=np.int64)
    used = features + [target]
    na = frame[used].isna()
    dropped = 0
    if na.to_numpy().any():
        if missing == "refuse" or (missing == "category" and na[target].any()):
            rows, cols = np.nonzero(na.to_numpy())
            col = used[cols[0]]
            what = "the target" if col == target else "column"
            fix = ("use missing='drop' (--missing drop) to drop such rows" if col == target else
                   "use missing='drop' or missing='category' (--missing drop|category)")
            raise InvalidArgument(f"missing value in {what} {col!r} at row {rows[0] + 1} "
                                  f"({int(na.to_numpy().any(axis=1).sum())} rows have one); {fix}")
        if missing == "drop":
            keep = ~na.any(axis=1).to_numpy()
            dropped = int(weights[~keep].sum())
            frame, weights = frame.loc[keep].reset_index(drop=True), weights[keep]
    levels: dict[str, tuple[Any, ...]] = {}
    binning: dict[str, tuple[float, ...]] = {}
    codes = np.zeros((len(frame), len(used)), dtype=np.int64)
    for j, c in enumerate(used):
        s = frame[c]
        if c in bins_for:
            if not _is_numeric(s) and not pd.api.types.is_integer_dtype(s.dtype):
                raise InvalidArgument(f"bins applies to numeric columns; {c!r} is not numeric")
            s, binning[c] = _bin(s, bins_for[c], c)
        elif _is_numeric(s):
            raise InvalidArgument(
                f"column {c!r} is numeric ({s.dtype}); give a binning rule (bins=K quantile bins or "
                f"bins={{{c!r}: [edges]}}; --bins K) or leave it out of the features")
        if missing == "category" and c != target and s.isna().any():
            s = s.astype(object).where(s.notna(), MISSING_LEVEL)
            lv = tuple(v for v in _levels(s) if v != MISSING_LEVEL) + (MISSING_LEVEL,)
        else:
            lv = _levels(s)
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes[:, j] = s.cat.codes.to_numpy()
        else:
            index = {v: i for i, v in enumerate(lv)}
            codes[:, j] = [index[v] for v in s]
        levels[c] = lv
    # one level or one class: counted over rows that carry data (a frequency table lists empty cells too)
    present = weights > 0
    for j, c in enumerate(used):
        seen = np.unique(codes[present, j]) if present.any() else np.zeros(0)
        if c == target and len(seen) < 2:
            only = levels[c][int(seen[0])] if len(seen) else "none"
            raise InvalidArgument(f"target {c!r} has a single class ({only!r}) in the data; a classifier needs "
                                  f"at least two classes")
        if c != target and len(levels[c]) < 2:
            raise InvalidArgument(f"feature {c!r} has a single level ({levels[c][0]!r}); it carries no "
                                  f"information: leave it out of the features")
    if int(weights.sum()) < 1:
        raise InvalidArgument("the data has no rows (every count is 0)")
    return DataTable(target=target, features=tuple(features), levels=levels, codes=codes, weights=weights,
                     source=where, binning=binning, dropped=dropped)
