"""Helpers shared by the CLI commands: parsing lists, printing tables or JSON."""

from __future__ import annotations

import functools
import json
from contextlib import contextmanager
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import click
from rich.console import Console
from rich.table import Table


class UserError(click.ClickException):
    """A mistake in the arguments: one line ``Error: ...`` on stderr and exit status 2."""

    exit_code = 2


def split_list(text: str, *, name: str = "the list") -> list[str]:
    """Split a comma-separated option into stripped entries, refusing empty entries.

    An empty entry (``1,,3`` or a trailing comma) is an error naming its position:
    dropping it would silently change the question.
    """
    if text.strip() == "":
        raise UserError(f"{name} is empty; give its comma-separated values")
    tokens = [t.strip() for t in text.split(",")]
    for i, t in enumerate(tokens, start=1):
        if t == "":
            raise UserError(
                f"{name} has an empty entry at position {i} of {len(tokens)} in {text!r}; "
                f"remove the extra comma or fill in the value"
            )
    return tokens


def parse_int_list(text: str, *, name: str) -> tuple[int, ...]:
    """Comma-separated integers; every entry must be an integer (the message names its position)."""
    out = []
    for i, t in enumerate(split_list(text, name=name), start=1):
        try:
            out.append(int(t))
        except ValueError:
            raise UserError(
                f"{name} entry {i} must be an integer, got {t!r}; {name} takes comma-separated integers"
            ) from None
    return tuple(out)


def parse_str_list(text: str, *, name: str = "the list") -> list[str]:
    """Comma-separated entries (see :func:`split_list`)."""
    return split_list(text, name=name)


def exact_text(value: Any) -> str | None:
    """The exact rational ``"p/q"`` (or ``"n"``) of a Fraction or integer; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return None


def jsonable(value: Any) -> Any:
    """Convert to JSON values of one type per field: numbers are JSON numbers, never strings.

    Fractions and Decimals become floats (commands that keep exact values put them in separate
    ``*_exact`` string fields, see :func:`exact_text`); numpy scalars and arrays become Python
    numbers and lists; NaN and infinities, which JSON cannot hold, become null.
    """
    import numpy as np

    if isinstance(value, (Fraction, Decimal)):
        try:
            return jsonable(float(value))
        except OverflowError:  # beyond the float range: null here, the exact value in its *_exact field
            return None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(document: Any) -> None:
    """Print ``document`` as one sorted JSON document on stdout (strict JSON: no NaN); with ``--data`` the
    document also names the fitted model (and the posterior summary of ``--posterior``)."""
    from momentbound.cli._fitted import fitted_document

    extra = fitted_document()
    if extra is not None and isinstance(document, dict):
        document = {**document, **extra}
    click.echo(json.dumps(jsonable(document), sort_keys=True, indent=2, allow_nan=False))


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    table = Table(title=title)
    for c in columns:
        table.add_column(str(c))
    for r in rows:
        table.add_row(*(str(v) for v in r))
    # piped or captured output has no terminal width: do not crush numbers into "0.16…"
    Console(width=None if sys.stdout.isatty() else 160).print(table)


def library_error(exc: Exception) -> click.ClickException:
    """The one mapping of library errors to exit statuses: a solver that failed exits 1 (the input
    may be fine), every other library error (a bad argument, infeasible moments) exits 2."""
    from momentbound.errors import SolverFailed

    if isinstance(exc, SolverFailed):
        return click.ClickException(cli_hints(f"{type(exc).__name__}: {exc}"))
    return UserError(cli_hints(f"{type(exc).__name__}: {exc}"))


@contextmanager
def user_errors(writing: str = "the plot") -> Iterator[None]:
    """Library errors and unwritable outputs as one-line user errors (exit 2), e.g. ``--plot`` into
    a directory that cannot be written."""
    from momentbound.errors import MomentboundError

    try:
        yield
    except MomentboundError as exc:
        raise library_error(exc) from exc
    except OSError as exc:
        raise UserError(f"cannot write {writing}: {exc}") from exc


def check_plot_path(path: str | None, *, force: bool = False) -> None:
    """Claim ``--plot`` before any work, under the policy of every output file of the CLI
    (:func:`momentbound.cli._files.claim_output_file`): a .png whose folder exists or is created
    (with its parents) and is writable, not an existing file unless ``--force``."""
    if path is None:
        return
    from pathlib import Path

    from momentbound.cli._files import claim_output_file

    target = Path(path)
    if target.suffix.lower() != ".png":
        raise UserError(f"--plot must name a .png file, got {path!r}")
    if target.is_dir():
        raise UserError(f"--plot {path!r} is a directory; give a .png file name")
    claim_output_file(target, force=force, option="--plot")


def _seconds_option(text: str) -> float | None:
    t = text.strip().lower()
    if t in ("none", "0", "inf", "infinity", "unlimited"):
        return None
    try:
        value = float(t)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UserError(f"--max-seconds must be a positive number of seconds, or none (or 0) for no limit, got {text!r}")
    return value


def limit_options(func: Any = None, *, default_seconds: str | None = None) -> Any:
    """``--max-seconds`` and ``--max-memory`` for a command with a work guard: every guard of the
    library inside the command uses them (``momentbound.guard.limits``), and its refusals name these
    options. ``@limit_options(default_seconds="none")``: no time limit unless the option is given."""
    import functools

    from momentbound.guard import DEFAULT_SECONDS

    if func is None:
        return functools.partial(limit_options, default_seconds=default_seconds)
    seconds_default = f"{DEFAULT_SECONDS:g}" if default_seconds is None else default_seconds

    @functools.wraps(func)
    def wrapper(*args: Any, max_seconds: str, max_memory: str | None, **kwargs: Any) -> Any:
        from momentbound import guard

        seconds = _seconds_option(max_seconds)
        memory: Any = guard.default_memory()
        if max_memory is not None:
            try:
                memory = guard.parse_size(max_memory)
            except ValueError:
                raise UserError(f"--max-memory must be a size such as 2G, 500M or 1.5GiB (bytes without a suffix), "
                                f"or none for no limit, got {max_memory!r}") from None
        with guard.limits(seconds, memory, cli=True):
            return func(*args, **kwargs)

    wrapper = click.option(
        "--max-memory", default=None, metavar="SIZE",
        help="Refuse a run estimated to hold more memory (e.g. 2G, 500M; none: no limit) [default: 80% of "
        "this machine's memory].")(wrapper)
    wrapper = click.option(
        "--max-seconds", default=seconds_default, show_default=True, metavar="SECONDS",
        help="Refuse a run estimated to take longer (none or 0: no limit).")(wrapper)
    return wrapper


_HINT = None


def cli_hints(text: str) -> str:
    """A library message with its keyword-argument hints (``backend='montecarlo'``,
    ``max_seconds=None``, ``draws=...``) written as the running command's options
    (``--backend montecarlo``), where the command has that option."""
    import re

    global _HINT
    if _HINT is None:
        _HINT = re.compile(r"\b([a-z][a-z_]*)=(?:'([^']*)'|\"([^\"]*)\"|(None|True|False|[\w.+-]+))")
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return text
    flags = {opt for p in ctx.command.params for opt in getattr(p, "opts", ())}
    if ctx.command.name != "estimate":  # the one command whose --backend takes auto
        text = text.replace(" (or backend='auto')", "")

    def in_call(end: int) -> bool:  # inside ``HoldOut(test_size=4)``: a description, not a hint
        stack = []
        for i, ch in enumerate(text[:end]):
            if ch == "(":
                stack.append(i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))
            elif ch == ")" and stack:
                stack.pop()
        return any(stack)

    def swap(m: Any) -> str:
        name = m.group(1)
        flag = "--" + name.replace("_", "-")
        if flag not in flags or in_call(m.start()):
            return m.group(0)
        value = next(v for v in m.group(2, 3, 4) if v is not None)
        if value in ("None", "True", "False"):
            value = value.lower()
        return f"{flag} {value}"

    return _HINT.sub(swap, text)


def library_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """A command whose library errors become one-line click errors (:func:`library_error`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from momentbound.errors import MomentboundError

        try:
            return func(*args, **kwargs)
        except MomentboundError as exc:
            raise library_error(exc) from exc

    return wrapper


def fmt(value: Any, digits: int = 6) -> str:
    """The one number format of the tables: ``digits`` significant digits; Fractions as decimals (the
    JSON keeps them exact), intervals as ranges, ``-`` for a missing value."""
    from momentbound.intervals import Interval

    if value is None:
        return "-"
    if isinstance(value, Interval):
        text = f"[{float(value.lower):.{digits}g}, {float(value.upper):.{digits}g}]"
        return text if value.estimate is None else f"{float(value.estimate):.{digits}g} {text}"
    if isinstance(value, (int, str)):
        return str(value)
    try:
        return f"{float(value):.{digits}g}"
    except OverflowError:  # an exact value beyond the float range: its order of magnitude
        v = Fraction(value)
        return f"~1e{len(str(abs(v.numerator))) - len(str(v.denominator))}"
    except (TypeError, ValueError):
        return str(value)


# ----------------------------------------------------------------------------- models, classifiers, backends
def model_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The model, classifier and backend options shared by `estimate` and `sweep`."""
    options = [
        click.option("--arities", default="2", show_default=True,
                     help="Attribute arities, comma-separated (e.g. 2,2)."),
        click.option("--cells", default=None,
                     help="P[X=x, Y=k], comma-separated, class fastest; exact decimals or fractions "
                     "like 1/8 give exact rational results."),
        click.option("--classes", "n_classes", type=int, default=None,
                     help="Number of classes K (inferred from the number of cells by default)."),
        click.option("--classifier", "classifier_name", default="naive-bayes", show_default=True,
                     help="naive-bayes | histogram | majority | sklearn:MODULE.CLASS (a classifier class of the "
                     "scikit-learn package, e.g. sklearn:sklearn.tree.DecisionTreeClassifier; Monte Carlo backend "
                     "only)."),
        click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
                     help="A splitter or classifier parameter (repeatable): a field of the splitter (e.g. "
                     "--param v=5) goes to it, any other key to the classifier (e.g. --param max_depth=2); "
                     "prefix splitter. or classifier. when both take the key. Values are literals (numbers, "
                     "true/false, none, inf, words, quoted strings), never evaluated."),
        click.option("--ties", type=click.Choice(["random", "first", "sklearn"]), default=None,
                     help="Tie rule (naive-bayes, histogram, majority): the paper's fair coin, the lowest class "
                     "index among exactly tied scores, or (naive-bayes) sklearn: exactly CategoricalNB's float "
                     "argmax, where float rounding decides tied scores.  [default: random]"),
        click.option("--alpha", default=None, help="Laplace smoothing alpha >= 0 (naive-bayes).  [default: 0]"),
        click.option("--backend", default="exact", show_default=True,
                     help="Prediction-probability backend: exact, sampling, bound:<method>, series; "
                     "montecarlo (estimate only): conditional Monte Carlo over count tables; auto (estimate only): "
                     "exact where the exact route's time and memory estimates fit the limits, else montecarlo "
                     "(the JSON's backend says which, auto_reason why)."),
        click.option("--seed", type=int, default=None,
                     help="Seed (an integer >= 0) of the random generator of --backend sampling or "
                     "montecarlo (reproducible draws)."),
        click.option("--covariance", type=click.Choice(["exact", "paper"]), default="exact",
                     show_default=True,
                     help="CV fold covariance: exact, or the printed (incorrect) Lemma 2."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def build_model(arities: str, cells: str | None, n_classes: int | None) -> Any:
    from momentbound.model.cells import CellModel

    if cells is None:
        raise click.UsageError("give the model: --cells (with --arities), or --data FILE --target COL")

    return CellModel(parse_int_list(arities, name="--arities"), parse_str_list(cells, name="--cells"), n_classes)


def build_classifier(ties: str | None, alpha: str | None, name: str = "naive-bayes",
                     params: tuple[str, ...] = ()) -> Any:
    """The classifier of --classifier with its --param values (and --ties/--alpha where they apply).

    --param values are read as literals (:mod:`momentbound.classifiers.params`), never evaluated;
    a setting given both as an option and as a --param is refused, not overridden.
    """
    from momentbound.classifiers import classifier_class, make_classifier
    from momentbound.classifiers.params import parse_param
    from momentbound.errors import InvalidArgument

    parsed: dict[str, Any] = {}
    for item in params:
        try:
            key, value = parse_param(item)
        except InvalidArgument as exc:
            raise UserError(str(exc)) from None
        if key in parsed:
            raise UserError(f"--param {key} is given twice; give each parameter once")
        parsed[key] = value
    for key, given in (("alpha", alpha), ("ties", ties)):
        if given is not None and key in parsed:
            raise UserError(f"--{key} {given} and --param {key}={parsed[key]} both set {key}; give it once")
    if name == "naive-bayes":
        return make_classifier(name, {"ties": ties or "random", "alpha": "0" if alpha is None else alpha, **parsed})
    if name.partition(":")[0] != "sklearn":
        classifier_class(name)  # an unknown name is refused as such, before the options that do not apply to it
    if alpha is not None:
        raise UserError(f"--alpha applies to --classifier naive-bayes, not {name}")
    if name in ("histogram", "majority"):
        return make_classifier(name, {"ties": ties or "random", **parsed})
    if ties is not None:
        raise UserError(f"--ties applies to naive-bayes, histogram and majority, not {name}")
    return make_classifier(name, parsed)


def check_dask_options(scheduler: str | None, workers: int | None, timeout: float | None) -> None:
    """--workers for the schedulers started here only, --timeout for a scheduler address only:
    an option that would be ignored is refused."""
    import math

    from momentbound.estimators.simulation import WORKER_SCHEDULERS

    if workers is not None:
        if workers < 1:
            raise UserError(f"--workers must be at least 1, got {workers}")
        if scheduler not in WORKER_SCHEDULERS:
            where = ("without --scheduler" if scheduler is None
                     else f"with --scheduler {scheduler} (its cluster has its own workers)")
            raise UserError(f"--workers applies to --scheduler local, threads or processes, not {where}; "
                            "drop --workers or pick one of those schedulers")
    if timeout is not None:
        if not (0 < timeout < math.inf):
            raise UserError(f"--timeout must be a number of seconds > 0, got {timeout:g}")
        if scheduler is None or scheduler in WORKER_SCHEDULERS + ("synchronous",):
            raise UserError("--timeout applies to --scheduler ADDRESS (e.g. tcp://host:8786), the wait for an "
                            "existing scheduler; drop it")


def dask_options(workers: int | None, timeout: float | None) -> dict[str, Any]:
    """The --workers and --timeout keyword arguments that were given."""
    return {k: v for k, v in (("workers", workers), ("timeout", timeout)) if v is not None}


def check_seed(backend: str, seed: int | None) -> None:
    """--seed: an integer >= 0, and only with a random backend."""
    if seed is None:
        return
    if backend not in ("sampling", "montecarlo", "auto"):
        raise UserError(f"--seed only applies to --backend sampling, montecarlo or auto, got --backend {backend}")
    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0 (a numpy seed), got {seed}")


def seed_generator(seed: int) -> Any:
    """The numpy generator of ``--seed`` (an integer >= 0)."""
    import numpy as np

    if seed < 0:
        raise UserError(f"--seed must be an integer >= 0, got {seed}")
    return np.random.default_rng(seed)


def build_backend(backend: str, seed: int | None) -> Any:
    """The backend object for a name (checked now, before any work), seeded when --seed is given."""
    from momentbound.estimators.from_predictions import resolve_backend

    check_seed(backend, seed)
    if backend == "auto":
        raise UserError("--backend auto applies to estimate (one splitter); here choose --backend exact or montecarlo")
    if backend == "montecarlo":
        return backend
    if seed is None:
        resolve_backend(backend)  # an unknown name or method fails here, before any work
        return backend
    import numpy as np

    from momentbound.probability.sampling_backend import SamplingBackend

    return SamplingBackend(rng=np.random.default_rng(seed))



# ----------------------------------------------------------------------------- splitters
#: the option the user picks a splitter with (``--estimator`` is the same option)
SPLITTER_FLAGS = ("--splitter", "--estimator")


class RegistryChoice(click.Choice):
    """A choice among the names of a registry as it is when the option is read (a plug-in registered
    after the commands were built is a valid choice)."""

    def __init__(self, registry: dict[str, Any]) -> None:
        self.registry = registry
        super().__init__(tuple(registry))

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(self.registry)

    @choices.setter
    def choices(self, value: Any) -> None:
        pass


def splitter_fields(cls: type) -> list[Any]:
    """The parameters of a splitter class: its dataclass fields (each may carry ``metadata`` ``help``
    and ``flags``, the friendly options that set it, e.g. ``("--folds",)``)."""
    import dataclasses

    if not dataclasses.is_dataclass(cls):
        return []
    return [f for f in dataclasses.fields(cls) if f.init]


def _friendly_flags() -> dict[str, tuple[str, list[str]]]:
    """Every friendly option of the registered splitters: flag -> (help, splitter names), read from
    their fields' metadata."""
    from momentbound.splitters import SPLITTERS

    flags: dict[str, tuple[str, list[str]]] = {}
    for name, cls in SPLITTERS.items():
        for f in splitter_fields(cls):
            for flag in f.metadata.get("flags", ()):
                help_text, names = flags.setdefault(flag, (f.metadata.get("help", f.name), []))
                names.append(name)
    return flags


def _option_name(flag: str) -> str:
    return "split_" + flag.lstrip("-").replace("-", "_")


def splitter_options(default: str, when: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--splitter NAME`` (alias ``--estimator``; ``default`` when absent) and the friendly options of
    the registered splitters' fields (``--folds``, ``--test-size``, ...), gathered into one ``splitter``
    argument (a name and the options given) for :func:`build_splitter`; ``--param KEY=VALUE`` sets any
    field. ``when`` says when the options apply (in the help)."""
    return functools.partial(_splitter_options, default=default, when=when)


def _splitter_options(func: Callable[..., Any], default: str, when: str) -> Callable[..., Any]:
    from momentbound.splitters import SPLITTERS

    flags = _friendly_flags()

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        name = kwargs.pop("splitter_name")
        given = {flag: kwargs.pop(_option_name(flag)) for flag in flags}
        return func(*args, splitter=(name, {k: v for k, v in given.items() if v is not None}), **kwargs)

    for flag, (help_text, names) in reversed(list(flags.items())):
        wrapper = click.option(flag, _option_name(flag), default=None, metavar="VALUE",
                               help=f"{help_text} ({', '.join(names)}).")(wrapper)
    return click.option(
        *SPLITTER_FLAGS, "splitter_name", type=RegistryChoice(SPLITTERS), default=default, show_default=True,
        metavar="NAME", help=f"The splitter (error estimator){when}, with its parameters: " + "; ".join(
            f"{n}" + (f" ({', '.join(f.name for f in splitter_fields(cls))})" if splitter_fields(cls) else "")
            for n, cls in SPLITTERS.items())
        + ". Set them with the options below or --param KEY=VALUE.")(wrapper)


def split_params(splitter_name: str, params: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``--param KEY=VALUE`` items for the splitter (a field of its class, or ``splitter.KEY``) and the
    rest (the classifier's; ``classifier.KEY`` forces it). A key both take must be prefixed."""
    from momentbound.classifiers.params import parse_param
    from momentbound.errors import InvalidArgument
    from momentbound.splitters import SPLITTERS

    fields = {f.name for f in splitter_fields(SPLITTERS[splitter_name])}
    mine: dict[str, Any] = {}
    rest: list[str] = []
    for item in params:
        key = item.partition("=")[0].strip()
        head, dot, tail = key.partition(".")
        if dot and head == "classifier":
            rest.append(item[item.index(".") + 1:])
            continue
        if (dot and head == "splitter") or (not dot and key in fields):
            try:
                k, value = parse_param(item[item.index(".") + 1:] if dot else item)
            except InvalidArgument as exc:
                raise UserError(str(exc)) from None
            if k not in fields:
                raise UserError(f"--param splitter.{k}: {splitter_name} has no parameter {k!r}; "
                                f"its parameters are {', '.join(sorted(fields)) or 'none'}")
            if k in mine:
                raise UserError(f"--param {k} is given twice; give each parameter once")
            mine[k] = value
            continue
        rest.append(item)
    return mine, tuple(rest)


def build_splitter(splitter: tuple[str, dict[str, str]], params: dict[str, Any] | None = None) -> Any:
    """The splitter picked by :func:`splitter_options` with its friendly options and ``--param``
    values (``params``), read from its class's fields: an option it does not take, a parameter given
    twice or a required one missing is a one-line error."""
    from momentbound.classifiers.params import parse_value
    from momentbound.errors import InvalidArgument, MomentboundError
    from momentbound.splitters import SPLITTERS, make_splitter

    name, given = splitter
    fields = splitter_fields(SPLITTERS[name])
    values: dict[str, Any] = dict(params or {})
    source = {k: f"--param {k}" for k in values}
    for flag, text in given.items():
        field = next((f for f in fields if flag in f.metadata.get("flags", ())), None)
        if field is None:
            raise click.UsageError(f"{flag} does not apply to {SPLITTER_FLAGS[0]} {name}; its parameters: "
                                   f"{', '.join(f.name for f in fields) or 'none'}")
        if field.name in values:
            raise click.UsageError(f"{source[field.name]} and {flag} both set {field.name}; give one")
        try:
            values[field.name] = parse_value(text, flag)
        except InvalidArgument as exc:
            raise UserError(str(exc)) from None
        source[field.name] = flag
    import dataclasses

    missing = [f for f in fields if f.name not in values and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        need = ", ".join(" or ".join(tuple(f.metadata.get("flags", ())) + (f"--param {f.name}=VALUE",))
                         for f in missing)
        raise click.UsageError(f"{SPLITTER_FLAGS[0]} {name} needs {need}")
    try:
        return make_splitter(name, **values)
    except MomentboundError as exc:  # the splitter's own check: its field names as this command's options
        import re

        text = str(exc)
        for f in fields:
            flag = source.get(f.name) or next(iter(f.metadata.get("flags", ())), f"--param {f.name}")
            text = re.sub(rf"(?<![\w(]){re.escape(f.name)}(?:=(\S+?)(?=[,;)]|$))?(?!\w)",
                          lambda m, flag=flag: flag + (f" {m.group(1)}" if m.group(1) else ""), text)
        raise UserError(f"{type(exc).__name__}: {text}") from None


def check_montecarlo(backend: str, covariance: str, draws: int | None) -> None:
    """The options of `--backend montecarlo` (checked before any work)."""
    from momentbound.estimators.montecarlo import MIN_DRAWS

    if backend not in ("montecarlo", "auto"):
        if draws is not None:
            raise click.UsageError("--draws only applies to --backend montecarlo (or auto)")
        return
    if covariance != "exact":
        raise click.UsageError(f"--backend {backend} simulates the real procedure"
                               f"{' where the exact route is out of reach' if backend == 'auto' else ''}: use "
                               "--covariance exact")
    if draws is not None and draws < MIN_DRAWS:
        raise UserError(f"--draws must be at least {MIN_DRAWS} (below that the 95% intervals do not "
                        f"hold their level; see docs/estimators.md), got {draws}")


MOMENT_FIELDS = ("mean", "variance", "std", "mean_plus_std", "fold_variance", "fold_covariance",
                 "ge_mean", "ge_variance")


def moment_fields(name: str, value: Any) -> dict[str, Any]:
    """The four JSON fields of one moment: ``name``, ``name_lower``, ``name_upper``, ``name_exact``.

    ``name`` is the value as a float (an exact or float moment, or the point estimate of an
    interval; null for a guaranteed interval, which has no point value); ``name_lower`` and
    ``name_upper`` enclose it (equal to it for a point value); ``name_exact`` is the exact
    rational ``"p/q"`` when the backend is exact. All four are null when the moment does not
    apply (fold fields outside cross-validation).
    """
    from momentbound.estimators import Interval

    if value is None:
        point = lower = upper = None
    elif isinstance(value, Interval):
        point = None if value.estimate is None else float(value.estimate)
        lower, upper = float(value.lower), float(value.upper)
    else:
        point = lower = upper = float(value)
    return {name: point, f"{name}_lower": lower, f"{name}_upper": upper, f"{name}_exact": exact_text(value)}


def result_document(r: Any) -> dict[str, Any]:
    """A JSON document of an EstimatorMoments: one type per field whatever the backend or N."""

    alpha = getattr(r.classifier, "alpha", None)
    if isinstance(alpha, str):  # the classifier keeps alpha as given ("0", "1/2", "0.5")
        alpha = Fraction(alpha)
    doc: dict[str, Any] = {
        "description": r.estimator.describe(),
        "N": r.N,
        "train_size": r.train_size,
        "test_size": r.test_size,
        "folds": r.folds,
        "fold_sizes": list(r.fold_sizes),
        "average": getattr(r.estimator, "average", None),  # cross-validation: "folds" or "pooled"
        "backend": r.backend,
        "kind": getattr(r.kind, "name", str(r.kind)).lower(),
        "covariance": r.covariance,
        "ties": getattr(r.classifier, "ties", None),
        "alpha": None if alpha is None else float(alpha),
        "alpha_exact": exact_text(alpha),
        "seconds": float(r.seconds),
        # Monte Carlo results (--backend montecarlo) only; null otherwise
        "draws": getattr(r, "draws", None),
        "confidence": None if getattr(r, "confidence", None) is None else float(r.confidence),
        # the exact route's sums (count-tables, rows, class-states) where it names them; --backend auto: the
        # exact route's refusal when it simulated instead
        "route": getattr(r, "route", None),
        "auto_reason": getattr(r, "auto_reason", None),
    }
    for name in MOMENT_FIELDS:
        doc.update(moment_fields(name, getattr(r, name)))
    doc.update(plugin_fields(r.estimator, r.classifier))
    for name in ("single_variance", "repetition_covariance", "split_probability"):
        doc.update(moment_fields(name, getattr(r, name, None)))
    return doc


def plugin_fields(splitter: Any, classifier: Any) -> dict[str, Any]:
    """The splitter and the classifier used, with their parameters (JSON-friendly strings/numbers)."""
    def params(obj: Any) -> dict[str, Any]:
        return {str(k): (v if isinstance(v, (str, int, float, bool)) or v is None else repr(v))
                for k, v in jsonable(obj.params()).items()}

    return {"splitter": {"name": splitter.name, "description": splitter.describe(), "params": params(splitter)},
            "classifier": {"name": classifier.name, "description": classifier.describe(), "params": params(classifier)}}




def parse_metric(spec: str) -> Any:
    """``--metric STATISTIC``: ``error``, ``balanced_error``, ``confusion:A:B``, ``class_error:A``, ``recall:A`` or
    ``class_error_rate:A`` as a :class:`~momentbound.estimators.metrics.LinearMetric`."""
    from momentbound.estimators.metrics import parse_metric as parse

    metric = parse(spec)
    if metric is None:
        raise UserError(f"--metric must be one of error, balanced_error, confusion:A:B, class_error:A, recall:A or "
                        f"class_error_rate:A (A, B: class indices from 0), got {spec!r}")
    return metric


#: the help of --metric, --scoring (estimate, sweep, coverage and advise), after the command's own first words
METRIC_HELP = ("An exact linear statistic of the confusion matrix in place of the 0-1 error: error, confusion:A:B "
               "(test points of class A predicted B), class_error:A (errors on class A), and for --splitter ge the "
               "population rates recall:A, class_error_rate:A and balanced_error.")
SCORING_HELP = ("A scikit-learn scorer (accuracy, balanced_accuracy, recall, precision, f1, recall_macro, precision_macro, "
                "f1_macro, roc_auc, roc_auc_ovr) or roc_auc_pooled (the AUC of cross_val_predict's out-of-fold "
                "probabilities): the score of cross_val_score(..., scoring=NAME) averaged over the folds, against the "
                "population value of the metric for the classifier trained on all N points. By simulation.")


def statistic_options(metric_where: str, scoring_where: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--metric STATISTIC`` and ``--scoring NAME``, with what they apply to in this command."""
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        func = click.option("--scoring", default=None, metavar="NAME", help=f"{SCORING_HELP} {scoring_where}")(func)
        return click.option("--metric", default=None, metavar="STATISTIC", help=f"{METRIC_HELP} {metric_where}")(func)
    return decorate


def check_statistic(metric: str | None, scoring: str | None, backend: str | None = None) -> tuple[Any, str | None]:
    """``--metric`` and ``--scoring`` checked (one or the other; ``backend``: the command's ``--backend``, where it
    has one): the :class:`~momentbound.estimators.metrics.LinearMetric` or ``None``, and the scorer name or ``None``."""
    from momentbound.estimators.scoring import SCORING_NAMES

    if metric is not None and scoring is not None:
        raise click.UsageError("give --metric (an exact linear statistic) or --scoring (a scikit-learn scorer, by "
                               "simulation), not both")
    if metric is not None and backend == "montecarlo":
        raise UserError(f"--metric {metric} has exact moments: drop --backend montecarlo (for a scikit-learn scorer "
                        "by simulation use --scoring NAME)")
    if scoring is not None and scoring not in SCORING_NAMES:
        raise UserError(f"--scoring must be one of {', '.join(SCORING_NAMES)}, got {scoring!r}")
    if scoring is not None and backend is not None and backend not in ("montecarlo", "auto"):
        raise UserError(f"--scoring {scoring} is computed by simulating the real procedure: add --backend "
                        "montecarlo (with --draws and --seed)")
    return (None if metric is None else parse_metric(metric)), scoring


#: the moments of a :class:`~momentbound.estimators.scoring.ScoreMoments` in its JSON document and tables
SCORE_FIELDS = ("mean", "variance", "std", "ge_full_mean", "ge_full_variance", "bias", "deviation_variance",
                "mean_square", "rms", "covariance_with_ge", "correlation_with_ge", "undefined")


def score_document(r: Any) -> dict[str, Any]:
    """The JSON document of a :class:`~momentbound.estimators.scoring.ScoreMoments` (``--scoring``)."""
    doc: dict[str, Any] = {"N": r.N, "backend": r.backend, "kind": getattr(r.kind, "name", str(r.kind)).lower(),
                           "description": r.estimator.describe(), "scoring": r.scoring, "folds": r.folds,
                           "draws": r.draws, "undefined_draws": r.undefined_draws, "confidence": float(r.confidence),
                           "seconds": float(r.seconds), **plugin_fields(r.estimator, r.classifier)}
    for name in SCORE_FIELDS:
        doc.update(moment_fields(name, getattr(r, name)))
    return doc
