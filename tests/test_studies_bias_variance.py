"""The ``bias_variance`` study: its rows are :func:`bias_variance` of the study's model, its claim
checks say what the rows say (and where a claim fails), and ``momentbound reproduce`` finds it."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from momentbound.classifiers import HistogramRule, NaiveBayes
from momentbound.estimators.bias_variance import bias_variance
from momentbound.studies import Verdict, run_study
from momentbound.studies.bias_variance import CLASS_ZERO, interaction_model

from conftest import run_in_process


@pytest.fixture(scope="module")
def study():
    res = run_study("bias_variance", quick=True)
    yield res
    res.figure.clear()


def test_model_is_the_documented_one() -> None:
    m = interaction_model()
    assert m.arities == (3, 3) and m.is_exact
    for x in m.inputs():
        assert m.p(x, 0) + m.p(x, 1) == Fraction(1, 9)
        assert m.p(x, 0) * 9 == Fraction(CLASS_ZERO[x[0]][x[1]])


def test_rows_are_the_decomposition_of_the_model(study) -> None:
    df = study.data
    model = interaction_model()
    row = df[(df["classifier"] == "histogram") & (df["n"] == 5)].iloc[0]
    exact = bias_variance(model, 5, classifier=HistogramRule("first"))
    kw = exact.as_decomposition("kohavi-wolpert")
    assert exact.exact
    assert row["expected_error"] == float(exact.expected_error) and row["bias"] == float(exact.bias)
    assert row["net_variance"] == float(exact.variance_term) and row["kw_bias2"] == float(kw.bias)
    alpha = df[df["axis"] == "alpha"]
    assert list(alpha["alpha"]) == [0.0, 1.0] and set(alpha["n"]) == {15}
    smoothed = bias_variance(model, 15, classifier=NaiveBayes("first", 1))
    assert alpha.iloc[1]["variance"] == float(smoothed.variance)
    # every row's terms add up to its E[GE_n]
    assert (df["noise_term"] + df["bias"] + df["net_variance"] - df["expected_error"]).abs().max() < 1e-14
    assert (df["kw_noise"] + df["kw_bias2"] + df["kw_variance"] - df["expected_error"]).abs().max() < 1e-14


def test_claim_checks_follow_the_numbers(study) -> None:
    df = study.data[study.data["axis"] == "n"]
    nb = df[df["classifier"] == "naive-bayes"].set_index("n")
    h = df[df["classifier"] == "histogram"].set_index("n")
    lower_bias, larger_variance = study.checks[0], study.checks[1]
    holds = [n for n in nb.index if h.loc[n, "bias"] < nb.loc[n, "bias"]]
    assert lower_bias.verdict is (Verdict.REPRODUCED if len(holds) == len(nb) else Verdict.NOT_REPRODUCED)
    assert f"at {len(holds)} of {len(nb)} points" in lower_bias.evidence
    fails = [n for n in nb.index if not nb.loc[n, "variance"] < h.loc[n, "variance"]]
    assert larger_variance.verdict is (Verdict.NOT_REPRODUCED if fails else Verdict.REPRODUCED)
    if fails:  # the check says where the claim fails
        assert "fails at x=" + ", ".join(str(n) for n in fails[:5]) in larger_variance.evidence
    assert "exactly (Fractions) at" in study.notes[0]
    both = [n for n in nb.index if h.loc[n, "bias"] < nb.loc[n, "bias"] and h.loc[n, "variance"] > nb.loc[n, "variance"]]
    missing = [str(n) for n in nb.index if n not in both]
    assert f"fails at n = {', '.join(missing)}" in study.notes[1] if missing else "every n of" in study.notes[1]


def test_figure(study) -> None:
    axes = study.figure.axes
    assert len(axes) == 3 and all(ax.get_xlabel() and ax.get_legend() is not None for ax in axes)


def test_reproduce_finds_the_study_and_writes_its_files(study, tmp_path) -> None:
    result = run_in_process(["reproduce", "bias_variance", "--out", str(tmp_path / "o"), "--quick", "--json"])
    assert result.returncode == 0, result.stderr
    (doc,) = json.loads(result.stdout)["studies"]
    assert doc["name"] == "bias_variance"
    assert [c["verdict"] for c in doc["checks"]] == [c.verdict.value for c in study.checks]
    assert (tmp_path / "o" / "bias_variance.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reproduce_help_lists_every_study() -> None:
    from momentbound.studies import study_names

    result = run_in_process(["reproduce", "--help"])
    assert result.returncode == 0
    listed = " ".join(result.stdout.split()).split("Studies: ")[1].split(".")[0]
    assert listed.split(", ") == list(study_names())
