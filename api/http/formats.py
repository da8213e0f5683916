"""The media types the API answers in (JSON, CSV tables, newline-delimited JSON, event streams) and the
choice between them by the request's ``Accept`` header (RFC 9110 12.5.1)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.datastructures.headers import MediaTypeHeader

from api.http.problems import problem

JSON = "application/json"
NDJSON = "application/x-ndjson"
CSV = "text/csv"
EVENT_STREAM = "text/event-stream"
OFFERS = "offers"  # the route handler ``opt`` key listing what an operation offers, preferred first

# A cell starting with one of these is read as a formula by spreadsheet programs (CSV injection, OWASP):
# such cells get a leading apostrophe, which spreadsheets show as text and strip from the value.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(cell: Any) -> Any:
    """A CSV cell that no spreadsheet evaluates: text beginning like a formula is prefixed with ``'``."""
    if cell is None:
        return ""
    if isinstance(cell, str) and cell.startswith(FORMULA_TRIGGERS):
        return "'" + cell
    return cell


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV table: the header line, then one line per row (None as an empty cell, booleans as in JSON,
    formulas defused)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([safe_cell(column) for column in columns])
    cells = {None: "", True: "true", False: "false"}
    writer.writerows(
        [cells[cell] if cell is None or isinstance(cell, bool) else safe_cell(cell) for cell in row]
        for row in rows
    )
    return out.getvalue()


def ndjson(items: Iterable[Any]) -> bytes:
    """One compact JSON document per line."""
    return b"".join(msgspec.json.encode(item) + b"\n" for item in items)


def _quality(media: MediaTypeHeader) -> float:
    """An ``Accept`` range's q-value (0..1; an unreadable one counts as 0, i.e. not acceptable)."""
    text = media.params.get("q")
    if text is None:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if 0.0 <= value <= 1.0 else 0.0


def _specificity(media: MediaTypeHeader) -> int:
    """How specific a range is: ``*/*`` < ``type/*`` < ``type/subtype``."""
    return 0 if media.maintype == "*" else 1 if media.subtype == "*" else 2


def acceptable(accept: str, offered: Sequence[str]) -> str | None:
    """The offered media type the ``Accept`` value prefers (None if it accepts none of them).

    Written here because Litestar's ``Accept.best_match`` treats ``q=0`` as acceptable and lets ``*/*``
    outrank a more specific range that excludes a type. Per RFC 9110 12.5.1 each offered type takes the
    q-value of the most specific range matching it; the highest q above zero wins, ties going to the
    server's order of preference.
    """
    if not accept.strip():
        return offered[0]
    ranges = [MediaTypeHeader(part) for part in accept.split(",") if part.strip()]
    best: tuple[float, str] | None = None
    for media_type in offered:
        maintype, _, subtype = media_type.partition("/")
        matching = [
            r for r in ranges if r.maintype in ("*", maintype.lower()) and r.subtype in ("*", subtype.lower())
        ]
        if not matching:
            continue
        quality = _quality(max(matching, key=_specificity))
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, media_type)
    return best[1] if best else None


def offers(request: Request[Any, Any, Any]) -> tuple[str, ...]:
    """What the request's operation offers, preferred first (JSON unless its handler says otherwise)."""
    offered: tuple[str, ...] = request.route_handler.opt.get(OFFERS, (JSON,))
    return offered


def negotiate(request: Request[Any, Any, Any]) -> str:
    """The media type to answer ``request`` in (the ``before_request`` check has refused none with 406)."""
    offered = offers(request)
    return acceptable(request.headers.get("accept", ""), offered) or offered[0]


def refuse_unacceptable(request: Request[Any, Any, Any]) -> None:
    """Before a handler: 406 when the request's ``Accept`` takes none of what the operation offers (the
    game API's operations and every operation that lists its offers; others answer as they do)."""
    accept = request.headers.get("accept")
    if not accept or accept == "*/*":
        return
    offered: tuple[str, ...] | None = request.route_handler.opt.get(OFFERS)
    if offered is None:
        if not request.url.path.startswith("/v1/"):
            return
        offered = (JSON,)
    if acceptable(accept, offered) is None:
        raise problem(406, "not_acceptable", f"this operation answers in {', '.join(offered)}")


# A coroutine though it never waits: Litestar runs a plain-function hook in its thread pool, a thread
# hand-off on every request (measured in a profile of the command endpoint; api.app's before_request hook is
# a coroutine for the same reason).
async def vary_on_accept(response: Response[Any]) -> Response[Any]:
    """After a handler: ``Vary: Accept``, since what the answer is depends on the request's ``Accept``."""
    response.headers["Vary"] = "Accept"
    return response


def accepts(request: Request[Any, Any, Any], media_type: str) -> bool:
    """Whether ``media_type`` is the representation the request's ``Accept`` prefers (q-values honoured)."""
    return negotiate(request) == media_type
