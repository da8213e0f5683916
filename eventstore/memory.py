"""The in-memory twin of the event store: the same contract as PostgreSQL, for fast service tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from eventstore.changes import ChangeHub, FollowsFeed
from eventstore.protocol import (
    GENESIS_HASH,
    AppendResult,
    Bodies,
    ChainCheck,
    ChainLink,
    CommandRecord,
    ConcurrencyConflict,
    FeedHeader,
    FeedPosition,
    IdempotencyMismatch,
    NewEvent,
    RecordedEvent,
    StreamExists,
    StreamInfo,
    StreamNotFound,
    Upcasters,
    bodies_of,
    chained,
    check_chain,
    header_of,
    upcast_events,
)


@dataclass
class _Stream:
    """One stream: its row (as in the streams table), its stored events and its command records."""

    stream_id: str
    category: str
    status: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    head: bytes = GENESIS_HASH
    chain_key: bytes = b""
    events: list[RecordedEvent] = field(default_factory=list)  # as stored: before upcasting
    commands: dict[str, CommandRecord] = field(default_factory=dict)

    def info(self) -> StreamInfo:
        """The stream's row."""
        return StreamInfo(
            stream_id=self.stream_id,
            category=self.category,
            version=len(self.events),
            status=self.status,
            metadata=msgspec.json.decode(msgspec.json.encode(self.metadata)),  # a copy, as a read would be
            created_at=self.created_at,
            updated_at=self.updated_at,
            head_hash=self.head,
        )


class InMemoryEventStore(FollowsFeed):
    """The event store in process memory; one asyncio.Lock makes each create/append atomic.

    The feed position of event n (1, 2, ...) is FeedPosition(tx=n, position=n): appends are serialised,
    so commit order and position order coincide.
    """

    def __init__(self, upcasters: Upcasters | None = None) -> None:
        """An empty store; ``upcasters`` bring old event bodies up to their current schema on read."""
        self._upcasters: Upcasters = dict(upcasters or {})
        self._streams: dict[str, _Stream] = {}
        self._feed: list[RecordedEvent] = []  # stored events in position order (position n at index n - 1)
        self._lock = asyncio.Lock()
        self._changes = ChangeHub()

    async def create_stream(
        self,
        stream_id: str,
        category: str,
        events: list[NewEvent],
        metadata: dict[str, Any] | None = None,
        status: str = "active",
        chain_key: bytes = b"",
    ) -> AppendResult:
        """Create a stream with its first events (versions 1..n) in one transaction; StreamExists if taken."""
        _check_bodies(events)
        async with self._lock:
            if stream_id in self._streams:
                raise StreamExists(stream_id)
            now = datetime.now(UTC)
            stream = _Stream(
                stream_id=stream_id,
                category=category,
                status=status,
                metadata=msgspec.json.decode(msgspec.json.encode(metadata or {})),
                created_at=now,
                updated_at=now,
                chain_key=bytes(chain_key),
            )
            self._streams[stream_id] = stream
            recorded = self._write(stream, events, None, now, None)
        self._changes.signal((stream_id,))
        return AppendResult(version=len(stream.events), events=self._upcast(recorded))

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: list[NewEvent],
        command: CommandRecord | None = None,
        status: str | None = None,
        cause: bytes | None = None,
        link: ChainLink | None = None,
    ) -> AppendResult:
        """Append after ``expected_version`` in one transaction, or raise ConcurrencyConflict. ``link`` is
        not needed here: the events are always chained from the stream's own head."""
        _check_bodies(events)
        async with self._lock:
            stream = self._streams.get(stream_id)
            if stream is None:
                raise StreamNotFound(stream_id)
            version = len(stream.events)
            if command is not None:  # a retry is answered before the version is checked
                stored = stream.commands.get(command.command_id)
                if stored is not None:
                    if stored.request_hash != command.request_hash:
                        raise IdempotencyMismatch(
                            f"command {command.command_id} on stream {stream_id} was sent before"
                            " with another request"
                        )
                    return AppendResult(version=version, events=[], replayed=stored)
            if version != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, version)
            now = datetime.now(UTC)
            recorded = self._write(stream, events, command, now, cause)
            if status is not None:
                stream.status = status
            stream.updated_at = now
        self._changes.signal((stream_id,))
        return AppendResult(version=len(stream.events), events=self._upcast(recorded))

    def _write(
        self,
        stream: _Stream,
        events: list[NewEvent],
        command: CommandRecord | None,
        now: datetime,
        cause: bytes | None,
    ) -> list[RecordedEvent]:
        """Store ``events`` after the stream's last one, chaining their hashes; the caller holds the lock."""
        command_id = None if command is None else command.command_id
        recorded = []
        hashes = chained(stream.head, stream.stream_id, len(stream.events), events, stream.chain_key)
        for i, (event, chained_hash) in enumerate(zip(events, hashes, strict=True)):
            version = len(stream.events) + 1
            stream.head = chained_hash
            stored = RecordedEvent(
                stream_id=stream.stream_id,
                version=version,
                position=len(self._feed) + 1,
                type=event.type,
                schema_version=event.schema_version,
                data=bytes(event.data),
                recorded_at=now,
                hash=stream.head,
                command_id=command_id,
                cause=None if cause is None or i else bytes(cause),
            )
            stream.events.append(stored)
            self._feed.append(stored)
            recorded.append(stored)
        if command is not None:
            stream.commands[command.command_id] = command
        return recorded

    def _upcast(self, events: list[RecordedEvent]) -> list[RecordedEvent]:
        """``events`` upcast with this store's upcasters."""
        return upcast_events(self._upcasters, events)

    async def read_stream(
        self,
        stream_id: str,
        after: int = 0,
        limit: int | None = None,
        until: int | None = None,
        as_stored: bool = False,
    ) -> list[RecordedEvent]:
        """Events with ``after < version`` (and ``version <= until``), in version order, upcast unless
        ``as_stored``."""
        stream = self._streams.get(stream_id)
        if stream is None:
            return []
        end = len(stream.events) if until is None else max(after, min(until, len(stream.events)))
        start = max(after, 0)
        if limit is not None:
            end = min(end, start + max(limit, 0))
        stored = stream.events[start:end]
        return stored if as_stored else self._upcast(stored)

    async def read_bodies(self, stream_id: str, after: int = 0) -> Bodies | None:
        """The events with ``after < version`` as Bodies, None if there are none."""
        return bodies_of(await self.read_stream(stream_id, after))

    async def stream_info(self, stream_id: str) -> StreamInfo | None:
        """The stream's row, or None."""
        stream = self._streams.get(stream_id)
        return None if stream is None else stream.info()

    async def list_streams(
        self,
        category: str | None = None,
        status: str | None = None,
        metadata_contains: dict[str, Any] | None = None,
        before: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[StreamInfo]:
        """Streams newest first (created_at, stream_id descending), strictly before the ``before`` cursor."""
        found = [
            stream
            for stream in self._streams.values()
            if (category is None or stream.category == category)
            and (status is None or stream.status == status)
            and (not metadata_contains or _contains(stream.metadata, metadata_contains))
            and (before is None or (stream.created_at, stream.stream_id) < before)
        ]
        found.sort(key=lambda stream: (stream.created_at, stream.stream_id), reverse=True)
        return [stream.info() for stream in found[: max(limit, 0)]]

    async def find_command(self, stream_id: str, command_id: str) -> CommandRecord | None:
        """The stored command record, or None."""
        stream = self._streams.get(stream_id)
        return None if stream is None else stream.commands.get(command_id)

    async def read_all(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, RecordedEvent]]:
        """The global feed after a checkpoint; event n sits at FeedPosition(tx=n, position=n)."""
        events = self._upcast(self._feed_after(after, limit))
        return [(FeedPosition(tx=event.position, position=event.position), event) for event in events]

    async def read_all_headers(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, FeedHeader]]:
        """``read_all``'s events, each as its FeedHeader (not upcast: upcasters change bodies only)."""
        return [
            (FeedPosition(tx=event.position, position=event.position), header_of(event))
            for event in self._feed_after(after, limit)
        ]

    def _feed_after(self, after: FeedPosition | None, limit: int) -> list[RecordedEvent]:
        """At most ``limit`` events of the feed after ``after``, as stored."""
        start = 0 if after is None else max(after.position, 0)
        return self._feed[start : start + max(limit, 0)]

    async def start(self) -> None:
        """Nothing to start: every writer is in this process."""

    async def stop(self) -> None:
        """Nothing to stop."""

    async def verify_chain(self, stream_id: str) -> ChainCheck:
        """Recompute the stream's hash chain over the stored bytes; StreamNotFound if there is none."""
        stream = self._streams.get(stream_id)
        if stream is None:
            raise StreamNotFound(stream_id)
        rows = [(e.version, e.type, e.schema_version, e.data, e.hash) for e in stream.events]
        return check_chain(stream_id, rows, (len(stream.events), stream.head), stream.chain_key)


def _check_bodies(events: list[NewEvent]) -> None:
    """Refuse a body that is not JSON, as the json column of the PostgreSQL store does (ValueError)."""
    for event in events:
        try:
            msgspec.json.decode(event.data)
        except msgspec.DecodeError as exc:
            raise ValueError(f"event {event.type!r} has a body that is not JSON: {exc}") from exc


def _contains(document: Any, pattern: Any) -> bool:
    """PostgreSQL's jsonb ``@>``: objects contain sub-objects, arrays contain elements, scalars are equal."""
    if isinstance(pattern, dict):
        return isinstance(document, dict) and all(
            key in document and _contains(document[key], value) for key, value in pattern.items()
        )
    if isinstance(pattern, list):
        if not isinstance(document, list):
            return False
        return all(any(_contains(item, wanted) for item in document) for wanted in pattern)
    if _is_number(document) and _is_number(pattern):
        return bool(document == pattern)
    return type(document) is type(pattern) and bool(document == pattern)


def _is_number(value: Any) -> bool:
    """A JSON number (bool is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
