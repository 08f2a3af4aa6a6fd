"""Property: random argument strings never make a command crash.

Each command gets options drawn from its own option names with random values (valid
numbers, lists with empty entries, huge and negative numbers, text), some options are
dropped or repeated. Whatever comes in, the command either succeeds (exit 0) or refuses
with exit 2 and one line ``Error: ...``; never a traceback or another exit code.
Values are kept small where they would make the work large, so the run stays short.
"""

from __future__ import annotations

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.cli import main

INTEGERS = st.sampled_from(["0", "1", "2", "3", "-1", "-7", "10", "2.0", "1e3", "x", "", " ", "99999999999999999999"])
LISTS = st.lists(st.sampled_from(["0", "1", "2", "3", "-1", "", "1/8", "0.25", "x", "1/0", "nan", "inf", " 2 "]),
                 min_size=0, max_size=9).map(",".join)
CELLS = st.one_of(
    st.sampled_from(["0.2,0.3,0.2,0.3", ",".join(["1/8"] * 8), ",".join(["0.16666666666666666"] * 6),
                     "0.5,0.5", "1", "", "0.2,0.3,,0.2,0.3", "0.2,0.3,0.2,0.4", "-0.2,0.7,0.2,0.3"]),
    LISTS,
)
TEXT = st.text(alphabet="abc:0123456789-.,/ ", max_size=12)

VALUES = {
    "--arities": st.one_of(st.sampled_from(["2", "2,2", "3", "2,,2", "1", "0", "2,x"]), LISTS),
    "--cells": CELLS,
    "--N": st.one_of(st.sampled_from(["1", "2", "3", "5", "8", "0", "-3", "x", "1000000000000"]), INTEGERS),
    "--at": st.one_of(st.sampled_from(["0", "0,0", "1,0", "0,,0", "5"]), LISTS),
    "--order": st.sampled_from(["1", "2", "3", "0", "-1", "500", "x", "2.5"]),
    "--classes": st.sampled_from(["0,1", "1,0", "0,0", "0,5", "0,,1", "x"]),
    "--moments": st.one_of(st.sampled_from(["1,3,11", "1,0,1", "1,3,,11", "2,1", "1", "1,x", ""]), LISTS),
    "--support": st.one_of(st.sampled_from(["grid:0:6", "grid:6:0", "real", "interval:0:1", "finite:0,1,2",
                                            "grid:x", "bogus", ""]), TEXT),
    "--event": st.one_of(st.sampled_from(["gt:0", "ge:5", "between:1:3", "outside:3:1", "gt:x", "lt", ""]), TEXT),
    "--method": st.sampled_from(["lp", "closed-form", "series", "exact", "sampling", "nope", "", "all"]),
    "--estimator": st.sampled_from(["ge", "holdout", "cv", "loo", "nope"]),
    "--folds": st.sampled_from(["2", "3", "1", "0", "-2", "100", "x"]),
    "--test-size": st.sampled_from(["1", "2", "0", "-1", "100", "x"]),
    "--test-fraction": st.sampled_from(["0.5", "0", "1", "1.5", "-0.1", "nan", "x"]),
    "--backend": st.sampled_from(["exact", "montecarlo", "series", "bound:lp", "bound:all",
                                  "bound:exact", "bound:", "bound", "nope", ""]),
    "--seed": st.sampled_from(["0", "1", "-1", "x", "99999999999999999999999"]),
    "--draws": st.sampled_from(["0", "1", "5", "200", "-3", "x"]),
    "--ties": st.sampled_from(["random", "first", "nope"]),
    "--alpha": st.sampled_from(["0", "1", "1/2", "-1", "x", ""]),
    "--covariance": st.sampled_from(["exact", "paper", "nope"]),
    "--over": st.sampled_from(["folds", "holdout", "N", "nope"]),
    "--values": st.one_of(st.sampled_from(["2-4", "5-2", "2,,3", "loo", "0.5", "2-1000000000", "1.5", "x-y", ""]),
                          LISTS),
    "--methods": st.sampled_from(["lp", "closed-form", "series", "nope", "lp,,closed-form", "exact"]),
    "--a": st.sampled_from(["1", "3", "10", "0", "-5", "1000000000000", "x"]),
}

COMMANDS = {
    "moments": ["--arities", "--cells", "--N", "--at", "--order", "--classes"],
    "bound": ["--moments", "--support", "--event", "--method", "--arities", "--cells", "--N", "--at", "--order",
              "--seed", "--draws"],
    "estimate": ["--arities", "--cells", "--N", "--estimator", "--folds", "--test-size", "--test-fraction",
                 "--backend", "--seed", "--draws", "--ties", "--alpha", "--covariance"],
    "sweep": ["--arities", "--cells", "--N", "--over", "--values", "--estimator", "--folds", "--backend", "--seed",
              "--ties"],
    "compare": ["--N", "--order", "--methods", "--draws", "--seed"],
    "bird": ["--a"],
}
FLAGS = {"moments": ["--exact", "--central", "--json"], "bound": ["--json"], "estimate": ["--json"],
         "sweep": ["--json", "--no-progress"], "compare": ["--json"], "bird": ["--json", "--check"]}
# options whose large values mean long work: kept small (the guards against large ones are tested directly)
SMALL = {
    ("bound", "--order"): ["1", "2", "3", "0", "-1", "x"],
    ("bound", "--method"): ["lp", "closed-form", "series", "exact", "sampling", "nope", ""],
    ("bound", "--N"): ["1", "3", "5", "0", "-2", "x"],
    ("bound", "--draws"): ["1", "50", "0", "-3", "x"],
    ("sweep", "--backend"): ["exact", "montecarlo", "series", "bound:all", "nope"],
    ("estimate", "--N"): ["1", "2", "4", "6", "0", "-3", "x"],
    ("estimate", "--folds"): ["2", "3", "1", "0", "x", "100"],
    ("estimate", "--test-size"): ["1", "2", "0", "x", "100"],
    ("estimate", "--draws"): ["200", "0", "5", "x"],
    ("sweep", "--N"): ["2", "4", "6", "0", "-3", "x"],
    ("sweep", "--values"): ["2-3", "5-2", "2,,3", "loo", "0.5", "2-1000000000", "1.5", "x-y", "", "1,2", "3",
                            "1-3"],
    ("compare", "--N"): ["3", "4", "5,,6", "0", "-3", "x", "100000000", ""],
    ("compare", "--order"): ["1", "2", "0", "-1", "x"],
    ("compare", "--draws"): ["0", "20", "-3", "x"],
    ("moments", "--order"): ["1", "2", "3", "0", "-1", "500", "x", "2.5"],
    ("bird", "--a"): ["1", "3", "10", "0", "-5", "1000000000000", "x", "20"],
}


#: a valid invocation of each command (fast), which the examples mutate
BASE = {
    "moments": {"--arities": "2,2", "--cells": ",".join(["1/8"] * 8), "--N": "5", "--at": "0,0", "--order": "3"},
    "bound": {"--arities": "2,2", "--cells": ",".join(["1/8"] * 8), "--N": "5", "--at": "0,0", "--order": "2",
              "--method": "closed-form"},
    "estimate": {"--cells": "0.2,0.3,0.2,0.3", "--N": "4", "--estimator": "ge"},
    "sweep": {"--cells": "0.2,0.3,0.2,0.3", "--N": "4", "--over": "folds", "--values": "2-3", "--no-progress": None},
    "compare": {"--N": "4", "--order": "2", "--methods": "closed-form"},
    "bird": {"--a": "10"},
}


@st.composite
def invocations(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    options: dict[str, str | None] = dict(BASE[command])
    for name in draw(st.lists(st.sampled_from(COMMANDS[command]), max_size=3)):
        keep = ("--method", "--methods") + (("--N",) if command == "compare" else ())  # slow defaults
        if draw(st.booleans()) and name in options and name not in keep:
            del options[name]  # a missing option
            continue
        small = SMALL.get((command, name))
        options[name] = draw(st.sampled_from(small)) if small is not None else draw(VALUES[name])
    if options.get("--backend") == "montecarlo" and "--draws" not in options:
        options["--draws"] = "200"  # the default 10000 draws are exercised elsewhere
    args = [command]
    for name, value in options.items():
        args += [name] if value is None else [name, value]
    args += draw(st.lists(st.sampled_from(FLAGS[command]), max_size=2, unique=True))
    return args


@settings(max_examples=200, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(invocations())
def test_random_arguments_never_crash(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code in (0, 2), (args, res.exit_code, res.output, res.exception)
    assert "Traceback" not in res.output, (args, res.output)
    if res.exit_code == 2:
        errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1, (args, res.output)
        for internal in ("invalid literal", "Fraction(", "problem.pmf", "statistic_sampler", "NoneType"):
            assert internal not in res.output, (args, res.output)
