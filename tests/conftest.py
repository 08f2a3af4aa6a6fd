"""Shared pieces of the test suite: the models many files use, and running a command in-process
with what reaches file descriptors 1 and 2 (so a C library writing past Python's streams is seen,
as in a real subprocess)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

# One thread per pytest-xdist worker for numba's parallel kernels (OpenMP threads spin while they
# wait) and for BLAS: ``make test`` already runs one worker per core, so more threads only compete
# for the same cores. Set before anything imports numba or numpy; an explicit setting is kept.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

#: the paper's one-attribute model: two input values, prior 2/5 of class 0 (cells in order
#: ``(x=0, y=0), (x=0, y=1), (x=1, y=0), (x=1, y=1)``)
PAPER_CELLS = ("1/5", "3/10", "1/5", "3/10")


def paper_model():
    """The one-attribute model with cells :data:`PAPER_CELLS` (exact fractions)."""
    from momentbound.model import CellModel

    return CellModel((2,), list(PAPER_CELLS))


#: three classes on two binary attributes, the model of ``benchmarks/bench_stratified_multiattr.py``
#: (cells ``(x1, x2, class)`` in C order)
THREE_CLASS_CELLS = ("3/20", "1/25", "1/50", "1/20", "1/10", "1/25", "1/20", "1/10", "1/25", "1/10", "2/25", "23/100")


def three_class_model():
    """The model of :data:`THREE_CLASS_CELLS` (exact fractions)."""
    from momentbound.model import CellModel

    return CellModel((2, 2), list(THREE_CLASS_CELLS), 3)


def run_in_process(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``momentbound ARGS`` run with click's CliRunner in this process, returned as a finished
    subprocess would be: what reaches file descriptors 1 and 2 outside Python's streams is added
    to stdout and stderr, an uncaught exception's traceback to stderr. Warnings take Python's
    default filters, as in a fresh interpreter (the suite turns them into errors)."""
    from click.testing import CliRunner

    from momentbound.cli import main

    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    leaks = {fd: tempfile.TemporaryFile() for fd in (1, 2)}
    try:
        for fd in (1, 2):
            os.dup2(leaks[fd].fileno(), fd)
        with warnings.catch_warnings(), contextlib.chdir(cwd or os.getcwd()):
            warnings.resetwarnings()
            warnings.simplefilter("default")
            result = CliRunner().invoke(main, args)
    finally:
        for fd in (1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
    leaked = {}
    for fd, f in leaks.items():
        f.seek(0)
        leaked[fd] = f.read().decode(errors="replace")
        f.close()
    stderr = result.stderr + leaked[2]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["momentbound", *args], result.exit_code, result.stdout + leaked[1], stderr)


_BATCH_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from conftest import run_in_process
jobs = json.load(sys.stdin)
done = {key: run_in_process(args) for key, args in jobs.items()}
sys.stdout.write(json.dumps({k: [r.returncode, r.stdout, r.stderr] for k, r in done.items()}))
"""


def run_in_one_process(jobs: dict[str, list[str]], *, env: dict[str, str] | None = None,
                       preexec_fn: Callable[[], None] | None = None, cwd: Path | None = None,
                       timeout: float = 600) -> dict[str, subprocess.CompletedProcess[str]]:
    """``momentbound ARGS`` for every ``ARGS`` of ``jobs``, one after the other with
    :func:`run_in_process` inside ONE fresh Python process (started with ``env``, ``preexec_fn``,
    e.g. a resource limit, and ``cwd``): each run gets its own exit code and what reached file
    descriptors 1 and 2 during it (a thread a run leaves behind that writes later shows up in a
    later run), and the process pays the imports once instead of once per run."""
    done = subprocess.run([sys.executable, "-c", _BATCH_CHILD, str(Path(__file__).resolve().parent)],
                          input=json.dumps(jobs), capture_output=True, text=True, env=env, preexec_fn=preexec_fn,
                          cwd=cwd, timeout=timeout)
    assert done.returncode == 0, f"batch process: exit {done.returncode}\n{done.stderr[-3000:]}"
    return {key: subprocess.CompletedProcess(["momentbound", *jobs[key]], code, out, err)
            for key, (code, out, err) in json.loads(done.stdout).items()}


@pytest.fixture(scope="module")
def cli_in_process() -> Callable[..., subprocess.CompletedProcess[str]]:
    """:func:`run_in_process`, for module fixtures."""
    return run_in_process


@pytest.fixture(scope="module")
def paper() -> object:
    """:func:`paper_model` (a frozen model, shared)."""
    return paper_model()


# ----------------------------------------------------------------------------- scheduling on workers
# With ``make test`` (pytest-xdist, ``--dist loadfile``) each file runs on one worker, so that its
# module fixtures run once. Collecting every file in order of its measured time, longest first,
# starts the long ones first and leaves the short ones for the end, so that no worker is left with
# a long file while the other idles. pytest-xdist keeps this order only with
# ``--no-loadscope-reorder`` (by default it sorts the files by their number of tests).

#: seconds of a test file not listed in tests/file_times.txt
FILE_SECONDS_DEFAULT = 2.0


def _file_seconds() -> dict[str, float]:
    times: dict[str, float] = {}
    for line in (Path(__file__).parent / "file_times.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, seconds = line.split()
            times[name] = float(seconds)
    return times


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files longest first (``--dist loadfile`` hands them out in this order): the two workers
    then finish within about the last small file of each other."""
    seconds = _file_seconds()
    items.sort(key=lambda item: -seconds.get(item.path.name, FILE_SECONDS_DEFAULT))  # stable within a file


# ----------------------------------------------------------------------------- real scikit-learn CV
def cross_val_error(make_classifier: Callable[[], object], X, y, cv: object, *, check: bool = False) -> float:
    """``1 - mean(cross_val_score(make_classifier(), X, y, cv=cv, error_score="raise"))``, computed
    with scikit-learn's own splitter (``check_cv``) and classifier, fold by fold, without the
    per-call parameter validation that makes up half of ``cross_val_score``'s time on small data;
    with ``check``, also by ``cross_val_score`` itself and asserted equal. A split scikit-learn
    refuses raises its ``ValueError``, as ``cross_val_score`` does."""
    import numpy as np
    import sklearn
    from sklearn.model_selection import check_cv, cross_val_score

    splitter = check_cv(cv, y, classifier=True)
    with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
        scores = [np.mean(make_classifier().fit(X[tr], y[tr]).predict(X[te]) == y[te]) for tr, te in splitter.split(X, y)]
    error = 1.0 - float(np.mean(scores))
    if check:
        reference = 1.0 - cross_val_score(make_classifier(), X, y, cv=cv, error_score="raise").mean()
        assert abs(reference - error) < 1e-12, (reference, error)
    return error


def sklearn_fold_scores(model, X, y, seq, train, test, names, cache: dict) -> dict[str, float]:
    """Every scorer of ``names`` (``sklearn.metrics.get_scorer``) of scikit-learn's
    ``CategoricalNB(alpha=1, min_categories=model.arities)`` fitted on the fold ``train`` and scored
    on ``test`` (``nan`` where the scorer raises, as ``cross_val_score`` records it). ``seq`` holds the
    cell index of every row; fit and scores depend on the rows only through the cell counts of the two
    parts, which key ``cache``."""
    import math

    import numpy as np
    from sklearn import config_context
    from sklearn.metrics import get_scorer
    from sklearn.naive_bayes import CategoricalNB

    C = len(model.cells)
    key = (model, tuple(np.bincount(seq[test], minlength=C)), tuple(np.bincount(seq[train], minlength=C)))
    if key not in cache:
        clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities)).fit(X[train], y[train])
        values = {}
        for name in names:
            with warnings.catch_warnings(), config_context(skip_parameter_validation=True):
                warnings.simplefilter("ignore")
                try:
                    values[name] = float(get_scorer(name)(clf, X[test], y[test]))
                except ValueError:
                    values[name] = math.nan
        cache[key] = values
    return cache[key]
