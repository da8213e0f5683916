"""Change signals between processes over PostgreSQL LISTEN/NOTIFY: one dedicated connection per store.

Outgoing: this process's appends are NOTIFYed after their commits, coalesced (the stream ids touched
while the previous NOTIFY was in flight go out together). NOTIFY inside the append transaction would take
PostgreSQL's global notify lock at every commit and serialise all appending commits (measured: about half
the append throughput with 16 writers); after the commit it costs the appenders nothing.
Incoming: other processes' NOTIFYs are fanned out to this process's watchers (ChangeHub).
Each NOTIFY starts with the primary's WAL flush position (LSN) when it was sent, after the commits it
announces: readers of a hot standby (eventstore/replica.py) hear every NOTIFY, this process's own too, on a
hub of their own, and read only once the standby has replayed that position (docs/operations.md).

Nothing here is needed for correctness: readers always re-read from their position and also poll, so a
NOTIFY lost (a process dying between commit and NOTIFY, the connection dropping) costs latency only.
On every (re)connection all watchers are woken, since changes may have gone unheard meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import asyncpg
import structlog

from eventstore.changes import ChangeHub

CHANNEL = "es_changes"
EVERYTHING = "*"  # a payload meaning "anything may have changed"
_SEPARATOR = "\n"
FENCE_MARK = "@"  # the first line of a payload: "@" and the primary's flush LSN (e.g. "@0/16B3748")
# Sent after the commits it announces, so the flush position is past their commit records (with
# synchronous_commit off it may trail one: a standby's reader then sees that change at its next wake-up).
_NOTIFY = f"SELECT pg_notify($1, '{FENCE_MARK}' || pg_current_wal_flush_lsn()::text || E'\\n' || $2)"
_MAX_PAYLOAD = 7900  # NOTIFY payloads must stay under 8000 bytes
_MAX_PENDING = 2000  # more touched streams than this go out as EVERYTHING
# After the first change, wait this long for more before sending: under load one NOTIFY then carries many
# streams (the appenders' throughput), at the price of this much latency for other processes' readers.
COALESCE_SECONDS = 0.01
_HEARTBEAT_SECONDS = 15.0  # a quiet connection is probed this often, so a half-open one is noticed
RECONNECT_DELAYS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)  # the pauses between attempts, growing

log = structlog.get_logger("eventstore.pgnotify")


async def hold_reconnecting(
    connection: Callable[[], AbstractAsyncContextManager[Any]],
    hold: Callable[[Any], Awaitable[None]],
    logger: Any,
    lost_event: str,
) -> None:
    """Forever: open ``connection()`` and ``hold`` it until it drops or fails, then log ``lost_event`` on
    ``logger`` and open another after a pause that grows with the failures in a row (RECONNECT_DELAYS)."""
    failures = 0
    while True:
        try:
            async with connection() as held:
                failures = 0
                await hold(held)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any failure means: reconnect
            logger.warning(lost_event, error=type(exc).__name__, failures=failures)
        await asyncio.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])
        failures += 1


def payloads(stream_ids: set[str]) -> list[str]:
    """NOTIFY payloads naming ``stream_ids`` (newline-separated, each under the size limit)."""
    if EVERYTHING in stream_ids or any(
        _SEPARATOR in s or len(s) > 200 or s.startswith(FENCE_MARK) for s in stream_ids
    ):
        return [EVERYTHING]
    out: list[str] = []
    current: list[str] = []
    size = 0
    for stream_id in sorted(stream_ids):
        if current and size + len(stream_id.encode()) + 1 > _MAX_PAYLOAD:
            out.append(_SEPARATOR.join(current))
            current, size = [], 0
        current.append(stream_id)
        size += len(stream_id.encode()) + 1
    if current:
        out.append(_SEPARATOR.join(current))
    return out


def lsn_of(text: str) -> int:
    """A PostgreSQL LSN's text (``"16/B374D848"``: the high and low 32 bits in hex) as one number."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


def parse_payload(payload: str) -> tuple[int, list[str]]:
    """The primary's WAL position a NOTIFY carries (0: none, e.g. from an earlier release) and the stream
    ids it names (``[EVERYTHING]`` for anything)."""
    lines = payload.split(_SEPARATOR)
    fence = 0
    if lines[0].startswith(FENCE_MARK):
        try:
            fence = lsn_of(lines[0][len(FENCE_MARK) :])
        except ValueError:
            return 0, [EVERYTHING]
        lines = lines[1:]
    return fence, lines


class ChangeRelay:
    """LISTENs for other processes' changes and NOTIFYs this process's, on one connection: its own (from
    ``connect``) when given, so requests keep the whole pool, else one held out of ``pool``."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        hub: ChangeHub,
        channel: str = CHANNEL,
        acquire_timeout: float | None = None,
        coalesce_seconds: float = COALESCE_SECONDS,
        connect: Callable[[], Awaitable[Any]] | None = None,
        fenced: ChangeHub | None = None,
    ) -> None:
        """A relay for ``hub`` over ``channel``, holding a connection once started; ``fenced`` hears every
        NOTIFY, this process's own too, with the WAL position it carries (the standby's readers)."""
        self._pool = pool
        self._fenced = fenced
        self._connect = connect
        self._coalesce_seconds = coalesce_seconds
        self._hub = hub
        self._channel = channel
        self._acquire_timeout = acquire_timeout
        self._pending: set[str] = set()
        self._wake = asyncio.Event()
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pid: int | None = None
        self.connections = 0  # how many times the LISTEN connection was (re)established

    @property
    def pid(self) -> int | None:
        """The server process id of the LISTEN connection while it is up (tests use it to kill it)."""
        return self._pid

    async def start(self, wait: float = 5.0) -> None:
        """Start listening; waits up to ``wait`` seconds for the connection (it keeps retrying after that)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="eventstore-change-relay")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await self._connected.wait()

    async def stop(self) -> None:
        """Send what is pending (best effort), stop listening and give the connection back."""
        task, self._task = self._task, None
        if task is None:
            return
        if self._pending and self._connected.is_set():
            self._wake.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    while self._pending and self._connected.is_set():
                        await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    def publish(self, stream_id: str) -> None:
        """Queue a NOTIFY for ``stream_id`` (sent after the current one, with whatever else is queued)."""
        if self._task is None:
            return  # not started: other processes learn of it by polling
        if len(self._pending) < _MAX_PENDING:
            self._pending.add(stream_id)
        else:
            self._pending = {EVERYTHING}
        self._wake.set()

    def _on_notify(self, _connection: Any, pid: int, _channel: str, payload: str) -> None:
        """Wake the watchers of the streams another process NOTIFYed, and the fenced hub's for any NOTIFY."""
        fence, stream_ids = parse_payload(payload)
        # our own NOTIFY: this process's watchers were woken at the append already, not the standby's readers
        hubs = [self._hub] if pid != self._pid else []
        if self._fenced is not None:
            hubs.append(self._fenced)
        for hub in hubs:
            if EVERYTHING in stream_ids:
                hub.signal_all(fence)
            else:
                hub.signal(stream_ids, fence)

    async def _run(self) -> None:
        """Hold one connection at a time; reconnect (with growing pauses) whenever it drops (readers poll
        meanwhile)."""
        await hold_reconnecting(self._connection, self._hold, log, "change_relay_lost")

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        """The connection to listen on: a dedicated one (closed after) or one borrowed from the pool."""
        if self._connect is None:
            async with self._pool.acquire(timeout=self._acquire_timeout) as borrowed:
                yield borrowed
            return
        async with asyncio.timeout(self._acquire_timeout):
            dedicated = await self._connect()
        try:
            yield dedicated
        finally:
            with contextlib.suppress(Exception):
                await dedicated.close(timeout=1)

    async def _hold(self, connection: Any) -> None:
        """LISTEN on ``connection`` and serve it until it drops; leave it clean for the pool."""
        lost = asyncio.Event()

        def dropped(_connection: Any) -> None:
            """asyncpg's termination callback: the connection is gone."""
            lost.set()

        connection.add_termination_listener(dropped)
        try:
            await connection.add_listener(self._channel, self._on_notify)
            self._pid = connection.get_server_pid()
            self.connections += 1
            self._connected.set()
            log.info("change_relay_listening", channel=self._channel, connections=self.connections)
            self._hub.signal_all()  # changes may have gone unheard while nobody listened
            if self._fenced is not None:
                self._fenced.signal_all()
            await self._serve(connection, lost)
        finally:
            self._pid = None
            self._connected.clear()
            connection.remove_termination_listener(dropped)
            if not connection.is_closed():
                with contextlib.suppress(Exception):
                    await connection.remove_listener(self._channel, self._on_notify)

    async def _serve(self, connection: Any, lost: asyncio.Event) -> None:
        """Send pending NOTIFYs as they come; return when the connection is lost (raises on a failed send)."""
        while not lost.is_set() and not connection.is_closed():
            if self._pending and self._coalesce_seconds:
                await asyncio.sleep(self._coalesce_seconds)
            while self._pending:
                sending, self._pending = self._pending, set()
                try:
                    for payload in payloads(sending):
                        await connection.execute(_NOTIFY, self._channel, payload)
                except BaseException:
                    self._pending |= sending  # retried on the next connection
                    raise
            self._wake.clear()
            woken = asyncio.ensure_future(self._wake.wait())
            dropped = asyncio.ensure_future(lost.wait())
            try:
                done, _ = await asyncio.wait(
                    {woken, dropped}, timeout=_HEARTBEAT_SECONDS, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                woken.cancel()
                dropped.cancel()
            if not done:
                await connection.execute("SELECT 1", timeout=_HEARTBEAT_SECONDS)
