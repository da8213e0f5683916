"""The PostgreSQL event store over asyncpg: one round trip per append (one statement, or es_append), and
concurrent appends of one process committed together (group commit, docs/decisions/0005-group-commit.md)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from eventstore.changes import ChangeHub, FollowsFeed
from eventstore.pgnotify import ChangeRelay
from eventstore.protocol import (
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
    StoreUnavailable,
    StreamExists,
    StreamInfo,
    StreamNotFound,
    Upcasters,
    bodies_of,
    chained,
    check_chain,
    upcast_events,
)

# The functions and tables are defined in migrations/versions/0001_event_store.py. Each statement is
# prepared once per connection by asyncpg's statement cache and runs in autocommit, so an append is one
# round trip and one transaction.
_APPEND = "SELECT * FROM es_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"

# The common case, one event, as one plain statement: a fifth faster than calling es_append (measured;
# the PL/pgSQL call and its separate statements are most of the cost). The UPDATE is the version check
# and the row lock, and chains the hash from the old head (the bytes of protocol.event_hash); the event
# and the command record are written only if it matched. When it did not (a conflict, a missing stream,
# a retried command whose version moved on) nothing is written and no row comes back; a retried command
# sent with the current version fails on the commands key, and is rolled back. Either way es_append then
# gives the answer: the stored record of a retry, or the precise error.
_APPEND_ONE = r"""
WITH moved AS (
    UPDATE streams s
       SET version = $2 + 1,
           head_hash = sha256(s.chain_key || s.head_hash
                              || convert_to($1 || E'\n' || ($2 + 1) || E'\n' || $3 || E'\n' || $4::integer
                                            || E'\n', 'UTF8')
                              || $5),
           status = coalesce($9, s.status),
           updated_at = now()
     WHERE s.stream_id = $1 AND s.version = $2
    RETURNING s.head_hash
), claimed AS (
    INSERT INTO commands (stream_id, command_id, request_hash, response, version)
    SELECT $1, $6, $7, $8, $2 + 1 FROM moved WHERE $6::text IS NOT NULL
), appended AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, hash, command_id, cause)
    SELECT $1, $2 + 1, $3, $4::integer, convert_from($5, 'UTF8')::json, moved.head_hash, $6, $10 FROM moved
    RETURNING version, position, recorded_at, hash
)
SELECT version, position, recorded_at, hash FROM appended
"""
# Several events (a command's usual two or three) as one plain statement too, for the same reason. The
# hashes chain from the head read in the statement's snapshot: when the UPDATE (re-checked under the row
# lock) still finds the expected version, that head is the one at that version, since the head only
# changes with the version and versions never go back.
_APPEND_MANY = r"""
WITH RECURSIVE new AS (
    SELECT e.t, e.sv, e.d, e.i::integer AS i
      FROM unnest($3::text[], $4::integer[], $5::bytea[]) WITH ORDINALITY AS e (t, sv, d, i)
), chain (i, k, h) AS (
    SELECT 0, s.chain_key, s.head_hash FROM streams s WHERE s.stream_id = $1 AND s.version = $2
    UNION ALL
    SELECT n.i, c.k, sha256(c.k || c.h
                       || convert_to($1 || E'\n' || ($2 + n.i) || E'\n' || n.t || E'\n' || n.sv || E'\n', 'UTF8')
                       || n.d)
      FROM chain c JOIN new n ON n.i = c.i + 1
), moved AS (
    UPDATE streams s
       SET version = $2 + cardinality($3::text[]),
           head_hash = (SELECT h FROM chain ORDER BY i DESC LIMIT 1),
           status = coalesce($9, s.status),
           updated_at = now()
     WHERE s.stream_id = $1 AND s.version = $2
    RETURNING s.version
), claimed AS (
    INSERT INTO commands (stream_id, command_id, request_hash, response, version)
    SELECT $1, $6, $7, $8, moved.version FROM moved WHERE $6::text IS NOT NULL
), appended AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, hash, command_id, cause)
    SELECT $1, $2 + n.i, n.t, n.sv, convert_from(n.d, 'UTF8')::json, c.h, $6, CASE WHEN n.i = 1 THEN $10::bytea END
      FROM moved, new n JOIN chain c ON c.i = n.i
    RETURNING version, position, recorded_at, hash
)
SELECT version, position, recorded_at, hash FROM appended ORDER BY version
"""
# Group commit: the appends queued while the previous batch ran, as one statement and one transaction (one
# WAL flush instead of one per append). Every entry brings its chain link, and the new events' hashes made
# from it (protocol.chained, in this process: the database's recursive hashing of a batch cost it twice what
# inserting the rows does). An entry is appended only if its stream's row agrees with its link and expected
# version, so a hash can never follow a head other than the stored one; an entry whose row does not agree
# (a conflict, a missing stream, a wrong link) or whose command id is stored already writes nothing and is
# left out of the answer (its caller then takes the one-append path, es_append, which chains in the
# database and gives the precise error or the stored record of a retry). A command id stored meanwhile by
# another transaction fails the batch on the commands key, and each append then goes alone: the key, not
# this statement's check, is what makes a command count once. The stream rows are locked in stream id
# order, so two processes' batches queue behind each other instead of deadlocking; FOR UPDATE re-reads a
# row that moved since the snapshot and re-checks it. Events are inserted entry by entry, in version order,
# so their positions follow each stream's versions.
MAX_BATCH = 8  # appends per group commit; more wait for the next one
_APPEND_BATCH = rf"""
WITH entry AS (
    SELECT e.stream_id, e.expected, decode(e.previous, 'base64') AS previous, decode(e.key, 'base64') AS key, e.n,
           decode(e.head, 'base64') AS head, e.status, decode(e.cause, 'base64') AS cause, e.command_id,
           e.request_hash, decode(e.response, 'base64') AS response
      FROM json_to_recordset(convert_from($1::bytea, 'UTF8')::json)
           AS e (stream_id text, expected integer, previous text, key text, n integer, head text, status text,
                 cause text, command_id text, request_hash text, response text)
     LIMIT {MAX_BATCH}  -- what a batch holds: told so, the planner looks its streams up by key instead of
                        -- guessing 100 entries and reading every stream row once there are a few thousand
), locked AS MATERIALIZED (
    SELECT e.*
      FROM streams s JOIN entry e ON e.stream_id = s.stream_id
     WHERE s.version = e.expected AND s.head_hash = e.previous AND s.chain_key = e.key
       AND (e.command_id IS NULL
            OR NOT EXISTS (SELECT FROM commands k WHERE k.stream_id = e.stream_id AND k.command_id = e.command_id))
     ORDER BY s.stream_id
       FOR UPDATE OF s
), moved AS (
    UPDATE streams s
       SET version = l.expected + l.n, head_hash = l.head, status = coalesce(l.status, s.status), updated_at = now()
      FROM locked l
     WHERE s.stream_id = l.stream_id
    RETURNING l.*
), claimed AS (
    INSERT INTO commands (stream_id, command_id, request_hash, response, version)
    SELECT m.stream_id, m.command_id, m.request_hash, m.response, m.expected + m.n
      FROM moved m
     WHERE m.command_id IS NOT NULL
), appended AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, hash, command_id, cause)
    SELECT n.stream_id, m.expected + n.i, n.type, n.schema_version, n.data::json, decode(n.hash, 'base64'),
           m.command_id, CASE WHEN n.i = 1 THEN m.cause END
      FROM moved m
      JOIN json_to_recordset(convert_from($2::bytea, 'UTF8')::json)
           AS n (stream_id text, i integer, type text, schema_version integer, data text, hash text)
           ON n.stream_id = m.stream_id
     ORDER BY n.stream_id, n.i
    RETURNING stream_id, version, position, recorded_at, hash
)
SELECT stream_id, version, position, recorded_at, hash FROM appended ORDER BY position
"""
# Small batches, several in flight (each on its own connection): while the database commits one batch,
# this process decides the next commands instead of waiting. One unbounded batch at a time measured a
# third slower with 16 writers: the database and the Python took turns, each idle half the time.
MAX_FLUSHES = 4  # group commits in flight at once
# metadata goes as text: the store works the same whether or not the pool has a jsonb codec
_CREATE = "SELECT * FROM es_create($1, $2, $3::text::jsonb, $4, $5, $6, $7, $8)"

# json keeps the exact text that was hashed; convert_to hands it back as those bytes.
_EVENT_COLUMNS = (
    "version, position, type, schema_version, convert_to(data::text, 'UTF8'), recorded_at, hash, command_id,"
    " cause"
)
_READ_STREAM = (
    f"SELECT {_EVENT_COLUMNS} FROM events"
    " WHERE stream_id = $1 AND version > $2 AND version <= $3 ORDER BY version LIMIT $4"
)
# Only transactions older than every running one (tx_id < the snapshot's xmin) are visible to the feed:
# a slow transaction holds back everything after it instead of committing behind a reader's checkpoint.
# The bigint output column has a name of its own: named tx_id, ORDER BY tx_id would sort by it (an output
# column wins over the table's), which events_feed_idx cannot serve (a sort of every row after the cursor).
_FEED_AFTER = (
    " FROM events WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())"
    " AND (tx_id, position) > ($1::bigint::text::xid8, $2)"
    " ORDER BY tx_id, position LIMIT $3"
)
_READ_ALL = f"SELECT tx_id::text::bigint AS feed_tx, stream_id, {_EVENT_COLUMNS}{_FEED_AFTER}"
# The same feed without the bodies, causes and commands, the time as microseconds since the epoch (a
# datetime a row is most of what is left to save on the client: docs/performance.md).
_READ_ALL_HEADERS = (
    "SELECT tx_id::text::bigint AS feed_tx, stream_id, version, position, type, hash,"
    f" (extract(epoch FROM recorded_at) * 1000000)::bigint{_FEED_AFTER}"
)
# A fold's read as one row: the bodies as the JSON array the loader decodes in one call, and the last
# version and hash (no record, datetime or bytes object per event on the client).
_READ_BODIES = (
    "SELECT convert_to('[' || string_agg(data::text, ',' ORDER BY version) || ']', 'UTF8'), max(version),"
    " (array_agg(hash ORDER BY version DESC))[1] FROM events WHERE stream_id = $1 AND version > $2"
)
_STREAM_COLUMNS = "stream_id, category, version, status, metadata::text, created_at, updated_at, head_hash"
_STREAM_INFO = f"SELECT {_STREAM_COLUMNS} FROM streams WHERE stream_id = $1"
_FIND_COMMAND = "SELECT request_hash, response FROM commands WHERE stream_id = $1 AND command_id = $2"
_CHAIN_HEAD = "SELECT version, head_hash, chain_key FROM streams WHERE stream_id = $1"
_CHAIN_EVENTS = (
    "SELECT version, type, schema_version, convert_to(data::text, 'UTF8'), hash FROM events"
    " WHERE stream_id = $1 ORDER BY version"
)

_NO_LIMIT = 2**31 - 1  # versions are PostgreSQL integers

_UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,  # refused, reset, unreachable; TimeoutError (acquiring, connecting) is an OSError too
    asyncpg.exceptions.PostgresConnectionError,  # SQLSTATE class 08, e.g. ConnectionDoesNotExistError
    asyncpg.exceptions.CannotConnectNowError,  # starting up or shutting down
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.TooManyConnectionsError,
    # What asyncpg raises, in place of ConnectionDoesNotExistError, on a pooled connection whose server
    # went away while it sat idle (it gets discarded on release; the next acquire connects afresh).
    asyncpg.exceptions.InternalClientError,
)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached now (the caller may retry later)."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    if isinstance(exc, asyncpg.exceptions.InterfaceError):
        message = str(exc)
        return "closed" in message or "closing" in message
    return False


@asynccontextmanager
async def pooled_connection(pool: asyncpg.Pool, acquire_timeout: float | None) -> AsyncIterator[Any]:
    """A connection of ``pool``, waited for at most ``acquire_timeout`` seconds. In the block, a failure to
    reach the database becomes StoreUnavailable, and so does a statement cancelled by statement_timeout
    (SQLSTATE 57014): the database is reachable but too slow to answer, and to a client that is the same
    thing, retry later. Other errors pass."""
    try:
        async with pool.acquire(timeout=acquire_timeout) as connection:
            yield connection
    except Exception as exc:
        unavailable = as_unavailable(exc)
        if unavailable is not None:
            raise unavailable from exc
        raise


def as_unavailable(exc: BaseException) -> StoreUnavailable | None:
    """What ``exc`` is to a caller of the store: StoreUnavailable when the database cannot be reached or
    cancelled the statement at statement_timeout (SQLSTATE 57014), else None (the error stands)."""
    if isinstance(exc, asyncpg.exceptions.QueryCanceledError) or is_unavailable(exc):
        return StoreUnavailable(str(exc))
    return None


def _write_error(exc: asyncpg.PostgresError, stream_id: str, expected: int) -> Exception | None:
    """The store error for es_append's and es_create's SQLSTATEs, or None to let ``exc`` through."""
    code = exc.sqlstate
    if code == "ES409":
        return ConcurrencyConflict(stream_id, expected, int(exc.detail))
    if code == "ES404":
        return StreamNotFound(stream_id)
    if code == "ES412":
        return StreamExists(stream_id)
    if code == "ES422":
        return IdempotencyMismatch(str(exc))
    if isinstance(exc, asyncpg.exceptions.DataError):  # a body that is not UTF-8 JSON
        return ValueError(str(exc))
    return None


@dataclass
class _Queued:
    """An append waiting for a group commit, and where its caller waits for the rows written."""

    stream_id: str
    expected: int
    events: list[NewEvent]
    command: CommandRecord | None
    status: str | None
    cause: bytes | None
    link: ChainLink
    done: asyncio.Future[list[Any]] = field(repr=False)


class _BatchEntry(msgspec.Struct, omit_defaults=True):
    """One append of a group commit, as the batch statement reads it (a row of its first JSON document)."""

    stream_id: str
    expected: int
    previous: bytes
    key: bytes
    n: int
    head: bytes
    status: str | None = None
    cause: bytes | None = None
    command_id: str | None = None
    request_hash: str | None = None
    response: bytes | None = None


class _BatchEvent(msgspec.Struct):
    """One new event of a group commit (a row of the batch statement's second JSON document); ``data`` is
    the body's text, which the database reads back exactly, and ``i`` its place in its append (from 1)."""

    stream_id: str
    i: int
    type: str
    schema_version: int
    data: str
    hash: bytes


# A batch goes as two JSON documents, not as seventeen arrays: asyncpg's encoding of the arrays was a sixth
# of this process's time per command (profiled); with the documents a commit costs this process 5-9 us an
# append less, and the database no more (measured side by side).
_BATCH_JSON = msgspec.json.Encoder()


class PostgresEventStore(FollowsFeed):
    """The event store on PostgreSQL; ``pool`` is an asyncpg pool on a database migrated to head."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        upcasters: Upcasters | None = None,
        *,
        acquire_timeout: float | None = None,
        listen_connect: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        """Use ``pool``; ``upcasters`` bring old event bodies up to their current schema on read.

        ``acquire_timeout`` (seconds) bounds the wait for a free connection; past it, StoreUnavailable.
        ``listen_connect`` opens the dedicated LISTEN connection (default: one held out of the pool).
        """
        self._pool = pool
        self._upcasters: Upcasters = dict(upcasters or {})
        self._acquire_timeout = acquire_timeout
        self.pool, self.acquire_timeout = pool, acquire_timeout  # for work claimed beside the store
        self._changes = ChangeHub()
        # every NOTIFY heard, this process's own too, with the WAL position it carries: what wakes the
        # readers of a hot standby (eventstore/replica.py), which read once the standby has replayed it
        self.fenced_changes = ChangeHub()
        self.relay = ChangeRelay(
            pool,
            self._changes,
            acquire_timeout=acquire_timeout,
            connect=listen_connect,
            fenced=self.fenced_changes,
        )
        self._queued: list[_Queued] = []  # appends waiting for the next group commit
        self._in_flight: set[str] = set()  # the streams of the batches being committed
        self._flushers: set[asyncio.Task[None]] = set()
        self._starting: set[asyncio.Task[None]] = set()  # flushers about to take a batch

    async def _fetch(self, query: str, *args: Any) -> list[Any]:
        """Run one statement in autocommit (one round trip); connection failures become StoreUnavailable."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            return await connection.fetch(query, *args)  # type: ignore[no-any-return]

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
        try:
            rows = await self._fetch(
                _CREATE,
                stream_id,
                category,
                msgspec.json.encode(metadata or {}).decode(),
                status,
                [event.type for event in events],
                [event.schema_version for event in events],
                [event.data for event in events],
                chain_key,
            )
        except asyncpg.PostgresError as exc:
            error = _write_error(exc, stream_id, 0)
            if error is None:
                raise
            raise error from exc
        self._changed(stream_id)
        return AppendResult(version=len(events), events=self._recorded_new(stream_id, events, rows, None))

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
        """Append after ``expected_version`` in one transaction, or raise ConcurrencyConflict. With
        ``link``, the append goes with whatever else is being appended now (group commit)."""
        command_id = request_hash = response = None
        if command is not None:
            command_id, request_hash, response = command.command_id, command.request_hash, command.response
        if events:
            if link is None:  # chained in the database, alone
                rows = await self._append_plain(
                    stream_id, expected_version, events, command_id, request_hash, response, status, cause
                )
                if rows:
                    self._changed(stream_id)
            else:  # the flusher signals the change
                queued = _Queued(
                    stream_id,
                    expected_version,
                    events,
                    command,
                    status,
                    cause,
                    link,
                    asyncio.get_running_loop().create_future(),
                )
                rows = await self._append_grouped(queued)
            if rows:
                return AppendResult(
                    version=expected_version + len(events),
                    events=self._recorded_new(stream_id, events, rows, command_id, cause),
                )
        # Nothing written yet (a conflict, a missing stream, a retried command, no events, or a batch that
        # failed): es_append gives the answer, the stored record of a retry, or the precise error.
        try:
            rows = await self._fetch(
                _APPEND,
                stream_id,
                expected_version,
                [event.type for event in events],
                [event.schema_version for event in events],
                [event.data for event in events],
                command_id,
                request_hash,
                response,
                status,
                cause,
            )
        except asyncpg.PostgresError as exc:
            error = _write_error(exc, stream_id, expected_version)
            if error is None:
                raise
            raise error from exc
        if command_id is not None and rows and rows[0][4] is not None:
            # The command id was stored already: its first answer, and nothing appended.
            first = rows[0]
            replayed = CommandRecord(command_id=command_id, request_hash=first[4], response=first[5])
            return AppendResult(version=first[0], events=[], replayed=replayed)
        self._changed(stream_id)
        return AppendResult(
            version=expected_version + len(events),
            events=self._recorded_new(stream_id, events, rows, command_id, cause),
        )

    async def _append_plain(
        self,
        stream_id: str,
        expected_version: int,
        events: list[NewEvent],
        command_id: str | None,
        request_hash: str | None,
        response: bytes | None,
        status: str | None,
        cause: bytes | None,
        fetch: Callable[..., Awaitable[list[Any]]] | None = None,
    ) -> list[Any]:
        """One append as one plain statement (run by ``fetch``, default a pooled connection's): its rows
        (version, position, recorded_at, hash), or [] if nothing was written (then es_append tells why)."""
        bodies: tuple[Any, Any, Any]  # type, schema version and data: of the event, or arrays of them
        if len(events) == 1:
            statement, bodies = _APPEND_ONE, (events[0].type, events[0].schema_version, events[0].data)
        else:
            statement = _APPEND_MANY
            bodies = (
                [event.type for event in events],
                [event.schema_version for event in events],
                [event.data for event in events],
            )
        try:
            return await (fetch or self._fetch)(
                statement,
                stream_id,
                expected_version,
                *bodies,
                command_id,
                request_hash,
                response,
                status,
                cause,
            )
        except asyncpg.exceptions.UniqueViolationError as exc:
            if exc.constraint_name != "commands_pkey":
                raise
            return []  # the command id is taken: es_append answers with its stored record
        except asyncpg.exceptions.DataError as exc:
            raise ValueError(str(exc)) from exc

    async def _append_grouped(self, queued: _Queued) -> list[Any]:
        """Queue an append for the next group commit; its rows, or [] if it was not written."""
        self._queued.append(queued)
        # Another flusher only for what the ones about to start will not take: a task per append, most of
        # them finding the queue empty, was a tenth of the store's time per command (profiled).
        if len(self._flushers) < MAX_FLUSHES and len(self._starting) * MAX_BATCH < len(self._queued):
            flusher = asyncio.create_task(self._flush())
            self._flushers.add(flusher)
            self._starting.add(flusher)
            flusher.add_done_callback(self._starting.discard)  # also if cancelled before it started
        return await queued.done

    def _next_batch(self) -> list[_Queued]:
        """Take the next batch off the queue: at most MAX_BATCH appends, none to a stream in flight."""
        batch: list[_Queued] = []
        later: list[_Queued] = []
        for queued in self._queued:
            if len(batch) < MAX_BATCH and queued.stream_id not in self._in_flight:
                self._in_flight.add(queued.stream_id)
                batch.append(queued)
            else:
                later.append(queued)
        self._queued = later
        return batch

    async def _flush(self) -> None:
        """Commit queued appends, a batch at a time, until there are none this flusher may take.

        A batch is whatever queued while the flushers were busy (so a lone append goes at once, as its
        own plain statement). One append per stream is in flight: a second one to a stream waits for
        the next batch, where it fails its version check unless the first one failed. After a batch the
        flusher lets the writers it answered run once, and takes what they append next on the connection
        it holds (a pool acquire and release per batch cost as much as encoding the batch, profiled).
        """
        me = asyncio.current_task()
        assert me is not None
        self._starting.discard(me)
        batch: list[_Queued] = []
        connection: Any = None  # held from the first batch to the last, or until it fails
        try:
            while batch := self._next_batch():
                unavailable = None
                try:
                    if connection is None:
                        connection = await self._pool.acquire(timeout=self._acquire_timeout)
                    appended = await self._commit(connection, batch)
                except Exception as exc:
                    if connection is not None:  # a fresh one for the next batch (the pool drops it if broken)
                        await self._give_back(connection)
                        connection = None
                    failure = as_unavailable(exc)
                    # Not retried alone when unavailable: the batch may have committed before the
                    # connection went. Otherwise each append goes alone, and meets its own error there.
                    appended, unavailable = {}, None if failure is None else str(failure)
                for queued in batch:
                    self._in_flight.discard(queued.stream_id)
                    rows = appended.get(queued.stream_id, [])
                    if rows:
                        self._changed(queued.stream_id)
                    if queued.done.done():  # its caller was cancelled meanwhile
                        continue
                    if unavailable is None:
                        queued.done.set_result(rows)
                    else:
                        queued.done.set_exception(StoreUnavailable(unavailable))
                batch = []
                self._starting.add(me)  # waiting for its writers: no new flusher for what they append now
                await asyncio.sleep(0)
                self._starting.discard(me)
        finally:
            self._flushers.discard(me)
            for queued in batch:  # cancelled: an unknown outcome, as for a cancelled query
                self._in_flight.discard(queued.stream_id)
                queued.done.cancel()
            if not self._flushers:  # the last flusher: nobody would take the rest
                for queued in self._queued:
                    queued.done.cancel()
                self._queued = []
            if connection is not None:
                await self._give_back(connection)

    async def _give_back(self, connection: Any) -> None:
        """Return a flusher's connection to the pool. Its batches' outcomes are settled by then; a release
        that fails (the connection broke) has closed it, and the pool opens another when next asked."""
        with suppress(Exception):
            await self._pool.release(connection)

    async def _commit(self, connection: Any, batch: list[_Queued]) -> dict[str, list[Any]]:
        """Append ``batch`` in one transaction on ``connection``; the rows of each stream appended to (the
        others: none)."""
        if len(batch) == 1:
            only, record = batch[0], batch[0].command
            rows = await self._append_plain(
                only.stream_id,
                only.expected,
                only.events,
                None if record is None else record.command_id,
                None if record is None else record.request_hash,
                None if record is None else record.response,
                only.status,
                only.cause,
                connection.fetch,
            )
            return {only.stream_id: rows}
        entries: list[_BatchEntry] = []
        new_events: list[_BatchEvent] = []
        for queued in batch:
            link, record, stream_id = queued.link, queued.command, queued.stream_id
            hashes = chained(link.head, stream_id, queued.expected, queued.events, link.key)
            entries.append(
                _BatchEntry(
                    stream_id=stream_id,
                    expected=queued.expected,
                    previous=link.head,
                    key=link.key,
                    n=len(queued.events),
                    head=hashes[-1],
                    status=queued.status,
                    cause=queued.cause,
                    command_id=None if record is None else record.command_id,
                    request_hash=None if record is None else record.request_hash,
                    response=None if record is None else record.response,
                )
            )
            new_events += [
                _BatchEvent(stream_id, i, event.type, event.schema_version, event.data.decode(), hash_)
                for i, (event, hash_) in enumerate(zip(queued.events, hashes, strict=True), 1)
            ]
        rows = await connection.fetch(
            _APPEND_BATCH, _BATCH_JSON.encode(entries), _BATCH_JSON.encode(new_events)
        )
        appended: dict[str, list[Any]] = {}
        for row in rows:
            appended.setdefault(row[0], []).append(row[1:])
        for stream_rows in appended.values():
            stream_rows.sort(key=lambda row: row[0])  # by version
        return appended

    def _changed(self, stream_id: str) -> None:
        """After a commit: wake this process's watchers of the stream, and queue the NOTIFY for the others."""
        self._changes.signal((stream_id,))
        self.relay.publish(stream_id)

    def _recorded_new(
        self,
        stream_id: str,
        events: list[NewEvent],
        rows: list[Any],
        command_id: str | None,
        cause: bytes | None = None,
    ) -> list[RecordedEvent]:
        """The appended events as recorded (position, time and hash from es_append's rows), upcast."""
        recorded = [
            RecordedEvent(
                stream_id=stream_id,
                version=row[0],
                position=row[1],
                type=event.type,
                schema_version=event.schema_version,
                data=event.data,
                recorded_at=row[2],
                hash=row[3],
                command_id=command_id,
                cause=cause if i == 0 else None,
            )
            for i, (event, row) in enumerate(zip(events, rows, strict=True))
        ]
        return self._upcast(recorded) if self._upcasters else recorded

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
        rows = await self._fetch(_READ_STREAM, stream_id, after, _NO_LIMIT if until is None else until, limit)
        events = [
            RecordedEvent(
                stream_id=stream_id,
                version=row[0],
                position=row[1],
                type=row[2],
                schema_version=row[3],
                data=row[4],
                recorded_at=row[5],
                hash=row[6],
                command_id=row[7],
                cause=row[8],
            )
            for row in rows
        ]
        return events if as_stored or not self._upcasters else self._upcast(events)

    async def read_bodies(self, stream_id: str, after: int = 0) -> Bodies | None:
        """The events with ``after < version`` as Bodies, None if there are none."""
        if self._upcasters:  # the bodies go through the upcasters one by one
            return bodies_of(await self.read_stream(stream_id, after))
        rows = await self._fetch(_READ_BODIES, stream_id, after)
        if not rows or rows[0][1] is None:
            return None
        return Bodies(array=rows[0][0], version=rows[0][1], head=bytes(rows[0][2]))

    async def stream_info(self, stream_id: str) -> StreamInfo | None:
        """The stream's row, or None."""
        rows = await self._fetch(_STREAM_INFO, stream_id)
        return _stream_info(rows[0]) if rows else None

    async def list_streams(
        self,
        category: str | None = None,
        status: str | None = None,
        metadata_contains: dict[str, Any] | None = None,
        before: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[StreamInfo]:
        """Streams newest first (created_at, stream_id descending), strictly before the ``before`` cursor."""
        # Only the filters given go into the SQL, so each combination is planned on its own index.
        conditions: list[str] = []
        args: list[Any] = []
        if category is not None:
            args.append(category)
            conditions.append(f"category = ${len(args)}")
        if status is not None:
            args.append(status)
            conditions.append(f"status = ${len(args)}")
        if metadata_contains:
            args.append(msgspec.json.encode(metadata_contains).decode())
            conditions.append(f"metadata @> ${len(args)}::text::jsonb")
        if before is not None:
            args.extend(before)
            conditions.append(f"(created_at, stream_id) < (${len(args) - 1}, ${len(args)})")
        args.append(limit)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        query = (
            f"SELECT {_STREAM_COLUMNS} FROM streams{where}"
            f" ORDER BY created_at DESC, stream_id DESC LIMIT ${len(args)}"
        )
        return [_stream_info(row) for row in await self._fetch(query, *args)]

    async def find_command(self, stream_id: str, command_id: str) -> CommandRecord | None:
        """The stored command record, or None."""
        rows = await self._fetch(_FIND_COMMAND, stream_id, command_id)
        if not rows:
            return None
        return CommandRecord(command_id=command_id, request_hash=rows[0][0], response=rows[0][1])

    async def read_all(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, RecordedEvent]]:
        """The global feed after a checkpoint, in (transaction id, position) order, committed only."""
        after = after or FeedPosition()
        rows = await self._fetch(_READ_ALL, after.tx, after.position, limit)
        feed = [
            (
                FeedPosition(tx=row[0], position=row[3]),
                RecordedEvent(
                    stream_id=row[1],
                    version=row[2],
                    position=row[3],
                    type=row[4],
                    schema_version=row[5],
                    data=row[6],
                    recorded_at=row[7],
                    hash=row[8],
                    command_id=row[9],
                    cause=row[10],
                ),
            )
            for row in rows
        ]
        if not self._upcasters:
            return feed
        upcast_events = self._upcast([event for _, event in feed])
        return [(at, event) for (at, _), event in zip(feed, upcast_events, strict=True)]

    async def read_all_headers(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, FeedHeader]]:
        """``read_all``'s events (the same query, fewer columns), each as its FeedHeader."""
        after = after or FeedPosition()
        rows = await self._fetch(_READ_ALL_HEADERS, after.tx, after.position, limit)
        return [
            (
                FeedPosition(tx=row[0], position=row[3]),
                FeedHeader(
                    stream_id=row[1],
                    version=row[2],
                    position=row[3],
                    type=row[4],
                    hash=row[5],
                    recorded_us=row[6],
                ),
            )
            for row in rows
        ]

    async def start(self) -> None:
        """Hear other processes' appends: one LISTEN connection (``listen_connect``'s, else the pool's), kept up."""
        await self.relay.start()

    async def stop(self) -> None:
        """Stop listening and close (or give back to the pool) the LISTEN connection."""
        await self.relay.stop()

    async def verify_chain(self, stream_id: str) -> ChainCheck:
        """Recompute the stream's hash chain over the stored bytes; StreamNotFound if there is none."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):  # one snapshot: the stream row and its events agree unless someone tampered
            head = await connection.fetchrow(_CHAIN_HEAD, stream_id)
            rows = await connection.fetch(_CHAIN_EVENTS, stream_id)
        if head is None and not rows:
            raise StreamNotFound(stream_id)
        return check_chain(
            stream_id,
            [(row[0], row[1], row[2], row[3], row[4]) for row in rows],
            None if head is None else (head[0], head[1]),
            b"" if head is None else bytes(head[2]),
        )


def _stream_info(row: Any) -> StreamInfo:
    """A streams row as StreamInfo."""
    return StreamInfo(
        stream_id=row[0],
        category=row[1],
        version=row[2],
        status=row[3],
        metadata=msgspec.json.decode(row[4]),
        created_at=row[5],
        updated_at=row[6],
        head_hash=bytes(row[7]),
    )
