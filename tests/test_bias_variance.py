"""The 0-1 bias-variance decompositions (Domingos 2000, Kohavi & Wolpert 1996) against two
witnesses: the toolkit's own E[GE_n] (the terms must add up to it exactly, in Fractions) and an
independent brute force that enumerates every count table of the training set (multinomial law),
fits each classifier with a scorer written here, and decomposes the resulting prediction laws
from the definitions."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from momentbound.classifiers import HistogramRule, MajorityRule, NaiveBayes
from momentbound.errors import InvalidArgument, InvalidModel, UnknownMethod, WorkLimitExceeded
from momentbound.estimators import GE, estimator_moments
from momentbound.estimators.bias_variance import DECOMPOSITIONS, bias_variance, bias_variance_curve
from momentbound.model import CellModel

#: two binary attributes, two classes; naive Bayes is biased at input (1, 1) (interaction)
TWO = CellModel((2, 2), ["1/5", "1/20", "1/20", "1/5", "1/20", "1/5", "3/20", "1/10"])
#: one attribute with 3 values, three classes, one input of probability 0
THREE = CellModel((3,), ["1/4", "1/6", "1/12", "1/8", "1/4", "1/8", "0", "0", "0"], 3)
#: one attribute with 2 values, three classes, with exact ties in P[Y | X = x]
TIED = CellModel((2,), ["1/6", "1/6", "1/6", "1/4", "1/8", "1/8"], 3)

CLASSIFIERS = [NaiveBayes("random", 0), NaiveBayes("sklearn", 1), NaiveBayes("first", "1/2"), HistogramRule("random"),
               HistogramRule("first"), MajorityRule("random")]


# ----------------------------------------------------------------------------- the sum is E[GE_n]
@pytest.mark.parametrize("clf", CLASSIFIERS, ids=lambda c: c.describe())
@pytest.mark.parametrize("model", [TWO, THREE, TIED], ids=["2x2-K2", "3-K3", "tied-K3"])
def test_terms_sum_to_expected_ge_exactly(model: CellModel, clf) -> None:
    n = 5
    expected = estimator_moments(model, n, GE(), classifier=clf).mean
    assert isinstance(expected, Fraction)
    for name in DECOMPOSITIONS:
        r = bias_variance(model, n, classifier=clf, decomposition=name)
        assert r.exact and r.decomposition == name
        assert r.expected_error == expected
        assert r.noise_term + r.bias + r.variance_term == expected
        for row in r.inputs:
            assert row.loss == row.c1 * row.noise + row.bias + row.c2 * row.variance
            assert isinstance(row.loss, Fraction)
        if name == "domingos":
            assert r.variance_term == r.unbiased_variance - r.biased_variance
        else:
            assert r.noise_term == r.noise and r.variance_term == r.variance and r.unbiased_variance is None


def test_two_class_coefficients_are_domingos_theorem() -> None:
    """For two classes c1 = 2 P[pred = y*] - 1 and c2 = +1 (unbiased) or -1 (biased)."""
    r = bias_variance(TWO, 8, classifier=NaiveBayes("first", 0))
    assert r.bias > 0  # (1, 1) is biased
    for row in r.inputs:
        assert row.c1 == 2 * row.predictions[row.optimal] - 1
        assert row.c2 == (-1 if row.bias else 1)
    assert r.biased_variance == sum(row.weight * row.bias * row.variance for row in r.inputs)


def test_zero_mass_inputs_are_left_out_and_table_has_every_column() -> None:
    r = bias_variance(THREE, 4, classifier=NaiveBayes("first", 1))
    assert [row.x for row in r.inputs] == [(0,), (1,)]
    table = r.table()
    assert list(table["x"]) == [(0,), (1,)]
    assert {"p_0", "p_1", "p_2", "q_0", "q_1", "q_2", "c1", "c2", "optimal", "main"} <= set(table.columns)
    assert sum(table["weight"]) == 1


def test_as_decomposition_reuses_the_laws() -> None:
    d = bias_variance(TWO, 6, classifier=HistogramRule())
    k = bias_variance(TWO, 6, classifier=HistogramRule(), decomposition="kohavi-wolpert")
    assert d.as_decomposition("kohavi-wolpert") == k
    assert k.as_decomposition("domingos") == d


def test_float_model_gives_floats_that_still_add_up() -> None:
    model = TWO.to_float()
    r = bias_variance(model, 30, classifier=NaiveBayes("first", 0))
    exact = bias_variance(TWO, 30, classifier=NaiveBayes("first", 0))
    assert not r.exact and isinstance(r.expected_error, float)
    assert r.expected_error == pytest.approx(float(estimator_moments(TWO, 30, GE(), classifier=NaiveBayes("first", 0)).mean),
                                             abs=1e-12)
    assert r.noise_term + r.bias + r.variance_term == pytest.approx(r.expected_error, abs=1e-14)
    assert r.variance == pytest.approx(float(exact.variance), abs=1e-12)


def test_series_backend_approximates_the_exact_terms() -> None:
    import warnings

    from momentbound.bounds.series import SeriesWarning

    clf = NaiveBayes("random", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeriesWarning)  # clipped tails of the expansion, reported elsewhere
        approx = bias_variance(TWO, 60, classifier=clf, backend="series")
    exact = bias_variance(TWO, 60, classifier=clf)
    assert approx.backend == "series" and not approx.exact
    for name in ("expected_error", "noise_term", "bias", "variance", "variance_term"):
        assert getattr(approx, name) == pytest.approx(float(getattr(exact, name)), abs=2e-3), name


def test_curve_over_sizes_and_alphas() -> None:
    rs = bias_variance_curve(TWO, (3, 5), classifier=NaiveBayes("first"), alphas=(0, "1/2"))
    assert [(r.n, r.alpha) for r in rs] == [(3, 0), (5, 0), (3, Fraction(1, 2)), (5, Fraction(1, 2))]
    assert rs[3] == bias_variance(TWO, 5, classifier=NaiveBayes("first", "1/2"))
    assert rs[0].totals()["n"] == 3 and set(rs[0].totals()) >= {"bias", "variance", "noise_term", "variance_term"}


def test_public_names_and_docstring_examples() -> None:
    import doctest
    import importlib

    import momentbound

    module = importlib.import_module("momentbound.estimators.bias_variance")

    assert momentbound.bias_variance is bias_variance and "BiasVariance" in momentbound.__all__
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 2


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: bias_variance(TWO, 3, decomposition="squared"), InvalidArgument, "decomposition must be one of"),
        (lambda: bias_variance(TWO, -1), InvalidArgument, "n must be a non-negative integer"),
        (lambda: bias_variance(TWO, 2.5), InvalidArgument, "n must be"),
        (lambda: bias_variance(TWO, 10**8), InvalidArgument, "n must be at most"),
        (lambda: bias_variance("model", 3), InvalidModel, "model must be a momentbound.CellModel"),
        (lambda: bias_variance(TWO, 3, backend="sampling"), InvalidArgument, "returns probability intervals"),
        (lambda: bias_variance(TWO, 3, backend="nope"), UnknownMethod, "unknown backend"),
        (lambda: bias_variance_curve(TWO, (), classifier=NaiveBayes()), InvalidArgument, "at least one"),
        (lambda: bias_variance_curve(TWO, (3,), classifier=HistogramRule(), alphas=(1,)), InvalidArgument,
         "alphas needs a classifier with a smoothing alpha"),
        (lambda: bias_variance_curve(TWO, (3,), alphas=()), InvalidArgument, "alphas must hold"),
        (lambda: bias_variance_curve(TWO, (3,), alphas=(-1,)), InvalidArgument, "alpha must be >= 0"),
        (lambda: bias_variance(TWO, 2000), WorkLimitExceeded, r"at n = 2000 would take about .*max_seconds=None"),
        (lambda: bias_variance_curve(TWO, (300, 400), max_seconds=1), WorkLimitExceeded,
         r"at n = 300, 400 would take about"),
    ],
)
def test_refusals_name_the_argument(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


# ----------------------------------------------------------------------------- brute force
def _tables(n_cells: int, n: int):
    """Every count table of ``n`` points in ``n_cells`` cells (stars and bars)."""
    for bars in itertools.combinations(range(n + n_cells - 1), n_cells - 1):
        edges = (-1, *bars, n + n_cells - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(n_cells))


def _multinomial(counts, probs) -> Fraction:
    out = Fraction(math.factorial(sum(counts)))
    for c, p in zip(counts, probs):
        out *= Fraction(p) ** c / math.factorial(c)
    return out


def _predict(model: CellModel, counts, x, clf) -> list[Fraction]:
    """The law of the prediction at ``x`` of the classifier fitted on ``counts`` (scorer written here)."""
    K = model.n_classes
    inputs = list(model.inputs())
    cell = {(z, k): counts[i * K + k] for i, z in enumerate(inputs) for k in range(K)}
    Nk = [sum(cell[z, k] for z in inputs) for k in range(K)]
    total = sum(Nk)
    if isinstance(clf, NaiveBayes):
        a = clf.alpha_exact
        scores = []
        for k in range(K):
            if Nk[k] == 0:
                scores.append(Fraction(0))
                continue
            s = Fraction(Nk[k], total)
            for j, arity in enumerate(model.arities):
                agree = sum(cell[z, k] for z in inputs if z[j] == x[j])
                s *= (agree + a) / (Nk[k] + a * arity)
            scores.append(s)
    elif isinstance(clf, HistogramRule):
        scores = [Fraction(cell[x, k]) for k in range(K)]
    else:  # MajorityRule
        scores = [Fraction(v) for v in Nk]
    if clf.ties == "random":
        top = max(scores)
        winners = [k for k in range(K) if scores[k] == top]
    else:  # "first": the lowest-index class present in the training data among the best
        present = [k for k in range(K) if Nk[k] > 0]
        if not present:
            winners = [0]
        else:
            top = max(scores[k] for k in present)
            winners = [min(k for k in present if scores[k] == top)]
    return [Fraction(int(k in winners), len(winners)) for k in range(K)]


def _laws(model: CellModel, n: int, clf) -> dict:
    """``{x: law of the prediction at x}`` over every count table of ``n`` points."""
    K = model.n_classes
    probs = model.cells
    inputs = [x for x in model.inputs() if sum(model.p(x, k) for k in range(K)) > 0]
    laws = {x: [Fraction(0)] * K for x in inputs}
    for counts in _tables(model.n_cells, n):
        w = _multinomial(counts, probs)
        if w == 0:
            continue
        for x in inputs:
            for k, g in enumerate(_predict(model, counts, x, clf)):
                laws[x][k] += w * g
    return laws


def _brute(model: CellModel, laws: dict, decomposition: str) -> dict:
    """``{x: (P[X = x], law, loss, noise, bias, variance)}`` from the definitions."""
    K = model.n_classes
    rows = {}
    for x in laws:
        px = sum(model.p(x, k) for k in range(K))
        q = [model.p(x, k) / px for k in range(K)]
        p = laws[x]
        loss = sum(p[k] * (1 - q[k]) for k in range(K))  # P[pred != Y] with Y independent of pred
        if decomposition == "kohavi-wolpert":
            noise = (1 - sum(v * v for v in q)) / 2
            bias = sum((q[k] - p[k]) ** 2 for k in range(K)) / 2
            var = (1 - sum(v * v for v in p)) / 2
        else:
            best = {k for k in range(K) if q[k] == max(q)}
            modes = {k for k in range(K) if p[k] == max(p)}
            star = mode = min(best & modes) if best & modes else None
            if star is None:
                star, mode = min(best), min(modes)
            noise, bias, var = 1 - q[star], Fraction(int(mode != star)), 1 - p[mode]
        rows[x] = (px, p, loss, noise, bias, var)
    return rows


@pytest.mark.parametrize(
    ("model", "n", "clf"),
    [
        (TWO, 6, NaiveBayes("random", 0)),
        (TWO, 6, NaiveBayes("first", 1)),
        (TWO, 5, HistogramRule("random")),
        (TWO, 5, MajorityRule("first")),
        (THREE, 5, NaiveBayes("first", "1/2")),
        (TIED, 5, NaiveBayes("random", 0)),
        (TIED, 4, HistogramRule("first")),
    ],
    ids=lambda v: v.describe() if hasattr(v, "describe") else str(v) if isinstance(v, int) else None,
)
def test_every_term_matches_the_enumeration_of_count_tables(model, n, clf) -> None:
    laws = _laws(model, n, clf)
    for decomposition in DECOMPOSITIONS:
        _compare(bias_variance(model, n, classifier=clf, decomposition=decomposition),
                 _brute(model, laws, decomposition))


def _compare(r, brute) -> None:
    assert [row.x for row in r.inputs] == list(brute)
    for row in r.inputs:
        px, p, loss, noise, bias, var = brute[row.x]
        assert (row.weight, list(row.predictions), row.loss) == (px, p, loss)
        assert (row.noise, row.bias, row.variance) == (noise, bias, var)
    assert r.expected_error == sum(v[0] * v[2] for v in brute.values())
    assert r.noise == sum(v[0] * v[3] for v in brute.values())
    assert r.bias == sum(v[0] * v[4] for v in brute.values())
    assert r.variance == sum(v[0] * v[5] for v in brute.values())
