"""KFold against StratifiedKFold: how far the moments of the cross-validation error differ.

scikit-learn's ``cross_val_score(clf, X, y, cv=v)`` splits a classifier's data with
``StratifiedKFold(v)``, not ``KFold(v)``. For each of three one-attribute models (the paper's
independent model, prior 0.4; the paper's Fig. 1 model with prior 0.3 and correlation 0.5; a
three-class model with a three-valued input) this study computes the exact ``E[CE]`` and
``Var(CE)`` of both splitters against the number of folds, for naive Bayes with ``alpha = 1`` and
ties broken towards the first class (what ``CategoricalNB`` does).

Why they differ (docs/estimators.md, "KFold or StratifiedKFold?"): stratification fixes each
fold's class composition given the class counts, which removes the variance of the fold class
proportions, and with every class present in every training set the classifier never meets a
class it has not seen. The column ``kfold_train_missing_class`` is the probability that a
``KFold`` training set of the largest size lacks some class (a stratified training set never
does when every class has at least ``v`` members).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from momentbound.guard import block_seconds
from momentbound.studies._common import Progress, check_int_grid, check_positive_int, grid_map, label, new_figure
from momentbound.studies.claims import fmt
from momentbound.studies.result import ClaimCheck, CurveSource, StudyResult, Verdict

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from momentbound.model import CellModel

__all__ = ["stratified_study", "stratified_frame", "stratified_models", "missing_class_probability"]


def stratified_models() -> "tuple[tuple[str, CellModel], ...]":
    """The study's models: ``(label, model)`` for the two paper models and the three-class model."""
    from momentbound.model import CellModel, fig1_model, independent_1d_model

    third, twelfth = Fraction(1, 6), Fraction(1, 12)
    three = CellModel((3,), [third if x == y else twelfth for x in range(3) for y in range(3)], 3)
    return (
        ("paper, independent (prior 2/5)", independent_1d_model("2/5")),
        ("paper Fig. 1 (prior 3/10, c = 1/2)", fig1_model("3/10", "1/2")),
        ("three classes, 3-valued input", three),
    )


def missing_class_probability(priors: Sequence[Fraction], n: int) -> Fraction:
    """``P[some class is absent from n i.i.d. points]`` by inclusion-exclusion over the classes."""
    from itertools import combinations

    K = len(priors)
    total = Fraction(0)
    for r in range(1, K):
        for subset in combinations(range(K), r):
            total += (-1) ** (r + 1) * (1 - sum(priors[k] for k in subset)) ** n
    return total


def stratified_frame(
    model: "CellModel",
    N: int,
    folds: Sequence[int],
    *,
    model_label: str = "",
    progress: Progress | None = None,
) -> "pd.DataFrame":
    """Exact ``KFold(v)`` and ``StratifiedKFold(v)`` moments of one model: one row per ``v``.

    Columns: ``model``, ``N``, ``folds``, ``kfold_mean``, ``kfold_variance``,
    ``stratified_mean``, ``stratified_variance``, ``mean_difference`` (KFold minus stratified),
    ``variance_ratio`` (stratified over KFold), ``kfold_train_missing_class``.
    """
    import pandas as pd

    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import estimator_moments, make_engine
    from momentbound.splitters import KFold, StratifiedKFold

    N = check_positive_int(N, name="N", minimum=4)
    grid = check_int_grid(folds, name="folds", minimum=2, maximum=N)
    classifier = NaiveBayes(ties="first", alpha=1)
    engine = make_engine(model, classifier=classifier, backend="exact")
    priors = [Fraction(model.prior(k)) for k in range(model.n_classes)]

    def one(v: int) -> tuple[Any, Any]:
        # pooled errors over N, as the brute-force witnesses; the study's default folds divide N (no difference)
        plain = estimator_moments(model, N, KFold(v, average="pooled"), classifier=classifier, engine=engine,
                                  max_seconds=block_seconds())
        strat = estimator_moments(model, N, StratifiedKFold(v, average="pooled"), classifier=classifier,
                                  max_seconds=block_seconds())
        return plain, strat

    rows = []
    for v, (plain, strat) in zip(grid, grid_map(one, grid, progress)):
        km, kv = float(plain.mean), float(plain.variance)
        sm, sv = float(strat.mean), float(strat.variance)
        train = N - N // v
        rows.append({
            "model": model_label, "N": N, "folds": v,
            "kfold_mean": km, "kfold_variance": kv, "stratified_mean": sm, "stratified_variance": sv,
            "mean_difference": km - sm, "variance_ratio": sv / kv if kv > 0 else float("nan"),
            "kfold_train_missing_class": float(missing_class_probability(priors, train)),
        })
    return pd.DataFrame(rows)


def _claims(df: "pd.DataFrame") -> tuple[ClaimCheck, ...]:
    lower_var = df["stratified_variance"] < df["kfold_variance"]
    worst = df.loc[df["variance_ratio"].idxmax()]
    var_check = ClaimCheck(
        "KFold vs StratifiedKFold",
        "stratification lowers the variance of CE on every model and number of folds",
        Verdict.REPRODUCED if bool(lower_var.all()) else Verdict.NOT_REPRODUCED,
        f"Var(stratified)/Var(KFold) from {fmt(float(df['variance_ratio'].min()))} to "
        f"{fmt(float(worst['variance_ratio']))} (largest: {worst['model']}, v = {int(worst['folds'])}); "
        f"lower in {int(lower_var.sum())} of {len(df)} rows",
    )
    lower_mean = df["mean_difference"] > 0
    mean_check = ClaimCheck(
        "KFold vs StratifiedKFold",
        "stratification lowers the expected CV error on every model and number of folds",
        Verdict.REPRODUCED if bool(lower_mean.all()) else Verdict.NOT_REPRODUCED,
        f"E[CE_KFold] - E[CE_stratified] from {fmt(float(df['mean_difference'].min()))} to "
        f"{fmt(float(df['mean_difference'].max()))}; positive in {int(lower_mean.sum())} of {len(df)} rows",
    )
    by_model = df.groupby("model", sort=False)["mean_difference"].mean()
    three = [m for m in by_model.index if m.startswith("three")]
    checks = [var_check, mean_check]
    if three:
        biggest = str(by_model.idxmax())
        checks.append(ClaimCheck(
            "KFold vs StratifiedKFold",
            "the mean difference is largest on the three-class model",
            Verdict.REPRODUCED if biggest == three[0] else Verdict.NOT_REPRODUCED,
            "average E[CE_KFold] - E[CE_stratified] over the folds: "
            + "; ".join(f"{m}: {fmt(float(d))}" for m, d in by_model.items()),
        ))
    return tuple(checks)


def stratified_study(
    *,
    N: int = 30,
    folds: Sequence[int] = (2, 3, 5, 10),
    three_class_N: int = 12,
    three_class_folds: Sequence[int] = (2, 3, 4, 6),
    progress: Progress | None = None,
) -> StudyResult:
    """KFold against StratifiedKFold: exact ``E[CE]`` and ``Var(CE)`` against the folds.

    Parameters
    ----------
    N, folds:
        Dataset size and fold counts for the two paper models (two classes).
    three_class_N, three_class_folds:
        The same for the three-class model (its exact ``KFold`` cross terms grow fastest).
    progress:
        Optional ``progress(done, total)`` callback (one step per model).

    Returns
    -------
    StudyResult
        Data columns as :func:`stratified_frame` (all models stacked); claim checks on the
        variance and the mean.

    Examples
    --------
    >>> res = stratified_study(N=12, folds=(2, 3), three_class_N=8, three_class_folds=(2, 4))  # doctest: +SKIP
    >>> [c.verdict.value for c in res.checks]  # doctest: +SKIP
    """
    import pandas as pd

    start = time.perf_counter()
    models = stratified_models()
    frames = []
    for i, (name, model) in enumerate(models):
        n, grid = (three_class_N, three_class_folds) if model.n_classes == 3 else (N, folds)
        frames.append(stratified_frame(model, n, grid, model_label=name))
        if progress is not None:
            progress(i + 1, len(models))
    df = pd.concat(frames, ignore_index=True)
    seconds = time.perf_counter() - start
    title = (f"KFold vs StratifiedKFold, naive Bayes (alpha = 1, ties first, as CategoricalNB): "
             f"N = {N} (two classes), N = {three_class_N} (three classes), backend = exact")
    fig, axes = new_figure(2, len(models), title)
    for j, (name, _) in enumerate(models):
        part = df[df["model"] == name]
        n = int(part["N"].iloc[0])
        top, bottom = axes[j], axes[len(models) + j]
        top.plot(part["folds"], part["kfold_mean"], "o-", ms=4, label="KFold")
        top.plot(part["folds"], part["stratified_mean"], "s--", ms=4, label="StratifiedKFold")
        label(top, title=f"E[CE]: {name}, N = {n}", xlabel="folds v", ylabel="E[CE]")
        bottom.plot(part["folds"], part["kfold_variance"], "o-", ms=4, label="KFold")
        bottom.plot(part["folds"], part["stratified_variance"], "s--", ms=4, label="StratifiedKFold")
        label(bottom, title=f"Var(CE): {name}, N = {n}", xlabel="folds v", ylabel="Var(CE)")
    sources = tuple(CurveSource(c, "exact", "exact") for c in
                    ("kfold_mean", "kfold_variance", "stratified_mean", "stratified_variance"))
    return StudyResult(
        name="stratified",
        title=title,
        parameters=(("N", N), ("folds", tuple(int(v) for v in folds)), ("three_class_N", three_class_N),
                    ("three_class_folds", tuple(int(v) for v in three_class_folds)),
                    ("classifier", "naive Bayes, alpha 1, ties first"), ("backend", "exact")),
        data=df,
        figure=fig,
        sources=sources,
        checks=_claims(df),
        seconds=seconds,
        notes=("for i.i.d. data, shuffle=True and shuffle=False give StratifiedKFold the same law",),
    )
