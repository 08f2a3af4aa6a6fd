"""Progress of the exact backend of ``estimator_moments``: the estimate line and the bar on stderr.

Witnesses: the bar's own bookkeeping (its total is the sum of the planned terms, and the
advances the terms report add up to it), the values computed without a bar (identical to the
last bit), and a real ``momentbound estimate --json`` process (stdout must parse as one JSON
document while the estimate goes to stderr).
"""

from __future__ import annotations

import json

import pytest
from conftest import run_in_process

import momentbound.estimators.from_predictions as fp
from momentbound.errors import InvalidArgument
from momentbound.estimators import (
    GE,
    HoldOut,
    KFold,
    Resubstitution,
    StratifiedKFold,
    estimator_moments,
    make_engine,
)
from momentbound.estimators.results import MOMENT_FIELDS
from momentbound.model import independent_1d_model, second_nb_model
from momentbound.progress import ProgressBar, WorkMeter

ONE_D = independent_1d_model("2/5")
TWO_BY_TWO = second_nb_model()


class Recorder:
    """Records every bar (total, advances) and every fraction the terms report."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bars: list[ProgressBar] = []
        self.advances: list[list[float]] = []
        self.fractions: list[tuple[object, float]] = []
        rec = self

        class Bar(ProgressBar):
            def __init__(self, *a: object, **k: object) -> None:
                super().__init__(*a, **k)  # type: ignore[arg-type]
                rec.bars.append(self)
                rec.advances.append([])

            def advance(self, amount: float) -> None:
                rec.advances[-1].append(amount)
                super().advance(amount)

        class Meter(WorkMeter):
            def fraction(self, key: object, done: float) -> None:  # type: ignore[override]
                rec.fractions.append((key, done))
                super().fraction(key, done)  # type: ignore[arg-type]

        monkeypatch.setattr(fp, "ProgressBar", Bar)
        monkeypatch.setattr(fp, "WorkMeter", Meter)


def _same_values(a: object, b: object) -> None:
    for name in MOMENT_FIELDS:
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize(
    "model, N, v, route",
    [(TWO_BY_TWO, 20, 4, "reduced states"), (ONE_D, 300, 3, "one-attribute walk")],
)
def test_bar_reaches_its_total_and_values_do_not_change(monkeypatch, capsys, model, N, v, route):
    rec = Recorder(monkeypatch)
    with_bar = estimator_moments(model, N, KFold(v), progress=True)
    out, err = capsys.readouterr()
    assert out == "" and f"exact KFold(v={v}), N={N}: about" in err and "MB" in err
    (bar,) = rec.bars
    plan = make_engine(model).backend.work_plan(model, N, KFold(v).split(N).train_sizes,
                                                KFold(v).split(N).fold_sizes, make_engine(model).classifier)
    keys = {item.key for item in plan}
    assert ("pair", N - N // v) in keys and ("cross", N - 2 * (N // v), N // v, N // v) in keys
    assert bar.total == pytest.approx(sum(max(i.seconds, fp.MIN_TERM_SECONDS) for i in plan), rel=1e-12)
    assert sum(rec.advances[0]) == pytest.approx(bar.total, rel=1e-12) and bar.done == pytest.approx(bar.total)
    # every planned term reported its end, and the cross term advanced in several steps on the way
    assert {k for k, f in rec.fractions if f == 1.0} == keys
    cross = [f for k, f in rec.fractions if k[0] == "cross"]
    assert len(cross) >= 4 and cross == sorted(cross) and cross[-1] == 1.0
    _same_values(with_bar, estimator_moments(model, N, KFold(v), progress=False))


def test_stratified_bar_counts_its_class_count_work(monkeypatch, capsys):
    """StratifiedKFold: the bar runs over the class-count vectors (STRATIFIED_UNITS in all), its
    time measured on the first ones; the values are those computed without it."""
    rec = Recorder(monkeypatch)
    with_bar = estimator_moments(ONE_D, 60, StratifiedKFold(5), progress=True)
    (bar,) = rec.bars
    assert bar.total == fp.STRATIFIED_UNITS and sum(rec.advances[0]) == pytest.approx(fp.STRATIFIED_UNITS)
    steps = [f for k, f in rec.fractions if k == ("stratified", 60, 5)]
    assert len(steps) > 10 and steps == sorted(steps) and steps[-1] == 1.0
    out, err = capsys.readouterr()
    assert out == "" and "exact StratifiedKFold(v=5), N=60: 1,000 class-count work units, about" in err
    _same_values(with_bar, estimator_moments(ONE_D, 60, StratifiedKFold(5), progress=False))


def test_no_progress_writes_nothing(capsys):
    estimator_moments(TWO_BY_TWO, 20, KFold(4), progress=False)
    estimator_moments(ONE_D, 300, HoldOut(test_size=100))  # automatic: stderr is not a terminal
    assert capsys.readouterr() == ("", "")


def test_cached_terms_are_not_planned_again(monkeypatch, capsys):
    """A shared engine (sweeps) holds the terms of the first call: the second plans only GE_N's pair term."""
    rec = Recorder(monkeypatch)
    engine = make_engine(ONE_D)
    estimator_moments(ONE_D, 300, KFold(3), engine=engine, progress=True)
    estimator_moments(ONE_D, 300, KFold(3), engine=engine, progress=True)
    estimator_moments(ONE_D, 300, GE(), engine=engine, progress=True)
    ge_pair = max(engine.backend.estimated_seconds(ONE_D, 300, engine.classifier), fp.MIN_TERM_SECONDS)
    assert rec.bars[1].total == 0 and rec.bars[2].total == pytest.approx(ge_pair)
    assert [sum(a) for a in rec.advances] == pytest.approx([b.total for b in rec.bars])
    assert engine.meter is None  # the engine does not keep the bar of a finished call
    capsys.readouterr()


def test_progress_is_refused_where_it_does_not_apply():
    with pytest.raises(InvalidArgument, match="progress must be None"):
        estimator_moments(ONE_D, 10, KFold(2), progress="yes")
    with pytest.raises(InvalidArgument, match="backend='exact' and backend='montecarlo', not 'sampling'"):
        estimator_moments(ONE_D, 10, KFold(2), backend="sampling", progress=True)
    with pytest.raises(InvalidArgument, match=r"not Resubstitution\(\)"):
        estimator_moments(ONE_D, 10, Resubstitution(), progress=True)


def test_cli_exact_json_is_one_document_while_progress_goes_to_stderr():
    """In this process, fds 1 and 2 included (``estimate`` runs as a real process in
    test_cli_subprocess.py): `estimate --progress --json` on the exact backend (the 2x2 model, 4-fold
    CV at N = 20: reduced-state cross terms) prints one JSON document on stdout and the estimate on
    stderr."""
    cells = ",".join(["1/10", "3/20"] * 4)
    done = run_in_process(["estimate", "--arities", "2,2", "--cells", cells, "--N", "20", "--folds", "4", "--progress",
                           "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["backend"] == "exact" and doc["folds"] == 4
    assert doc["variance"] == pytest.approx(float(estimator_moments(TWO_BY_TWO, 20, KFold(4)).variance), rel=1e-12)
    assert "exact KFold(v=4), N=20: about" in done.stderr and "MB" in done.stderr


def test_cli_refuses_progress_where_it_does_not_apply():
    from click.testing import CliRunner

    from momentbound.cli import main

    base = ["estimate", "--arities", "2", "--cells", "1/5,3/10,1/5,3/10", "--N", "10"]
    bad = CliRunner().invoke(main, base + ["--backend", "sampling", "--progress"])
    assert bad.exit_code == 2 and "apply to --backend exact, montecarlo and auto, not sampling" in bad.output
    bad = CliRunner().invoke(main, base + ["--estimator", "resubstitution", "--progress"])
    assert bad.exit_code == 2 and "not Resubstitution(); drop progress" in bad.output
    ok = CliRunner().invoke(main, base + ["--estimator", "resubstitution", "--json"])  # no bar asked: it runs
    assert ok.exit_code == 0 and json.loads(ok.output)["splitter"]["name"] == "resubstitution"
