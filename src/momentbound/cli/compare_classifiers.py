"""`momentbound compare-classifiers`: actual size or power of McNemar's test and the 5x2cv t test for
two naive Bayes classifiers on different attributes."""

from __future__ import annotations

import click

from momentbound.cli._data import data_options
from momentbound.cli._common import (UserError, build_model, emit_json, fmt, library_errors, limit_options, parse_int_list,
                                     print_table, seed_generator)
from momentbound.cli.coverage import interval_fields, model_and_run_options


@click.command("compare-classifiers")
@data_options
@model_and_run_options
@click.option("--test", "test", type=click.Choice(["mcnemar", "5x2cv"]), required=True, help="The test.")
@click.option("--attributes-a", required=True, help="Attribute indices classifier A uses, e.g. 0.")
@click.option("--attributes-b", required=True, help="Attribute indices classifier B uses, e.g. 1.")
@click.option("--test-size", type=int, default=None, help="McNemar: points of the shared hold-out set.")
@click.option("--variant", type=click.Choice(["exact", "chi2"]), default="exact", show_default=True,
              help="McNemar: exact binomial or continuity-corrected chi-square.")
@click.option("--level", type=float, default=0.05, show_default=True, help="Significance level.")
@limit_options
@library_errors
def command(arities: str, cells: str, n_classes: int | None, ties: str, alpha: str, N: int, draws: int,
            confidence: float, seed: int, as_json: bool, test: str, attributes_a: str, attributes_b: str,
            test_size: int | None, variant: str, level: float) -> None:
    """Rejection probability of a test of equal errors (exact for McNemar when tractable)."""
    from momentbound.estimators.comparison import compare_classifiers

    model = build_model(arities, cells, n_classes)
    rng = seed_generator(seed)
    if test == "5x2cv" and test_size is not None:
        raise UserError("--test-size only applies to --test mcnemar (5x2cv splits in halves)")
    a = parse_int_list(attributes_a, name="--attributes-a")
    b = parse_int_list(attributes_b, name="--attributes-b")
    r = compare_classifiers(model, N, test, a, b, test_size=test_size, variant=variant, level=level, ties=ties,
                            alpha=alpha, draws=draws, confidence=confidence, rng=rng)
    doc = {"test": r.test, "variant": r.variant, "N": r.N, "test_size": r.test_size, "level": r.level,
           "attributes_a": list(r.attributes_a), "attributes_b": list(r.attributes_b), "exact": r.exact,
           "draws": r.draws, "confidence": r.confidence, **interval_fields("rejection", r.rejection),
           **interval_fields("ge_a", r.ge_a), **interval_fields("ge_b", r.ge_b)}
    if as_json:
        emit_json(doc)
        return
    rows = [[k, fmt(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)]
            for k, v in sorted(doc.items())]
    print_table(f"{test}: A on {list(a)} vs B on {list(b)} at N={N}", ["quantity", "value"], rows)
