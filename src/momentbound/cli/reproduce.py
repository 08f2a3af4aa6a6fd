"""`momentbound reproduce NAME|all --out DIR`: the paper's figures and tables with claim checks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import sys

import click

from momentbound.cli._common import emit_json, library_errors, limit_options
from momentbound.cli._files import claim_output_file, claim_output_folder, force_option, write_errors


def _names(name: str) -> list[str]:
    from momentbound.studies.registry import STUDIES

    if name == "all":
        return list(STUDIES)
    if name not in STUDIES:
        raise click.BadParameter(
            f"unknown study {name!r}; choose one of {', '.join(STUDIES)} or 'all'", param_hint="NAME"
        )
    return [name]


def _run(run_study: Any, name: str, quick: bool, tick: Any) -> Any:
    """Run one study; a limit refusal names this command's own ways out (the study's inner routes and
    sizes are not options of ``reproduce``)."""
    from momentbound.errors import MemoryLimitExceeded, WorkLimitExceeded

    try:
        return run_study(name, quick=quick, progress=tick)
    except (WorkLimitExceeded, MemoryLimitExceeded) as exc:
        cause = str(exc).split("; ", 1)[0]
        lift = ("--max-memory SIZE on a machine with that much memory" if isinstance(exc, MemoryLimitExceeded)
                else "a larger --max-seconds, or --max-seconds none to run it anyway")
        way = lift if quick else f"--quick (small grids and N, seconds), {lift}"
        raise type(exc)(f"study {name}{'' if quick else ' at the paper scale'}: {cause}; use {way}") from None


@click.command("reproduce")
@click.argument("name")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the CSV, PNG and claim-check files (created if missing).")
@click.option("--quick", is_flag=True, help="Small grids and N (seconds) instead of the paper's scale.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--progress/--no-progress", "progress", default=None,
              help="Progress bars on stderr (default: only when stderr is a terminal; --progress draws them anyway).")
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a Markdown report (claims, evidence, figures) to this file.")
@force_option
@limit_options(default_seconds="none")
@library_errors
@write_errors
def command(name: str, out: Path, quick: bool, as_json: bool, progress: bool | None, report: Path | None,
            force: bool) -> None:
    """Reproduce the paper's study NAME (or `all`): data as CSV, figure as PNG, claim checks.

    Studies: fig1, holdout, cv, size, nb_holdout, nb_cv, nb_size, stratified, estimators, bias_variance, tables.

    --out must be empty or new (or pass --force); manifest.json, written last, lists every
    file of a finished run with its size and SHA-256.
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from momentbound.studies.registry import STUDIES, run_study

    names = _names(name)
    dest = claim_output_folder(out, force=force, markers=("summary.json",), studies=len(names))
    report_file = None if report is None else claim_output_file(report, force=force, option="--report")
    console = Console(stderr=True)
    documents = []
    start = time.perf_counter()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        disable=not (progress if progress is not None else (sys.stderr.isatty() and not as_json)),
    ) as bars:
        for n in names:
            task = bars.add_task(f"{n} ({STUDIES[n].figures})", total=None)

            def tick(done: int, total: int, _task=task) -> None:
                bars.update(_task, completed=done, total=total)

            result = _run(run_study, n, quick, tick)
            files = result.save(dest.path)
            dest.record(*files.paths)
            result.figure.clear()
            doc = result.to_document()
            doc["files"] = {"csv": str(files.csv), "png": str(files.png), "checks": str(files.checks)}
            documents.append(doc)
            if not as_json:
                click.echo(result.summary())
    total = time.perf_counter() - start
    summary = {"studies": documents, "quick": quick, "seconds": total}
    dest.write_json("summary.json", summary)
    if report_file is not None:
        from momentbound.studies.report import markdown_report

        report_file.write_text(markdown_report(documents, seconds=total))
        if report_file.path.resolve().is_relative_to(dest.path.resolve()):
            dest.record(report_file.path)
    dest.write_manifest(command="reproduce", studies=names, quick=quick)  # last: marks the run complete
    if as_json:
        emit_json(summary)
        return
    checks = [c for d in documents for c in d["checks"]]
    ok = sum(c["verdict"] == "reproduced" for c in checks)
    click.echo(
        f"{len(documents)} studies, {ok} of {len(checks)} claims reproduced, "
        f"{total:.1f} s; files in {out}"
    )
