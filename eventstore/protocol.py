"""The append-only event store's contract: what the PostgreSQL store and its in-memory twin both promise.

Properties (docs/architecture.md): append-only; optimistic concurrency per stream; idempotent commands
by command id; gap-free versions per stream and a global feed that never skips a later commit; a hash
chain per stream; versioned event schemas upcast on read; stream metadata kept in the same transaction
as the append (the game listing reads it); live readers woken by change signals that never carry events
themselves, so a lost signal costs latency and never an event (eventstore/changes.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:
    from eventstore.changes import ChangeWatch

GENESIS_HASH = bytes(32)


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event to append: its type, schema version and JSON body (the exact bytes that are hashed)."""

    type: str
    schema_version: int
    data: bytes


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A stored event. ``data``/``schema_version`` are after upcasting; ``hash`` chains the stored bytes."""

    stream_id: str
    version: int
    position: int  # global position; the feed's order is FeedPosition (see read_all)
    type: str
    schema_version: int
    data: bytes
    recorded_at: datetime
    hash: bytes
    command_id: str | None = None
    cause: bytes | None = (
        None  # what caused the append (opaque: the service stores the command), on its first event
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class FeedHeader(msgspec.Struct, frozen=True, kw_only=True):
    """A stored event without its body, cause or command, as ``read_all_headers`` gives the feed: for a
    follower that notes which streams moved (and folds them itself) or compares a state it holds with the
    stored one (the version and hash). Its time is kept as microseconds since the Unix epoch, ``recorded_at``
    turning it into a datetime when asked (building one for every row of the feed costs about 1 µs a row,
    docs/performance.md)."""

    stream_id: str
    version: int
    position: int
    type: str
    hash: bytes
    recorded_us: int

    @property
    def recorded_at(self) -> datetime:
        """When the event was recorded (UTC)."""
        return _EPOCH + timedelta(microseconds=self.recorded_us)


def header_of(event: RecordedEvent) -> FeedHeader:
    """``event``'s FeedHeader."""
    return FeedHeader(
        stream_id=event.stream_id,
        version=event.version,
        position=event.position,
        type=event.type,
        hash=event.hash,
        recorded_us=(event.recorded_at - _EPOCH) // timedelta(microseconds=1),
    )


class Bodies(msgspec.Struct, frozen=True, kw_only=True):
    """Events as folding a state needs them: their bodies (upcast) as one JSON array, in version order, and
    the version and hash of the last."""

    array: bytes
    version: int
    head: bytes


def bodies_of(events: Sequence[RecordedEvent]) -> Bodies | None:
    """``events`` (upcast, in version order) as Bodies; None for no events."""
    if not events:
        return None
    return Bodies(
        array=b"[" + b",".join([event.data for event in events]) + b"]",
        version=events[-1].version,
        head=events[-1].hash,
    )


class FeedPosition(msgspec.Struct, frozen=True, kw_only=True, order=True):
    """A checkpoint in the global feed: (transaction id, position); the feed is ordered by this pair."""

    tx: int = 0
    position: int = 0

    def encode(self) -> str:
        """The checkpoint as an opaque string ``"<tx>-<position>"``."""
        return f"{self.tx}-{self.position}"

    @staticmethod
    def decode(text: str) -> FeedPosition:
        """Parse ``encode``'s output (raises ValueError on anything else)."""
        tx, _, position = text.partition("-")
        return FeedPosition(tx=int(tx), position=int(position))


class CommandRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A command id stored with its events: the hash of its request and the response first given."""

    command_id: str
    request_hash: str
    response: bytes


class StreamInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A stream's row: category (e.g. the game), current version, status and searchable metadata."""

    stream_id: str
    category: str
    version: int
    status: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    head_hash: bytes = GENESIS_HASH  # the hash of the event at ``version``


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    """What an append did: the new version and the recorded events, or the stored first answer on a retry."""

    version: int
    events: list[RecordedEvent]
    replayed: CommandRecord | None = None


class ChainCheck(msgspec.Struct, frozen=True, kw_only=True):
    """The result of recomputing a stream's hash chain."""

    ok: bool
    events: int
    head: str  # hex hash of the last event
    first_bad_version: int | None = None
    detail: str = ""
    # what broke: "gap", "hash" (an event does not match its hash), "row_missing", "row_ahead" (the stream's
    # row counts more events than are stored: a deleted tail), "row_behind", "row_head" (its head hash)
    reason: str = ""


class ChainLink(msgspec.Struct, frozen=True, kw_only=True):
    """What a writer knows of the stream it appends to: the hash of the event at its expected version
    (GENESIS_HASH at 0) and the stream's chain key. With it the store may hash the new events itself and
    have the database only check, under the stream's lock, that its row agrees; a wrong link costs a round
    trip (the database then chains them), never a wrong hash."""

    head: bytes
    key: bytes = b""


class StoreError(Exception):
    """Base of the store's errors."""


class ConcurrencyConflict(StoreError):
    """The stream moved on: ``expected`` was stale (``actual`` is the version found). Nothing was written."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream_id} is at version {actual}, expected {expected}")
        self.stream_id, self.expected, self.actual = stream_id, expected, actual


class StreamExists(StoreError):
    """``create_stream`` on an id already taken."""


class StreamNotFound(StoreError):
    """``append`` to a stream that was never created."""


class IdempotencyMismatch(StoreError):
    """A command id reused with another request: the first request's hash differs."""


class StoreUnavailable(StoreError):
    """The database cannot be reached (the API answers 503 with Retry-After)."""


Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
Upcasters = Mapping[tuple[str, int], Upcaster]
"""(event type, stored schema version) -> function turning that body into schema version + 1."""


def upcast(upcasters: Upcasters, type_: str, schema_version: int, data: bytes) -> tuple[int, bytes]:
    """Run a stored body through the upcaster chain (v1 -> v2 -> ...): the final version and its JSON body.

    Without an upcaster for ``(type_, schema_version)`` the stored bytes come back untouched.
    """
    upcaster = upcasters.get((type_, schema_version))
    if upcaster is None:
        return schema_version, data
    body: dict[str, Any] = msgspec.json.decode(data)
    while upcaster is not None:
        body = upcaster(body)
        schema_version += 1
        upcaster = upcasters.get((type_, schema_version))
    return schema_version, msgspec.json.encode(body)


def upcast_events(upcasters: Upcasters, events: list[RecordedEvent]) -> list[RecordedEvent]:
    """``events`` with old schema versions brought up to date (the stored rows stay as they are)."""
    if not upcasters:
        return events
    out = []
    for event in events:
        if (event.type, event.schema_version) in upcasters:
            schema_version, data = upcast(upcasters, event.type, event.schema_version, event.data)
            event = msgspec.structs.replace(event, schema_version=schema_version, data=data)
        out.append(event)
    return out


def event_hash(
    previous: bytes,
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    data: bytes,
    key: bytes = b"",
) -> bytes:
    """The chained hash: SHA-256(key || previous || "<stream>\\n<version>\\n<type>\\n<schema_version>\\n" || data).

    ``key`` is the stream's chain key (empty for streams created without one); ``previous`` is the hash of
    the stream's event ``version - 1``, or 32 zero bytes for version 1; ``data`` is the exact stored JSON
    body (before any upcasting).
    """
    header = f"{stream_id}\n{version}\n{type_}\n{schema_version}\n".encode()
    return hashlib.sha256(key + previous + header + data).digest()


def chained(
    previous: bytes, stream_id: str, expected_version: int, events: Sequence[NewEvent], key: bytes = b""
) -> list[bytes]:
    """The hashes of ``events`` appended after ``expected_version``, whose event hashes to ``previous``."""
    hashes = []
    for version, event in enumerate(events, start=expected_version + 1):
        previous = event_hash(previous, stream_id, version, event.type, event.schema_version, event.data, key)
        hashes.append(previous)
    return hashes


def check_chain(
    stream_id: str,
    events: Sequence[tuple[int, str, int, bytes, bytes]],
    head: tuple[int, bytes] | None,
    key: bytes = b"",
) -> ChainCheck:
    """Recompute a chain from stored ``(version, type, schema_version, data, hash)`` rows in version order.

    ``head`` is what the stream's row says, ``(version, head hash)``, or None if the row is missing; ``key``
    is the stream's chain key. A gap,
    a changed body or header, or a stream row disagreeing with its events fails with the first version
    found wrong; ``head`` of the result is the stored hash of the last event.
    """
    stored_head = events[-1][4] if events else GENESIS_HASH

    def bad(version: int | None, detail: str, reason: str) -> ChainCheck:
        return ChainCheck(
            ok=False,
            events=len(events),
            head=stored_head.hex(),
            first_bad_version=version,
            detail=detail,
            reason=reason,
        )

    previous = GENESIS_HASH
    for expected, (version, type_, schema_version, data, stored) in enumerate(events, start=1):
        if version != expected:
            return bad(expected, f"version {expected} is missing (found {version} next)", "gap")
        previous = event_hash(previous, stream_id, version, type_, schema_version, data, key)
        if previous != stored:
            return bad(version, f"version {version} does not match its hash", "hash")
    if head is None:
        return bad(None, "the stream's row is missing", "row_missing")
    version, head_hash = head
    if version != len(events):
        return bad(
            min(version, len(events)) + 1,
            f"the stream is at version {version} but {len(events)} are stored",
            "row_ahead" if version > len(events) else "row_behind",
        )
    if head_hash != previous:
        return bad(version or None, "the stream's head hash does not match its last event", "row_head")
    return ChainCheck(ok=True, events=len(events), head=previous.hex())


class EventStore(Protocol):
    """The store both implementations satisfy (tests/integration/test_eventstore_contract.py)."""

    async def create_stream(
        self,
        stream_id: str,
        category: str,
        events: list[NewEvent],
        metadata: dict[str, Any] | None = None,
        status: str = "active",
        chain_key: bytes = b"",
    ) -> AppendResult:
        """Create a stream with its first events (versions 1..n) in one transaction; StreamExists if taken.

        ``chain_key`` (opaque, never changed, never read back) is mixed into every hash of the stream."""
        ...

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
        """Append after ``expected_version`` in one transaction, or raise ConcurrencyConflict writing nothing.

        ``cause`` (opaque bytes, e.g. the command that produced the events) is stored on the first event.
        ``link`` (the head at ``expected_version`` and the chain key, as the writer knows them) lets the
        store share the work of hashing with other writers' appends; the hashes stored are the same either
        way, and a wrong link never changes them.

        With ``command``: if its id is already stored for this stream, nothing is appended and the stored
        record is returned in ``replayed`` (IdempotencyMismatch if its request hash differs) — checked
        before the version, so a retry after success is answered, not refused. ``status`` updates the
        stream's status in the same transaction.
        """
        ...

    async def read_stream(
        self,
        stream_id: str,
        after: int = 0,
        limit: int | None = None,
        until: int | None = None,
        as_stored: bool = False,
    ) -> list[RecordedEvent]:
        """Events with ``after < version`` (and ``version <= until``), in version order, upcast; with
        ``as_stored`` the bodies and schema versions as stored, the exact bytes their hashes chain."""
        ...

    async def read_bodies(self, stream_id: str, after: int = 0) -> Bodies | None:
        """The events with ``after < version`` as Bodies (what ``read_stream`` gives, without a record per
        event: a fold needs only the bodies and the last version and hash), None if there are none."""
        ...

    async def stream_info(self, stream_id: str) -> StreamInfo | None:
        """The stream's row, or None."""
        ...

    async def list_streams(
        self,
        category: str | None = None,
        status: str | None = None,
        metadata_contains: dict[str, Any] | None = None,
        before: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[StreamInfo]:
        """Streams newest first (created_at, stream_id descending), strictly before the ``before`` cursor."""
        ...

    async def find_command(self, stream_id: str, command_id: str) -> CommandRecord | None:
        """The stored command record, or None."""
        ...

    async def read_all(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, RecordedEvent]]:
        """The global feed after a checkpoint: only events of committed transactions older than every
        transaction still running, ordered by (transaction id, position), so no later commit can ever
        appear before a checkpoint already read."""
        ...

    async def read_all_headers(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, FeedHeader]]:
        """``read_all`` without the bodies: the same events at the same positions, in the same order, each as
        its FeedHeader (for the followers that need no event's body; no upcasting, which changes bodies
        only)."""
        ...

    async def verify_chain(self, stream_id: str) -> ChainCheck:
        """Recompute the stream's hash chain (keyed with its chain key) over the stored bytes."""
        ...

    def subscribe(
        self, after: FeedPosition | None = None, *, page_size: int = 500, poll_seconds: float = 5.0
    ) -> AsyncIterator[tuple[FeedPosition, RecordedEvent]]:
        """The global feed after ``after`` (read_all's order, each event once), then every event committed
        later, without end: woken by change signals, re-reading from its position on each, and polling
        every ``poll_seconds`` in case a signal was lost. Resume with the last position taken; close with
        ``contextlib.aclosing``. Store errors end it (e.g. StoreUnavailable)."""
        ...

    def watch(self, stream_id: str | None = None) -> ChangeWatch:
        """A watch on one stream (None: any): ``with store.watch(s) as w:`` read, then ``await w.wait(t)``
        returns True as soon as the stream may have changed since the previous wait, in any process."""
        ...

    async def start(self) -> None:
        """Start hearing other processes' appends (PostgreSQL: one LISTEN connection per store, kept up).
        Without it, watches wake only on this process's appends and subscribers fall back to polling."""
        ...

    async def stop(self) -> None:
        """Stop hearing them."""
        ...
