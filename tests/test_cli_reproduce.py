"""`momentbound reproduce`: files, claim lines, JSON, errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from momentbound.cli import main


def test_reproduce_quick_holdout_writes_files_and_claims(tmp_path) -> None:
    out = tmp_path / "res"
    report = tmp_path / "studies.md"
    result = CliRunner().invoke(
        main, ["reproduce", "holdout", "--out", str(out), "--quick", "--no-progress", "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    for suffix in (".csv", ".png", ".checks.json"):
        assert (out / f"holdout{suffix}").stat().st_size > 0
    assert "Fig. 2: E[HE] grows as the training set shrinks" in result.output
    assert "[reproduced]" in result.output or "[not reproduced]" in result.output
    assert "1 studies" in result.output and "claims reproduced" in result.output
    summary = json.loads((out / "summary.json").read_text())
    from momentbound.output import verify_manifest

    manifest = verify_manifest(out)
    assert manifest["studies"] == ["holdout"] and [f["path"] for f in manifest["files"]] == [
        "holdout.checks.json", "holdout.csv", "holdout.png", "summary.json"]  # the report is elsewhere
    assert summary["quick"] is True and summary["studies"][0]["name"] == "holdout"
    header = (out / "holdout.csv").read_text().splitlines()[0].split(",")
    text = report.read_text()
    assert text.startswith("# Reproduced studies") and "![holdout](figures/holdout.png)" in text
    assert text.count("| Fig. ") == len(summary["studies"][0]["checks"])
    assert {"test_size", "mean", "variance", "mean_plus_std"} <= set(header)


def test_reproduce_json_document(tmp_path) -> None:
    result = CliRunner().invoke(main, ["reproduce", "cv", "--out", str(tmp_path), "--quick", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    (study,) = doc["studies"]
    assert study["name"] == "cv" and study["parameters"]["N"] == 20
    assert {c["verdict"] for c in study["checks"]} <= {"reproduced", "not reproduced"}
    assert all(s["backend"] == "exact" for s in study["sources"])
    assert study["files"]["png"].endswith("cv.png")


def test_reproduce_unknown_study(tmp_path) -> None:
    result = CliRunner().invoke(main, ["reproduce", "fig99", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown study 'fig99'" in result.output and "holdout" in result.output


def test_demo_writes_plots_to_named_folder(tmp_path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--order", "4", "--N", "12", "--cdf-N", "6", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "12-point cross-validation" in result.output and "every method" in result.output
    assert f"written to {out}" in result.output.replace("\n", "")
    for name in ("cv.png", "cv.csv", "tables.png", "tables.csv"):
        assert (out / name).stat().st_size > 0
    from momentbound.output import verify_manifest

    manifest = verify_manifest(out)  # written last, sizes and hashes match the files
    assert [f["path"] for f in manifest["files"]] == [
        "cv.checks.json", "cv.csv", "cv.png", "tables.checks.json", "tables.csv", "tables.png"]


def test_reproduce_quick_nb_cv_montecarlo_records_draws_and_intervals(tmp_path) -> None:
    result = CliRunner().invoke(main, ["reproduce", "nb_cv", "--out", str(tmp_path), "--quick", "--json"])
    assert result.exit_code == 0, result.output
    (study,) = json.loads(result.output)["studies"]
    assert study["parameters"]["backend"] == "montecarlo" and study["parameters"]["seed"] == 1
    assert {(s["backend"], s["kind"], s["draws"], s["seed"]) for s in study["sources"]} == {
        ("montecarlo", "estimate", 4000, 1)}
    assert {c["verdict"] for c in study["checks"]} <= {"reproduced", "not reproduced",
                                                       "inconclusive at this precision"}
    assert any("exact values lie inside the Monte Carlo" in n for n in study["notes"])
    header = (tmp_path / "nb_cv.csv").read_text().splitlines()[0].split(",")
    assert {"mean_plus_std", "mean_plus_std_lower", "mean_plus_std_upper"} <= set(header)
