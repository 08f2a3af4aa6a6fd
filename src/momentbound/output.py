"""Files that are never half-written: destination checks, atomic writes, run locks, manifests.

Every file momentbound writes (CSV, PNG, JSON, Markdown) goes through this module:

* a destination is checked **before** any computing (:func:`check_folder`, :func:`check_file`):
  it must be a folder (or a file in one) that exists or can be created, and a probe file must
  be creatable, writable and removable there (permission bits alone say nothing for root or
  on read-only mounts, so the probe is the test);
* each file is written to a temporary name in the same folder and renamed onto its final
  name with :func:`os.replace` (:func:`atomic_file`), so a reader sees the old file or the
  complete new one, never a truncated one; the temporary file is removed on any exception,
  ``KeyboardInterrupt`` included;
* a run claims its destination (:func:`claim_folder`, :func:`claim_file`): a lock file created
  with ``O_EXCL`` refuses a second run writing to the same place, and a destination holding
  an earlier run is refused unless ``force`` is given;
* a folder run writes :data:`MANIFEST_NAME` **last**, listing every file with its size and
  SHA-256, so a folder without a manifest is visibly incomplete (:func:`verify_manifest`).

Examples
--------
>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> with claim_folder(root / "run") as out:
...     _ = out.write_text("notes.txt", "hello\\n")
...     _ = out.write_manifest(command="example")
>>> [f["path"] for f in verify_manifest(root / "run")["files"]]
['notes.txt']
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import secrets
import shutil
import socket
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Self

from momentbound.errors import DestinationError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "JOURNAL_NAME",
    "LOCK_NAME",
    "MANIFEST_NAME",
    "OutputFile",
    "OutputFolder",
    "atomic_file",
    "check_file",
    "check_folder",
    "claim_file",
    "claim_folder",
    "save_figure",
    "verify_manifest",
    "write_csv",
    "write_json",
    "write_text",
]

#: Written last into a folder by a complete run: ``{"complete": true, "files": [...], ...}``.
MANIFEST_NAME = "manifest.json"
#: Lock file of a folder run (created with ``O_EXCL``, removed when the run ends).
LOCK_NAME = ".momentbound.lock"
#: the files a run has written so far, one relative path a line (removed once the manifest is
#: written): what ``force`` removes after an interrupted run, whose files no manifest lists
JOURNAL_NAME = ".momentbound.files"
_PART = ".part"
_PROBE_BYTES = 4096


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


# --------------------------------------------------------------------------- destinations


def _file_ancestor(path: Path) -> Path | None:
    """The first ancestor of ``path`` (or ``path`` itself) that exists and is not a folder."""
    for p in (path, *path.parents):
        if p.exists():
            return None if p.is_dir() else p
    return None


def _probe(folder: Path) -> None:
    """Create, fill, sync and remove a probe file: the only test that holds for root too."""
    probe = folder / f".momentbound-probe-{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise DestinationError(
            f"cannot create a file in folder {folder} ({_reason(exc)}); choose a writable folder",
            path=folder, reason="unwritable",
        ) from exc
    try:
        try:
            os.write(fd, b"\0" * _PROBE_BYTES)
            os.fsync(fd)
        finally:
            os.close(fd)
            with suppress(OSError):
                os.unlink(probe)
    except OSError as exc:
        raise DestinationError(
            f"cannot write a file in folder {folder} ({_reason(exc)}); free some space or choose another folder",
            path=folder, reason="unwritable",
        ) from exc


def check_folder(path: str | os.PathLike[str], *, need_bytes: int = 0) -> Path:
    """Make sure ``path`` is a writable folder (creating it and its parents if missing).

    Parameters
    ----------
    path:
        The folder files will be written into.
    need_bytes:
        Refuse a folder whose file system has less free space than this (an estimate of what
        the run will write).

    Returns
    -------
    Path
        The folder.

    Raises
    ------
    DestinationError
        ``path`` or one of its parents is a file (``reason="not-a-folder"``), the folder
        cannot be created or a probe file cannot be written there (``reason="unwritable"``),
        or it has less than ``need_bytes`` free (``reason="no-space"``).
    """
    folder = Path(path)
    blocker = _file_ancestor(folder)
    if blocker is not None:
        what = "is a file" if blocker == folder else f"lies under the file {blocker}"
        raise DestinationError(
            f"{folder} {what}, not a folder; choose a folder path", path=folder, reason="not-a-folder"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DestinationError(
            f"cannot create folder {folder}: {_reason(exc)}; choose a writable location",
            path=folder, reason="unwritable",
        ) from exc
    _probe(folder)
    free = shutil.disk_usage(folder).free
    if free < need_bytes:
        raise DestinationError(
            f"{folder} has {free / 2**20:.1f} MiB free, but the run writes about "
            f"{need_bytes / 2**20:.1f} MiB; free some space or choose another folder",
            path=folder, reason="no-space",
        )
    return folder


def check_file(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Make sure the file ``path`` can be written (its folder is created if missing).

    Parameters
    ----------
    path:
        The file to write.
    force:
        Allow replacing an existing file.

    Returns
    -------
    Path
        The file path.

    Raises
    ------
    DestinationError
        ``path`` is a folder (``reason="not-a-file"``), exists and ``force`` is false
        (``reason="exists"``), or its folder fails :func:`check_folder`.
    """
    target = Path(path)
    if target.is_dir():
        raise DestinationError(
            f"{target} is a folder; give a file name such as {target / 'out.csv'}",
            path=target, reason="not-a-file",
        )
    check_folder(target.parent)
    if target.exists() and not force:
        raise DestinationError(
            f"{target} already exists; choose another name, delete it, or replace it with force=True",
            path=target, reason="exists",
        )
    return target


# --------------------------------------------------------------------------- atomic writes


def _temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}{_PART}")


@contextmanager
def atomic_file(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success rename it onto ``path``.

    The temporary name is ``.<name>.<random>.part`` in the same folder (so the rename is
    atomic on POSIX and Windows). The data are flushed and synced before the rename. On any
    exception, ``KeyboardInterrupt`` included, the temporary file is removed and ``path`` is
    left as it was.

    Parameters
    ----------
    path:
        Final file name.
    mode:
        ``"w"`` (text) or ``"wb"`` (bytes).
    encoding, newline:
        As for :func:`open` (text mode only).

    Yields
    ------
    IO
        The open temporary file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_file(p) as fh:
    ...     _ = fh.write("complete")
    >>> p.read_text()
    'complete'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    final = Path(path)
    temp = _temp_path(final)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies, as for open()
    try:
        text = mode == "w"
        with os.fdopen(fd, mode, encoding=encoding if text else None, newline=newline if text else None) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, final)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; return the path."""
    with atomic_file(path) as fh:
        fh.write(text)
    return Path(path)


def write_json(path: str | os.PathLike[str], document: Any) -> Path:
    """Write ``document`` as sorted, indented JSON to ``path`` atomically; return the path."""
    return write_text(path, json.dumps(document, indent=2, sort_keys=True) + "\n")


def write_csv(path: str | os.PathLike[str], frame: "pd.DataFrame") -> Path:
    """Write a pandas ``DataFrame`` as CSV (no index) to ``path`` atomically; return the path."""
    with atomic_file(path, newline="") as fh:
        frame.to_csv(fh, index=False)
    return Path(path)


def save_figure(path: str | os.PathLike[str], figure: "Figure", *, dpi: int = 110) -> Path:
    """Save a matplotlib figure to ``path`` atomically, format from the suffix (``.png``, ``.pdf``, ``.svg``)."""
    final = Path(path)
    fmt = final.suffix.lstrip(".").lower()
    if not fmt:
        raise ValueError(f"{final} has no suffix to name the image format (e.g. .png)")
    with atomic_file(final, "wb") as fh:
        figure.savefig(fh, format=fmt, dpi=dpi)
    return final


# --------------------------------------------------------------------------- locks


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (signal 0 checks without signalling)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to another user
        return True
    return True


class _Lock:
    """A lock file created with ``O_EXCL``: its owner's pid, host, start time and command line."""

    def __init__(self, path: Path, *, force: bool) -> None:
        self.path = path
        self.held = False
        info = {"pid": os.getpid(), "host": socket.gethostname(), "started": _now(), "argv": sys.argv}
        data = (json.dumps(info) + "\n").encode()
        for attempt in range(2):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if attempt == 0 and self._refuse(force):
                    continue
                raise DestinationError(  # the lock vanished and came back: another run raced us
                    f"another run took the lock {path} at the same moment; try again", path=path, reason="locked"
                ) from None
            except OSError as exc:
                raise DestinationError(
                    f"cannot create the lock file {path}: {_reason(exc)}", path=path, reason="unwritable"
                ) from exc
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            self.held = True
            return

    def _refuse(self, force: bool) -> bool:
        """Raise for a live or unknown owner; for a stale lock raise, or remove it if ``force``."""
        try:
            owner = json.loads(self.path.read_text())
            pid, host = int(owner["pid"]), str(owner["host"])
            who = f"pid {pid} on {host}, started {owner.get('started', '?')}"
        except FileNotFoundError:
            return True  # released meanwhile: try again
        except (OSError, ValueError, KeyError, TypeError):
            raise DestinationError(
                f"{self.path} is held by an unknown run (unreadable lock file); if no momentbound run "
                f"is writing there, delete {self.path}",
                path=self.path, reason="locked",
            ) from None
        if host != socket.gethostname() or _alive(pid):
            raise DestinationError(
                f"another run ({who}) is writing to {self.path.parent}; wait for it to finish or choose "
                f"another destination (if that run is gone, delete {self.path})",
                path=self.path, reason="locked",
            )
        if not force:
            raise DestinationError(
                f"stale lock {self.path} left by a run that no longer runs ({who}); its files may be "
                f"incomplete: delete {self.path}, or take the destination over with force=True",
                path=self.path, reason="stale-lock",
            )
        with suppress(FileNotFoundError):
            self.path.unlink()
        return True

    def release(self) -> None:
        if self.held:
            self.held = False
            with suppress(FileNotFoundError):
                self.path.unlink()


# --------------------------------------------------------------------------- claims


class _Claim:
    """A destination held by one run until :meth:`release` (or the end of a ``with`` block).

    ``earlier`` names what the destination held when it was claimed (only possible with
    ``force``): the entries of a folder, or the file itself.
    """

    def __init__(self, path: Path, lock: _Lock, earlier: Sequence[str] = ()) -> None:
        self.path = path
        self.earlier = tuple(earlier)
        self._lock = lock

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        """Remove the lock (idempotent)."""
        self._lock.release()


class OutputFolder(_Claim):
    """A folder claimed by one run (see :func:`claim_folder`): writers that record each file.

    Use it as a context manager (or call :meth:`release`) so that the lock is removed when the
    run ends, successfully or not. :meth:`write_manifest` is to be called last.
    """

    def __init__(self, path: Path, lock: _Lock, earlier: Sequence[str] = ()) -> None:
        super().__init__(path, lock, earlier)
        self._files: dict[str, Path] = {}

    def file(self, name: str) -> Path:
        """The path of ``name`` inside the folder."""
        return self.path / name

    def record(self, *paths: str | os.PathLike[str]) -> None:
        """Add files written inside the folder by other means to the manifest."""
        root = self.path.resolve()
        for p in paths:
            full = Path(p).resolve()
            if not full.is_relative_to(root):
                raise ValueError(f"{p} is not inside {self.path}")
            rel = full.relative_to(root).as_posix()
            if rel not in self._files:
                with open(self.path / JOURNAL_NAME, "a", encoding="utf-8") as journal:
                    journal.write(rel + "\n")
            self._files[rel] = full

    def write_text(self, name: str, text: str) -> Path:
        """Write a text file atomically and record it."""
        path = write_text(self.file(name), text)
        self.record(path)
        return path

    def write_json(self, name: str, document: Any) -> Path:
        """Write a JSON file atomically and record it."""
        path = write_json(self.file(name), document)
        self.record(path)
        return path

    def write_csv(self, name: str, frame: "pd.DataFrame") -> Path:
        """Write a CSV file atomically and record it."""
        path = write_csv(self.file(name), frame)
        self.record(path)
        return path

    def save_figure(self, name: str, figure: "Figure", *, dpi: int = 110) -> Path:
        """Save a figure atomically and record it."""
        path = save_figure(self.file(name), figure, dpi=dpi)
        self.record(path)
        return path

    def write_manifest(self, **info: Any) -> Path:
        """Write :data:`MANIFEST_NAME` listing every recorded file (size, SHA-256) plus ``info``.

        Call it last: its presence is what marks the folder as the complete output of a run.
        """
        files = [
            {"path": rel, "bytes": full.stat().st_size, "sha256": _sha256(full)}
            for rel, full in sorted(self._files.items())
        ]
        from momentbound import __version__

        document = {**info, "complete": True, "created": _now(), "momentbound": __version__, "files": files}
        path = write_json(self.file(MANIFEST_NAME), document)
        with suppress(FileNotFoundError):
            (self.path / JOURNAL_NAME).unlink()
        return path


class OutputFile(_Claim):
    """A single file claimed by one run (see :func:`claim_file`); the lock sits beside it."""

    def write_text(self, text: str) -> Path:
        """Write the file atomically."""
        return write_text(self.path, text)

    def write_csv(self, frame: "pd.DataFrame") -> Path:
        """Write a ``DataFrame`` as CSV atomically."""
        return write_csv(self.path, frame)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _earlier_outputs(folder: Path) -> list[str]:
    """Relative paths an earlier run wrote here: its manifest's files and its journal's lines
    (only paths inside ``folder``)."""
    names: list[str] = []
    with suppress(OSError, ValueError, TypeError, AttributeError):
        doc = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        names += [str(f["path"]) for f in doc.get("files", [])]
    with suppress(OSError):
        names += [ln.strip() for ln in (folder / JOURNAL_NAME).read_text(encoding="utf-8").splitlines() if ln.strip()]
    root = folder.resolve()
    return sorted({n for n in names if (folder / n).resolve().is_relative_to(root) and (folder / n).resolve() != root})


def _entries(folder: Path, ignore: Iterable[str]) -> list[str]:
    skip = set(ignore)
    return sorted(p.name for p in folder.iterdir() if p.name not in skip)


def claim_folder(
    path: str | os.PathLike[str], *, force: bool = False, markers: Sequence[str] = (), need_bytes: int = 0
) -> OutputFolder:
    """Check and claim a folder for one run, before any computing.

    The folder is checked (:func:`check_folder`), then locked with :data:`LOCK_NAME`. A folder
    that holds anything (an earlier run, or other files) is refused unless ``force``; with
    ``force`` the earlier :data:`MANIFEST_NAME`, the ``markers`` (other files the run writes
    at its end, such as ``summary.json``) and left-over temporary files are removed first, so
    that until the new run ends the folder is visibly incomplete. Other files are replaced
    only when the run writes a file of the same name. A folder another run is writing is
    always refused; a lock left by a run that no longer runs on this host is refused with
    the path to delete, or taken over with ``force``.

    Parameters
    ----------
    path:
        The folder.
    force:
        Accept a folder that holds files, and take over a stale lock.
    markers:
        File names that, besides the manifest, mark a finished run and are removed on ``force``.
    need_bytes:
        An estimate of what the run writes; less free space is refused (:func:`check_folder`).

    Returns
    -------
    OutputFolder
        The claimed folder; release it (``with`` block or :meth:`OutputFolder.release`).

    Raises
    ------
    DestinationError
        As :func:`check_folder`; ``reason="locked"`` or ``"stale-lock"`` for a lock,
        ``reason="occupied"`` for a folder with files.
    """
    folder = check_folder(path, need_bytes=need_bytes)
    lock = _Lock(folder / LOCK_NAME, force=force)
    try:
        present = _entries(folder, ignore=(LOCK_NAME,))
        if present and not force:
            earlier = [n for n in (MANIFEST_NAME, *markers) if n in present]
            what = f"an earlier run ({', '.join(earlier)})" if earlier else f"{len(present)} file(s)"
            shown = ", ".join(present[:3]) + (", ..." if len(present) > 3 else "")
            raise DestinationError(
                f"{folder} already holds {what}: {shown}; choose an empty or new folder, or write over "
                f"it with force=True",
                path=folder, reason="occupied",
            )
        if force:
            for rel in _earlier_outputs(folder):  # an earlier run's files, complete or interrupted
                with suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                    (folder / rel).unlink()
            for name in present:
                if name in (MANIFEST_NAME, JOURNAL_NAME, *markers) or (name.startswith(".") and name.endswith(_PART)):
                    with suppress(FileNotFoundError):
                        (folder / name).unlink()
    except BaseException:
        lock.release()
        raise
    return OutputFolder(folder, lock, earlier=present)


def claim_file(path: str | os.PathLike[str], *, force: bool = False) -> OutputFile:
    """Check and claim a single output file for one run, before any computing.

    The file is checked (:func:`check_file`: an existing file needs ``force``) and locked with
    ``.<name>.lock`` beside it, so that two runs never write the same file at once.

    Parameters
    ----------
    path:
        The file.
    force:
        Allow replacing an existing file, and take over a stale lock.

    Returns
    -------
    OutputFile
        The claimed file; release it (``with`` block or :meth:`OutputFile.release`).

    Raises
    ------
    DestinationError
        As :func:`check_file`, or ``reason="locked"``/``"stale-lock"`` for a lock.
    """
    target = check_file(path, force=force)
    lock = _Lock(target.with_name(f".{target.name}.lock"), force=force)
    return OutputFile(target, lock, earlier=(target.name,) if target.exists() else ())


def verify_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a folder's manifest and check every file it lists (size and SHA-256).

    Parameters
    ----------
    path:
        A folder written by a run that used :meth:`OutputFolder.write_manifest`.

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    DestinationError
        ``reason="incomplete"``: no manifest (the run did not finish), or a listed file is
        missing or differs from what the run wrote.
    """
    folder = Path(path)
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text())
    except FileNotFoundError:
        raise DestinationError(
            f"{folder} has no {MANIFEST_NAME}: the run that wrote it did not finish (or is still running)",
            path=folder, reason="incomplete",
        ) from None
    for entry in manifest.get("files", []):
        file = folder / entry["path"]
        if not file.is_file() or file.stat().st_size != entry["bytes"] or _sha256(file) != entry["sha256"]:
            raise DestinationError(
                f"{file} is missing or differs from the file the run wrote (see {MANIFEST_NAME})",
                path=file, reason="incomplete",
            )
    return manifest
