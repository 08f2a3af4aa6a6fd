"""The documentation site builds with `mkdocs build --strict` (no network, no warnings)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "run_study" in api and "run_sweep" in api  # mkdocstrings rendered the reference
    findings = (tmp_path / "site" / "findings" / "index.html").read_text()
    assert "Lemma 2" in findings
    for page in ("mathematics", "bounds", "estimators", "moments", "findings"):
        html = (tmp_path / "site" / page / "index.html").read_text()
        # formulas reach the page as LaTeX for KaTeX, and no $ is left unconverted
        assert html.count('class="arithmatex"') >= 5, page
        assert "katex.min.js" in html and "javascripts/katex.js" in html, page
        text = re.sub(r'<(span|div) class="arithmatex">.*?</\1>', "", html, flags=re.S)
        text = re.sub(r"<(code|pre|script|style)[^>]*>.*?</\1>", "", text, flags=re.S)
        assert "$" not in text, f"{page}: a formula was not converted: {text[text.index('$') - 80:][:160]}"
    assert (tmp_path / "site" / "javascripts" / "katex.js").is_file()


_FORMULA_IN_CODE = re.compile(r"\^|sum_|\bE\[|\bP\[|\bP\(|>=|<=|!=|\bmu\b|zeta|sqrt")


@pytest.mark.parametrize(
    "page", ["mathematics.md", "bounds.md", "estimators.md", "moments.md", "findings.md", "extending.md",
             "which-estimator.md"]
)
def test_formulas_are_latex_not_code(page: str) -> None:
    text = re.sub(r"```.*?```", "", (ROOT / "docs" / page).read_text(), flags=re.S)
    # a code span may wrap onto the next line
    spans = [s for s in re.findall(r"`([^`]+)`", text) if _FORMULA_IN_CODE.search(s)]
    allowed = {"test_size >= N", "Event.deviation(mu, t)"}  # an argument condition and a call, not formulas
    assert not [s for s in spans if s not in allowed], f"{page}: formulas in code spans: {spans}"


def test_every_figure_linked_from_the_docs_exists() -> None:
    docs = ROOT / "docs"
    for page in docs.glob("*.md"):
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", page.read_text()):
            assert (docs / target).is_file(), f"{page.name} links a missing figure {target}"


# References to documents that are not part of the repository (design notes, work logs, the
# people or sessions that wrote the code). The project cites docs/mathematics.md and papers.
_OUTSIDE_REFERENCES = re.compile(
    r"\bSPEC\b|\bORACLES\b|\bSTYLE\.md\b|\b[Hh]elpers?(?:'s)?[- ][A-Z]\d?\b"
    r"|(?i:\bissues? #?\d|\bissue-\d|\bsessions?\b|/work/|estimators_contract)"
)
_SCANNED = ("src", "docs", "notebooks", "benchmarks", "tests", "README.md", "Makefile", "mkdocs.yml")
_TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".yml", ".yaml", ".toml", ".txt", ".cfg", ".ini", ".json", ".csv", ""}


def _scanned_texts() -> list[tuple[str, str]]:
    """``(label, text)`` of every text file in the scanned places; notebooks by cell and output."""
    import json

    texts: list[tuple[str, str]] = []
    for name in _SCANNED:
        base = ROOT / name
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in _TEXT_SUFFIXES or "__pycache__" in rel or rel == "tests/test_docs.py":
                continue
            if path.suffix == ".ipynb":
                nb = json.loads(path.read_text())
                for i, cell in enumerate(nb["cells"]):
                    texts.append((f"{rel} cell {i}", "".join(cell.get("source", ""))))
                    for out in cell.get("outputs", []):
                        text = out.get("text") or out.get("data", {}).get("text/plain", "")
                        texts.append((f"{rel} cell {i} output", "".join(text)))
            else:
                try:
                    texts.append((rel, path.read_text()))
                except UnicodeDecodeError:
                    continue
    return texts


def test_the_pattern_catches_outside_references() -> None:
    for bad in ("(SPEC section 3)", "see ORACLES.md", "STYLE.md", "issue 2", "Issue #4", "issue-3",
                "helper A", "helper C1's", "helper-A", "the first session", "/work/notes/x.md"):
        assert _OUTSIDE_REFERENCES.search(bad), bad
    for good in ("docs/mathematics.md, section 'Cross-validation'", "Helpers shared by the CLI",
                 "special", "the issue of ties", "Table 4"):
        assert not _OUTSIDE_REFERENCES.search(good), good


def test_no_reference_to_documents_outside_the_repository() -> None:
    texts = _scanned_texts()
    assert any(label.startswith("src/") for label, _ in texts)
    assert any(".ipynb" in label for label, _ in texts)
    hits = []
    for label, text in texts:
        for lineno, line in enumerate(text.splitlines(), 1):
            match = _OUTSIDE_REFERENCES.search(line)
            if match:
                hits.append(f"{label}:{lineno}: {match.group(0)!r} in {line.strip()[:120]}")
    assert not hits, "references to documents outside the repository:\n" + "\n".join(hits)
