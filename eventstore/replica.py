"""Reading a hot standby (READ_DATABASE_URL, docs/operations.md "Read replicas"): the store's read statements
on the standby, its writes and LISTEN on the primary, and reads fenced by the primary's WAL position.

A standby replays the primary's WAL a little later than the primary commits, and LISTEN/NOTIFY does not
exist there. So a reader woken by the primary's NOTIFY (which carries the primary's flush LSN,
eventstore/pgnotify.py) waits until the standby's ``pg_last_wal_replay_lsn()`` has passed that position
before it reads: it never reads the standby before the change it was woken for is there. One poll of the
standby's replay position serves every waiter of the process (ReplayFence).

A standby that cannot be reached is left alone for ``RETRY_SECONDS``: its reads go to the primary meanwhile,
so a stopped standby costs one failed connection attempt per process and period, never an error.

A stream the standby does not have may be one the primary created a moment ago, which a client was already
told of (a game just created, followed live at once). So the store, not each caller, makes sure of it: the
standby is given a bounded wait to replay everything the primary has flushed (``catch_up``) and asked again;
if it still lacks the stream, the primary is, and a stream the primary has is then read there, all of its
reads, for ``RETRY_SECONDS`` (its row and its events from one database, never a row the events lag behind).
A stream missing on both is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

import asyncpg
import structlog

from eventstore.changes import DEFAULT_PAGE_SIZE, DEFAULT_POLL_SECONDS, ChangeHub, ChangeWatch
from eventstore.postgres import PostgresEventStore, pooled_connection
from eventstore.protocol import (
    AppendResult,
    Bodies,
    ChainCheck,
    ChainLink,
    CommandRecord,
    FeedHeader,
    FeedPosition,
    NewEvent,
    RecordedEvent,
    StoreUnavailable,
    StreamInfo,
)

RETRY_SECONDS = 5.0  # a standby that could not be reached (lacked a stream) is tried again after this long
LACKING_LIMIT = 1024  # streams read on the primary at once because the standby lacked them (oldest out first)
# The standby's replay position is polled this often while someone waits for it, doubling from the first
# pause to the last: a standby that keeps up replays a commit within a millisecond or two.
_POLL_PAUSES = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032)
_NOT_IN_RECOVERY = 2**64  # pg_last_wal_replay_lsn() is null on a primary: it holds everything

T = TypeVar("T")

log = structlog.get_logger("eventstore.replica")


class ReplayFence:
    """Waits until a standby has replayed a position of the primary's WAL: one poll of its replay position
    at a time serves every waiter of this process."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        acquire_timeout: float | None = None,
        on_failure: Callable[[], None] | None = None,
    ) -> None:
        """Poll the standby that ``pool`` connects to; ``on_failure`` is told when it cannot be asked."""
        self._pool = pool
        self._acquire_timeout = acquire_timeout
        self._on_failure = on_failure
        self.replayed = 0  # the highest replay position seen so far (it only grows)
        self._waiters: list[tuple[int, asyncio.Future[bool]]] = []
        self._poller: asyncio.Task[None] | None = None

    async def reached(self, lsn: int, timeout: float) -> bool:
        """Whether the standby has replayed ``lsn``, waiting at most ``timeout`` seconds for it (False: not
        in time, or the standby could not be asked)."""
        if lsn <= self.replayed:
            return True
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.append((lsn, waiter))
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll(), name="replica-replay-fence")
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(waiter)
        except TimeoutError:
            return False
        finally:
            if not waiter.done():
                waiter.cancel()

    async def _poll(self) -> None:
        """Read the standby's replay position until no waiter is left, answering each as it is passed."""
        pause = 0
        try:
            while self._waiters:
                async with pooled_connection(self._pool, self._acquire_timeout) as connection:
                    replayed = await connection.fetchval("SELECT pg_last_wal_replay_lsn()")
                self.replayed = max(self.replayed, _NOT_IN_RECOVERY if replayed is None else int(replayed))
                waiting = []
                for lsn, waiter in self._waiters:
                    if waiter.done():
                        continue
                    if lsn <= self.replayed:
                        waiter.set_result(True)
                    else:
                        waiting.append((lsn, waiter))
                self._waiters = waiting
                if waiting:
                    await asyncio.sleep(_POLL_PAUSES[min(pause, len(_POLL_PAUSES) - 1)])
                    pause += 1
        except Exception as exc:  # the standby went away: its waiters read elsewhere (the primary)
            log.warning("replica_replay_unknown", error=type(exc).__name__)
            if self._on_failure is not None:
                self._on_failure()
            for _, waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(False)
            self._waiters = []

    async def close(self) -> None:
        """Stop polling."""
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller


class FencedWatch(ChangeWatch):
    """A watch woken by the primary's NOTIFYs (any process's) whose ``wait`` returns once the standby has
    replayed the WAL position they carried (at most ``fence_seconds`` later)."""

    __slots__ = ("_replayed",)

    def __init__(
        self, hub: ChangeHub, stream_id: str | None, replayed: Callable[[int], Awaitable[bool]]
    ) -> None:
        """A watch of ``hub`` (the primary store's fenced hub) on ``stream_id``; ``replayed`` waits for the
        standby to replay a position (ReplicaStore.replayed)."""
        super().__init__(hub, stream_id)
        self._replayed = replayed

    def __enter__(self) -> FencedWatch:
        """Start receiving signals, the first one at once: a change announced before the watch began may not
        be on the standby yet when its reader first reads, so the first wait fences the newest position heard
        and the reader reads again."""
        super().__enter__()
        if self._hub.latest:
            self._signal(self._hub.latest)
        return self

    async def wait(self, timeout: float | None = None) -> bool:
        """Until a change is signalled (True) or ``timeout`` seconds (False), then until the standby has
        replayed every position signalled so far."""
        woken = await super().wait(timeout)
        if self.fence:
            await self._replayed(self.fence)
        return woken


class ReplicaStore:
    """The event store for reads: its read statements on the standby (``replica``) while it answers, else on
    the primary; writes, the feed's followers and LISTEN on the primary; watches fenced by WAL position."""

    def __init__(
        self, primary: PostgresEventStore, replica: PostgresEventStore, fence_seconds: float
    ) -> None:
        """Read ``replica`` (a store on the standby's pool, never started), fall back to ``primary``; a fenced
        wait gives the standby at most ``fence_seconds`` to replay a position."""
        self.primary = primary
        self.replica = replica
        self.fence_seconds = fence_seconds
        self.replay = ReplayFence(replica.pool, replica.acquire_timeout, on_failure=self._unreachable)
        self.pool, self.acquire_timeout = primary.pool, primary.acquire_timeout  # work claimed beside it
        self._down_until = 0.0  # monotonic time before which the standby is not tried again
        # stream -> monotonic time before which its reads go to the primary (the standby lacked it)
        self._lacking: dict[str, float] = {}
        self._lag_reported = float("-inf")  # monotonic time of the last ``replica_lagging`` log line

    @property
    def replica_up(self) -> bool:
        """Whether reads go to the standby now (it answered its last read, or was down long enough ago)."""
        return time.monotonic() >= self._down_until

    def _unreachable(self) -> None:
        """The standby did not answer: reads go to the primary for ``RETRY_SECONDS``."""
        self._down_until = time.monotonic() + RETRY_SECONDS

    async def _read(self, read: Callable[[PostgresEventStore], Awaitable[T]]) -> T:
        """``read`` on the standby; on the primary while the standby cannot be reached, and for a read the
        standby cancelled because it conflicted with replaying the primary's WAL (SQLSTATE 40001)."""
        if self.replica_up:
            try:
                return await read(self.replica)
            except StoreUnavailable as exc:
                self._unreachable()
                log.warning("replica_unavailable", error=str(exc), retry_seconds=RETRY_SECONDS)
            except asyncpg.exceptions.SerializationError as exc:  # "conflict with recovery"
                log.info("replica_read_cancelled", error=str(exc))
        return await read(self.primary)

    async def _read_stream(self, stream_id: str, read: Callable[[PostgresEventStore], Awaitable[T]]) -> T:
        """``read`` of one stream: as ``_read``, but on the primary while the standby lacks the stream."""
        if self._lacks(stream_id):
            return await read(self.primary)
        return await self._read(read)

    def _lacks(self, stream_id: str) -> bool:
        """Whether the stream's reads go to the primary because the standby lacked it a moment ago."""
        until = self._lacking.get(stream_id)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._lacking[stream_id]
        return False

    def _lacked(self, stream_id: str) -> None:
        """The standby did not replay the stream in time: read it on the primary for ``RETRY_SECONDS``."""
        self._lacking.pop(stream_id, None)
        self._lacking[stream_id] = time.monotonic() + RETRY_SECONDS
        if len(self._lacking) > LACKING_LIMIT:
            del self._lacking[next(iter(self._lacking))]

    async def replayed(self, lsn: int) -> bool:
        """Wait (at most ``fence_seconds``) until the standby has replayed the primary's position ``lsn``;
        False if it has not, or is down (its reads go to the primary then). A standby found lagging more
        than that is logged (``replica_lagging``, at most once per ``RETRY_SECONDS``)."""
        if not self.replica_up:
            return False
        if await self.replay.reached(lsn, self.fence_seconds):
            return True
        if self.replica_up and time.monotonic() - self._lag_reported >= RETRY_SECONDS:
            self._lag_reported = time.monotonic()
            log.warning(
                "replica_lagging", behind_bytes=lsn - self.replay.replayed, waited_s=self.fence_seconds
            )
        return False

    async def catch_up(self) -> bool:
        """Wait (at most ``fence_seconds``) until the standby has replayed everything the primary has flushed
        now, i.e. every commit answered so far; False if it has not (or is down): read the primary then."""
        if not self.replica_up:
            return False
        async with pooled_connection(self.primary.pool, self.primary.acquire_timeout) as connection:
            flushed = int(await connection.fetchval("SELECT pg_current_wal_flush_lsn()"))
        return await self.replayed(flushed)

    # writes: the primary's
    async def create_stream(
        self,
        stream_id: str,
        category: str,
        events: list[NewEvent],
        metadata: dict[str, Any] | None = None,
        status: str = "active",
        chain_key: bytes = b"",
    ) -> AppendResult:
        """Create on the primary."""
        return await self.primary.create_stream(stream_id, category, events, metadata, status, chain_key)

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
        """Append on the primary."""
        return await self.primary.append(stream_id, expected_version, events, command, status, cause, link)

    # reads: the standby's
    async def read_stream(
        self,
        stream_id: str,
        after: int = 0,
        limit: int | None = None,
        until: int | None = None,
        as_stored: bool = False,
    ) -> list[RecordedEvent]:
        """The stream's events, read on the standby."""
        return await self._read_stream(
            stream_id, lambda store: store.read_stream(stream_id, after, limit, until, as_stored)
        )

    async def read_bodies(self, stream_id: str, after: int = 0) -> Bodies | None:
        """The stream's event bodies, read on the standby."""
        return await self._read_stream(stream_id, lambda store: store.read_bodies(stream_id, after))

    async def stream_info(self, stream_id: str) -> StreamInfo | None:
        """The stream's row, read on the standby; one it lacks after replaying (a bounded wait) everything
        the primary has flushed is asked of the primary, where the stream is then read while it lags."""

        async def read(store: PostgresEventStore) -> StreamInfo | None:
            return await store.stream_info(stream_id)

        info = await self._read_stream(stream_id, read)
        if info is not None or self._lacks(stream_id) or not self.replica_up:
            return info  # found, or read on the primary already
        if await self.catch_up():  # it holds every commit answered so far: missing there is missing
            return await self._read(read)
        info = await read(self.primary)
        if info is not None:
            self._lacked(stream_id)
        return info

    async def list_streams(
        self,
        category: str | None = None,
        status: str | None = None,
        metadata_contains: dict[str, Any] | None = None,
        before: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[StreamInfo]:
        """Streams newest first, read on the standby."""
        return await self._read(
            lambda store: store.list_streams(category, status, metadata_contains, before, limit)
        )

    async def find_command(self, stream_id: str, command_id: str) -> CommandRecord | None:
        """A stored command record, read on the standby."""
        return await self._read_stream(stream_id, lambda store: store.find_command(stream_id, command_id))

    async def read_all(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, RecordedEvent]]:
        """The global feed, read on the standby."""
        return await self._read(lambda store: store.read_all(after, limit))

    async def read_all_headers(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, FeedHeader]]:
        """The global feed's headers, read on the standby."""
        return await self._read(lambda store: store.read_all_headers(after, limit))

    async def verify_chain(self, stream_id: str) -> ChainCheck:
        """The stream's hash chain recomputed on the standby's copy."""
        return await self._read_stream(stream_id, lambda store: store.verify_chain(stream_id))

    # live readers
    def subscribe(
        self,
        after: FeedPosition | None = None,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
    ) -> AsyncIterator[tuple[FeedPosition, RecordedEvent]]:
        """The feed's followers stay on the primary (they write beside what they read)."""
        return self.primary.subscribe(after, page_size=page_size, poll_seconds=poll_seconds)

    def watch(self, stream_id: str | None = None) -> ChangeWatch:
        """A watch woken by the primary's NOTIFYs that waits for the standby to replay what they announce."""
        return FencedWatch(self.primary.fenced_changes, stream_id, self.replayed)

    async def start(self) -> None:
        """Nothing to start: the primary's store listens."""

    async def stop(self) -> None:
        """Stop polling the standby."""
        await self.replay.close()
