"""Real ``cross_validate`` with five scorers and ``cross_val_predict``'s pooled AUC against the toolkit.

A small version of benchmarks/witness_scorers.py (20,000 datasets on three models): 500 datasets of
the imbalanced one-attribute model (class prior 0.2, N = 40, ``cv=5``), the first ones through
``cross_validate`` and ``cross_val_predict`` themselves (asserted equal to the cached route), against
``monte_carlo_scores(..., multimetric=True)``: ``|z| <= 4`` for the mean, the variance and the
fraction of datasets with an undefined fold of every scorer.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def test_cross_validate_scorers_agree_with_the_toolkit():
    import witness_scorers as w

    _, model, N = w.models()["binary-imbalanced"]
    sim = w.sklearn_run(model, N, 500, seed=7, check=10)
    ref = w.toolkit_run(model, N, 20_000, seed=8)
    rows = w.compare(sim, ref)
    assert set(rows) == {*w.SCORERS, w.POOLED}
    for name, c in rows.items():
        for what in ("mean", "variance", "undefined"):
            assert abs(c[what]["z"]) <= 4, (name, what, c[what])
    # power: a toolkit mean off by 0.03 would be caught, for the AUC averaged over folds and pooled
    for name in ("roc_auc", w.POOLED):
        c = rows[name]["mean"]
        assert abs((c["sklearn"] - c["toolkit"] - 0.03) / (c["sklearn_se"] ** 2 + c["toolkit_se"] ** 2) ** 0.5) > 4
