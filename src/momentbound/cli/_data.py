"""``--data FILE --target COL``: a model fitted to data wherever a command takes ``--arities/--cells``.

:func:`data_options` adds the data options to a command and resolves them once, before the
command runs: the fitted model's arities and cells (as floats) are handed to the command as its
``--arities`` and ``--cells``, so the command itself is unchanged; the model with its level names
is kept for the JSON output (``fitted_model``, added by ``emit_json``). With ``posterior=True``
the command also takes ``--posterior M``: it runs again under M draws from the Dirichlet posterior
of the cells and reports, beside each plug-in number, the median and the 90% interval.
"""

from __future__ import annotations

import functools
import io
import json
from contextlib import redirect_stdout
from typing import Any

import click

from momentbound.cli._common import UserError
from momentbound.cli._fitted import FITTED, POSTERIOR, fitted_document, fitted_model

__all__ = ["data_options", "fitted_model", "fitted_document", "load_fitted", "posterior_fields"]

def load_fitted(data: str, target: str | None, features: str | None, bins: str | None, prior: str,
                count_column: str | None, missing: str, fit: str, *, target_flag: str = "--target") -> Any:
    """Load and fit ``--data`` (every mistake a one-line error naming the option)."""
    import warnings

    from momentbound.cli._common import parse_str_list
    from momentbound.data import fit_cells, load_data
    from momentbound.errors import MomentboundError

    if target is None:
        raise UserError(f"--data needs {target_flag} COL, the class column")
    feats = parse_str_list(features, name="--features") if features is not None else None
    bin_rule: Any = None
    if bins is not None:
        try:
            bin_rule = int(bins)
        except ValueError:
            bin_rule = {}
            for item in parse_str_list(bins, name="--bins"):
                col, sep, value = item.partition("=")
                if not sep:
                    raise UserError(f"--bins takes K (quantile bins for every numeric column) or COL=K entries, "
                                    f"got {bins!r}") from None
                try:
                    bin_rule[col.strip()] = int(value)
                except ValueError:
                    raise UserError(f"--bins {col}={value}: K must be an integer number of quantile bins") from None
    try:
        table = load_data(data, target, features=feats, bins=bin_rule, count_column=count_column, missing=missing)
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            return fit_cells(table, prior=prior, model=fit)
    except MomentboundError as exc:
        text = " ".join(str(exc).split())
        for word, flag in (("missing='drop'", "--missing drop"), ("missing='category'", "--missing category"),
                           ("model='factorised'", "--fit factorised"), ("bins=K", "--bins K")):
            text = text.replace(word, flag)
        raise UserError(f"--data {data}: {text}") from exc


def _numbers(doc: Any, prefix: str = "") -> dict[str, float]:
    """Every numeric field of a JSON document (nested keys joined by dots; lists left out)."""
    out: dict[str, float] = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("fitted_model", "posterior", "seconds"):
                continue
            out.update(_numbers(v, f"{prefix}{k}."))
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        out[prefix.rstrip(".")] = float(doc)
    return out


def posterior_fields(runs: list[dict[str, float]], plug_in: dict[str, float]) -> dict[str, Any]:
    """Median and 90% interval of each number over the posterior runs, beside its plug-in value."""
    import numpy as np

    out = {}
    for key, value in plug_in.items():
        values = [r[key] for r in runs if key in r]
        if len(values) != len(runs) or np.ptp(values) == 0 and values[0] == value:
            continue  # not a property of the model (N, folds...)
        out[key] = {"plug_in": value, "median": float(np.median(values)),
                    "lower_90": float(np.quantile(values, 0.05)), "upper_90": float(np.quantile(values, 0.95))}
    return out


def fit_options(target_flag: str = "--target", required: bool = False, target_name: str = "data_target") -> list[Any]:
    """The options that read a data file and fit the cells: ``--data`` and what it takes.

    ``required``: the command needs the data (``advise``, ``learning-curve``); otherwise ``--data``
    stands in place of ``--arities/--cells`` and each help says so.
    """
    def w(text: str) -> str:
        return text[0].upper() + text[1:] if required else "With --data: " + text
    return [
        click.option("--data", required=required, default=None, metavar="FILE",
                     help="A CSV or Parquet file of categorical data" + (
                         "." if required else "; the model is fitted to it, in place of --arities/--cells.")),
        click.option(target_flag, target_name, required=required, default=None, metavar="COL",
                     help=w("the class column.")),
        click.option("--features", default=None, metavar="A,B,C",
                     help=w("the attribute columns, in order [default: every other column].")),
        click.option("--bins", default=None, metavar="K|COL=K,...",
                     help=w("quantile bins for numeric columns (a numeric column without bins is refused).")),
        click.option("--prior", default="1/2", show_default=True,
                     help=w("Dirichlet prior a per cell; the cells are the posterior mean (1/2: "
                            "Jeffreys; 0 or empirical: the maximum-likelihood cells).")),
        click.option("--count-column", default=None, metavar="COL",
                     help=w("a frequency table, each row counting this many rows of data.")),
        click.option("--missing", type=click.Choice(["refuse", "drop", "category"]), default="refuse",
                     show_default=True, help=w("what to do with missing values.")),
        click.option("--fit", type=click.Choice(["full", "factorised"]), default="full", show_default=True,
                     help=w("one probability per cell, or class prior x independent attributes.")),
    ]


def data_options(func: Any = None, *, posterior: bool = False, target_flag: str = "--target",
                 model_required: bool = True) -> Any:
    """Add ``--data/--target/--features/--bins/--prior/--count-column/--missing/--fit`` (and, with
    ``posterior=True``, ``--posterior M``) to a command that takes ``--arities`` and ``--cells``."""
    if func is None:
        return functools.partial(data_options, posterior=posterior, target_flag=target_flag,
                                 model_required=model_required)

    @functools.wraps(func)
    def wrapper(*args: Any, data: str | None, data_target: str | None, features: str | None, bins: str | None,
                prior: str, count_column: str | None, missing: str, fit: str, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        M = kwargs.pop("posterior", None)
        posterior_seed = kwargs.pop("posterior_seed", None)
        given = {name: ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
                 for name in ("data_target", "features", "bins", "prior", "count_column", "missing", "fit")}
        if data is None:
            extra = [n for n, g in given.items() if g]
            if extra or M is not None:
                flags = [("--posterior" if n == "posterior" else target_flag if n == "data_target" else
                          "--" + n.replace("_", "-")) for n in extra + (["posterior"] if M is not None else [])]
                raise UserError(f"{', '.join(flags)} appl{'y' if len(flags) > 1 else 'ies'} with --data FILE only")
            if model_required and kwargs.get("cells") is None:
                raise click.UsageError("give the model: --cells (with --arities), or --data FILE "
                                       f"{target_flag} COL")
            return func(*args, **kwargs)
        for name in ("arities", "cells", "n_classes"):
            if name in kwargs and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
                flag = {"n_classes": "--classes"}.get(name, "--" + name)
                raise UserError(f"give --data or {flag}, not both: --data fits the model")
        if M is not None and M < 1:
            raise UserError(f"--posterior must be a positive number of posterior draws, got {M}")
        model = load_fitted(data, data_target, features, bins, prior, count_column, missing, fit,
                            target_flag=target_flag)
        kwargs["arities"] = ",".join(str(a) for a in model.arities)
        # floats: the cells are estimates, and exact rationals with the data's denominators are slow
        kwargs["cells"] = ",".join(repr(float(c)) for c in model.cells)
        token = FITTED.set(model)
        try:
            if M is None:
                return func(*args, **kwargs)
            return _with_posterior(func, args, kwargs, model, M, posterior_seed)
        finally:
            FITTED.reset(token)

    options = fit_options(target_flag, required=False)
    if posterior:
        options += [
            click.option("--posterior", type=int, default=None, metavar="M",
                         help="With --data: repeat under M draws from the Dirichlet posterior of the cells and report "
                         "the median and 90% interval of each number beside the plug-in value."),
            click.option("--posterior-seed", type=int, default=0, show_default=True,
                         help="With --posterior: seed of the posterior draws."),
        ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def _with_posterior(func: Any, args: Any, kwargs: dict[str, Any], model: Any, M: int, seed: int) -> Any:
    """Run the command under M posterior draws (JSON captured), then once with the plug-in model."""
    from momentbound.cli._common import print_table
    from momentbound.data import posterior_draws

    if "as_json" not in kwargs:
        raise UserError("--posterior needs a command with --json")
    try:
        draws = posterior_draws(model, M, seed)
    except Exception as exc:  # the prior 0 has no posterior
        raise UserError(f"--posterior: {exc}") from exc
    runs = []
    for m in draws:
        quiet = dict(kwargs, as_json=True, cells=",".join(repr(float(c)) for c in m.cells))
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            func(*args, **quiet)
        runs.append(_numbers(json.loads(buffer.getvalue())))
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        func(*args, **dict(kwargs, as_json=True))
    summary = posterior_fields(runs, _numbers(json.loads(buffer.getvalue())))
    token = POSTERIOR.set({"draws": M, "seed": seed, "prior": str(model.prior), "fields": summary})
    try:
        result = func(*args, **kwargs)
    finally:
        POSTERIOR.reset(token)
    if not kwargs["as_json"]:
        rows = [(k, f"{v['plug_in']:.6g}", f"{v['median']:.6g}", f"[{v['lower_90']:.6g}, {v['upper_90']:.6g}]")
                for k, v in summary.items() if not k.endswith(("_lower", "_upper"))]
        print_table(f"under {M} draws from the posterior of the cells (prior {model.prior})",
                    ["quantity", "plug-in", "median", "90% interval"], rows)
    return result
