"""Docs and comments stand alone (docs/decisions/README.md): no text file of the repository cites a tracker's
issue by number, a design file that is not in the repository, or the machine or sittings it was written on;
a reason is told where it applies or recorded in docs/decisions/, and each record there is in its index."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# what is not the repository's own text: tools' and builds' output, and vendored third-party files
SKIPPED_DIRECTORIES = {
    ".git",
    ".venv",
    ".data",
    ".generators",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".import_linter_cache",
    "build",
    "dist",
    "artifacts",
    "vendor",
}
FORBIDDEN = {
    "an issue number": re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE),
    "a design file outside the repository": re.compile(r"\bDESIGN\.md\b"),
    "a guide the repository does not hold": re.compile(r"\bthis guide\b", re.IGNORECASE),
    "a sitting": re.compile(
        r"\b(?:sessions?\s+\d+|(?:an earlier|a previous|the last|before this|first|second|third|fourth|fifth)"
        r"\s+session)\b",
        re.IGNORECASE,
    ),
    "the machine it was written on": re.compile(r"\bthis\s+\d+-core\s+machine\b", re.IGNORECASE),
}


def text_files() -> Iterator[Path]:
    """Every file under the repository root that decodes as UTF-8, outside the skipped directories (links
    to directories, as verifier/'s, are not followed: their files are met where they live)."""
    for directory, subdirectories, files in os.walk(ROOT):
        subdirectories[:] = [
            name
            for name in subdirectories
            if name not in SKIPPED_DIRECTORIES and not name.endswith(".egg-info")
        ]
        for name in files:
            path = Path(directory) / name
            try:
                path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:  # an image, a compiled file
                continue
            yield path


def test_no_text_cites_what_a_reader_cannot_open() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()[:120]}"
        for path in text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for what, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]
    assert not found, "\n".join(found)


def test_every_decision_record_is_in_the_index() -> None:
    decisions = ROOT / "docs" / "decisions"
    index = (decisions / "README.md").read_text(encoding="utf-8")
    records = sorted(p.name for p in decisions.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records, "no decision records"
    assert [name for name in records if f"({name})" not in index] == []
