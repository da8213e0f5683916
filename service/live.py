"""A game followed live (the SSE stream of API.md): a snapshot, then each new event as the caller may see
it, keep-alives while quiet, and an end once the game is over.

Events come from GameService.history, so a live reader gets exactly what ``/events`` gives the same
caller (redacted while the game runs). The store's watch only wakes the reader; every wake re-reads from
the last version sent, so a lost wake-up costs latency (bounded by ``poll_seconds``), never an event.
Messages are produced one at a time as the consumer takes them: a slow client holds one page at most.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Literal

from service import errors
from service.games import GameService, LoadedGame

PAGE_SIZE = 100


@dataclass(frozen=True)
class LiveMessage:
    """One message of a live game: ``snapshot`` (the caller's GameDetail), ``event`` (an EventOut),
    ``keepalive`` (nothing happened for a while) or ``end`` (the game is over, nothing more will come).

    ``id`` is the version a reconnecting client resumes after: an event's version; for the snapshot, the
    version the events that follow it start after.
    """

    kind: Literal["snapshot", "event", "keepalive", "end"]
    id: int | None = None
    body: Any = None


@dataclass(frozen=True)
class GameEnded:
    """The body of the ``end`` message."""

    game_id: str
    status: str
    version: int


def resume_after(last_event_id: str | None, loaded: LoadedGame) -> int | None:
    """The version named by a ``Last-Event-ID`` (None without one); 400 unless it is 0..current version."""
    if last_event_id is None:
        return None
    text = last_event_id.strip()
    # ASCII digits only (str.isdigit also takes superscripts), and few enough for int() to read
    if not (text.isascii() and text.isdigit() and len(text) <= 10) or int(text) > loaded.version:
        raise errors.Malformed(
            "bad_last_event_id", f"Last-Event-ID is a version of this game, 0..{loaded.version}"
        )
    return int(text)


async def follow_game(
    service: GameService,
    loaded: LoadedGame,
    seat: int | None,
    after: int | None,
    keepalive_seconds: float,
    poll_seconds: float,
) -> AsyncGenerator[LiveMessage, None]:
    """The live messages of a game already loaded for the caller (``seat``; None is a spectator).

    ``after`` None: the snapshot at the loaded version, then the events after it. ``after`` a version
    (Last-Event-ID): the snapshot of now, then the events after ``after`` (so the client misses none).
    """
    game_id = loaded.game_id
    with service.store.watch(game_id) as changes:
        sent = loaded.version if after is None else after
        yield LiveMessage("snapshot", sent, service.detail(loaded, seat))
        quiet_since = time.monotonic()
        while True:
            loaded, events = await service.history(game_id, seat, after=sent, limit=PAGE_SIZE)
            for event in events:
                sent = event.version
                yield LiveMessage("event", sent, event)
            if events:
                quiet_since = time.monotonic()
                if len(events) == PAGE_SIZE:
                    continue
            if loaded.finished and sent >= loaded.version:
                yield LiveMessage("end", None, GameEnded(game_id, "finished", loaded.version))
                return
            keepalive_due = quiet_since + keepalive_seconds - time.monotonic()
            if keepalive_due <= 0:
                yield LiveMessage("keepalive")
                quiet_since = time.monotonic()
                continue
            await changes.wait(min(poll_seconds, keepalive_due))
