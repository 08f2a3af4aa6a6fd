"""The data models of the paper's studies (docs/mathematics.md, section 'The paper's studies'), as
exact ``CellModel`` objects."""

from __future__ import annotations

from fractions import Fraction

from momentbound.model.cells import CellModel, parse_number

__all__ = ["fig1_model", "independent_1d_model", "equal_cells_model", "second_nb_model"]


def fig1_model(prior: object, c: object) -> CellModel:
    """One input with two values and two classes (Fig. 1).

    ``p[x1,y1] = p(1+c)/2, p[x2,y1] = p(1-c)/2, p[x1,y2] = (1-p)(1-c)/2, p[x2,y2] = (1-p)(1+c)/2``
    where ``p`` is the prior of class 0 and ``c`` in ``[0, 1]`` the correlation.
    Cell order: (x1,y1), (x1,y2), (x2,y1), (x2,y2).
    """
    p, cc = parse_number(prior, name="prior"), parse_number(c, name="c")
    half = Fraction(1, 2) if isinstance(p, Fraction) and isinstance(cc, Fraction) else 0.5
    return CellModel(
        (2,),
        [p * (1 + cc) * half, (1 - p) * (1 - cc) * half, p * (1 - cc) * half, (1 - p) * (1 + cc) * half],
        2,
    )


def independent_1d_model(prior: object = "2/5", n_values: int = 2) -> CellModel:
    """Input independent of the class, uniform over ``n_values`` (Figs. 2-10)."""
    p = parse_number(prior, name="prior")
    cells = []
    for _ in range(n_values):
        cells += [p / n_values, (1 - p) / n_values]
    return CellModel((n_values,), cells, 2)


def equal_cells_model(arities: tuple[int, ...] = (2, 2), n_classes: int = 2) -> CellModel:
    """Every cell equal (the 2x2x2 model of Figs. 14-16 and Tables 4-6)."""
    return CellModel.uniform(arities, n_classes)


def second_nb_model() -> CellModel:
    """2x2x2 model with class-0 cells 0.1 and class-1 cells 0.15 (Figs. 17-25)."""
    return CellModel((2, 2), ["1/10", "3/20"] * 4, 2)
