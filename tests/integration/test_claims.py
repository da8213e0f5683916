"""Claims on background decisions (service/workers/claims.py): two bot runners on one database, as two hosts run
them, compute each bot decision once; a claim is refused to another process while held, refused for a
version the game has left, and granted again when the holder's connection ends (a crashed host) or the
holder closes its claims (a stopping host).

The module plays on a database of its own: the session's running servers play every bot seat of the shared
one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.workers.bots import BotRunner
from service.workers.claims import Claims
from tests.support.databases import own_pool

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database no server process of the session plays on."""
    async with own_pool(server_url) as created:
        yield created


def new_service(pool: asyncpg.Pool) -> GameService:
    """A service of its own, like one more host."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


async def create(pool: asyncpg.Pool, body: dict[str, Any]) -> str:
    """A new game from a creation body; its id."""
    return (await new_service(pool).commands.create(msgspec.convert(body, CreateGame))).game_id


def counting_runner(pool: asyncpg.Pool, decided: list[tuple[str, int]]) -> BotRunner:
    """A runner on a service of its own that notes each decision it computes (game, version)."""
    runner = BotRunner(new_service(pool), think_seconds=0, iterations=4)
    decide = runner._decide

    async def noted(loaded: Any, seat: int, level: str) -> Any:
        decided.append((loaded.game_id, loaded.version))
        return await decide(loaded, seat, level)

    runner._decide = noted  # type: ignore[method-assign]  # the real decision, noted
    return runner


async def test_two_runners_decide_each_bot_move_once(pool: asyncpg.Pool) -> None:
    body = {"game": "johari", "players": [{"bot": "random"}, {"bot": "greedy"}], "seed": "claimed-once"}
    game_id = await create(pool, body)
    decided: list[tuple[str, int]] = []
    runners = [counting_runner(pool, decided) for _ in range(2)]
    watches = [runner.games.store.watch() for runner in runners]
    for watch in watches:
        watch.__enter__()

    def waker(index: int) -> Any:
        async def wake() -> None:
            await watches[index].wait(0.05)

        return wake

    tasks = [asyncio.create_task(runner.run(waker(i))) for i, runner in enumerate(runners)]
    try:
        deadline = asyncio.get_running_loop().time() + 120
        while not (await new_service(pool).loader.load(game_id)).finished:
            assert asyncio.get_running_loop().time() < deadline, "timed out"
            await asyncio.sleep(0.05)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    moves = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream_id = $1 AND cause IS NOT NULL", game_id
    )
    assert len(decided) == len(set(decided)) == moves  # each decision computed once, by one of them


async def test_a_claim_is_one_processes_until_its_connection_ends(pool: asyncpg.Pool) -> None:
    game_id = await create(pool, {"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}]})
    version = (await new_service(pool).loader.load(game_id)).version
    first, second = Claims(pool), Claims(pool)
    assert await first.take("bot", game_id, version)
    assert await first.take("bot", game_id, version)  # its own claim: granted again (a retry)
    assert not await second.take("bot", game_id, version)
    assert not await second.take("bot", game_id, version + 1)  # a version the game is not at
    assert first.locks is not None
    pid = first.locks._connection.get_server_pid()
    await first._drop_connection()  # the host is gone: the server drops its locks once its backend ends
    deadline = asyncio.get_running_loop().time() + 30
    while await pool.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
        assert asyncio.get_running_loop().time() < deadline, "the backend did not end"
        await asyncio.sleep(0.01)
    assert await second.take("bot", game_id, version)
    assert not await first.take("bot", game_id, version)
    await second.close()  # the process stops: its claims go, its connection back to the pool
    assert await first.take("bot", game_id, version)
    await first.close()
