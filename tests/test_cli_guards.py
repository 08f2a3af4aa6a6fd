"""Input handling of the commands and the API: parsing that never guesses, guards before work,
complete messages, one entry point per job, and every argument checked before any output."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.cli import main
from momentbound.errors import InvalidArgument, InvalidModel
from momentbound.model import CellModel, equal_cells_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments import raw_moments

C4 = "0.2,0.3,0.2,0.3"
C8 = ",".join(["1/8"] * 8)
C16 = ",".join(["1/16"] * 16)
SIXTHS = ",".join(["0.16666666666666666"] * 6)
INTERNALS = ("Traceback", "invalid literal", "Fraction(", "problem.pmf", "statistic_sampler", "Error:  ")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def refused(res, *needles: str) -> str:
    """A user error: exit 2, nothing but one 'Error:' line about it, no Python internals."""
    assert res.exit_code == 2, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, res.output
    for bad in INTERNALS:
        assert bad not in res.output, res.output
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


# ------------------------------------------------------------------ parsing that never guesses
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("bound", "--moments", "1,3,,11", "--support", "grid:0:6"), "--moments has an empty entry at position 3 of 4"),
        (("moments", "--arities", "2,,2", "--cells", C16, "--N", "5", "--at", "0,0,0"),
         "--arities has an empty entry at position 2 of 3"),
        (("moments", "--arities", "2,2,", "--cells", C8, "--N", "5", "--at", "0,0"),
         "--arities has an empty entry at position 3 of 3"),
        (("estimate", "--cells", "0.2,0.3,,0.2,0.3", "--N", "5", "--estimator", "ge"),
         "--cells has an empty entry at position 3 of 5"),
        (("compare", "--N", "10,,100", "--order", "2", "--methods", "lp"), "--N has an empty entry at position 2"),
        (("sweep", "--cells", C4, "--N", "10", "--over", "folds", "--values", "2,,5"),
         "--values has an empty entry at position 2"),
    ],
)
def test_empty_list_entry_is_an_error_naming_its_position(args, needle):
    refused(run(*args), needle)


def test_empty_cells_says_cells_is_empty():
    refused(run("estimate", "--cells", "", "--N", "5", "--estimator", "ge"), "--cells is empty")
    refused(run("moments", "--arities", "2", "--cells", " ", "--N", "5", "--at", "0"), "--cells is empty")
    with pytest.raises(InvalidModel, match="cells is empty"):
        CellModel((2,), [])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("moments", "--arities", "2,x", "--cells", C8, "--N", "5", "--at", "0,0"), "--arities entry 2 must be an integer, got 'x'"),
        (("moments", "--arities", "2,2", "--cells", C8, "--N", "5", "--at", "0,1.5"), "--at entry 2 must be an integer"),
        (("bound", "--moments", "1,x", "--support", "real"), "--moments must be a number"),
        (("compare", "--N", "10,2.0", "--methods", "lp"), "--N entry 2 must be an integer"),
        (("moments", "--arities", "2,2", "--cells", C8, "--N", "5", "--at", "0,2"), "--at[1] must be in 0..1, got 2"),
    ],
)
def test_integer_messages_show_no_python_internals(args, needle):
    refused(run(*args), needle)


def test_rounded_decimal_cells_are_accepted_alike_by_cli_and_api():
    floats = CellModel((3,), [1 / 6] * 6)
    strings = CellModel((3,), ["0.16666666666666666"] * 6)
    assert not strings.is_exact and strings.cells == floats.cells  # computed in floating point
    res = run("estimate", "--arities", "3", "--cells", SIXTHS, "--N", "6", "--estimator", "ge", "--json")
    assert res.exit_code == 0, res.output
    from momentbound.estimators import GE, estimator_moments

    assert json.loads(res.output)["mean"] == pytest.approx(float(estimator_moments(floats, 6, GE()).mean), abs=1e-15)
    # beyond the rounding tolerance both refuse, with the same message
    off = ["0.1666"] * 6
    with pytest.raises(InvalidModel, match="must sum to exactly 1, or within 1e-09"):
        CellModel((3,), off)
    refused(run("estimate", "--arities", "3", "--cells", ",".join(off), "--N", "6", "--estimator", "ge"),
            "must sum to exactly 1, or within 1e-09")
    # exact cells that sum to 1 stay exact
    assert CellModel((3,), ["1/6"] * 6).is_exact


def test_numpy_arrays_numpy_integers_and_decimal_are_accepted():
    m = equal_cells_model((2, 2))
    z_tuple = naive_bayes_statistic(m, (0, 1))
    z_array = naive_bayes_statistic(m, np.array([0, 1]))
    assert z_array == z_tuple
    want = raw_moments(z_tuple, m, 7, 3).values
    assert raw_moments(z_tuple, m, np.int64(7), np.int64(3)).values == want
    dec = CellModel(np.array([2, 2]), [Decimal("0.125")] * 8)
    assert dec.is_exact and dec == m
    p_tuple = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    p_array = MomentProblem(np.array([1, 3, 11]), Support.grid(0, 6), Event.ge(5))
    p_decimal = MomentProblem((Decimal(1), Decimal("3.0"), Decimal(11)), Support.grid(0, 6), Event.ge(5))
    assert p_array.moments == p_tuple.moments == p_decimal.moments == (1, 3, 11)
    assert bound(p_array, "lp").exact_upper == Fraction(1, 3)
    with pytest.raises(InvalidArgument, match="x\\[0\\] must be an integer attribute value, got 0.5"):
        naive_bayes_statistic(m, np.array([0.5, 1.0]))
    with pytest.raises(InvalidArgument, match="order must be a non-negative integer, got 3.0"):
        raw_moments(z_tuple, m, 7, 3.0)


def test_estimator_arguments_accept_numpy_integers_and_decimal():
    from momentbound.estimators import GE, HoldOut, KFold, estimator_moments
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.model import independent_1d_model

    m = independent_1d_model("2/5")
    assert estimator_moments(m, np.int64(6), KFold(np.int64(2))).mean == estimator_moments(m, 6, KFold(2)).mean
    half = estimator_moments(m, 6, HoldOut(test_fraction=0.5)).mean
    assert estimator_moments(m, 6, HoldOut(test_fraction=Decimal("0.5"))).mean == half
    assert estimator_moments(m, 6, HoldOut(test_fraction=Fraction(1, 2))).mean == half
    smooth = estimator_moments(m, 6, GE(), classifier=NaiveBayes(alpha="1/2")).mean
    assert estimator_moments(m, 6, GE(), classifier=NaiveBayes(alpha=Decimal("0.5"))).mean == smooth


# ------------------------------------------------------------------ guards before work
def test_float_overflow_of_a_moment_says_so_and_offers_exact():
    args = ("moments", "--arities", "2,2,2", "--cells", C16, "--N", "10000000", "--at", "0,0,0", "--order", "12")
    refused(run(*args), "moment 12 is about 1e360, beyond the float range", "--exact")
    res = run(*args, "--exact", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["moments"][12] is None  # beyond the float range; the exact value is kept
    m12 = Fraction(doc["moments_exact"][12])
    assert 10**359 < m12 < 10**361
    z = naive_bayes_statistic(equal_cells_model((2, 2, 2)), (0, 0, 0))
    with pytest.raises(InvalidArgument, match="beyond the float range.*exact=True"):
        raw_moments(z, equal_cells_model((2, 2, 2)), 10**7, 12, exact=False)


@pytest.mark.parametrize("arities", [(2,), (2, 2), (3, 2, 2)])
def test_support_bound_in_closed_form(arities):
    m = equal_cells_model(arities)
    z = naive_bayes_statistic(m, (0,) * len(arities))
    d = len(arities)
    for N in range(0, 40):
        best = max((N - n) ** (d - 1) * n**d for n in range(N + 1))
        assert z.support(N) == (-best, best)
    # a trillion points: no loop over n <= N (the value is the closed form's)
    N = 10**12
    n0 = d * N // (2 * d - 1)
    assert z.support(N)[1] == max((N - n) ** (d - 1) * n**d for n in (n0 - 1, n0, n0 + 1, n0 + 2) if n <= N)


def test_moments_at_a_trillion_points():
    res = run("moments", "--arities", "2,2", "--cells", C8, "--N", "1000000000000", "--at", "0,0", "--order", "4",
              "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["moments"][0] == 1 and doc["support"][1] == naive_bayes_statistic(equal_cells_model((2, 2)), (0, 0)).support(10**12)[1]


def test_moment_order_beyond_the_work_limit_names_a_feasible_order():
    text = refused(run("moments", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--order", "200"),
                   "use a smaller order (at most")
    best = int(text.split("at most ")[1].split(" ")[0])
    assert 10 < best < 200


@pytest.mark.parametrize(
    "args",
    [
        ("estimate", "--cells", C4, "--N", "10", "--estimator", "ge", "--backend", "montecarlo", "--seed", "-1"),
        ("compare", "--N", "10", "--order", "2", "--methods", "sampling", "--seed", "-1"),
        ("sweep", "--cells", C4, "--N", "10", "--over", "folds", "--values", "2", "--backend", "sampling", "--seed", "-3"),
        ("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--method", "sampling", "--seed", "-1"),
    ],
)
def test_negative_seed_is_refused_clearly(args):
    refused(run(*args), "must be an integer >= 0")


def test_negative_rng_in_the_api_is_refused_clearly():
    from momentbound.model.z_sampler import naive_bayes_sampler

    p = MomentProblem((1,), Support.grid(-147, 147), Event.gt(0),
                      statistic_sampler=naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0)))
    with pytest.raises(InvalidArgument, match="must be a non-negative integer, got -1"):
        bound(p, "sampling", rng=-1)
    assert bound(p, "sampling", rng=np.int64(5), draws=300).samples == 300


def test_seed_message_lists_montecarlo():
    refused(run("estimate", "--cells", C4, "--N", "10", "--estimator", "ge", "--seed", "1"),
            "--seed only applies to --backend sampling, montecarlo or auto")


def test_compare_refuses_sizes_that_would_need_gigabytes():
    refused(run("compare", "--N", "100000000", "--order", "4", "--methods", "closed-form"), "above 5,000")
    from momentbound.studies.method_comparison import compare_methods

    with pytest.raises(InvalidArgument, match="above MAX_N"):
        compare_methods((10**8,), 4, methods=("closed-form",))


def test_sweep_ranges_are_checked_before_expanding():
    refused(run("sweep", "--cells", C4, "--N", "20", "--over", "folds", "--values", "2-1000000000"),
            "must be at most 20 at --N 20")
    refused(run("sweep", "--cells", C4, "--N", "20", "--over", "folds", "--values", "5-2"),
            "the range '5-2' is empty", "2-5")
    refused(run("sweep", "--cells", C4, "--over", "N", "--values", "1-5000"), "use a coarser sweep")
    refused(run("sweep", "--cells", C4, "--N", "20", "--over", "holdout", "--values", "1.5"), "share in (0, 1)")


def test_bird_refuses_ranges_beyond_its_search():
    refused(run("bird", "--a", "1000000000000"), "above 200,000,000", "smaller --a")
    refused(run("bird", "--a", "5000", "--check"), "GB", "drop --check")
    from momentbound.moments.bird import bird_exponent, bird_exponent_bruteforce

    with pytest.raises(InvalidArgument, match="too large"):
        bird_exponent(10**12)
    with pytest.raises(InvalidArgument, match="too large for the exhaustive search"):
        bird_exponent_bruteforce(5000)


def test_estimate_refuses_hopeless_exact_runs_and_points_to_montecarlo():
    refused(run("estimate", "--cells", C4, "--N", "10000000", "--estimator", "ge"), "montecarlo")
    cells = ",".join(["0.1", "0.15"] * 4)
    refused(run("estimate", "--arities", "2,2", "--cells", cells, "--N", "5000", "--estimator", "ge"),
            "would take about", "montecarlo")
    # the cheaper route it names works
    res = run("estimate", "--cells", C4, "--N", "10000000", "--estimator", "ge", "--backend", "montecarlo",
              "--seed", "1", "--draws", "300", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["mean_lower"] <= 0.4 + 1e-9


def test_montecarlo_refuses_hopeless_draws_times_folds():
    refused(run("estimate", "--cells", C4, "--N", "1000000", "--estimator", "loo", "--backend", "montecarlo",
                "--draws", "200"), "would take about", "fewer folds")
    from momentbound.estimators import LeaveOneOut
    from momentbound.estimators.montecarlo import monte_carlo_moments

    with pytest.raises(InvalidArgument, match="fewer draws"):
        monte_carlo_moments(CellModel((2,), C4.split(",")), 10**6, LeaveOneOut(), draws=200,
                            rng=np.random.default_rng(0))


def test_max_work_refusal_points_to_montecarlo():
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.probability.exact_backend import ExactBackend

    m = CellModel((2,), ["0.1", "0.2", "0.3", "0.15", "0.05", "0.2"], 3)  # three classes: generic engine
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        ExactBackend(max_work=10).pair(m, 30, (0,), (1,), NaiveBayes())


# ------------------------------------------------------------------ one entry point per job
def test_estimator_moments_runs_the_montecarlo_backend():
    from momentbound.estimators import GE, KFold, estimator_moments
    from momentbound.estimators.montecarlo import monte_carlo_moments
    from momentbound.model import independent_1d_model

    m = independent_1d_model("2/5")
    a = estimator_moments(m, 10, KFold(2), backend="montecarlo", draws=400, rng=7)
    b = monte_carlo_moments(m, 10, KFold(2), draws=400, rng=np.random.default_rng(7))
    assert a.backend == "montecarlo" and a.mean == b.mean and a.variance == b.variance
    exact = estimator_moments(m, 10, KFold(2))
    assert a.mean.lower - 0.05 < float(exact.mean) < a.mean.upper + 0.05
    with pytest.raises(InvalidArgument, match="only apply to backend='montecarlo'"):
        estimator_moments(m, 10, GE(), draws=500)
    with pytest.raises(InvalidArgument, match="draws must be an integer >= 200"):
        estimator_moments(m, 10, GE(), backend="montecarlo", draws=5, rng=0)


def test_unknown_backend_lists_every_choice():
    text = refused(run("estimate", "--cells", C4, "--N", "10", "--estimator", "ge", "--backend", "nope"),
                   "unknown backend 'nope'")
    for name in ("exact", "sampling", "bound:<method>", "series", "montecarlo"):
        assert name in text


@pytest.mark.parametrize(
    ("backend", "needle"),
    [("bound:all", "'all' runs every method"), ("bound:exact", "use backend 'exact'"),
     ("bound:sampling", "use backend 'sampling'")],
)
def test_bound_backend_messages_explain_the_choice(backend, needle):
    text = refused(run("estimate", "--cells", C4, "--N", "10", "--estimator", "ge", "--backend", backend), needle)
    assert "lp, lp-dual" in text and "(or 'all')" not in text


def test_model_form_runs_every_method_like_the_papers_tables():
    from momentbound.bounds import available_methods

    res = run("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--order", "4", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["method"]: r for r in json.loads(res.output)["results"]}
    plain = {m for m in available_methods() if m not in ("sos", "shape-closed-form", "shape-grid")}  # shapes/boxes only
    assert plain <= set(rows)  # sampling and exact rows included
    exact = rows["exact"]["lower"]
    assert rows["sampling"]["lower"] <= exact <= rows["sampling"]["upper"]
    for name in ("lp", "sdp", "prekopa"):
        assert rows[name]["lower"] - 1e-9 <= exact <= rows[name]["upper"] + 1e-9
    for method in ("exact", "sampling"):
        one = run("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--method", method, "--json")
        assert one.exit_code == 0, one.output
        assert json.loads(one.output)["results"][0]["method"] == method
    # seeded: the same rows twice
    again = run("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--method", "sampling",
                "--seed", "3", "--json")
    twice = run("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--method", "sampling",
                "--seed", "3", "--json")
    assert json.loads(again.output)["results"][0]["lower"] == json.loads(twice.output)["results"][0]["lower"]


def test_model_form_exact_for_other_events_matches_the_law():
    from momentbound.exact.zlaw import z_distribution

    res = run("bound", "--arities", "2,2", "--cells", C8, "--N", "6", "--at", "0,0", "--event", "between:1:5",
              "--method", "exact", "--json")
    assert res.exit_code == 0, res.output
    law = z_distribution(equal_cells_model((2, 2)), 6, (0, 0))
    assert json.loads(res.output)["exact"] == pytest.approx(float(sum(p for v, p in law.pmf() if 1 <= v <= 5)), abs=1e-15)
    refused(run("bound", "--arities", "2,2", "--cells", C8, "--N", "1000", "--at", "0,0", "--event", "between:1:5",
                "--method", "exact"), "sign events")
    refused(run("bound", "--arities", "2,2", "--cells", C8, "--N", "1000000", "--at", "0,0", "--method", "exact"),
            "would take minutes")
    big = run("bound", "--arities", "2,2", "--cells", C8, "--N", "1000000", "--at", "0,0", "--method", "closed-form",
              "--json")
    assert big.exit_code == 0 and json.loads(big.output)["exact"] is None, big.output


def test_moments_form_explains_exact_and_sampling_and_rejects_order():
    for method in ("exact", "sampling"):
        refused(run("bound", "--moments", "1,3,11", "--support", "grid:0:6", "--method", method),
                "use the model form", "methods that apply: lp")
    text = [line for line in run("bound", "--moments", "1,3,11", "--support", "grid:0:6", "--order", "3").output.splitlines()
            if line.startswith("Error:")]
    assert text and "--order belongs to the model form" in text[0]


# ------------------------------------------------------------------ eager validation
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("compare", "--N", "10", "--order", "2", "--methods", "lp", "--draws", "0"), "--draws must be a positive integer"),
        (("compare", "--N", "10", "--order", "2", "--methods", "lp,nope"), "unknown method 'nope'"),
        (("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--method", "nope"), "unknown method"),
        (("bound", "--arities", "2,2", "--cells", C8, "--N", "10", "--at", "0,0", "--draws", "0"), "--draws must be"),
        (("estimate", "--cells", C4, "--N", "10", "--estimator", "cv", "--folds", "20"), "ImpossibleSplit"),
        (("estimate", "--cells", C4, "--N", "10", "--estimator", "ge", "--backend", "montecarlo", "--draws", "5"),
         "--draws must be at least 200"),
        (("sweep", "--cells", C4, "--over", "N", "--values", "2-5", "--estimator", "cv", "--folds", "4"), "ImpossibleSplit"),
        (("moments", "--arities", "2,2", "--cells", C8, "--N", "-1", "--at", "0,0"), "--N must be a non-negative"),
        (("bird", "--a", "0"), "positive integer"),
    ],
)
def test_every_argument_is_checked_before_any_output(args, needle):
    res = run(*args)
    refused(res, needle)
    assert res.output.startswith("Error:") or res.output.startswith("Usage:"), res.output
