"""The database limits of README "Configuration" seen through the API: a statement stuck past
DB_STATEMENT_TIMEOUT_MS and a pool with no free connection past DB_POOL_ACQUIRE_TIMEOUT_MS both answer 503
problem+json with Retry-After in bounded time, change nothing, and the service carries on afterwards."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings
from service.runtime.sql import register_codecs
from tests.support.client_play import create_game
from tests.support.databases import fresh_database

pytestmark = pytest.mark.db

# Small limits so the test is quick; the bound on an answer is theirs plus slack for a busy machine.
STATEMENT_TIMEOUT_MS = 300
ACQUIRE_TIMEOUT_MS = 1000  # also the connect timeout: not so short that a busy machine cannot connect
LONGEST_ANSWER_S = 5.0
# How long the pool stays fully held: longer than all the requests made meanwhile take on a busy machine,
# short enough that a request waiting without bound ends the test (late, and failing) instead of hanging it.
HOLD_POOL_S = 30.0
# The app's pool: small, so a test can hold all of it (the default DB_POOL_MIN). The feed followers need
# one connection at a time: they read before they open their checkpoint's transaction.
POOL_SIZE = 2
# How long the followers may take to list a change they can make only one connection at a time.
LISTED_WITHIN_S = 15.0


@pytest.fixture(scope="module")
async def database(server_url: str) -> AsyncIterator[str]:
    """A database of this module's own, so the app's followers do not spend the tests catching up with
    every earlier test's events."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
async def pool(database: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on that database beside the app's, for the session that holds a lock."""
    created = await asyncpg.create_pool(database, min_size=1, max_size=2, init=register_codecs)
    assert created is not None
    yield created
    await created.close()


@pytest.fixture(scope="module")
async def client(database: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app with a POOL_SIZE-connection pool and short statement and acquire timeouts."""
    settings = dataclasses.replace(
        Settings.from_env(),
        database_url=database,
        pool_min=POOL_SIZE,  # every connection open from the start
        pool_max=POOL_SIZE,
        statement_timeout_ms=STATEMENT_TIMEOUT_MS,
        pool_acquire_timeout_ms=ACQUIRE_TIMEOUT_MS,
    )
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        # On start the app's followers (projection, results, bots, clocks) catch up with the whole feed on
        # those connections; the tests begin once a request gets one again.
        deadline = time.monotonic() + 60
        while (await test_client.get("/v1/games", params={"limit": 1})).status_code != 200:
            assert time.monotonic() < deadline, "the app's pool stayed busy for 60 s after start"
            await anyio.sleep(0.2)
        yield test_client


def assert_unavailable(response: Any) -> None:
    """503 problem+json, code database_unavailable, with Retry-After."""
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "database_unavailable"
    assert int(response.headers["retry-after"]) >= 1


async def test_a_write_stuck_on_a_lock_past_the_statement_timeout_is_503(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    created = await create_game(client, "basari", 3, seed="stuck-writer")  # type: ignore[arg-type]
    game_id, token = created["game_id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    command = (await client.get(f"/v1/games/{game_id}/legal", headers=auth)).json()[0]
    async with pool.acquire() as blocker:
        # the blocker lets go on its own after a while, so a service without a statement timeout would
        # answer late with a 200 and fail below instead of hanging the test
        await blocker.execute(f"SET idle_in_transaction_session_timeout = '{2 * LONGEST_ANSWER_S}s'")
        async with blocker.transaction():
            # another session holds the game's row: the append waits on it until statement_timeout cancels it
            await blocker.execute("SELECT 1 FROM streams WHERE stream_id = $1 FOR UPDATE", game_id)
            started = time.perf_counter()
            stuck = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
            assert_unavailable(stuck)
            assert time.perf_counter() - started < LONGEST_ANSWER_S
            # readers are not blocked by a writer
            assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == created["version"]
        await blocker.execute("RESET idle_in_transaction_session_timeout")
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == created["version"]
    retried = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
    assert retried.status_code == 200, retried.text
    assert retried.json()["version"] == created["version"] + 1


@asynccontextmanager
async def connections_held(client: AsyncTestClient[Any], count: int = POOL_SIZE) -> AsyncIterator[None]:
    """Hold ``count`` connections of the app's pool (on the app's own event loop, where the pool lives), for
    at most HOLD_POOL_S: a request that waits for a connection without bound gets one then, answers late
    with a 200 and fails the test instead of hanging it."""
    app_pool: asyncpg.Pool = client.app.state.pool
    held, done = threading.Event(), threading.Event()

    async def hold() -> None:
        until = time.monotonic() + HOLD_POOL_S
        async with AsyncExitStack() as connections:
            for _ in range(count):
                await connections.enter_async_context(app_pool.acquire(timeout=10))
            held.set()
            while not done.is_set() and time.monotonic() < until:
                await anyio.sleep(0.01)

    holding = client.blocking_portal.start_task_soon(hold)
    while not held.is_set():
        if holding.done():
            holding.result()  # the holder failed: raise its error
        await asyncio.sleep(0.01)
    try:
        yield
    finally:
        done.set()
        await asyncio.wrap_future(holding)


async def test_no_free_connection_within_the_acquire_timeout_is_503(client: AsyncTestClient[Any]) -> None:
    created = await create_game(client, "johari", 2, seed="starved")  # type: ignore[arg-type]
    async with connections_held(client):
        for path in (f"/v1/games/{created['game_id']}", "/v1/games", f"/v1/games/{created['game_id']}/audit"):
            started = time.perf_counter()
            assert_unavailable(await client.get(path))
            assert time.perf_counter() - started < LONGEST_ANSWER_S
        ready = await client.get("/ready")
        assert ready.status_code == 503 and int(ready.headers["retry-after"]) >= 1
        tournament = {"name": "t", "game": "johari", "players": [{"name": "a"}, {"name": "b"}], "rounds": 1}
        assert_unavailable(await client.post("/v1/tournaments", json=tournament))
    assert (await client.get(f"/v1/games/{created['game_id']}")).status_code == 200
    assert (await client.get("/ready")).status_code == 200


async def test_the_feed_followers_need_one_connection_at_a_time(client: AsyncTestClient[Any]) -> None:
    """The feed followers (games projection, tournament results, clock deadlines) read the feed and the
    games before they open their checkpoint's transaction, so none holds one connection while it waits for
    another: with all but one of the app's connections held, every request answers and a new game gets
    listed. (Before, a follower held the free connection in its transaction and waited for a second until
    the acquire timeout, and the game was never listed; with two free connections, two followers did so.)"""
    async with connections_held(client, POOL_SIZE - 1):
        created = await create_game(client, "johari", 2, seed="one-free-connection")  # type: ignore[arg-type]
        deadline = time.monotonic() + LISTED_WITHIN_S
        while True:
            listed = await client.get("/v1/games", params={"limit": 20})
            assert listed.status_code == 200, listed.text
            if created["game_id"] in [game["game_id"] for game in listed.json()["games"]]:
                break
            assert time.monotonic() < deadline, f"the new game was not listed within {LISTED_WITHIN_S} s"
            await anyio.sleep(0.2)
