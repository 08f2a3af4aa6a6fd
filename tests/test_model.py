"""CellModel validation: every rule has a test with its message."""

from fractions import Fraction

import numpy as np
import pytest

from momentbound import CellModel, InvalidModel
from momentbound.model import fig1_model, independent_1d_model, second_nb_model


def test_exact_model_accessors():
    m = CellModel((2, 2), ["1/10", "3/20"] * 4)
    assert m.is_exact and m.n_classes == 2 and m.d == 2 and m.n_inputs == 4
    assert m.prior(0) == Fraction(2, 5) and m.prior(1) == Fraction(3, 5)
    assert m.index((1, 0), 1) == 5
    assert m.p((1, 0), 1) == Fraction(3, 20)
    assert list(m.inputs()) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert m.as_array().shape == (2, 2, 2)
    assert m == second_nb_model()


def test_float_model_and_tolerance():
    m = CellModel((2,), [0.2, 0.3, 0.2, 0.3 + 1e-12])
    assert not m.is_exact
    assert abs(m.prior(1) - 0.6) < 1e-9


def test_class_count_inferred_and_three_classes():
    m = CellModel((3,), [Fraction(1, 9)] * 9, 3)
    assert m.n_classes == 3 and m.n_inputs == 3


@pytest.mark.parametrize(
    "arities, cells, k, match",
    [
        ((2,), ["1/4"] * 3, None, "multiple of the 2 inputs"),
        ((2,), ["1/6"] * 6, 2, "entries"),
        ((2,), ["-1/4", "1/2", "1/2", "1/4"], None, "non-negative"),
        ((2,), [float("nan"), 0.5, 0.25, 0.25], None, "finite"),
        ((2,), ["1/4", "1/4", "1/4", "1/5"], None, "sum to exactly 1"),
        ((2,), [0.25, 0.25, 0.25, 0.2], None, "sum to 1 within"),
        ((1,), ["1/2", "1/2"], None, "at least 2"),
        ((2,), ["1/2", "1/2"], 1, "n_classes must be at least 2"),
        ((2,), ["abc", "1/2", "1/4", "1/4"], None, "decimal or a fraction"),
        ((), [], None, "at least one attribute"),
    ],
)
def test_invalid_models(arities, cells, k, match):
    with pytest.raises(InvalidModel, match=match):
        CellModel(arities, cells, k)


def test_invalid_input_and_class():
    m = CellModel.uniform((2, 3))
    with pytest.raises(InvalidModel, match=r"x\[1\] must be in 0..2"):
        m.index((0, 3), 0)
    with pytest.raises(InvalidModel, match="one value per attribute"):
        m.index((0,), 0)
    with pytest.raises(InvalidModel, match="class index"):
        m.p((0, 0), 2)


def test_paper_models():
    m = fig1_model("1/2", "1/5")
    assert sum(m.cells) == 1 and m.p((0,), 0) == Fraction(3, 10)
    ind = independent_1d_model("2/5")
    assert ind.cells == (Fraction(1, 5), Fraction(3, 10)) * 2
    assert CellModel.from_array(np.full((2, 2), 0.25)).n_classes == 2
    assert CellModel.normalized((2,), [1, 1, 1, 1]).cells[0] == Fraction(1, 4)
