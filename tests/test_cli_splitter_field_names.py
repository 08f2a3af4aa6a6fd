"""A splitter's own checks of its parameters speak the command line's language there: each field
is named by the option the user gave (or would give), never by its Python name; from Python the
same checks keep the Python names."""

from __future__ import annotations

import pytest

from conftest import run_in_process

BASE = ["estimate", "--arities", "2", "--cells", "0.2,0.3,0.2,0.3", "--N", "20"]


@pytest.mark.parametrize(("args", "expected", "python_names"), [
    (["--splitter", "holdout"],
     "HoldOut needs exactly one of --test-size (a number of points) or --test-fraction (a share in (0, 1)); got neither",
     ("test_size", "test_fraction")),
    (["--splitter", "holdout", "--test-size", "3", "--test-fraction", "0.2"],
     "exactly one of --test-size (a number of points) or --test-fraction (a share in (0, 1)); got both",
     ("test_size", "test_fraction")),
    (["--splitter", "holdout", "--test-fraction", "1.5"],
     "--test-fraction must be strictly between 0 and 1, got 1.5; use --test-size for a number of points",
     ("test_fraction", "test_size")),
    (["--splitter", "holdout", "--param", "test_fraction=1.5"],
     "--param test_fraction must be strictly between 0 and 1, got 1.5; use --test-size",
     ()),
    (["--splitter", "shuffle-split", "--test-size", "0"], "--test-size must be at least 1 test point, got 0",
     ("test_size",)),
    (["--splitter", "cv", "--folds", "1"], "KFold needs at least 2 folds, got --folds 1", ("v=",)),
])
def test_splitter_checks_name_the_options(args, expected, python_names) -> None:
    r = run_in_process([*BASE, *args])
    assert r.returncode == 2, r.stderr
    assert expected in r.stderr
    assert "Traceback" not in r.stderr
    message = r.stderr.replace("--param test_fraction", "")
    for name in python_names:
        assert name not in message


def test_python_keeps_the_python_names() -> None:
    from momentbound.errors import InvalidArgument, ImpossibleSplit
    from momentbound.splitters import HoldOut

    with pytest.raises(InvalidArgument, match=r"exactly one of test_size .* or test_fraction .*; got neither"):
        HoldOut()
    with pytest.raises(InvalidArgument, match="got both"):
        HoldOut(test_size=3, test_fraction=0.2)
    with pytest.raises(ImpossibleSplit, match="use test_size for a number of points"):
        HoldOut(test_fraction=1.5)
