"""The other media types the API answers in: CSV tables and newline-delimited JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

NDJSON = "application/x-ndjson"
CSV = "text/csv"


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV table: the header line, then one line per row (None as an empty cell, booleans as in JSON)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    cells = {None: "", True: "true", False: "false"}
    writer.writerows(
        [cells[cell] if cell is None or isinstance(cell, bool) else cell for cell in row] for row in rows
    )
    return out.getvalue()


def ndjson(items: Iterable[Any]) -> bytes:
    """One compact JSON document per line."""
    return b"".join(msgspec.json.encode(item) + b"\n" for item in items)
