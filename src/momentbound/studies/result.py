"""The result of a study: data, a figure, the backends used, and the paper's claims checked.

A study reproduces one group of the paper's figures or tables. It returns
a frozen :class:`StudyResult` holding a pandas ``DataFrame`` (one row per grid point), a
matplotlib ``Figure`` (built without pyplot, so no global state), which backend produced
each curve, and one :class:`ClaimCheck` per claim the paper makes about the figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["Verdict", "ClaimCheck", "CurveSource", "StudyFiles", "StudyResult"]


class Verdict(Enum):
    """Outcome of checking one of the paper's claims against computed data."""

    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not reproduced"
    #: Monte Carlo confidence intervals overlap: the data neither confirm nor refute the claim.
    INCONCLUSIVE = "inconclusive at this precision"

    @property
    def message(self) -> str:
        return {
            Verdict.REPRODUCED: "the computed data agree with the paper's statement",
            Verdict.NOT_REPRODUCED: "the computed data contradict the paper's statement",
            Verdict.INCONCLUSIVE: "the confidence intervals are too wide to decide the paper's statement",
        }[self]


@dataclass(frozen=True)
class ClaimCheck:
    """One claim of the paper, checked against the computed data.

    Attributes
    ----------
    figure:
        Where the paper makes the claim, e.g. ``"Fig. 3"``.
    claim:
        The claim in words (paraphrasing the paper).
    verdict:
        :class:`Verdict` of the check.
    evidence:
        The numbers the verdict rests on (e.g. where the minimum is, its value).
    """

    figure: str
    claim: str
    verdict: Verdict
    evidence: str

    @property
    def reproduced(self) -> bool:
        return self.verdict is Verdict.REPRODUCED

    def line(self) -> str:
        """One printable line: ``[reproduced] Fig. 3: claim -- evidence``."""
        return f"[{self.verdict.value}] {self.figure}: {self.claim} -- {self.evidence}"


@dataclass(frozen=True)
class CurveSource:
    """Which backend computed one curve (column) of a study, and what kind of number it is."""

    curve: str
    backend: str
    kind: str
    note: str = ""
    #: Monte Carlo backends only: sampled tables per point, interval level, seed of the rng.
    draws: int | None = None
    confidence: float | None = None
    seed: int | None = None

    def describe(self) -> str:
        """``backend montecarlo, kind estimate, 50000 draws, 95% intervals, seed 1`` etc."""
        text = f"backend {self.backend}, kind {self.kind}"
        if self.draws is not None:
            text += f", {self.draws} draws, {100 * (self.confidence or 0):g}% intervals, seed {self.seed}"
        return text


@dataclass(frozen=True)
class StudyFiles:
    """Paths written by :meth:`StudyResult.save`."""

    csv: Path
    png: Path
    checks: Path

    @property
    def paths(self) -> tuple[Path, Path, Path]:
        """The three files, in the order they are written."""
        return (self.csv, self.png, self.checks)


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


@dataclass(frozen=True, eq=False)
class StudyResult:
    """Data, figure, backends and claim checks of one reproduced study.

    Attributes
    ----------
    name:
        Registry name of the study (``"holdout"``, ``"cv"`` ...).
    title:
        Human title including the paper's figure numbers.
    parameters:
        ``(name, value)`` pairs the study was run with (N, grid, model ...).
    data:
        One row per grid point; column names are documented by each study.
    figure:
        A matplotlib ``Figure`` with labelled axes, a legend and the parameters in its title.
    sources:
        The backend of each curve.
    checks:
        The paper's claims and whether the data reproduce them.
    seconds:
        Wall-clock time of the computation (not of plotting).
    """

    name: str
    title: str
    parameters: tuple[tuple[str, Any], ...]
    data: "pd.DataFrame"
    figure: "Figure"
    sources: tuple[CurveSource, ...]
    checks: tuple[ClaimCheck, ...]
    seconds: float
    notes: tuple[str, ...] = field(default=())

    @property
    def all_reproduced(self) -> bool:
        return all(c.reproduced for c in self.checks)

    def parameter(self, name: str) -> Any:
        for key, value in self.parameters:
            if key == name:
                return value
        raise KeyError(name)

    def summary(self) -> str:
        """Multi-line text: title, parameters, backends, claim checks, notes."""
        params = ", ".join(f"{k}={_plain(v)}" for k, v in self.parameters)
        lines = [f"{self.title}", f"  parameters: {params}", f"  computed in {self.seconds:.2f} s"]
        for s in self.sources:
            extra = f" ({s.note})" if s.note else ""
            lines.append(f"  curve {s.curve}: {s.describe()}{extra}")
        for c in self.checks:
            lines.append("  " + c.line())
        for n in self.notes:
            lines.append(f"  note: {n}")
        return "\n".join(lines)

    def to_document(self) -> dict[str, Any]:
        """JSON-ready description (everything except the data and the figure)."""
        return {
            "name": self.name,
            "title": self.title,
            "parameters": {k: _plain(v) for k, v in self.parameters},
            "seconds": self.seconds,
            "sources": [
                {"curve": s.curve, "backend": s.backend, "kind": s.kind, "note": s.note,
                 "draws": s.draws, "confidence": s.confidence, "seed": s.seed}
                for s in self.sources
            ],
            "checks": [
                {
                    "figure": c.figure,
                    "claim": c.claim,
                    "verdict": c.verdict.value,
                    "evidence": c.evidence,
                }
                for c in self.checks
            ],
            "notes": list(self.notes),
        }

    def save(self, out_dir: str | Path, *, dpi: int = 110) -> StudyFiles:
        """Write ``<name>.csv``, ``<name>.png`` and ``<name>.checks.json`` into ``out_dir``.

        Each file is written under a temporary name and renamed (:mod:`momentbound.output`),
        so an interrupted save never leaves a truncated file under a final name; the claim
        checks come last.
        """
        from momentbound.output import check_folder, save_figure, write_csv, write_json

        out = check_folder(out_dir)
        csv = write_csv(out / f"{self.name}.csv", self.data)
        png = save_figure(out / f"{self.name}.png", self.figure, dpi=dpi)
        checks = write_json(out / f"{self.name}.checks.json", self.to_document())
        return StudyFiles(csv=csv, png=png, checks=checks)
