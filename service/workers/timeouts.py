"""Timeouts (docs/decisions/0001-resign-and-clocks.md): the deadline index fed from the global feed, and the
one clock scheduler of each process.

- ``DeadlineIndex`` keeps ``clock_deadlines`` (migration 0010) caught up with the feed under its own
  checkpoint, like every read model (``FeedFollower``): each ``clock_started`` / ``clock_stamped`` event
  replaces its game's rows with the deadlines it carries, at that event's version. Rows survive restarts.
- ``ClockScheduler`` (one per process, started in the app's lifespan beside the bot runner) catches the
  index up (only in the process leading its checkpoint, docs/decisions/0006-read-models.md; the others
  read the rows it writes), times out every seat whose deadline has passed, then sleeps until the earliest
  deadline left or until any process appends to a game not known to be untimed (the store's change
  signal, ignoring the games this process holds without a clock: ``untimed``): it never polls game by
  game. An untimed game's events carry no deadline, so the index takes them in at its next wake-up.
- A timeout is claimed first (service/workers/claims.py: one process across hosts decides it), then is
  ``GameCommands.execute`` of ``TimeOut`` for that seat with ``If-Match`` the row's version
  and an idempotency key naming the decision: when several processes act on the same deadline the
  append's version check lets exactly one in; the others get a refusal (or the first answer) and do
  nothing. The domain (``domain/clock.py``) checks the deadline has passed and has the stand-in decide.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

import msgspec
import structlog

from domain.clock import ClockStamped, ClockStarted, SeatClock, TimeOut
from eventstore import EventStore, RecordedEvent, StoreError
from service.games.clocks import Now, clock_of, from_ms, system_now
from service.games.service import GameService
from service.readmodels.projections import BATCH_SIZE, FeedFollower, FeedPage
from service.readmodels.repository.checkpoints import Connection, Pool, Writes
from service.runtime import errors
from service.runtime.logging import failure_fields
from service.runtime.sql import DatabaseError
from service.workers.claims import claims_of
from service.workers.repository import Deadlines, Due

__all__ = ["ClockScheduler", "DeadlineIndex", "Due", "woken_by"]

log = structlog.get_logger("service.workers.timeouts")

CHECKPOINT = "clock_deadlines"
CLOCK_EVENTS = (str(ClockStarted.__struct_config__.tag), str(ClockStamped.__struct_config__.tag))
DUE_BATCH = 100  # deadlines read per pass
PARALLEL = 8  # timeouts appended side by side (of different games)
IDLE_SECONDS = 5.0  # the longest sleep without a change signal (a lost signal costs at most this)
RETRY_SECONDS = 1.0  # after a failure (the database away)
REFUSED_SECONDS = 0.2  # a deadline whose timeout was refused (the index behind): tried again after this


class _Seats(msgspec.Struct):
    """The part of a clock event the index reads: every seat's clock."""

    seats: list[SeatClock]


_SEATS = msgspec.json.Decoder(_Seats)


class DeadlineIndex(FeedFollower[RecordedEvent]):
    """The ``clock_deadlines`` table: each timed game's deadlines as its latest clock event gives them."""

    waited_for = False  # the schedulers read its rows as they are: no request waits for its checkpoint

    def __init__(self, pool: Pool, store: EventStore, acquire_timeout: float | None = None) -> None:
        # the whole events, not their headers: the deadlines are in the clock events' bodies
        super().__init__(pool, store.read_all, CHECKPOINT, BATCH_SIZE, acquire_timeout)
        self.deadlines = Deadlines(pool, acquire_timeout)

    async def prepare(self, feed: FeedPage[RecordedEvent]) -> Writes:
        """Replace the rows of every game with a clock event in the batch by its last one's deadlines (the
        feed alone says them: nothing to read)."""
        latest: dict[str, tuple[int, list[SeatClock]]] = {}
        for _, event in feed:
            if event.type in CLOCK_EVENTS:
                latest[event.stream_id] = (event.version, _SEATS.decode(event.data).seats)
        rows = [
            (game_id, seat, from_ms(clock.deadline), version)
            for game_id, (version, seats) in latest.items()
            for seat, clock in enumerate(seats)
            if clock.deadline is not None
        ]

        async def write(connection: Connection) -> None:
            await self.deadlines.replace(connection, list(latest), rows)

        return write

    async def due(self, now: datetime, limit: int = DUE_BATCH) -> list[Due]:
        """The deadlines passed at ``now``, earliest first."""
        return await self.deadlines.due(now, limit)

    async def earliest(self) -> datetime | None:
        """The earliest deadline of all (None: no timed decision is pending)."""
        return await self.deadlines.earliest()


class Untimed:
    """The games this process holds folded without a clock: a clock starts with a game's opening events
    (``domain/clock.py``) or never, so no append to them brings a deadline."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    def __contains__(self, game_id: object) -> bool:
        """Whether ``game_id`` is a game folded here whose state has no clock."""
        cached = self.games.loader.streams.cached(game_id) if isinstance(game_id, str) else None
        return cached is not None and clock_of(cached.state) is None


class ClockScheduler:
    """Times out, in this process, every seat whose deadline has passed."""

    def __init__(self, games: GameService, index: DeadlineIndex, now: Now = system_now) -> None:
        self.games = games
        self.index = index
        self.now = now
        self.timeouts = 0  # timeouts this scheduler had accepted (an identical earlier answer included)
        self._tried: dict[tuple[str, int], tuple[int, float]] = {}  # refused: (version, when) per seat
        # timed out here, per seat: the version; a process that does not lead the index reads rows the leader
        # has not moved on yet, and must not act on the same deadline again (a version is decided once)
        self._timed_out: dict[tuple[str, int], int] = {}
        self._parallel = asyncio.Semaphore(PARALLEL)
        self.untimed = Untimed(games)  # what its wake-up may ignore

    async def run(self, wake: Callable[[float], Awaitable[object]]) -> None:
        """Forever: catch the index up (if this process leads it), act on what is due, sleep until the next
        deadline or ``wake``."""
        while True:
            try:
                if self.index.lead.projects:  # else the leader's scheduler does, and every process reads it
                    await self.index.catch_up_pass()
                made = await self.act()
                # progress: the next deadlines are due at once; none: wait for a change or the earliest
                pause = 0.0 if made else await self.pause()
            except (StoreError, errors.ServiceError, DatabaseError, OSError) as failure:
                log.warning("clocks_paused", error=type(failure).__name__)
                pause = RETRY_SECONDS
            await wake(pause)

    async def pause(self) -> float:
        """Seconds until the earliest deadline (at most ``IDLE_SECONDS``; ``REFUSED_SECONDS`` if it is past)."""
        earliest = await self.index.earliest()
        if earliest is None:
            return IDLE_SECONDS
        left = (earliest - self.now()).total_seconds()
        # one already due was just refused: the index catches up with the next append's signal, or soon
        return REFUSED_SECONDS if left <= 0 else min(left, IDLE_SECONDS)

    async def act(self) -> int:
        """Time out every seat whose deadline has passed, games side by side (one seat per game and pass:
        a game's other seats are due at a newer version once the index has caught up); the timeouts this
        process got accepted."""
        games: dict[str, Due] = {}
        for due in await self.index.due(self.now()):
            games.setdefault(due.game_id, due)  # the earliest passed deadline of each game
        acting = [due for due in games.values() if not self._refused_lately(due) and not self._done_here(due)]
        done = await asyncio.gather(*(self._time_out(due) for due in acting))
        if len(self._tried) > 10 * DUE_BATCH:
            self._tried.clear()
        if len(self._timed_out) > 10 * DUE_BATCH:
            self._timed_out.clear()
        return sum(done)

    def _done_here(self, due: Due) -> bool:
        """Whether this process already timed this seat out at this deadline's version (or a later one)."""
        return self._timed_out.get((due.game_id, due.seat), -1) >= due.version

    def _refused_lately(self, due: Due) -> bool:
        """Whether this very deadline (same version) was refused a moment ago: the index is behind the game."""
        tried = self._tried.get((due.game_id, due.seat))
        return tried is not None and tried[0] == due.version and time.monotonic() - tried[1] < REFUSED_SECONDS

    async def _time_out(self, due: Due) -> int:
        """Append the timeout of one passed deadline (1), or leave it to whoever moved the game first (0)."""
        key = (due.game_id, due.seat)
        async with self._parallel:
            if not await claims_of(self.games.store).take("clock", due.game_id, due.version):
                return 0  # another process times it out (service/workers/claims.py), or the game moved on
            try:
                await self.games.commands.execute(
                    due.game_id,
                    due.seat,
                    None,
                    if_match=due.version,
                    idempotency_key=f"clock-v{due.version}-s{due.seat}",
                    command=TimeOut(),
                )
            except errors.ServiceError as refused:
                # another process timed it out first, or the seat answered: the index will move on
                self._tried[key] = (due.version, time.monotonic())
                log.info("timeout_refused", game_id=due.game_id, seat=due.seat, code=refused.code)
                return 0
            except StoreError:
                raise
            except Exception as bug:  # a bug must not stop every other game's clock: retry this one later
                self._tried[key] = (due.version, time.monotonic())
                log.error("timeout_failed", game_id=due.game_id, seat=due.seat, **failure_fields(bug))
                return 0
        self._tried.pop(key, None)
        self._timed_out[key] = due.version
        self.timeouts += 1
        log.info("seat_timed_out", game_id=due.game_id, seat=due.seat, version=due.version)
        return 1


def woken_by(
    wait: Callable[[float], Awaitable[bool]], debounce: float = 0.05
) -> Callable[[float], Awaitable[None]]:
    """The scheduler's sleep: until ``wait`` signals an append (then a short pause so a burst of appends is
    indexed in one pass) or the timeout passes."""

    async def wake(seconds: float) -> None:
        if await wait(seconds):
            await asyncio.sleep(debounce)

    return wake
