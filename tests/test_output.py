"""momentbound.output: destination checks, atomic writes, locks and manifests (in-process)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from momentbound.errors import DestinationError
from momentbound.output import (
    JOURNAL_NAME,
    LOCK_NAME,
    MANIFEST_NAME,
    atomic_file,
    check_file,
    check_folder,
    claim_file,
    claim_folder,
    save_figure,
    verify_manifest,
    write_csv,
    write_text,
)

# /proc accepts no new files, even from root (chmod does not stop root, so it cannot serve here)
UNWRITABLE = Path("/proc")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_proc_is_unwritable_even_for_this_user() -> None:
    with pytest.raises(OSError):
        os.close(os.open(UNWRITABLE / "probe", os.O_WRONLY | os.O_CREAT | os.O_EXCL))


def test_atomic_write_replaces_whole_file_with_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    write_text(target, "new content\n")
    assert target.read_text() == "new content\n" and _leftovers(tmp_path) == []
    witness = tmp_path / "witness.txt"
    witness.write_text("x")  # created by open(): the mode the umask gives
    assert target.stat().st_mode & 0o777 == witness.stat().st_mode & 0o777


@pytest.mark.parametrize("existing", [True, False])
def test_interrupted_write_leaves_old_file_or_nothing(tmp_path: Path, existing: bool) -> None:
    target = tmp_path / "data.csv"
    if existing:
        target.write_text("a,b\n1,2\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_file(target) as fh:
            fh.write("a,b\n3,")
            fh.flush()
            assert len(_leftovers(tmp_path)) == 1  # the temporary file exists while writing
            raise KeyboardInterrupt
    assert _leftovers(tmp_path) == []
    if existing:
        assert target.read_text() == "a,b\n1,2\n"
    else:
        assert not target.exists()


def test_figure_interrupted_inside_savefig_leaves_no_png(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    real = fig.savefig

    def half_then_interrupt(fh, **kwargs):  # write part of the image, then the user presses Ctrl-C
        fh.write(b"\x89PNG\r\n\x1a\n partial")
        raise KeyboardInterrupt

    fig.savefig = half_then_interrupt
    with pytest.raises(KeyboardInterrupt):
        save_figure(tmp_path / "f.png", fig)
    assert list(tmp_path.iterdir()) == []
    fig.savefig = real
    path = save_figure(tmp_path / "f.png", fig, dpi=20)
    assert path.read_bytes().startswith(b"\x89PNG") and _leftovers(tmp_path) == []
    import matplotlib.image

    assert matplotlib.image.imread(path).shape[2] == 4


def test_csv_round_trip(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"x": [1, 2], "y": [0.5, 0.25]})
    pd.testing.assert_frame_equal(pd.read_csv(write_csv(tmp_path / "t.csv", frame)), frame)


def test_check_folder_refuses_before_writing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("")
    for path, reason in ((plain, "not-a-folder"), (plain / "sub", "not-a-folder"),
                         (UNWRITABLE, "unwritable"), (UNWRITABLE / "new", "unwritable")):
        with pytest.raises(DestinationError) as info:
            check_folder(path)
        assert info.value.reason == reason and str(path) in str(info.value)
    made = check_folder(tmp_path / "x" / "y")
    assert made.is_dir() and list(made.iterdir()) == []  # the probe is gone


def test_check_file(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    assert check_file(f) == f and not f.exists()
    f.write_text("x")
    with pytest.raises(DestinationError, match="already exists") as info:
        check_file(f)
    assert info.value.reason == "exists"
    assert check_file(f, force=True) == f
    with pytest.raises(DestinationError, match="is a folder"):
        check_file(tmp_path)
    with pytest.raises(DestinationError, match="cannot create a file"):
        check_file(UNWRITABLE / "r.csv")


def test_claim_folder_lock_occupancy_and_force(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with claim_folder(out) as claim:
        assert (out / LOCK_NAME).is_file()
        with pytest.raises(DestinationError, match="another run") as info:
            claim_folder(out)
        assert info.value.reason == "locked"
        claim.write_text("a.txt", "A")
        claim.write_text("summary.json", "{}")
        claim.write_manifest(command="test")
    assert not (out / LOCK_NAME).exists()
    with pytest.raises(DestinationError, match="earlier run") as info:
        claim_folder(out, markers=("summary.json",))
    assert info.value.reason == "occupied" and not (out / LOCK_NAME).exists()
    (out / ".a.txt.1234abcd.part").write_text("left by a killed run")
    with claim_folder(out, force=True, markers=("summary.json",)) as claim:
        assert claim.earlier == (".a.txt.1234abcd.part", "a.txt", MANIFEST_NAME, "summary.json")
        # the earlier run's files (its manifest's) are gone, so none can pass for the new run's;
        # until the new run ends, the folder does not look complete
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]
        with pytest.raises(DestinationError, match="no manifest.json"):
            verify_manifest(out)
    # the forced run wrote nothing: nothing of either run is left, and the folder is free again
    assert sorted(p.name for p in out.iterdir()) == []
    with claim_folder(out):
        pass


def test_lock_released_when_the_run_fails(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with claim_folder(tmp_path / "run") as claim:
            claim.write_text("a.txt", "A")
            raise KeyboardInterrupt
    # the interrupted run's journal lists what it wrote, for a later --force to remove
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [JOURNAL_NAME, "a.txt"]
    assert (tmp_path / "run" / JOURNAL_NAME).read_text().split() == ["a.txt"]


def _lock_file(folder: Path, **owner: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    path.write_text(json.dumps(owner))
    return path


def test_stale_lock_is_reported_and_taken_over_with_force(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lock = _lock_file(tmp_path / "run", pid=gone.pid, host=socket.gethostname(), started="earlier")
    with pytest.raises(DestinationError, match="stale lock") as info:
        claim_folder(tmp_path / "run")
    assert info.value.reason == "stale-lock" and f"delete {lock}" in str(info.value)
    with claim_folder(tmp_path / "run", force=True):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not lock.exists()


@pytest.mark.parametrize("owner", [{"pid": 1, "host": "another-machine"}, None])
def test_foreign_or_unreadable_lock_is_never_taken_over(tmp_path: Path, owner) -> None:
    lock = _lock_file(tmp_path / "run", **(owner or {}))
    if owner is None:
        lock.write_text("not json")
    with pytest.raises(DestinationError) as info:
        claim_folder(tmp_path / "run", force=True)
    assert info.value.reason == "locked" and str(lock) in str(info.value) and lock.exists()


def test_claim_file_lock_beside_the_file(tmp_path: Path) -> None:
    target = tmp_path / "t.csv"
    with claim_file(target) as claim:
        lock = tmp_path / ".t.csv.lock"
        assert lock.is_file()
        with pytest.raises(DestinationError, match="another run"):
            claim_file(target)
        claim.write_text("x\n")
    assert not lock.exists() and target.read_text() == "x\n"


def test_manifest_lists_sizes_and_hashes(tmp_path: Path) -> None:
    with claim_folder(tmp_path / "run") as claim:
        claim.write_text("a.txt", "alpha")
        (tmp_path / "run" / "b.bin").write_bytes(b"\x00\x01\x02")
        claim.record(tmp_path / "run" / "b.bin")
        with pytest.raises(ValueError, match="not inside"):
            claim.record(tmp_path / "elsewhere")
        claim.write_manifest(command="test", studies=["s"])
    manifest = verify_manifest(tmp_path / "run")
    assert manifest["complete"] is True and manifest["studies"] == ["s"]
    assert manifest["files"] == [
        {"path": "a.txt", "bytes": 5, "sha256": hashlib.sha256(b"alpha").hexdigest()},
        {"path": "b.bin", "bytes": 3, "sha256": hashlib.sha256(b"\x00\x01\x02").hexdigest()},
    ]
    (tmp_path / "run" / "a.txt").write_text("alphA")  # same size, other content
    with pytest.raises(DestinationError, match="differs") as info:
        verify_manifest(tmp_path / "run")
    assert info.value.reason == "incomplete"


def test_too_little_free_space_is_refused(tmp_path: Path, monkeypatch) -> None:
    import shutil

    import momentbound.output

    real = shutil.disk_usage
    free = real(tmp_path).free
    assert check_folder(tmp_path, need_bytes=free // 2) == tmp_path
    monkeypatch.setattr(momentbound.output.shutil, "disk_usage",
                        lambda p: real(p)._replace(free=100 * 2**20))
    with pytest.raises(DestinationError, match="100.0 MiB free") as info:
        claim_folder(tmp_path / "run", need_bytes=2**30)
    assert info.value.reason == "no-space" and not (tmp_path / "run" / LOCK_NAME).exists()
