"""The deadline index and the clock scheduler on fake time: two processes' schedulers time out each
deadline exactly once, deadlines survive a restart (a new scheduler acts on the stored index), and the
scheduler sleeps until the earliest deadline instead of polling games.

The module plays on a database of its own: the session's running servers have clock schedulers that would
time out these games themselves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.workers import timeouts as timeouts_module
from service.workers.timeouts import ClockScheduler, DeadlineIndex
from tests.support.databases import own_pool
from tests.support.fake_time import FakeTime
from tests.support.logs import logs_of

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database no server process of the session plays on."""
    async with own_pool(server_url) as created:
        yield created


def process(pool: asyncpg.Pool, now: FakeTime) -> ClockScheduler:
    """One server process's scheduler: a service and an index of its own, on fake time."""
    store = PostgresEventStore(pool)
    games = GameService(store, PostgresKeyStore(pool), all_games(), now=now)
    return ClockScheduler(games, DeadlineIndex(pool, store), now=now)


async def create(
    scheduler: ClockScheduler, clock: dict[str, Any], game: str = "johari", players: int = 2
) -> str:
    """A new hot-seat game with that clock; its id."""
    body = {"game": game, "players": [{"name": f"p{i}"} for i in range(players)], "clock": clock}
    return (await scheduler.games.commands.create(msgspec.convert(body, CreateGame))).game_id


async def timeouts(pool: asyncpg.Pool, game_id: str) -> list[tuple[int, str]]:
    """The game's timeouts: (version, command id) of each append that timed a seat out."""
    rows = await pool.fetch(
        "SELECT e.version, c.command_id FROM events e JOIN events c"
        " ON c.stream_id = e.stream_id AND c.version = e.version"
        " WHERE e.stream_id = $1 AND e.type = 'seat_timed_out' ORDER BY e.version",
        game_id,
    )
    return [(row["version"], row["command_id"]) for row in rows]


async def test_two_schedulers_time_out_each_deadline_once(pool: asyncpg.Pool) -> None:
    """Both processes see the passed deadline; the append's version check lets exactly one timeout in, and
    the next pass (after the index caught up) times out the other seat due at the same moment."""
    now = FakeTime()
    first, second = process(pool, now), process(pool, now)
    game_id = await create(first, {"decision_seconds": 5}, game="basari", players=3)
    opened = await first.games.loader.load(game_id)
    due = [p.seat for p in opened.game.pending(opened.state)]
    assert due == [0, 1, 2]  # B-6: every seat picks at once, so every clock runs
    now.advance(6)
    for _ in range(len(due)):
        await asyncio.gather(first.index.catch_up(), second.index.catch_up())
        await asyncio.gather(first.act(), second.act())
    stored = await timeouts(pool, game_id)
    assert len(stored) == len(due)
    # one timeout per decision, keyed by the version it was decided on; a process answered with the same
    # key got the first answer (counted by both), a process with a stale version was refused
    assert [command_id.split(":")[1] for version, command_id in stored] == [
        f"clock-v{version - 1}-s{command_id.split(':')[0]}" for version, command_id in stored
    ]
    assert first.timeouts + second.timeouts >= len(stored)
    loaded = await first.games.loader.load(game_id)
    assert all(loaded.state.clock.seats[seat].timeouts == 1 for seat in due)
    assert (await first.games.exporter.audit(game_id)).ok


async def test_a_new_process_acts_on_deadlines_stored_before_it_started(pool: asyncpg.Pool) -> None:
    """Deadlines live in the index: a scheduler started later (a restart) times the seat out from it."""
    now = FakeTime()
    before = process(pool, now)
    game_id = await create(before, {"decision_seconds": 30, "bank_seconds": 30}, game="basari", players=3)
    await before.index.catch_up()
    deadline = await pool.fetchval("SELECT min(deadline) FROM clock_deadlines WHERE game_id = $1", game_id)
    assert deadline == now() + timedelta(seconds=60)
    now.advance(60)
    after = process(pool, now)
    assert await after.act() >= 1  # (earlier tests' games may be due too: they share the fake start)
    assert len(await timeouts(pool, game_id)) == 1


async def test_the_scheduler_sleeps_until_the_earliest_deadline_then_acts(pool: asyncpg.Pool) -> None:
    """The run loop asks to sleep exactly until the next deadline (no polling of games), and once woken past
    it appends the timeout; a finished game leaves no deadline behind."""
    now = FakeTime()
    scheduler = process(pool, now)
    await scheduler.index.catch_up()
    await pool.execute("DELETE FROM clock_deadlines")  # only this test's game counts for the earliest
    game_id = await create(scheduler, {"decision_seconds": 3, "max_timeouts": 1})
    asked: asyncio.Queue[float] = asyncio.Queue()
    woken = asyncio.Event()

    async def wake(seconds: float) -> None:
        await asked.put(seconds)
        await woken.wait()
        woken.clear()

    task = asyncio.create_task(scheduler.run(wake))
    try:
        assert await asyncio.wait_for(asked.get(), 60) == 3.0
        now.advance(3)
        while not (await scheduler.games.loader.load(game_id)).finished:  # one timeout resigns: the game ends
            woken.set()
            await asyncio.wait_for(asked.get(), 60)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await scheduler.index.catch_up()
    assert await pool.fetchval("SELECT count(*) FROM clock_deadlines WHERE game_id = $1", game_id) == 0
    assert len(await timeouts(pool, game_id)) == 1


async def test_a_failing_timeout_is_logged_without_its_message(pool: asyncpg.Pool) -> None:
    """A bug while timing a seat out is logged by type and place only (its message could quote a hidden
    hand), and the scheduler goes on."""
    now = FakeTime()
    scheduler = process(pool, now)
    await create(scheduler, {"decision_seconds": 5})
    now.advance(6)
    await scheduler.index.catch_up()

    async def failing(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("the seat's hand: secret-card-17")

    scheduler.games.commands.execute = failing  # type: ignore[method-assign]  # a bug inside the timeout's append
    with logs_of(timeouts_module) as logs:
        assert await scheduler.act() == 0
    failed = [entry for entry in logs if entry["event"] == "timeout_failed"]
    assert failed and all(entry["error"] == "RuntimeError" and entry["where"] for entry in failed), failed
    assert all("exc_info" not in entry for entry in failed) and "secret-card-17" not in repr(logs), failed


async def test_the_scheduler_sleeps_through_moves_of_untimed_games(pool: asyncpg.Pool) -> None:
    """A game this process holds without a clock never brings a deadline: the scheduler's wake-up (a watch
    ignoring ``untimed``) sleeps through its moves; a timed game's move wakes it."""
    now = FakeTime()
    scheduler = process(pool, now)
    games = scheduler.games
    body = {"game": "basari", "players": [{"name": f"p{i}"} for i in range(3)]}
    untimed = (await games.commands.create(msgspec.convert(body, CreateGame))).game_id
    timed = await create(scheduler, {"decision_seconds": 5}, game="basari", players=3)
    for game_id in (untimed, timed):
        await games.loader.load(game_id)  # held here, as after a request
    assert untimed in scheduler.untimed
    assert timed not in scheduler.untimed

    async def move(game_id: str) -> None:
        loaded = await games.loader.load(game_id)
        seat = loaded.game.pending(loaded.state)[0].seat
        await games.commands.execute(game_id, seat, msgspec.to_builtins(loaded.legal(seat)[0]))

    with games.store.watch(ignoring=scheduler.untimed) as woken:
        await move(untimed)
        assert not await woken.wait(0), "an untimed game moved: the scheduler sleeps on"
        await move(timed)
        assert await woken.wait(0), "a timed game moved: the scheduler wakes"
