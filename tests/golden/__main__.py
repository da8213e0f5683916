"""Regenerate every golden playthrough: ``python -m tests.golden`` (or ``make golden``); review the diff."""

from __future__ import annotations

from tests.golden.record import RECORDINGS, record

if __name__ == "__main__":
    for recording in RECORDINGS:
        content = record(recording)
        changed = not recording.path.exists() or recording.path.read_bytes() != content
        recording.path.write_bytes(content)
        print(f"{recording.path.name}: {len(content):,} bytes{' (changed)' if changed else ''}")
