"""An unknown --classifier is refused as unknown, before options that would not apply to it."""

from __future__ import annotations

import pytest
from conftest import run_in_process

ARGS = ["estimate", "--arities", "2", "--cells", "0.2,0.3,0.2,0.3", "--N", "5", "--folds", "2"]


@pytest.mark.parametrize("extra", [[], ["--alpha", "1"], ["--ties", "first"]])
def test_unknown_name_first(extra):
    done = run_in_process([*ARGS, "--classifier", "nb", *extra])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("Error: UnknownMethod: unknown classifier 'nb'; registered classifiers: "
                                   "naive-bayes, histogram, majority, sklearn:MODULE.CLASS")


def test_known_names_keep_their_option_checks():
    done = run_in_process([*ARGS, "--classifier", "histogram", "--alpha", "1"])
    assert done.returncode == 2
    assert "--alpha applies to --classifier naive-bayes, not histogram" in done.stderr
    done = run_in_process([*ARGS, "--classifier", "sklearn"])
    assert done.returncode == 2
    assert "sklearn:MODULE.CLASS" in done.stderr and "Traceback" not in done.stderr
