"""Real ``cross_validate`` with five scorers against the toolkit's Monte Carlo scores, 20,000 datasets per model.

For each of three models (an imbalanced one-binary-attribute model with class prior 0.2, a
three-valued attribute, two binary attributes), ``D`` ordered datasets of ``N`` i.i.d. points are
drawn and scored as a user does::

    cross_validate(CategoricalNB(alpha=1), X, y, cv=5,
                   scoring=["balanced_accuracy", "recall", "precision", "f1", "roc_auc"])

(``cv=5`` of a classifier is scikit-learn's ``StratifiedKFold(5)``; a fold whose scorer raises is
``nan``, ``error_score=nan``), and the pooled AUC
``roc_auc_score(y, cross_val_predict(CategoricalNB(alpha=1), X, y, cv=5, method="predict_proba")[:, 1])``.
A dataset's score is the mean of its fold scores (``nan`` when a fold is ``nan``).

The first ``--check`` datasets of every model go through ``cross_validate`` and ``cross_val_predict``
themselves. Every dataset (those too) goes through the cached route: scikit-learn's ``StratifiedKFold``
splits it, ``CategoricalNB`` is fitted once per distinct training count table, and the five scorers
are called together, as ``cross_validate`` calls them (``check_scoring(clf, scoring=[...],
raise_exc=False)``, one multimetric scorer), once per distinct value of what they read of the fitted
classifier on the fold: the fitted classes, the predictions of every input, the order of the
probabilities of class 1 over the inputs (the AUC depends only on that order and the counts), and
the fold's test count table. The two routes are asserted equal on the checked datasets.

The multimetric scorer caches the predictions of its first scorer (``balanced_accuracy``, which has
no ``pos_label``) for the next ones, so ``recall``, ``precision`` and ``f1`` skip the check that class 1
was fitted: a fold trained without class 1 scores 0 where ``cross_val_score(..., scoring="recall")``
gives ``nan``. The toolkit is asked for the same semantics (``multimetric=True``).

The toolkit: :func:`~momentbound.estimators.scoring.monte_carlo_scores` with ``StratifiedKFold(5)``
and ``NaiveBayes("sklearn", 1)`` (``CategoricalNB(alpha=1)``). For every scorer: ``z`` of the mean and
of the variance of the dataset scores (over the datasets whose every fold has a score), and of the
fraction of datasets with an undefined fold (pooled two-proportion ``z``).

Run: PYTHONPATH=src .venv/bin/python benchmarks/witness_scorers.py [--datasets 20000] [--check 300]
Writes benchmarks/witness_scorers.json (through a temporary file, then renamed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

#: the five scorers of ``cross_validate(..., scoring=[...])``
SCORERS = ("balanced_accuracy", "recall", "precision", "f1", "roc_auc")
#: ``roc_auc_score`` of the pooled ``cross_val_predict`` probabilities
POOLED = "roc_auc_pooled"
FOLDS = 5


def models() -> dict[str, tuple[str, Any, int]]:
    """key -> (label, model, N)."""
    from momentbound import CellModel

    return {
        "binary-imbalanced": ("one binary attribute, class prior 0.2", CellModel((2,), ["1/2", "1/20", "3/10", "3/20"]), 40),
        "three-valued": ("one three-valued attribute, class prior 0.3",
                         CellModel((3,), ["3/10", "1/20", "1/4", "1/10", "3/20", "3/20"]), 30),
        "two-attributes": ("two binary attributes, class prior 0.25",
                           CellModel((2, 2), ["3/10", "3/100", "3/20", "1/20", "1/5", "7/100", "1/10", "1/10"]), 24),
    }


def _classifier(model: Any) -> Any:
    from sklearn.naive_bayes import CategoricalNB

    return CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities))


class CachedScores:
    """scikit-learn's scores of the folds of one model, each fit and scorer call made once per
    distinct value of what it depends on (module docstring)."""

    def __init__(self, model: Any) -> None:
        from sklearn.metrics import check_scoring

        self.model = model
        self.K = model.n_classes
        self.inputs = np.array(list(np.ndindex(*model.arities)))
        self.scorer = check_scoring(_classifier(model), scoring=list(SCORERS), raise_exc=False)
        self.fits: dict[bytes, tuple[Any, tuple[int, ...], bytes, bytes, np.ndarray]] = {}
        self.values: dict[tuple, dict[str, float]] = {}

    def _fit(self, X: np.ndarray, y: np.ndarray, seq: np.ndarray, train: np.ndarray) -> tuple:
        C = len(self.model.cells)
        key = np.bincount(seq[train], minlength=C).tobytes()
        if key not in self.fits:
            clf = _classifier(self.model).fit(X[train], y[train])
            proba = clf.predict_proba(self.inputs)  # (inputs, fitted classes), row by row as on any rows
            full = np.zeros((len(self.inputs), self.K))
            full[:, clf.classes_] = proba  # cross_val_predict's columns: 0 for a class absent from training
            order = np.unique(full[:, 1], return_inverse=True)[1].astype(np.int64)
            self.fits[key] = (clf, tuple(int(c) for c in clf.classes_), clf.predict(self.inputs).tobytes(),
                              order.tobytes(), full[:, 1])
        return self.fits[key]

    def folds(self, X: np.ndarray, y: np.ndarray, seq: np.ndarray, splits: list) -> tuple[dict[str, list], float]:
        """Every scorer's fold scores and the pooled AUC of one dataset."""
        from sklearn.metrics import roc_auc_score

        C = len(self.model.cells)
        out: dict[str, list] = {name: [] for name in SCORERS}
        pooled = np.empty(len(y))
        for train, test in splits:
            clf, classes, predictions, order, proba1 = self._fit(X, y, seq, train)
            key = (classes, predictions, order, np.bincount(seq[test], minlength=C).tobytes())
            if key not in self.values:  # a scorer that raised gives its traceback: cross_validate's error_score=nan
                self.values[key] = {name: v if isinstance(v, float) else math.nan
                                    for name, v in self.scorer(clf, X[test], y[test]).items()}
            for name in SCORERS:
                out[name].append(self.values[key][name])
            pooled[test] = proba1[seq[test] // self.K]
        try:
            auc = float(roc_auc_score(y, pooled)) if len(np.unique(y)) == 2 else math.nan
        except ValueError:
            auc = math.nan
        return out, auc


def sklearn_run(model: Any, N: int, datasets: int, *, seed: int, check: int) -> dict[str, Any]:
    """``datasets`` datasets through the cached route; the first ``check`` also through
    ``cross_validate`` and ``cross_val_predict``, asserted equal."""
    from sklearn import config_context
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_validate

    K, C = model.n_classes, len(model.cells)
    p = np.array([float(c) for c in model.cells])
    rng = np.random.default_rng(seed)
    cache = CachedScores(model)
    scores: dict[str, list[float]] = {name: [] for name in (*SCORERS, POOLED)}
    refused = 0
    real_seconds = cached_seconds = 0.0
    start = time.perf_counter()
    while len(scores[POOLED]) < datasets:
        seq = rng.choice(C, size=N, p=p)
        X, y = cache.inputs[seq // K], seq % K
        t = time.perf_counter()
        with warnings.catch_warnings(), config_context(skip_parameter_validation=True):
            warnings.simplefilter("ignore")
            try:
                splits = list(StratifiedKFold(FOLDS).split(X, y))
            except ValueError:  # scikit-learn cannot split it: the toolkit conditions on splittable data
                refused += 1
                continue
            folds, pooled = cache.folds(X, y, seq, splits)
        cached_seconds += time.perf_counter() - t
        if len(scores[POOLED]) < check:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                real = cross_validate(_classifier(model), X, y, cv=FOLDS, scoring=list(SCORERS))
                proba = cross_val_predict(_classifier(model), X, y, cv=FOLDS, method="predict_proba")
                try:
                    real_pooled = float(roc_auc_score(y, proba[:, 1])) if proba.shape[1] == 2 else math.nan
                except ValueError:
                    real_pooled = math.nan
            real_seconds += time.perf_counter() - t
            for name in SCORERS:
                np.testing.assert_allclose(real[f"test_{name}"], folds[name], rtol=0, atol=1e-12, err_msg=name)
            np.testing.assert_allclose(real_pooled, pooled, rtol=0, atol=1e-12, err_msg=POOLED)
        for name in SCORERS:
            scores[name].append(float(np.mean(folds[name])))
        scores[POOLED].append(pooled)
    return {"scores": {k: np.array(v) for k, v in scores.items()}, "refused": refused, "checked": min(check, datasets),
            "cross_validate_seconds_per_dataset": real_seconds / max(1, min(check, datasets)),
            "cached_seconds_per_dataset": cached_seconds / datasets, "fits": len(cache.fits),
            "scorer_calls": len(cache.values), "seconds": time.perf_counter() - start}


def toolkit_run(model: Any, N: int, draws: int, *, seed: int) -> dict[str, Any]:
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators.scoring import monte_carlo_scores
    from momentbound.splitters import StratifiedKFold

    seeds = np.random.SeedSequence(seed).spawn(len(SCORERS) + 1)
    return {name: monte_carlo_scores(model, N, StratifiedKFold(FOLDS), scoring=name, classifier=NaiveBayes("sklearn", 1),
                                     draws=draws, rng=np.random.default_rng(s), max_seconds=None,
                                     multimetric=True)
            for name, s in zip((*SCORERS, POOLED), seeds)}


def _se(interval: Any) -> float:
    """The standard error of a 95% Monte Carlo interval (its half-width over the normal quantile)."""
    return (interval.upper - interval.lower) / 2 / 1.959964


def _z(a: float, se_a: float, b: float, se_b: float) -> float:
    se = math.hypot(se_a, se_b)
    return 0.0 if se == 0 and a == b else (a - b) / se


def _z_fraction(q1: float, n1: int, q2: float, n2: int) -> float:
    """The pooled two-proportion z (the plug-in form divides by 0 for a fraction observed as 0)."""
    pooled = (q1 * n1 + q2 * n2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.0 if se == 0 else (q1 - q2) / se


def compare(sim: dict[str, Any], ref: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per scorer: scikit-learn's and the toolkit's mean, variance and undefined fraction, with z."""
    out = {}
    for name, r in ref.items():
        x = sim["scores"][name]
        ok = ~np.isnan(x)
        xs = x[ok]
        n = xs.size
        dev = (xs - xs.mean()) ** 2
        q = 1 - ok.mean()
        out[name] = {
            "mean": {"sklearn": float(xs.mean()), "sklearn_se": float(xs.std(ddof=1) / math.sqrt(n)),
                     "toolkit": float(r.mean.estimate), "toolkit_se": _se(r.mean),
                     "z": _z(xs.mean(), xs.std(ddof=1) / math.sqrt(n), r.mean.estimate, _se(r.mean))},
            "variance": {"sklearn": float(xs.var(ddof=1)), "sklearn_se": float(dev.std(ddof=1) / math.sqrt(n)),
                         "toolkit": float(r.variance.estimate), "toolkit_se": _se(r.variance),
                         "z": _z(xs.var(ddof=1), dev.std(ddof=1) / math.sqrt(n), r.variance.estimate,
                                 _se(r.variance))},
            "undefined": {"sklearn": float(q), "toolkit": float(r.undefined.estimate),
                          "z": _z_fraction(q, x.size, r.undefined.estimate, r.draws)},
            "population_mean": float(r.ge_full_mean.estimate), "toolkit_draws": r.draws,
            "toolkit_seconds": r.seconds,
        }
    return out


def markdown(doc: dict[str, Any]) -> str:
    """The RESULTS.md table of a run's document: one row per model and scorer, every z."""
    lines = ["| model | N | scorer | mean sklearn / toolkit (z) | variance sklearn / toolkit (z) | "
             "undefined sklearn / toolkit (z) | population mean |", "|---|---|---|---|---|---|---|"]
    for m in doc["models"].values():
        for name, c in m["scorers"].items():
            mean, var, und = c["mean"], c["variance"], c["undefined"]
            lines.append(f"| {m['label']} | {m['N']} | `{name}` | {mean['sklearn']:.4f} / {mean['toolkit']:.4f} "
                         f"({mean['z']:+.2f}) | {var['sklearn']:.5f} / {var['toolkit']:.5f} ({var['z']:+.2f}) | "
                         f"{und['sklearn']:.4f} / {und['toolkit']:.4f} ({und['z']:+.2f}) | {c['population_mean']:.4f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=20_000, help="datasets per model (default 20000)")
    ap.add_argument("--check", type=int, default=300, help="datasets also through cross_validate (default 300)")
    ap.add_argument("--draws", type=int, default=100_000, help="toolkit Monte Carlo draws (default 100000)")
    ap.add_argument("--models", default=None, help="comma-separated model keys (default all)")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("witness_scorers.json"))
    ap.add_argument("--table", action="store_true", help="only print the markdown table of the --out document")
    args = ap.parse_args()
    if args.table:
        print(markdown(json.loads(args.out.read_text())))
        return
    chosen = models() if args.models is None else {k: models()[k] for k in args.models.split(",")}
    doc: dict[str, Any] = {"machine": f"{platform.node()} ({platform.processor() or platform.machine()}, "
                                      f"{os.cpu_count()} cores)",
                           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "datasets": args.datasets,
                           "checked": args.check, "toolkit_draws": args.draws, "models": {}}
    for i, (key, (label, model, N)) in enumerate(chosen.items()):
        sim = sklearn_run(model, N, args.datasets, seed=100 + i, check=args.check)
        ref = toolkit_run(model, N, args.draws, seed=200 + i)
        rows = compare(sim, ref)
        doc["models"][key] = {"label": label, "N": N, "cells": [str(c) for c in model.cells],
                              "refused": sim["refused"], "fits": sim["fits"], "scorer_calls": sim["scorer_calls"],
                              "sklearn_seconds": sim["seconds"],
                              "cross_validate_seconds_per_dataset": sim["cross_validate_seconds_per_dataset"],
                              "cached_seconds_per_dataset": sim["cached_seconds_per_dataset"], "scorers": rows}
        print(f"{label}, N = {N}: {args.datasets} datasets in {sim['seconds']:.0f} s (cross_validate "
              f"{1e3 * sim['cross_validate_seconds_per_dataset']:.1f} ms per dataset, cached route "
              f"{1e3 * sim['cached_seconds_per_dataset']:.2f} ms; {sim['fits']} fits, {sim['scorer_calls']} scorer calls)")
        for name, c in rows.items():
            print(f"  {name:18} mean {c['mean']['sklearn']:.4f} vs {c['mean']['toolkit']:.4f} (z {c['mean']['z']:+.2f}); "
                  f"variance {c['variance']['sklearn']:.5f} vs {c['variance']['toolkit']:.5f} (z {c['variance']['z']:+.2f}); "
                  f"undefined {c['undefined']['sklearn']:.4f} vs {c['undefined']['toolkit']:.4f} "
                  f"(z {c['undefined']['z']:+.2f}); population {c['population_mean']:.4f}", flush=True)
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    tmp.replace(args.out)
    print(f"wrote {args.out}")
    print(markdown(doc))


if __name__ == "__main__":
    main()
