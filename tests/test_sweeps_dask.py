"""Dask sweeps: local cluster of 2 workers, an existing scheduler address, a Client, errors."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

import pytest

from momentbound.errors import InvalidArgument
from momentbound.intervals import Enclosure
from momentbound.studies.distributed import result_to_row, run_sweep


def binomial_moments(N: int, p: str) -> dict[str, Fraction]:
    """Mean and variance of Binomial(N, p) by enumerating its pmf (exact)."""
    q = Fraction(p)
    pmf = [math.comb(N, k) * q**k * (1 - q) ** (N - k) for k in range(N + 1)]
    mean = sum(k * w for k, w in enumerate(pmf))
    second = sum(k * k * w for k, w in enumerate(pmf))
    return {"mean": mean, "variance": second - mean**2}


def fails(x: int) -> int:
    raise ZeroDivisionError(f"boom {x}")


class Colour(Enum):
    RED = "red"


@dataclass(frozen=True)
class Box(Enclosure):
    lower: float
    upper: float


@dataclass(frozen=True)
class Result:
    mean: Fraction
    band: Box
    colour: Colour
    label: str


CONFIGS = [{"N": n, "p": p} for n in (3, 7, 12) for p in ("1/3", "1/2", "9/10")]


def _check_binomial_frame(df) -> None:
    assert list(df.columns[:2]) == ["N", "p"]
    assert len(df) == len(CONFIGS)
    for (_, row), cfg in zip(df.iterrows(), CONFIGS):
        # rows come back in the order of the configurations, with the closed forms N p, N p (1-p)
        assert row["N"] == cfg["N"] and row["p"] == cfg["p"]
        q = Fraction(cfg["p"])
        assert row["mean"] == pytest.approx(float(cfg["N"] * q), abs=1e-12)
        assert row["variance"] == pytest.approx(float(cfg["N"] * q * (1 - q)), abs=1e-12)
        assert row["seconds"] >= 0


def test_local_cluster_two_workers_threads() -> None:
    seen = []
    df = run_sweep(CONFIGS, binomial_moments, processes=False, progress=lambda d, t: seen.append((d, t)))
    _check_binomial_frame(df)
    assert seen[-1] == (len(CONFIGS), len(CONFIGS))
    assert [d for d, _ in seen] == list(range(1, len(CONFIGS) + 1))


def test_existing_scheduler_address_and_client() -> None:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}) as cluster:
        assert len(cluster.workers) == 2
        _check_binomial_frame(run_sweep(CONFIGS, binomial_moments, scheduler=cluster.scheduler_address))
        with Client(cluster) as client:
            _check_binomial_frame(run_sweep(CONFIGS, binomial_moments, scheduler=client))
            # a client passed in stays open for its owner
            assert client.status == "running"


def test_task_errors_propagate() -> None:
    with pytest.raises(ZeroDivisionError, match="boom"):
        run_sweep([{"x": 1}, {"x": 2}], fails, processes=False)


def test_validation_errors() -> None:
    with pytest.raises(InvalidArgument, match="configs is empty"):
        run_sweep([], binomial_moments)
    with pytest.raises(InvalidArgument, match=r"configs\[1\] must be a mapping"):
        run_sweep([{"N": 1, "p": "1/2"}, (1, 2)], binomial_moments)
    with pytest.raises(InvalidArgument, match=r"configs\[1\] has keys"):
        run_sweep([{"N": 1, "p": "1/2"}, {"N": 2}], binomial_moments)
    with pytest.raises(InvalidArgument, match="fn must be callable"):
        run_sweep([{"N": 1}], 42)
    with pytest.raises(InvalidArgument, match="scheduler must be None"):
        run_sweep([{"N": 1, "p": "1/2"}], binomial_moments, scheduler=3.5)
    with pytest.raises(InvalidArgument, match="n_workers must be at least 1"):
        run_sweep([{"N": 1, "p": "1/2"}], binomial_moments, n_workers=0)


def test_result_to_row_flattens_dataclasses_intervals_enums() -> None:
    row = result_to_row(Result(Fraction(1, 8), Box(0.1, 0.2), Colour.RED, "x"))
    assert row == {"mean": 0.125, "band_lower": 0.1, "band_upper": 0.2, "colour": "red", "label": "x"}
    assert result_to_row(Fraction(3, 4)) == {"value": 0.75}
    assert result_to_row({"a": (1, 2)}) == {"a": "(1, 2)"}


def test_estimator_sweep_on_dask_matches_serial_and_brute_force() -> None:
    from momentbound.estimators import KFold, estimator_moments
    from momentbound.model import independent_1d_model
    from momentbound.studies.tasks import estimator_task

    model = independent_1d_model("2/5")
    configs = [{"model": model, "N": 6, "estimator": KFold(v)} for v in (2, 3, 6)]
    df = run_sweep(configs, estimator_task, processes=False)
    for (_, row), cfg in zip(df.iterrows(), configs):
        serial = estimator_moments(model, 6, cfg["estimator"])
        assert row["mean"] == pytest.approx(float(serial.mean), abs=1e-12)
        assert row["variance"] == pytest.approx(float(serial.variance), abs=1e-12)
        assert row["folds"] == cfg["estimator"].v and row["backend"] == "exact"
    # independent witness for one row: 2-fold CV of N = 6 by enumerating every dataset
    from _witness_studies import brute_cv

    want = brute_cv(model, 6, 2)
    assert df.loc[0, "variance"] == pytest.approx(float(want["variance"]), abs=1e-12)


def test_cli_sweep_on_existing_scheduler_matches_plain_sweep() -> None:
    import json

    from click.testing import CliRunner
    from distributed import LocalCluster

    from momentbound.cli import main

    args = ["sweep", "--cells", "1/5,3/10,1/5,3/10", "--N", "8", "--over", "folds", "--values", "2,4,8", "--json"]
    plain = json.loads(CliRunner().invoke(main, args).output)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}) as cluster:
        res = CliRunner().invoke(main, args + ["--scheduler", cluster.scheduler_address])
    assert res.exit_code == 0, res.output
    dist = json.loads(res.output)
    keys = ("mean", "variance", "fold_variance", "fold_covariance")
    assert [[r[k] for k in keys] for r in dist["rows"]] == [[r[k] for k in keys] for r in plain["rows"]]


def test_unreachable_scheduler_raises_actionable_error() -> None:
    from momentbound.studies.distributed import dask_client

    with pytest.raises(InvalidArgument, match="cannot connect to the Dask scheduler at 'tcp://127.0.0.1:9'"):
        with dask_client("tcp://127.0.0.1:9", timeout=1):
            pass


def test_local_cluster_starts_while_port_8787_is_taken() -> None:
    """A dashboard already open on Dask's default port (or a second cluster) must not stop ours."""
    import socket

    from momentbound.parallel import dask_client

    with socket.socket() as held:
        try:
            held.bind(("0.0.0.0", 8787))
        except OSError:
            pass  # already taken by someone else: the situation under test
        else:
            held.listen()
        with dask_client(None, n_workers=1, processes=False) as client:
            assert client.submit(lambda: 2 + 2).result() == 4
