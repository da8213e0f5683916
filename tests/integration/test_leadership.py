"""One projector per checkpoint across processes (service/readmodels/repository/leadership.py), on a real
PostgreSQL: of two processes on one database only the leader projects while the other's listings still
read their own writes; when the leader's connection is terminated the other takes over; and two leaders at
once still apply every event exactly once.

Each "process" here is what one app process holds: its own game service, projection, deadline index and
leadership connection. The module runs on a database of its own (leader locks are per database)."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.clocks import Now, system_now
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.readmodels.projections import FeedPage, GameProjection, Writes, poll
from service.readmodels.repository.leadership import Leadership
from service.runtime.sql import register_codecs
from service.workers.timeouts import ClockScheduler, DeadlineIndex
from tests.integration.test_projections import play
from tests.support.databases import fresh_database
from tests.support.fake_time import FakeTime

pytestmark = pytest.mark.db

WAIT = 30.0  # the longest any condition here is waited for


@pytest.fixture(scope="module")
async def url(server_url: str) -> AsyncIterator[str]:
    """A database of this module's own, as the service role."""
    async with fresh_database(server_url) as created:
        yield created


@pytest.fixture(scope="module")
async def pool(url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on it (shared by the processes: which pool they read through does not matter here)."""
    async with asyncpg.create_pool(url, min_size=1, max_size=20, init=register_codecs) as created:
        yield created


class Process:
    """What one app process holds: a game service, its projection and deadline index, and (unless
    ``elected`` is False) its leadership; it counts the projection's ``prepare`` calls and records the feed
    positions of every batch it applied."""

    def __init__(
        self, pool: asyncpg.Pool, connect: Callable[[], Awaitable[Any]] | None, now: Now = system_now
    ) -> None:
        store = PostgresEventStore(pool)
        self.games = GameService(store, PostgresKeyStore(pool), all_games(), now=now)
        self.projection = GameProjection(pool, self.games, batch_size=7)
        self.index = DeadlineIndex(pool, store)
        self.clocks = ClockScheduler(self.games, self.index, now=now)
        self.leadership = None if connect is None else Leadership(connect)
        self.prepared = 0
        self.applied: list[tuple[int, int]] = []
        prepare, write = self.projection.prepare, self.projection._write

        async def counting(feed: FeedPage) -> Writes:
            self.prepared += 1
            return await prepare(feed)

        async def recording(connection: Any, feed: FeedPage, writes: Writes) -> int:
            applied = await write(connection, feed, writes)
            self.applied.extend((at.tx, at.position) for at, _ in feed)  # the batch's last statement
            return applied

        self.projection.prepare = counting  # type: ignore[method-assign]
        self.projection._write = recording  # type: ignore[method-assign]
        if self.leadership is not None:
            self.projection.lead_with(self.leadership)
            self.index.lead_with(self.leadership)

    async def list_mine(self, player: str) -> list[str]:
        """The listing of ``player``'s games, as a request of this process sees it."""
        return [
            g.game_id for g in (await self.projection.list_games(None, None, player, None, None, 10)).games
        ]


@asynccontextmanager
async def serving(process: Process, wake: Callable[[], Awaitable[object]]) -> AsyncIterator[Process]:
    """The process's leadership and projection loop, as the app's lifespan runs them."""
    if process.leadership is not None:
        await process.leadership.start()
    loop = asyncio.create_task(process.projection.run(wake), name="projector")
    try:
        yield process
    finally:
        loop.cancel()
        await asyncio.gather(loop, return_exceptions=True)
        if process.leadership is not None:
            await process.leadership.stop()


def opener(url: str, cut_off: asyncio.Event | None = None) -> Callable[[], Awaitable[Any]]:
    """A leadership connection's opener; once ``cut_off`` is set it fails, as for a host that lost the
    database."""

    async def connect() -> Any:
        if cut_off is not None and cut_off.is_set():
            raise OSError("this host cannot reach the database")
        return await asyncpg.connect(url)

    return connect


async def until(condition: Callable[[], Awaitable[bool] | bool], what: str) -> None:
    """Wait (at most WAIT seconds) until ``condition`` holds."""
    try:
        async with asyncio.timeout(WAIT):
            while True:
                held = condition()
                if held if isinstance(held, bool) else await held:
                    return
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"not within {WAIT} s: {what}") from None


async def never() -> None:
    """A wake-up that never comes: the loop passes only when a request asks for one."""
    await asyncio.Event().wait()


async def create(games: GameService, players: list[str], clock: dict[str, Any] | None = None) -> str:
    """A new game of these players (with that clock); its id."""
    body = msgspec.convert(
        {"game": "basari", "players": [{"name": name} for name in players], "clock": clock}, CreateGame
    )
    return (await games.commands.create(body)).game_id


def names(prefix: str) -> list[str]:
    """Three player names no other test uses."""
    tag = uuid.uuid4().hex[:8]
    return [f"{prefix}-{tag}-{i}" for i in range(3)]


async def test_only_the_leader_projects_and_the_other_still_reads_its_own_writes(
    pool: asyncpg.Pool, url: str
) -> None:
    """The first process leads every checkpoint; the second prepares no batch, yet a game it just created is
    in its own listing: its request asked the leader (whose loop wakes for nothing else) for a pass."""
    first, second = Process(pool, opener(url)), Process(pool, opener(url))
    async with serving(first, never), serving(second, poll(0.01)):
        assert first.projection.lead.held and first.index.lead.held
        assert not second.projection.lead.projects and not second.index.lead.projects
        second.projection.read_your_writes = functools.partial(  # type: ignore[method-assign]
            second.projection.read_your_writes, wait=WAIT
        )
        for _ in range(3):
            players = names("own")
            game_id = await create(second.games, players)
            assert await second.list_mine(players[0]) == [game_id]
        assert second.prepared == 0 and first.prepared > 0


async def test_when_the_leaders_connection_is_terminated_the_other_takes_over(
    pool: asyncpg.Pool, url: str
) -> None:
    """The leader's host is cut off (its leadership connection terminated by the server and no new one
    possible, its loop gone): within about a second the other process leads, and projection goes on."""
    cut_off = asyncio.Event()
    first, second = Process(pool, opener(url, cut_off)), Process(pool, opener(url))
    assert first.leadership is not None
    await first.leadership.start()  # elected first; its loop starts inside the other's lifetime
    async with serving(second, poll(0.01)) as taking_over:
        async with serving(first, poll(0.01)):
            await until(lambda: first.projection.lead.held, "the first process leads")
            assert not taking_over.projection.lead.held
            players = names("before")
            game_id = await create(first.games, players)
            assert await first.list_mine(players[0]) == [game_id]
            cut_off.set()
            pid = first.leadership.pid
            assert await pool.fetchval("SELECT pg_terminate_backend($1)", pid)
            await until(lambda: not first.projection.lead.held, "the cut-off process stops leading")
        await until(lambda: taking_over.projection.lead.held, "the other process takes the lead")
        assert taking_over.index.lead.held
        prepared = taking_over.prepared
        players = names("after")
        game_id = await create(taking_over.games, players)
        await until(lambda: taking_over.prepared > prepared, "the new leader projects")
        assert await taking_over.list_mine(players[0]) == [game_id]


async def test_two_leaders_at_once_apply_every_event_exactly_once(pool: asyncpg.Pool, url: str) -> None:
    """As during a failover, two processes both believe they lead (one elected, one taking part in no
    election): their loops race while games are played and listed, and between them every event of the
    feed is applied once, by the checkpoint's transaction lock."""
    elected, rogue = Process(pool, opener(url)), Process(pool, None)
    async with serving(elected, poll(0.01)), serving(rogue, poll(0.01)):
        assert elected.projection.lead.projects and rogue.projection.lead.projects
        before = await elected.projection.checkpoint()

        async def player(process: Process, index: int) -> None:
            players = names(f"race{index}")
            game_id = await create(process.games, players)
            await play(process.games, game_id, f"race-{index}", moves=15)
            assert game_id in await process.list_mine(players[0])

        await asyncio.gather(*(player(p, i) for i, p in enumerate([elected, rogue] * 2)))
        await until(lambda: not_behind(elected.projection), "the projection catches up")
    feed = [(at.tx, at.position) for at, _ in await elected.games.store.read_all(before, limit=10**6)]
    start = (before.tx, before.position)
    applied = sorted(at for at in elected.applied + rogue.applied if at > start)
    assert applied == feed, "every event applied once, by one of the two"
    assert elected.prepared and rogue.prepared, "both raced for the checkpoint"


async def not_behind(projection: GameProjection) -> bool:
    """Whether the projection holds every event of the feed."""
    return not await projection.behind()


async def test_only_the_clock_leader_indexes_deadlines_and_every_process_acts_on_them(
    pool: asyncpg.Pool, url: str
) -> None:
    """The deadline index is caught up by its leader's scheduler only; another process's scheduler, which
    never catches it up, still times out a seat whose deadline the leader indexed, once: its next passes read
    the same rows, not yet moved on, and leave the deadline it already acted on alone."""
    now = FakeTime()
    leader, other = Process(pool, opener(url), now), Process(pool, opener(url), now)
    indexed_by_other = 0
    catch_up_pass = other.index.catch_up_pass  # the scheduler's pass over the index

    async def counting(lock_wait: float | None = None) -> int:
        nonlocal indexed_by_other
        indexed_by_other += 1
        return await catch_up_pass(lock_wait)

    other.index.catch_up_pass = counting  # type: ignore[method-assign]
    passes: dict[str, int] = {"leader": 0, "other": 0}

    def sleeper(who: str, woken: int = 0) -> Callable[[float], Awaitable[None]]:
        async def wake(_seconds: float) -> None:  # ``woken`` passes more at once, then no more
            passes[who] += 1
            if passes[who] > woken:
                await asyncio.Event().wait()

        return wake

    assert leader.leadership is not None and other.leadership is not None
    await leader.leadership.start()
    await other.leadership.start()
    schedulers: list[asyncio.Task[None]] = []
    try:
        assert leader.index.lead.held and not other.index.lead.projects
        game_id = await create(other.games, names("clock"), {"decision_seconds": 5})
        schedulers.append(asyncio.create_task(leader.clocks.run(sleeper("leader"))))
        indexed = "SELECT count(*) FROM clock_deadlines WHERE game_id = $1"
        await until(lambda: passes["leader"] == 1, "the leader's scheduler made its pass")
        assert await pool.fetchval(indexed, game_id) > 0, "the leader indexed the game's deadlines"
        now.advance(6)
        schedulers.append(asyncio.create_task(other.clocks.run(sleeper("other", woken=2))))
        await until(lambda: passes["other"] == 3, "the other scheduler made its three passes")
        assert other.clocks.timeouts == 1 and leader.clocks.timeouts == 0
        assert indexed_by_other == 0, "only the leader catches the index up"
    finally:
        for task in schedulers:
            task.cancel()
        await asyncio.gather(*schedulers, return_exceptions=True)
        await leader.leadership.stop()
        await other.leadership.stop()
