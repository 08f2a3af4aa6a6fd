"""Commands that write files: destinations checked before computing, --force, locks, SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from momentbound.cli import main
from momentbound.output import LOCK_NAME, MANIFEST_NAME, claim_folder, verify_manifest

CELLS = "0.2,0.3,0.2,0.3"
UNWRITABLE = Path("/proc")  # no new files there, even for root (chmod would not stop root)


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def _no_work(*args, **kwargs):
    raise AssertionError("computing started before the destination was checked")


@pytest.fixture
def no_computing(monkeypatch):
    """Every command's computing step fails loudly, so exit code 2 proves it was never reached."""
    import momentbound.studies.method_comparison
    import momentbound.cli.demo
    import momentbound.estimators
    import momentbound.studies.registry

    monkeypatch.setattr(momentbound.studies.registry, "run_study", _no_work)
    monkeypatch.setattr(momentbound.estimators, "sweep", _no_work)
    monkeypatch.setattr(momentbound.studies.method_comparison, "compare_methods", _no_work)
    monkeypatch.setattr(momentbound.cli.demo, "_moments_table", _no_work)


def _assert_refused(res, *needles: str, one_line: bool = True) -> None:
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 or not one_line, lines
    for n in needles:
        assert n in lines[-1], lines


def _commands(dest: Path) -> list[list[str]]:
    return [
        ["reproduce", "cv", "--quick", "--no-progress", "--out", str(dest)],
        ["sweep", "--cells", CELLS, "--N", "6", "--over", "folds", "--values", "2,3", "--out", str(dest / "s.csv")],
        ["compare", "--N", "5", "--order", "2", "--out", str(dest / "c.csv")],
        ["demo", "--order", "2", "--N", "4", "--cdf-N", "2", "--out", str(dest)],
    ]


@pytest.mark.usefixtures("no_computing")
def test_unwritable_destinations_refused_before_computing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("")
    for dest, needle in ((UNWRITABLE, "cannot create a file"), (UNWRITABLE / "new", "cannot create"),
                         (plain / "sub", "lies under the file")):
        for args in _commands(dest):
            _assert_refused(_run(*args), "--out:", needle)
    report = ["reproduce", "cv", "--quick", "--out", str(tmp_path / "ok"), "--report", str(UNWRITABLE / "r.md")]
    _assert_refused(_run(*report), "--report:", "cannot create a file")
    assert not (tmp_path / "ok" / LOCK_NAME).exists()  # the folder claimed first was released


@pytest.mark.usefixtures("no_computing")
def test_occupied_destinations_refused_without_force(tmp_path: Path) -> None:
    (tmp_path / "s.csv").write_text("old")
    (tmp_path / "c.csv").write_text("old")
    for args in _commands(tmp_path):
        _assert_refused(_run(*args), "--force")
    assert (tmp_path / "s.csv").read_text() == "old" and (tmp_path / "c.csv").read_text() == "old"


@pytest.mark.usefixtures("no_computing")
def test_a_destination_another_run_writes_is_refused_even_with_force(tmp_path: Path) -> None:
    with claim_folder(tmp_path):  # held by this (live) process, as by a concurrent run
        for args in _commands(tmp_path)[::3]:
            _assert_refused(_run(*args, "--force"), "another run", str(os.getpid()))


def test_demo_arguments_checked_before_anything_is_printed(no_computing, tmp_path: Path) -> None:
    for args, needle in ((["--order", "0"], "--order"), (["--order", "-1"], "--order"), (["--N", "1"], "--N"),
                         (["--N", "7"], "--N"), (["--cdf-N", "0"], "--cdf-N")):
        # a usage error: its error line is the last (the group may print a usage block first)
        _assert_refused(_run("demo", *args, "--out", str(tmp_path / "d")), needle, one_line=False)
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("command", ["demo", "reproduce"])
def test_library_error_is_one_line_and_releases_the_folder(monkeypatch, tmp_path: Path, command: str) -> None:
    import momentbound.cli.demo
    import momentbound.studies.registry
    from momentbound.errors import InvalidArgument

    def refuse(*args, **kwargs):
        raise InvalidArgument("order 99 is too expensive; use order <= 12")

    monkeypatch.setattr(momentbound.cli.demo, "_moments_table", refuse)
    monkeypatch.setattr(momentbound.studies.registry, "run_study", refuse)
    res = _run(command, *(["cv", "--no-progress"] if command == "reproduce" else []), "--out", str(tmp_path / "d"))
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == ["Error: InvalidArgument: order 99 is too expensive; use order <= 12"]
    assert list((tmp_path / "d").iterdir()) == []  # no lock, no manifest


def _tiny_study(name: str, **kwargs):
    import pandas as pd
    from matplotlib.figure import Figure

    from momentbound.studies.result import StudyResult

    fig = Figure()
    fig.add_subplot().plot([1, 2], [2, 1])
    return StudyResult(name=name, title=f"{name}: tiny", parameters=(("N", 3),),
                       data=pd.DataFrame({"x": [1, 2], "y": [2.0, 1.0]}), figure=fig, sources=(), checks=(),
                       seconds=0.0)


def test_reproduce_force_over_an_earlier_run(monkeypatch, tmp_path: Path) -> None:
    import momentbound.studies.registry

    out = tmp_path / "res"
    monkeypatch.setattr(momentbound.studies.registry, "run_study", lambda name, **kw: _tiny_study(name))
    first = _run("reproduce", "holdout", "--quick", "--no-progress", "--out", str(out))
    assert first.exit_code == 0, first.output
    assert [f["path"] for f in verify_manifest(out)["files"]] == [
        "holdout.checks.json", "holdout.csv", "holdout.png", "summary.json"]
    (out / "mine.txt").write_text("a file of the user's")

    def during_the_second_run(name, **kw):
        # an interrupted forced run must not look complete: the old markers are gone already
        assert not (out / MANIFEST_NAME).exists() and not (out / "summary.json").exists()
        assert (out / LOCK_NAME).exists()
        return _tiny_study(name)

    monkeypatch.setattr(momentbound.studies.registry, "run_study", during_the_second_run)
    _assert_refused(_run("reproduce", "cv", "--quick", "--out", str(out)), "earlier run", "--force")
    second = _run("reproduce", "cv", "--quick", "--no-progress", "--out", str(out), "--force",
                  "--report", str(out / "studies.md"))
    assert second.exit_code == 0, second.output
    assert f"note: --out writes over 6 earlier file(s) in {out} (--force)" in second.stderr
    manifest = verify_manifest(out)
    assert manifest["studies"] == ["cv"]
    assert [f["path"] for f in manifest["files"]] == [
        "cv.checks.json", "cv.csv", "cv.png", "studies.md", "summary.json"]
    assert (out / "mine.txt").exists() and not (out / LOCK_NAME).exists()
    assert [s["name"] for s in json.loads((out / "summary.json").read_text())["studies"]] == ["cv"]


def test_sweep_csv_replaced_only_with_force(tmp_path: Path) -> None:
    import pandas as pd

    out = tmp_path / "s.csv"
    args = ["sweep", "--cells", CELLS, "--N", "6", "--over", "folds", "--values", "2,3", "--no-progress",
            "--out", str(out)]
    assert _run(*args).exit_code == 0
    first = pd.read_csv(out).drop(columns="seconds")
    out.write_text("stale")
    _assert_refused(_run(*args), "already exists", "--force")
    assert out.read_text() == "stale"
    res = _run(*args, "--force")
    assert res.exit_code == 0, res.output
    assert f"note: --out replaces the existing file {out} (--force)" in res.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out).drop(columns="seconds"), first)
    assert list(first["folds"]) == [2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]  # no lock, no temporary file


def test_disk_full_while_writing_is_one_line_and_leaves_nothing(monkeypatch, tmp_path: Path) -> None:
    import errno

    import momentbound.output

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))

    monkeypatch.setattr(momentbound.output.os, "replace", full)
    res = _run("sweep", "--cells", CELLS, "--N", "6", "--over", "folds", "--values", "2,3", "--no-progress",
               "--out", str(tmp_path / "s.csv"))
    assert res.exit_code == 1, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line == f"Error: {os.strerror(errno.ENOSPC)}: {tmp_path / 's.csv'}"
    assert list(tmp_path.iterdir()) == []  # neither the CSV, nor its temporary file, nor the lock


def _parses(path: Path) -> None:
    """Each final-named file is complete: CSV, JSON and PNG files load."""
    if path.suffix == ".csv":
        import pandas as pd

        assert len(pd.read_csv(path)) > 0
    elif path.suffix == ".json":
        json.loads(path.read_text())
    elif path.suffix == ".png":
        import matplotlib.image

        assert matplotlib.image.imread(path).ndim == 3
    else:
        raise AssertionError(f"unexpected file {path.name}")


@pytest.mark.slow
def test_sigint_leaves_no_truncated_file_and_no_manifest(tmp_path: Path) -> None:
    """A real `reproduce all --quick`, interrupted with SIGINT while it writes its first file."""
    out = tmp_path / "run"
    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "  # even if inherited as ignored
            "from momentbound.cli import main; main(prog_name='momentbound')")
    proc = subprocess.Popen([sys.executable, "-c", code, "reproduce", "all", "--quick", "--no-progress",
                             "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    writing: list[str] = []
    try:
        deadline = time.monotonic() + 120
        while not (out / LOCK_NAME).exists():
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run did not claim its folder in 120 s"
            time.sleep(0.01)
        # a second run into the same folder while the first one computes: refused, even with --force
        _assert_refused(_run("reproduce", "cv", "--quick", "--out", str(out), "--force"),
                        "another run", f"pid {proc.pid}")
        # interrupt while a file is being written (a temporary file exists); at the latest once
        # the first study's files are all there
        while not writing and not (out / "fig1.checks.json").exists():
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run wrote no file in 120 s"
            writing = [p.name for p in out.iterdir() if p.name.endswith(".part")]
            time.sleep(0.002)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0, err
    assert "Traceback" not in err
    names = sorted(p.name for p in out.iterdir())
    assert MANIFEST_NAME not in names and "summary.json" not in names
    assert not [n for n in names if n.startswith(".")], names  # no lock, no temporary file
    assert writing, "the interrupt did not land while a file was being written"
    interrupted = writing[0][1:].rsplit(".", 2)[0]  # ".fig1.csv.1a2b3c4d.part" -> "fig1.csv"
    assert interrupted.startswith("fig1.")
    for name in names:
        _parses(out / name)
