"""--max-seconds/--max-memory on mvbound and reproduce, and --plot under the CLI's output-file policy
(run in this process with ``run_in_process``, file descriptors 1 and 2 included; mvbound, reproduce
and band run as real subprocesses in ``test_cli_subprocess.py``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run_in_process

MV = ["mvbound", "--mean", "0,0", "--cov", "1,0,0,1", "--polyhedron", "1,0,1.5;0,1,1.5"]
BAND = ["band", "--moments", "1,5,55/2", "--support", "grid:0:10", "--points", "20"]


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return run_in_process(args)


@pytest.mark.parametrize("limit, error, option", [
    (["--max-seconds", "0.001"], "WorkLimitExceeded", "--max-seconds none"),
    (["--max-memory", "1M"], "MemoryLimitExceeded", "--max-memory SIZE"),
])
def test_mvbound_limits(limit, error, option):
    proc = _run([*MV, *limit, "--json"])
    assert proc.returncode == 2 and proc.stdout == "" and error in proc.stderr and option in proc.stderr
    assert "dimension n = 2 with 2 constraint(s)" in proc.stderr and "Traceback" not in proc.stderr
    ok = _run([*MV, "--json"])
    assert ok.returncode == 0 and 0 <= json.loads(ok.stdout)["upper"] <= 1


def test_multivariate_api_names_keyword_arguments():
    from momentbound.bounds.multivariate import multivariate_bound, work_estimate
    from momentbound.errors import WorkLimitExceeded

    with pytest.raises(WorkLimitExceeded, match="max_seconds=None"):
        multivariate_bound([0, 0], [[1, 0], [0, 1]], polyhedron=([[1, 0]], [1]), max_seconds=1e-6)
    seconds, memory = work_estimate(32, 32)
    assert 20 < seconds < 100 and 3e8 < memory < 2e9  # measured: 47.5 s and about 690 MB in all


def test_reproduce_takes_the_limits(tmp_path: Path):
    proc = _run(["reproduce", "cv", "--quick", "--out", str(tmp_path / "out"), "--max-seconds", "0.0001", "--json"])
    assert proc.returncode != 0 and "WorkLimitExceeded" in proc.stderr and "--max-seconds" in proc.stderr
    assert "Traceback" not in proc.stderr
    helptext = _run(["reproduce", "--help"]).stdout
    assert "--max-memory" in helptext and "[default: none]" in helptext


def test_band_plot_follows_the_output_file_policy(tmp_path: Path):
    """Missing folders are created (as for every output file); an existing file is refused before any work
    unless --force, which replaces it."""
    png = tmp_path / "new" / "deeper" / "band.png"
    first = _run([*BAND, "--plot", str(png), "--json"])
    assert first.returncode == 0, first.stderr
    assert png.is_file() and json.loads(first.stdout)["plot"] == str(png)
    again = _run([*BAND, "--plot", str(png), "--json"])
    assert again.returncode == 2 and "--plot" in again.stderr and "already exists" in again.stderr
    assert "--force" in again.stderr and again.stdout == ""
    forced = _run([*BAND, "--plot", str(png), "--force", "--json"])
    assert forced.returncode == 0 and "replaces the existing file" in forced.stderr
