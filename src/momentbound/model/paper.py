"""The data models of the paper's studies (docs/mathematics.md, section 'The paper's studies'), as
exact ``CellModel`` objects."""

from __future__ import annotations

from fractions import Fraction

from momentbound.model.cells import CellModel, parse_number

__all__ = ["fig1_model", "independent_1d_model", "equal_cells_model", "second_nb_model", "PAPER_TABLE4"]


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


#: The paper's reported times (Table 4) and bounds (Section 7.3) for N = 10, 100, 1000.
PAPER_TABLE4: dict[str, dict[str, str]] = {
    "direct": {"time": "25 h / 200 centuries / 200 billion years", "bounds": "exact, just under 0.5"},
    "series": {"time": "instantaneous", "bounds": "0.5 (normal)"},
    "lp": {"time": "3.5 s / 2 min / 2.5 h", "bounds": "0.34 - 0.62"},
    "gd": {"time": "0.13 s", "bounds": "sensitive to initialization"},
    "prekopa": {"time": "1 s / 25 s / 5 min", "bounds": "-"},
    "gdts": {"time": "3.5 s", "bounds": "-"},
    "sqp": {"time": "3.5 s", "bounds": "0.34 - 0.64"},
    "sdp": {"time": "0.1 s", "bounds": "0.33 - 0.62"},
    "sampling": {"time": "0.08 s (100) / 0.65 s (1000) / 6.3 s (10000 samples)", "bounds": "Table 5"},
}
