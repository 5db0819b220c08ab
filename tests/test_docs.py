"""The docs are reference pages: none is organised or labelled by when, or in which stretch of work,
something was done ("ninth session", "issue 15", "the afternoon of", a date in a heading).

The history lives in CHANGELOG.md, which is exempt. A hit names its file and line.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WHEN_LABELS = [
    re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)"
               r"|this|last|previous|next) (session|stretch)\b", re.IGNORECASE),
    re.compile(r"\bsession \d+\b", re.IGNORECASE),
    re.compile(r"\(issue[: ]", re.IGNORECASE),
    re.compile(r"\bissue \d+\b", re.IGNORECASE),
    re.compile(r"\b(morning|afternoon|evening) of\b", re.IGNORECASE),
]
DATED_HEADING = re.compile(r"^#+ .*\d{4}-\d{2}-\d{2}")


def doc_pages() -> list:
    """README.md and every Markdown file under docs/ (CHANGELOG.md, at the root, is not one)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def when_labels(path: Path) -> list:
    """'file:line: text' for every line of a page that says when, rather than what."""
    hits = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if DATED_HEADING.match(line) or any(p.search(line) for p in WHEN_LABELS):
            hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return hits


def test_the_pages_are_there():
    names = {p.relative_to(ROOT).as_posix() for p in doc_pages()}
    assert {"README.md", "docs/strength.md", "docs/benchmarks.md"} <= names


def test_no_page_is_labelled_by_when_it_was_written():
    hits = [hit for path in doc_pages() for hit in when_labels(path)]
    assert hits == [], ("say what, not when (the history goes to CHANGELOG.md):\n" + "\n".join(hits))


def test_the_check_finds_what_it_is_meant_to(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Speed\n\nMeasured in the ninth session.\n\n## Runs of 2026-11-26\n\n"
                    "As issue 15 asks (issue: search), the morning of the run.\n\nLast Stretch, session 3.\n"
                    "A session of the bot protocol, issued 2026-11-26.\n", encoding="utf-8")
    lines = page.read_text().splitlines()
    found = [i for i, line in enumerate(lines, 1)
             if DATED_HEADING.match(line) or any(p.search(line) for p in WHEN_LABELS)]
    assert found == [3, 5, 7, 9]
