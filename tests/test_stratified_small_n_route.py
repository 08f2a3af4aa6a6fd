"""StratifiedKFold at small N (three classes, two binary attributes): which arithmetic each term of one
``estimator_moments`` call takes, and the work guard pricing the terms of that arithmetic.

``arithmetic="auto"`` is rational for exact models up to ``rational_max_n = 12`` points. One call at
``N`` points decides once, from ``N``: the class-count route at ``N`` and the ``E[GE_n]``,
``E[GE_n^2]`` terms at the training size ``n < N`` take the same arithmetic (docs/mathematics.md).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import WorkLimitExceeded
from momentbound.estimators import estimator_moments
from momentbound.estimators.from_predictions import make_engine
from momentbound.exact.binary_states import applies as binary_applies
from momentbound.exact.stratified import auto_arithmetic, stratified_seconds
from momentbound.probability.exact_backend import ExactBackend, call_sample_size
from momentbound.splitters.stratified import StratifiedKFold, engine_arithmetic

#: the model of benchmarks/bench_stratified_multiattr.py (cells (x1, x2, class), priors 0.35, 0.32, 0.33)
MODEL = CellModel((2, 2), ["3/20", "1/25", "1/50", "1/20", "1/10", "1/25",
                           "1/20", "1/10", "1/25", "1/10", "2/25", "23/100"])
CLF = NaiveBayes("sklearn", 1)


def test_one_arithmetic_per_call_from_its_size():
    backend = ExactBackend()
    assert backend.mode(MODEL, 12) == "rational"  # a training set of 12 points on its own
    with call_sample_size(15):  # ... inside a call at N = 15
        assert backend.mode(MODEL, 12) == "float"
        with call_sample_size(10):  # a nested call never lowers the size
            assert backend.mode(MODEL, 12) == "float"
    assert backend.mode(MODEL, 12) == "rational"
    with call_sample_size(12):
        assert backend.mode(MODEL, 10) == "rational"
    assert ExactBackend(arithmetic="rational").mode(MODEL, 12) == "rational"


@pytest.mark.parametrize("N, mode", [(12, "rational"), (13, "float"), (15, "float"), (20, "float")])
def test_route_and_arithmetic_of_the_call(N, mode):
    engine = make_engine(MODEL, classifier=CLF)
    assert binary_applies(MODEL.arities)  # the state route of the class-count terms
    assert auto_arithmetic(MODEL, N) == engine_arithmetic(engine, N) == mode  # dry run and real run agree
    n = N - N // 5  # the training size of StratifiedKFold(5)
    with call_sample_size(N):
        assert engine.backend.mode(MODEL, n) == mode


def test_training_size_terms_follow_the_call_at_n15(monkeypatch):
    """N = 15: the training sets have 12 points; their GE terms are float like the route at N = 15 (on
    the per-class states, which compute float terms only)."""
    from momentbound.exact import predictions

    modes = set()
    single, pair = predictions.single_probabilities, predictions.pair_probabilities

    def spy_single(model, n, x, clf, mode, *args, **kwargs):
        modes.add((n, mode))
        return single(model, n, x, clf, mode, *args, **kwargs)

    def spy_pair(model, n, x, y, clf, mode, *args, **kwargs):
        modes.add((n, mode))
        return pair(model, n, x, y, clf, mode, *args, **kwargs)

    monkeypatch.setattr(predictions, "single_probabilities", spy_single)
    monkeypatch.setattr(predictions, "pair_probabilities", spy_pair)
    states = ExactBackend._state_pairs  # float terms on binary attributes take the per-class states

    def spy_states(self, model, n, clf):
        modes.add((n, "float"))
        return states(self, model, n, clf)

    monkeypatch.setattr(ExactBackend, "_state_pairs", spy_states)
    r = estimator_moments(MODEL, 15, StratifiedKFold(5), classifier=CLF)
    assert modes and modes <= {(12, "float")}
    assert isinstance(r.mean, float) and isinstance(r.ge_mean, float)


def test_guard_prices_the_rational_ge_terms():
    """N = 12 is rational throughout: the GE terms at n = 10 (about 40 s of CPU) are in the estimate, so a
    limit the class-count route alone (about 9 s) would pass refuses before any work."""
    backend = ExactBackend()
    assert backend.estimated_seconds(MODEL, 10, CLF) > 20
    with call_sample_size(15):  # the same terms in float arithmetic are cheap
        assert backend.estimated_seconds(MODEL, 12, CLF) < 5
    assert float(stratified_seconds(MODEL, 12, 5)) < 20
    with pytest.raises(WorkLimitExceeded, match="max_seconds"):
        estimator_moments(MODEL, 12, StratifiedKFold(5), classifier=CLF, max_seconds=20)


def test_float_and_rational_calls_agree_at_small_n():
    """N = 7: the auto call (rational throughout) against the float backend, term by term."""
    exact = estimator_moments(MODEL, 7, StratifiedKFold(5), classifier=CLF)
    assert isinstance(exact.mean, Fraction) and isinstance(exact.ge_mean, Fraction)
    flt = estimator_moments(MODEL, 7, StratifiedKFold(5), classifier=CLF, backend=ExactBackend(arithmetic="float"))
    assert isinstance(flt.mean, float) and isinstance(flt.ge_mean, float)
    for name in ("mean", "variance", "ge_mean", "ge_variance"):
        assert float(getattr(flt, name)) == pytest.approx(float(getattr(exact, name)), rel=1e-12, abs=1e-15)
