"""Real data, real scikit-learn: datasets drawn from R's Titanic table against the toolkit's moments.

A small version of benchmarks/witness_real_data.py (which runs thousands of datasets per size on
two data sets): 200 datasets of 40 rows drawn from the 2,201 passengers, ``cross_val_score``'s
cv=5 (checked against the hand loop on the first datasets) and ``CategoricalNB`` for ``GE_N``,
against ``estimator_accuracy`` of ``StratifiedKFold(5)`` for the same empirical cells.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.mark.parametrize("data, key", [("titanic", "cv5")])
def test_scikit_learn_on_titanic_draws_agrees_with_the_toolkit(data: str, key: str) -> None:
    import witness_real_data as w

    model = w.population(data)
    sim = w.simulate(model, 40, 200, seed=11, check=3, keys=(key,))
    ref = w.toolkit(model, 40, 20_000, seed=12, keys=(key,))
    rows = w.compare(sim, ref)
    for name, c in rows[key].items():
        assert abs(c["z"]) <= 4, (name, c)
    # the comparison has power: a toolkit mean off by 0.03 would be caught
    shifted = {key: {**ref[key], "mean": (ref[key]["mean"][0] + 0.03, ref[key]["mean"][1])}}
    assert abs(w.compare(sim, shifted)[key]["mean"]["z"]) > 4
