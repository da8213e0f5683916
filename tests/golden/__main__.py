"""Regenerate every golden playthrough: ``python -m tests.golden`` (or ``make golden``); review the diff."""

from __future__ import annotations

from pathlib import Path

from tests.golden.record import RECORDINGS, record
from tests.golden.tournament import TOURNAMENT_RECORDINGS, record_tournament


def write(path: Path, content: bytes) -> None:
    """Write one golden file and say whether it changed."""
    changed = not path.exists() or path.read_bytes() != content
    path.write_bytes(content)
    print(f"{path.name}: {len(content):,} bytes{' (changed)' if changed else ''}")


if __name__ == "__main__":
    for recording in RECORDINGS:
        write(recording.path, record(recording))
    for tournament in TOURNAMENT_RECORDINGS:
        write(tournament.path, record_tournament(tournament))
