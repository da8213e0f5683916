"""A game followed live (the SSE stream of API.md): a snapshot, then each new event as the caller may see
it, keep-alives while quiet, and an end once the game is over.

One reader per game and process (GameFeed) reads each new event once and fans it out to every open stream
of the game, redacted once per seat (spectators share one redaction): the database work per event is the
same for one viewer as for a thousand. The store's watch only wakes the reader; every wake re-reads from
the last version fanned out, so a lost wake-up costs latency (bounded by ``poll_seconds``), never an event.
A wake reads the new events alone while the state cached in this process is the stored one (checked
against the stored event of its version: version and hash), so the stream row need not be read.

Fanning out never waits for a stream: each one has a bounded queue. A stream whose queue overflows (its
client reads too slowly) is detached, its queue dropped, and it catches up on its own from the store,
from the last version it sent, one page as the client takes it, before it joins the reader again. A slow
client so costs its own reads, never the others' latency, and never more than ``queue_limit`` messages.
A stream that starts or resumes behind the reader catches up the same way; events come from
GameQueries.history there, so a live reader always gets exactly what ``/events`` gives the same caller.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import structlog

from eventstore import RecordedEvent
from service.games.loading import LoadedGame
from service.games.service import GameService
from service.runtime import errors

PAGE_SIZE = 100
QUEUE_LIMIT = 256  # messages a stream may have waiting; past it, the stream catches up on its own

log = structlog.get_logger("service.readmodels.live")


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

    @functools.cached_property
    def json(self) -> str:
        """The body as JSON, encoded once however many streams send this message."""
        return msgspec.json.encode(self.body).decode()

    def wire(self, encode: Callable[[LiveMessage], bytes]) -> bytes:
        """The message as its transport sends it (``encode``, e.g. SSE), encoded once however many streams
        send it (one transport encodes live messages, so one cached form)."""
        cached: bytes | None = self.__dict__.get("_wire")
        if cached is None:
            cached = self.__dict__["_wire"] = encode(self)
        return cached


KEEPALIVE = LiveMessage("keepalive")  # one for all streams, so it too is encoded once


@dataclass(frozen=True)
class GameEnded:
    """The body of the ``end`` message."""

    game_id: str
    status: str
    version: int


def named_version(last_event_id: str | None) -> int | None:
    """The version a ``Last-Event-ID`` names (None without one, or when it names no version)."""
    if last_event_id is None:
        return None
    text = last_event_id.strip()
    # ASCII digits only (str.isdigit also takes superscripts), and few enough for int() to read
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else None


def resume_after(last_event_id: str | None, loaded: LoadedGame) -> int | None:
    """The version named by a ``Last-Event-ID`` (None without one); 400 unless it is 0..current version."""
    if last_event_id is None:
        return None
    version = named_version(last_event_id)
    if version is None or version > loaded.version:
        raise errors.Malformed(
            "bad_last_event_id", f"Last-Event-ID is a version of this game, 0..{loaded.version}"
        )
    return version


class Subscriber:
    """One open stream's place at its game's reader: the messages fanned out to it and not yet sent.

    ``start`` is the reader's version when it joined: what comes through the queue is after it (or at
    most up to it), what lies between the stream's own position and ``start`` the stream reads itself.
    """

    __slots__ = ("__weakref__", "error", "lagged", "limit", "queue", "seat", "start", "waiter")

    def __init__(self, seat: int | None, start: int, limit: int) -> None:
        """A subscriber for ``seat`` (None: a spectator) joining at version ``start``."""
        self.seat = seat
        self.start = start
        self.limit = limit
        self.queue: deque[LiveMessage] = deque()
        self.waiter: asyncio.Future[None] | None = None  # its stream waits on this while it has nothing
        self.lagged = False  # its queue overflowed: detached, it catches up on its own
        self.error: BaseException | None = None  # the reader failed with this

    def offer(self, messages: list[LiveMessage]) -> bool:
        """Queue ``messages``; False (and the queue dropped) if that would pass the limit."""
        if len(self.queue) + len(messages) > self.limit:
            self.queue.clear()
            self.lagged = True
            self.wake()
            return False
        self.queue.extend(messages)
        self.wake()
        return True

    def wake(self) -> None:
        """Wake its stream if it waits (one that does not looks at its queue before it waits again)."""
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class GameFeed:
    """The one reader of a game in this process: reads each new event once, fans it out to every subscriber
    (redacted once per seat), and stops when the game ends or its last subscriber leaves."""

    def __init__(self, service: GameService, game_id: str, position: int, poll_seconds: float) -> None:
        """A reader of ``game_id`` whose events up to ``position`` need not be fanned out."""
        self.service = service
        self.game_id = game_id
        self.position = position
        self.poll_seconds = poll_seconds
        self.subscribers: set[Subscriber] = set()
        self.task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether its reader still runs (it stops at the game's end, on a store error, or when left alone)."""
        return self.task is not None and not self.task.done()

    def join(self, seat: int | None, limit: int) -> Subscriber:
        """A new subscriber for ``seat``; starts the reader if it is not running."""
        subscriber = Subscriber(seat, self.position, limit)
        self.subscribers.add(subscriber)
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name=f"live-{self.game_id}")
        return subscriber

    def leave(self, subscriber: Subscriber) -> None:
        """Forget ``subscriber``; the reader stops once nobody is left."""
        self.subscribers.discard(subscriber)
        if not self.subscribers and self.task is not None:
            self.task.cancel()

    async def _run(self) -> None:
        """Read and fan out until the game is over (then an ``end`` to all) or nobody listens."""
        service = self.service
        try:
            with service.store.watch(self.game_id) as changes:
                while self.subscribers:
                    # one read of the new events both folds the state and gives the records fanned out
                    # (a game a read replica has not replayed yet is read on the primary: eventstore/replica.py)
                    loaded, records = await self._read()
                    for start in range(0, len(records), PAGE_SIZE):
                        self._fan_out(loaded, records[start : start + PAGE_SIZE])
                    if loaded.finished and self.position >= loaded.version:
                        end = LiveMessage("end", None, GameEnded(self.game_id, "finished", loaded.version))
                        self._send(functools.partial(_alone, end))
                        return
                    await changes.wait(self.poll_seconds)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # e.g. StoreUnavailable: every stream ends with it (clients resume)
            log.warning("live_reader_failed", game_id=self.game_id, error=type(exc).__name__)
            for subscriber in self.subscribers:
                subscriber.error = exc
                subscriber.wake()

    async def _read(self) -> tuple[LoadedGame, list[RecordedEvent]]:
        """The game as loaded and its records after ``position``: from one read of the records when the
        state cached in this process is the stored one (``Repository.read_since``), else ``load_since``,
        which reads the stream row as well. A duplicate round's game always goes the second way: its seal
        needs the store."""
        loader, game_id = self.service.loader, self.game_id
        cached = loader.cached(game_id)
        if cached is not None and not cached.info.metadata.get("duplicate_group"):
            read = await loader.streams.read_since(game_id, self.position)
            if read is not None:
                stream, records = read
                return loader.game_of(stream, cached.keys), records
        return await loader.load_since(game_id, self.position)

    def _fan_out(self, loaded: LoadedGame, records: list[Any]) -> None:
        """Hand ``records`` to every subscriber, each event enveloped once per seat."""
        service, public = self.service, loaded.public
        pages: dict[int | None, list[LiveMessage]] = {}

        def page(seat: int | None) -> list[LiveMessage]:
            """The records as ``seat`` may see them (computed once per seat)."""
            if seat not in pages:
                pages[seat] = [
                    LiveMessage("event", r.version, service.queries.envelope(loaded.game, r, seat, public))
                    for r in records
                ]
            return pages[seat]

        self.position = records[-1].version
        self._send(page)

    def _send(self, page: Callable[[int | None], list[LiveMessage]]) -> None:
        """Offer each subscriber its ``page(seat)``; detach those that cannot take it."""
        for subscriber in list(self.subscribers):
            if not subscriber.offer(page(subscriber.seat)):
                self.subscribers.discard(subscriber)


def _alone(message: LiveMessage, _seat: int | None) -> list[LiveMessage]:
    """``message`` alone, whoever the seat."""
    return [message]


class LiveGames:
    """The GameFeeds of one process (one per game with open streams), built once by the composition root
    (service/bootstrap.py) for its GameService."""

    def __init__(self, service: GameService) -> None:
        """No feeds yet."""
        self.service = service
        self.feeds: dict[str, GameFeed] = {}

    def feed(self, game_id: str, position: int, poll_seconds: float) -> GameFeed:
        """The running feed of ``game_id``, or a new one starting after ``position``."""
        feed = self.feeds.get(game_id)
        if feed is None or (feed.task is not None and feed.task.done()):
            feed = self.feeds[game_id] = GameFeed(self.service, game_id, position, poll_seconds)
        return feed

    def leave(self, feed: GameFeed, subscriber: Subscriber) -> None:
        """``subscriber`` leaves ``feed``; the feed is forgotten once nobody is left."""
        feed.leave(subscriber)
        if not feed.subscribers and self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]


async def follow_game(
    live: LiveGames,
    loaded: LoadedGame,
    seat: int | None,
    after: int | None,
    keepalive_seconds: float,
    poll_seconds: float,
    queue_limit: int = QUEUE_LIMIT,
) -> AsyncGenerator[LiveMessage, None]:
    """The live messages of ``follow_game_batches``, one at a time."""
    batches = follow_game_batches(live, loaded, seat, after, keepalive_seconds, poll_seconds, queue_limit)
    try:
        async for batch in batches:
            for message in batch:
                yield message
    finally:
        await batches.aclose()


async def follow_game_batches(
    live: LiveGames,
    loaded: LoadedGame,
    seat: int | None,
    after: int | None,
    keepalive_seconds: float,
    poll_seconds: float,
    queue_limit: int = QUEUE_LIMIT,
) -> AsyncGenerator[list[LiveMessage], None]:
    """The live messages of a game already loaded for the caller (``seat``; None is a spectator), in
    batches: all that is ready when the caller asks (a stream that fell behind sends them at once).

    ``after`` None: the snapshot at the loaded version, then the events after it. ``after`` a version
    (Last-Event-ID): the snapshot of now, then the events after ``after`` (so the client misses none).
    """
    game_id, service = loaded.game_id, live.service
    feed = live.feed(game_id, loaded.version, poll_seconds)
    subscriber = feed.join(seat, queue_limit)
    loop = asyncio.get_running_loop()
    # wakes the stream when a keep-alive may be due; set once per quiet period, not once per wait, and
    # forgotten once it has fired. Whether it is pending is kept here, not asked of the handle: uvloop's
    # call_later answers a plain Handle (no when()) for a delay it rounds to zero, and its millisecond
    # clock may fire a timer a little before or after the deadline asked for
    keepalive: asyncio.Handle | None = None

    def keepalive_may_be_due() -> None:
        """The timer fired: forget it and wake the stream, which sends a keep-alive if one is due."""
        nonlocal keepalive
        keepalive = None
        subscriber.wake()

    try:
        sent = loaded.version if after is None else after
        yield [LiveMessage("snapshot", sent, service.queries.detail(loaded, seat))]
        quiet_since = time.monotonic()
        while True:
            if subscriber.lagged or sent < subscriber.start:
                # behind the reader (or dropped by it): read on its own, a page as the client takes it
                loaded, events = await service.queries.history(game_id, seat, after=sent, limit=PAGE_SIZE)
                if events:
                    sent = events[-1].version
                    yield [LiveMessage("event", event.version, event) for event in events]
                quiet_since = time.monotonic()
                if loaded.finished and sent >= loaded.version:
                    yield [LiveMessage("end", None, GameEnded(game_id, "finished", loaded.version))]
                    return
                if events:
                    continue
                if subscriber.lagged:  # caught up with the store: join the reader again
                    live.leave(feed, subscriber)
                    feed = live.feed(game_id, sent, poll_seconds)
                    subscriber = feed.join(seat, queue_limit)
                    _cancel(keepalive)  # it would wake the subscriber left
                    keepalive = None
                    continue
                subscriber.start = sent  # nothing more stored yet: the reader brings the rest
            if subscriber.queue:
                batch, ended = _take(subscriber.queue, sent)
                if ended is not None:
                    yield [*batch, ended]
                    return
                if batch:
                    sent = batch[-1].id or sent
                    quiet_since = time.monotonic()
                    yield batch
                continue
            if subscriber.error is not None:
                raise subscriber.error
            if subscriber.lagged:
                continue  # to catching up
            keepalive_due = quiet_since + keepalive_seconds - time.monotonic()
            if keepalive_due <= 0:
                yield [KEEPALIVE]
                quiet_since = time.monotonic()
                continue
            # a pending timer fires no later than now due (quiet_since only grows): then it wakes the
            # stream early, which looks again and sets the next one
            if keepalive is None:
                keepalive = loop.call_later(keepalive_due, keepalive_may_be_due)
            subscriber.waiter = loop.create_future()
            try:
                await subscriber.waiter
            finally:
                subscriber.waiter = None
    finally:
        _cancel(keepalive)
        live.leave(feed, subscriber)


def _cancel(timer: asyncio.Handle | None) -> None:
    """Cancel ``timer`` (if any)."""
    if timer is not None:
        timer.cancel()


def _take(queue: deque[LiveMessage], sent: int) -> tuple[list[LiveMessage], LiveMessage | None]:
    """Empty ``queue``: its events after version ``sent`` in order, and its ``end`` if one came (nothing
    after an ``end`` is taken)."""
    batch: list[LiveMessage] = []
    while queue:
        message = queue.popleft()
        if message.kind == "end":
            return batch, message
        if message.id is not None and message.id > sent:
            sent = message.id
            batch.append(message)
    return batch, None
