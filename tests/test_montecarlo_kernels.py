"""Compiled naive Bayes kernels, control variates and progress of the Monte Carlo backend.

Witnesses: the numpy reference ``NaiveBayes.predict_tables`` (itself checked against exact
rational predictions), the exact engine ``estimator_moments(..., backend="exact")`` for coverage
(intervals at 95% must cover the exact values at a rate consistent with 95% over 200 seeds), and
the known zero means of the control variates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from momentbound.estimators._nb_kernel import Layout, cv_draws, n_controls, predict_tables
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import GE, KFold, estimator_moments
from momentbound.estimators import simulation as mc
from momentbound.estimators.montecarlo import TableModel, monte_carlo_moments
from momentbound.model.cells import CellModel
from momentbound.model.paper import independent_1d_model, second_nb_model

ONE_D = independent_1d_model("2/5")
TWO_BY_TWO = second_nb_model()
THREE_CLASS = CellModel((2,), ["1/10", "1/5", "1/5", "1/4", "1/10", "3/20"], 3)
THREE_ATTR = CellModel((2, 3, 2), [f"{i + 1}/300" for i in range(24)])  # sums to 1


def _draws(m, sizes, R, seed):
    v = len(sizes)
    E, C, ges, Z = np.empty((R, v)), np.empty((R, v)), np.empty((R, v)), np.empty((R, n_controls(m.p.size)))
    T = np.empty((R, m.p.size), dtype=np.int64)
    cv_draws(m.layout, m.p, m.w, sizes, np.random.default_rng(seed), E, C, ges, Z, T)
    return E, C, ges, Z, T


def _layout(model, clf):
    a = clf.alpha_exact
    return Layout(tuple(model.arities), model.n_classes, a.numerator, a.denominator, clf.ties)


@pytest.mark.parametrize("model", [ONE_D, TWO_BY_TWO, THREE_CLASS, THREE_ATTR], ids=["1d", "2x2", "3class", "2x3x2"])
@pytest.mark.parametrize("clf", [NaiveBayes(), NaiveBayes(ties="first"), NaiveBayes(alpha=1),
                                 NaiveBayes(ties="first", alpha="1/2")], ids=["random", "first", "random-a1", "first-a12"])
def test_compiled_predictions_equal_reference(model, clf):
    rng = np.random.default_rng(5)
    n = model.n_cells
    # small counts (many ties and absent classes) and larger ones
    tables = np.concatenate([rng.integers(0, 3, size=(300, n)), rng.integers(0, 40, size=(300, n)),
                             np.zeros((1, n), dtype=np.int64)])
    got = predict_tables(_layout(model, clf), tables)
    want = clf.predict_tables(model, tables)
    assert got.shape == want.shape
    assert np.array_equal(got, want)


@pytest.mark.parametrize("model,clf,N,v", [(ONE_D, NaiveBayes(), 8, 3), (THREE_CLASS, NaiveBayes(ties="first", alpha=1), 9, 3),
                                           (TWO_BY_TWO, NaiveBayes(ties="first"), 9, 4)])
def test_controls_have_mean_zero_and_errors_match(model, clf, N, v):
    m = TableModel(model, clf)
    sizes = KFold(v).split(N).fold_sizes
    R = 100_000
    E, C, ges, Z, _T = _draws(m, sizes, R, 11)
    sd = Z.std(axis=0)
    used = sd > 0
    assert used.sum() >= 5  # not vacuous
    t = np.abs(Z.mean(axis=0)[used]) / (sd[used] / math.sqrt(R))
    assert t.max() < 5, t
    # per-draw errors: E[E_i] = s_i E[GE_{N - s_i}] (exact engine; its ge_mean is for folds of N // v)
    ge = float(estimator_moments(model, N - N // v, GE(), classifier=clf).mean)
    checked = 0
    for i, s in enumerate(sizes):
        if s == N // v:
            assert abs(E[:, i].mean() / s - ge) < 5 * E[:, i].std() / s / math.sqrt(R)
            assert abs(ges[:, i].mean() - ge) < 5 * ges[:, i].std() / math.sqrt(R)
            checked += 1
    assert checked
    # the coin variance is zero with ties="first"
    if clf.ties == "first":
        assert not C.any()


@pytest.mark.parametrize("model,clf,N,v", [(ONE_D, NaiveBayes(ties="first", alpha=1), 8, 3),
                                           (ONE_D, NaiveBayes(ties="first"), 10, 5),  # folds of 2
                                           (TWO_BY_TWO, NaiveBayes(), 6, 3)], ids=["1d-first", "1d-small-folds", "2x2-random"])
def test_interval_coverage_is_95_percent(model, clf, N, v):
    exact = estimator_moments(model, N, KFold(v), classifier=clf)
    names = ("mean", "variance", "fold_variance", "fold_covariance")
    hits = dict.fromkeys(names, 0)
    seeds = 200
    for seed in range(seeds):
        r = monte_carlo_moments(model, N, KFold(v), classifier=clf, draws=1000, confidence=0.95,
                                rng=np.random.default_rng(seed))
        for name in names:
            iv = getattr(r, name)
            hits[name] += iv.lower <= float(getattr(exact, name)) <= iv.upper
    # Binomial(200, 0.95): mean 190, sd 3.1; both tails beyond these bounds have probability < 0.001
    for name in names:
        assert 180 <= hits[name] <= 198, (name, hits)


def test_controls_are_used_and_narrow_the_variance_interval():
    """Same draws with and without the controls: the controlled interval is much narrower."""
    model, N, clf = TWO_BY_TWO, 100, NaiveBayes(ties="first")
    m = TableModel(model, clf)
    sizes = KFold(10).split(N).fold_sizes
    E, C, _ges, Z, _T = _draws(m, sizes, 20_000, 3)
    plain = mc._Stats(20_000, 0.95)
    ce = E.sum(axis=1) / N
    a = plain.variance(ce)
    b = plain.with_controls(Z).variance(ce)
    assert (b.upper - b.lower) < 0.6 * (a.upper - a.lower)
    assert abs(a.estimate - b.estimate) < (a.upper - a.lower)


def test_fallback_when_keys_do_not_fit_int64():
    clf = NaiveBayes(alpha=0.1)  # exact binary value of 0.1: a huge denominator
    m = TableModel(ONE_D, clf)
    assert not m.compiled(8)
    r = monte_carlo_moments(ONE_D, 8, KFold(2), classifier=clf, draws=3000, confidence=0.9999,
                            rng=np.random.default_rng(1))
    e = estimator_moments(ONE_D, 8, KFold(2), classifier=clf)
    assert r.variance.lower <= float(e.variance) <= r.variance.upper


def test_progress_true_writes_only_to_stderr(capsys):
    monte_carlo_moments(ONE_D, 8, KFold(2), draws=6000, rng=np.random.default_rng(0), progress=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert "6,000 draws, about" in err and "MB" in err


def test_progress_is_off_when_stderr_is_not_a_terminal(capsys):
    monte_carlo_moments(ONE_D, 8, KFold(2), draws=6000, rng=np.random.default_rng(0))
    monte_carlo_moments(ONE_D, 8, KFold(2), draws=6000, rng=np.random.default_rng(0), progress=False)
    assert capsys.readouterr() == ("", "")


def test_bad_progress_and_memory_refusal():
    with pytest.raises(InvalidArgument, match="progress"):
        monte_carlo_moments(ONE_D, 8, KFold(2), draws=200, rng=np.random.default_rng(0), progress="yes")
    with pytest.raises(InvalidArgument, match=r"GiB.*use draws <= [\d,]+"):
        monte_carlo_moments(ONE_D, 8, KFold(2), draws=10**12, rng=np.random.default_rng(0), max_seconds=None)
    fits = mc.MAX_MEMORY // (mc.memory_estimate(ONE_D.n_cells, 2, 10**6) / 10**6)
    assert mc.memory_estimate(ONE_D.n_cells, 2, int(fits * 0.9)) <= mc.MAX_MEMORY


def test_cli_json_stays_one_document_while_progress_goes_to_stderr(cli_in_process):
    """In this process, fds 1 and 2 included (``estimate`` runs as a real process in
    test_cli_subprocess.py): `estimate --backend montecarlo --progress --json` prints exactly one JSON
    document on stdout, and the time and memory estimate and the bar on stderr."""
    import json

    base = ["estimate", "--cells", "1/5,3/10,1/5,3/10", "--N", "8", "--folds", "2"]
    done = cli_in_process([*base, "--backend", "montecarlo", "--draws", "6000", "--seed", "3", "--progress", "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)  # one document, nothing else on stdout
    assert doc["backend"] == "montecarlo" and doc["draws"] == 6000
    assert "draws, about" in done.stderr and "MB" in done.stderr
    assert "draws, about" not in done.stdout
    # the flag is refused where it does nothing
    bad = cli_in_process([*base, "--backend", "sampling", "--progress"])
    assert bad.returncode == 2 and "--backend exact, montecarlo and auto" in bad.stderr


def test_projection_law_equals_enumeration():
    """The FFT law of ``u = coef . T`` against all count tables (exact multinomial probabilities)."""
    from fractions import Fraction

    from momentbound.model.enumeration import count_tables, multinomial_pmf

    probs = [Fraction(1, 10), Fraction(3, 10), Fraction(0), Fraction(1, 5), Fraction(2, 5)]
    coef = np.array([-3, 5, 64, 0, -64])
    N = 7
    want: dict[int, Fraction] = {}
    for t in count_tables(len(probs), N):
        u = int(np.dot(coef, t))
        want[u] = want.get(u, Fraction(0)) + multinomial_pmf(t, probs)
    lo, pmf = mc.projection_law(coef, np.array([float(x) for x in probs]), N)
    assert lo == N * coef.min() and pmf.size == N * (coef.max() - coef.min()) + 1
    got = {lo + k: x for k, x in enumerate(pmf) if x > 1e-13}
    assert set(got) == {u for u, x in want.items() if x > 0}
    assert max(abs(got[u] - float(want[u])) for u in got) < 1e-14


def test_projection_bins_have_their_exact_probabilities():
    """Bins built on one set of draws: their exact probabilities match the frequencies on fresh
    draws (the indicator controls have mean zero), and the table controls narrow Var(CE)."""
    model, N, clf = TWO_BY_TWO, 100, NaiveBayes(ties="first")
    m = TableModel(model, clf)
    sizes = KFold(10).split(N).fold_sizes
    R = 40_000
    E, _C, _ges, Z, T = _draws(m, sizes, R, 21)
    ce = E.sum(axis=1) / N
    bins = mc._projection_bins(T, N, m.p, ce, slice(0, R // 2))
    assert bins is not None and bins.prob.size >= 10
    fresh = np.bincount(bins.index[R // 2:], minlength=bins.prob.size + 1)[1:] / (R - R // 2)
    se = np.sqrt(bins.prob * (1 - bins.prob) / (R - R // 2))
    assert np.max(np.abs(fresh - bins.prob) / se) < 5
    plain = mc._Stats(R, 0.95).with_controls(Z)
    both = mc._Stats(R, 0.95).with_controls(Z, mc._table_controls(T, N, m.p, ce))
    a, b = plain.variance(ce), both.variance(ce)
    assert (b.upper - b.lower) < 0.9 * (a.upper - a.lower)
    assert abs(a.estimate - b.estimate) < (a.upper - a.lower)


def test_psd_inverse_fits_like_the_pseudo_inverse():
    """Dependent and constant columns, scales 1e-3..1e3: same least-squares fit as numpy's pinv."""
    from momentbound.estimators._nb_kernel import psd_inverse

    rng = np.random.default_rng(4)
    A = rng.random((500, 12)) * np.logspace(-3, 3, 12)
    A[:, 5] = A[:, 1] + 2 * A[:, 7]
    A[:, 9] = 0.0
    y = rng.random(500)
    G = A.T @ A
    fit = A @ (psd_inverse(G) @ (A.T @ y))
    want = A @ (np.linalg.pinv(G) @ (A.T @ y))
    assert np.abs(fit - want).max() < 1e-6 * np.abs(want).max()
    full = rng.random((50, 4))
    assert np.allclose(psd_inverse(full.T @ full), np.linalg.inv(full.T @ full))


def test_alias_tables_hold_every_count_table_with_its_multinomial_probability():
    """The alias table of the fold tables: every table of n points once, and the probability the
    alias draw gives each (``prob[j] / M`` plus the rejected mass of the slots aliased to it) equals
    the exact multinomial probability (rational arithmetic)."""
    from fractions import Fraction

    from momentbound.estimators._nb_kernel import alias_tables
    from momentbound.model.enumeration import count_tables, multinomial_pmf

    probs = [Fraction(1, 10), Fraction(3, 10), Fraction(0), Fraction(1, 5), Fraction(2, 5)]
    n = 6
    tables, prob, alias = alias_tables(tuple(float(x) for x in probs), n)
    want = {tuple(int(c) for c in t): multinomial_pmf(t, probs) for t in count_tables(len(probs), n)}
    M = len(want)
    assert tables.shape == (M, len(probs)) and len({tuple(t) for t in tables.tolist()}) == M
    drawn = prob / M
    np.add.at(drawn, alias, (1.0 - prob) / M)
    for row, x in zip(tables.tolist(), drawn):
        assert abs(x - float(want[tuple(row)])) < 1e-15
    # a table with a point in the empty cell is never drawn
    assert all(x == 0.0 for row, x in zip(tables.tolist(), drawn) if row[2] > 0)


def test_alias_drawn_folds_have_the_multinomial_law():
    """Folds drawn through the alias table (small folds) against the exact cell moments of
    Multinomial(s, p): the full-data table's mean and covariance, within 5 standard errors."""
    from momentbound.estimators._nb_kernel import aliased

    m = TableModel(TWO_BY_TWO, NaiveBayes(ties="first"))
    sizes = (3, 3, 2)
    assert all(aliased(s, m.p.size) for s in sizes)
    R = 100_000
    *_, T = _draws(m, sizes, R, 9)
    N, p = sum(sizes), m.p
    mean_se = np.sqrt(N * p * (1 - p) / R)
    assert np.max(np.abs(T.mean(axis=0) - N * p) / mean_se) < 5
    cov = np.cov(T.T)
    want = N * (np.diag(p) - np.outer(p, p))
    assert np.max(np.abs(cov - want)) < 5 * np.sqrt(2 * N**2 / R) * p.max()


@pytest.mark.slow
def test_interval_coverage_three_classes_with_all_controls():
    """Three classes, one 3-valued attribute (the benchmark's three-class model), ties 'first': at
    2,000 draws the kernel's controls and the projection bins are all in use, the folds of 3 points
    come from the alias table, and the intervals cover the exact moments at a rate consistent with 95%
    over 200 seeds."""
    from momentbound.estimators._nb_kernel import aliased

    model = CellModel((3,), ["3/20", "1/10", "2/25", "1/10", "3/20", "2/25", "2/25", "1/10", "4/25"])
    clf, N, v, draws = NaiveBayes(ties="first"), 9, 3, 2000
    assert draws >= mc._CONTROL_DRAWS * (n_controls(9) + mc.n_table_controls(9) + 1)
    assert aliased(3, 9)
    exact = estimator_moments(model, N, KFold(v), classifier=clf)
    names = ("mean", "variance", "fold_variance", "fold_covariance")
    hits = dict.fromkeys(names, 0)
    for seed in range(200):
        r = monte_carlo_moments(model, N, KFold(v), classifier=clf, draws=draws, rng=np.random.default_rng(seed))
        for name in names:
            iv = getattr(r, name)
            hits[name] += iv.lower <= float(getattr(exact, name)) <= iv.upper
    for name in names:  # Binomial(200, 0.95): both tails beyond these bounds have probability < 0.001
        assert 180 <= hits[name] <= 198, (name, hits)
