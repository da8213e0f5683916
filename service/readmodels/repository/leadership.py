"""Which process runs a feed follower's passes (docs/decisions/0006-read-models.md, "One projector per
checkpoint"): per checkpoint, the process holding a session-level advisory lock named after it, on a
connection of its own kept open outside the pool.

Leadership saves work, it does not make the read models correct: the checkpoint's transaction lock and its
"unchanged" check (``FeedFollower.catch_up_once``) still apply every event exactly once, even with two
leaders at once (a leader whose connection died has not noticed yet while another took over).

- The processes that do not lead try to take each lock again every ``RETRY_SECONDS``, and at once when one
  of their requests waits for a pass: PostgreSQL releases a session's locks when it ends, so a crashed
  host's leadership passes on within about a second.
- A leader whose connection dies stops leading until it wins again; meanwhile (and before its first
  connection) it cannot tell whether anybody leads, so it runs its passes itself, as before leaders.
- The same connection LISTENs on ``CHANNEL``: a leader announces each checkpoint it saves (``moved``), so
  a request of another process waiting for the read model to reach the feed's head wakes at once, and that
  process asks the leader for a pass now (``wanted``) instead of waiting for its next wake-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import structlog

from eventstore import FeedPosition
from eventstore.pgnotify import hold_reconnecting

__all__ = ["CHANNEL", "LEADER_LOCK", "Lead", "Leadership"]

log = structlog.get_logger("service.readmodels.leadership")

# The class id of the leaders' session locks: b'lead'. The checkpoints' transaction locks are another
# class (1886547818, b'proj', service/readmodels/repository/checkpoints.py): a leader takes both.
LEADER_LOCK = 1818583396
TRY_LEAD = "SELECT name FROM unnest($2::text[]) AS name WHERE pg_try_advisory_lock($1, hashtext(name))"
CHANNEL = "bazaar_checkpoints"
NOTIFY = "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload"  # each in order, one round trip
MOVED, WANTED = "moved", "wanted"  # a payload's first line; then the checkpoint's name (and its position)
RETRY_SECONDS = 1.0  # how often a process that does not lead tries to take the lead (and a leader probes)


class Lead:
    """One checkpoint's leadership as this process knows it, and the furthest position it has heard the
    checkpoint reach (from its own saves, the leader's announcements and reads of the row)."""

    def __init__(self, name: str, leadership: Leadership | None = None) -> None:
        """A lead of ``leadership``; without one, this process alone decides: it always leads."""
        self.name = name
        self._leadership = leadership
        self.held = leadership is None  # this process holds the checkpoint's leader lock
        self.connected = leadership is None  # this process takes part in the election (its connection is up)
        self.projecting = asyncio.Event()  # set while ``projects``
        self._refresh()
        self.position = FeedPosition()
        self._news = asyncio.Event()  # set (and replaced) whenever ``position`` moves
        self.wanted: Callable[[], None] = lambda: None  # a pass now, in this process (its follower's nudge)

    @property
    def projects(self) -> bool:
        """Whether this process runs the passes: it leads, or it cannot take part in the election."""
        return self.held or not self.connected

    def _refresh(self) -> None:
        """Keep ``projecting`` in step with ``projects``."""
        if self.projects:
            self.projecting.set()
        else:
            self.projecting.clear()

    def _elected(self, held: bool, connected: bool) -> None:
        """The election's outcome for this process."""
        if held != self.held:
            log.info("leadership_" + ("gained" if held else "lost"), checkpoint=self.name)
        self.held, self.connected = held, connected
        self._refresh()

    def heard(self, position: FeedPosition) -> None:
        """The checkpoint is at least at ``position``: wake whoever waits for it."""
        if position > self.position:
            self.position = position
            self._news.set()
            self._news = asyncio.Event()

    def forget(self) -> None:
        """The checkpoint was moved back to the start of the feed (a reset)."""
        self.position = FeedPosition()

    def saved(self, position: FeedPosition) -> None:
        """This process moved the checkpoint to ``position``: wake its waiters and tell the others."""
        self.heard(position)
        if self._leadership is not None:
            self._leadership.announce(self.name, position)

    def ask(self) -> None:
        """A request waits for a pass: run one now here if this process projects, else ask the leader (and
        take the lead first if nobody holds it)."""
        if self.projects or self._leadership is None:
            self.wanted()
        else:
            self._leadership.ask(self.name)

    async def news(self, timeout: float) -> bool:
        """Whether ``position`` moved within ``timeout`` seconds."""
        try:
            async with asyncio.timeout(timeout):
                await self._news.wait()
        except TimeoutError:
            return False
        return True


class Leadership:
    """This process's part in the elections of the checkpoints' leaders: one dedicated connection (from
    ``connect``) holding the leader locks it won, LISTENing for the other processes' announcements."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[Any]],
        retry_seconds: float = RETRY_SECONDS,
        connect_timeout: float | None = None,
    ) -> None:
        self._connect = connect
        self._retry_seconds = retry_seconds
        self._connect_timeout = connect_timeout
        self._leads: dict[str, Lead] = {}
        self._moves: dict[str, FeedPosition] = {}  # announcements not sent yet
        self._asks: set[str] = set()  # requests for a pass not sent yet
        self._wake = asyncio.Event()
        self._elected = asyncio.Event()  # the first election on a connection is over
        self._electing = False  # an election is due before the next retry (a lead added, a pass asked)
        self._task: asyncio.Task[None] | None = None
        self._pid: int | None = None

    @property
    def pid(self) -> int | None:
        """The server process id of the connection while it is up (tests terminate it)."""
        return self._pid

    def lead(self, name: str) -> Lead:
        """The lead of checkpoint ``name`` (this process takes part in its election from now on)."""
        if name not in self._leads:
            self._leads[name] = Lead(name, self)
            self._electing = True
            self._wake.set()
        return self._leads[name]

    def announce(self, name: str, position: FeedPosition) -> None:
        """Queue the announcement that checkpoint ``name`` reached ``position``."""
        if self._task is not None:
            self._moves[name] = max(position, self._moves.get(name, position))
            self._wake.set()

    def ask(self, name: str) -> None:
        """Queue a request for a pass of checkpoint ``name`` by whoever leads it."""
        if self._task is not None:
            self._asks.add(name)
            self._electing = True  # nobody may hold it: then this process takes it and runs the pass
            self._wake.set()

    async def start(self, wait: float = 5.0) -> None:
        """Take part; waits up to ``wait`` seconds for the connection and the first election (it keeps
        retrying after that)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="leadership")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await self._elected.wait()

    async def stop(self) -> None:
        """Stop taking part: the connection closes, which releases the locks this process held."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        """Hold one connection at a time; reconnect (with growing pauses) whenever it drops (this process
        projects meanwhile)."""
        await hold_reconnecting(self._connection, self._hold, log, "leadership_connection_lost")

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        """A connection of its own; when it goes, every lock it held goes with it."""
        async with asyncio.timeout(self._connect_timeout):
            connection = await self._connect()
        try:
            yield connection
        finally:
            self._lose_everything()
            with contextlib.suppress(Exception):
                await connection.close(timeout=1)

    def _lose_everything(self) -> None:
        """The connection is gone, and with it every lock it held."""
        self._pid = None
        self._elected.clear()
        for lead in self._leads.values():
            lead._elected(held=False, connected=False)

    async def _hold(self, connection: Any) -> None:
        """Take part on ``connection`` until it drops (ConnectionError) or a statement fails."""
        lost = asyncio.Event()

        def dropped(_connection: Any) -> None:
            """asyncpg's termination callback: the connection is gone."""
            lost.set()

        connection.add_termination_listener(dropped)
        await connection.add_listener(CHANNEL, self._on_notify)
        self._pid = connection.get_server_pid()
        self._electing = True
        next_election = 0.0
        while not lost.is_set() and not connection.is_closed():
            self._wake.clear()  # what is queued from here on wakes the next round
            now = time.monotonic()
            if self._electing or now >= next_election:
                self._electing = False
                await self._elect(connection, probe=now >= next_election)
                next_election = now + self._retry_seconds
                self._elected.set()
            await self._send(connection)
            woken = asyncio.ensure_future(self._wake.wait())
            dropped_now = asyncio.ensure_future(lost.wait())
            try:
                await asyncio.wait(
                    {woken, dropped_now},
                    timeout=max(next_election - time.monotonic(), 0),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                woken.cancel()
                dropped_now.cancel()
        raise ConnectionError("the leadership connection dropped")

    async def _elect(self, connection: Any, probe: bool) -> None:
        """Try to take every lock this process does not hold yet (one round trip); a leader holding all of
        them, when ``probe``, runs a trivial statement instead, so a dead connection is noticed within a
        retry."""
        waiting = [name for name, lead in self._leads.items() if not lead.held]
        if not waiting:
            if probe:
                await connection.execute("SELECT 1", timeout=self._retry_seconds + 5)
            return
        won = {row[0] for row in await connection.fetch(TRY_LEAD, LEADER_LOCK, waiting, timeout=10)}
        for name in waiting:
            self._leads[name]._elected(held=name in won, connected=True)

    async def _send(self, connection: Any) -> None:
        """NOTIFY the announcements and requests queued (requests only for what another process leads)."""
        moves, self._moves = self._moves, {}
        asks, self._asks = self._asks, set()
        payloads = [f"{MOVED}\n{name}\n{at.tx}\n{at.position}" for name, at in moves.items()]
        for name in asks:
            lead = self._leads.get(name)
            if lead is None or not lead.held:
                payloads.append(f"{WANTED}\n{name}")
            else:
                lead.wanted()  # this process won the lead meanwhile: its own loop runs the pass
        try:
            if payloads:
                await connection.execute(NOTIFY, CHANNEL, payloads)
        except BaseException:
            for name, at in moves.items():  # sent again on the next connection
                self.announce(name, at)
            raise

    def _on_notify(self, _connection: Any, pid: int, _channel: str, payload: str) -> None:
        """Another process's announcement (the checkpoint moved) or request (a pass now, if this one leads)."""
        if pid == self._pid:
            return
        kind, _, rest = payload.partition("\n")
        name, _, at = rest.partition("\n")
        lead = self._leads.get(name)
        if lead is None:
            return
        if kind == WANTED and lead.held:
            lead.wanted()
        elif kind == MOVED:
            tx, _, position = at.partition("\n")
            with contextlib.suppress(ValueError):
                lead.heard(FeedPosition(tx=int(tx), position=int(position)))
