"""Reads on a real streaming hot standby (READ_DATABASE_URL, docs/operations.md "Read replicas"): game reads
go to the standby, commands and LISTEN to the primary; ``min_version`` never answers older than asked; a live
stream over the standby gets every version once, woken by the primary's NOTIFY and fenced by its LSN; with
the standby stopped, reads fall back to the primary."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

import eventstore.replica
from api.app import create_app, replica_store
from api.routes.streams import stream_start
from domain.registry import all_games
from domain.resign import decisions
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.reads import GameReads, reads_over
from service.games.service import GameService
from service.readmodels.live import LiveGames, LiveMessage, follow_game
from service.runtime.database import create_pool, listen_connector
from service.runtime.settings import Settings
from service.runtime.sql import register_codecs
from tests.support.client_play import create_game
from tests.support.databases import fresh_database, superuser_url
from tests.support.logs import logs_of
from tests.support.standby import StandbyPair

pytestmark = pytest.mark.db

NEVER_POLL = 600.0  # a stream that missed a change would wait this long: only a wake-up moves it on
WAIT = 60.0


@pytest.fixture(scope="module")
def pair(standby_pair: StandbyPair) -> StandbyPair:
    """The session's primary and its streaming standby (tests/conftest.py)."""
    return standby_pair


@pytest.fixture(scope="module")
async def database_on_primary(pair: StandbyPair) -> AsyncIterator[str]:
    """A migrated database on the primary (the standby replays it), as the service's role."""
    async with fresh_database(pair.primary_url) as url:
        yield url


@pytest.fixture(scope="module")
async def client(pair: StandbyPair, database_on_primary: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app on the primary with READ_DATABASE_URL the standby; live readers never poll."""
    settings = dataclasses.replace(
        Settings.from_env(),
        database_url=database_on_primary,
        read_database_url=pair.on_standby(database_on_primary),
        stream_poll_seconds=NEVER_POLL,
    )
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def admin(pair: StandbyPair, database_on_primary: str) -> AsyncIterator[tuple[Any, Any]]:
    """Superuser connections to the test database on the primary and on the standby."""
    url = superuser_url(database_on_primary, pair.primary_url)
    primary = await asyncpg.connect(url)
    standby = await asyncpg.connect(pair.on_standby(url))
    yield primary, standby
    await primary.close()
    with contextlib.suppress(Exception):  # the last test stops the standby, cutting this connection
        await standby.close()


@pytest.fixture(scope="module")
async def reads(pair: StandbyPair, database_on_primary: str) -> AsyncIterator[GameReads]:
    """The app's read side (api/app.py ``replica_store``, service/games/reads.py ``reads_over``) wired in
    this test's event loop, its primary store
    listening: for the live readers and the stream's start, which the HTTP client cannot reach in-process."""
    settings = dataclasses.replace(
        Settings.from_env(),
        database_url=database_on_primary,
        read_database_url=pair.on_standby(database_on_primary),
    )
    pool = await create_pool(database_on_primary, settings)
    store = PostgresEventStore(
        pool, acquire_timeout=5, listen_connect=listen_connector(database_on_primary, settings)
    )
    await store.start()
    replica = await replica_store(settings, store, 5)
    assert replica is not None
    yield reads_over(GameService(store, PostgresKeyStore(pool), all_games()), replica)
    await replica.stop()
    await replica.replica.pool.close()
    await store.stop()
    await pool.close()


async def replayed(admin: tuple[Any, Any]) -> None:
    """Until the standby has replayed everything the primary has flushed (at most 10 s)."""
    primary, standby = admin
    flushed = await primary.fetchval("SELECT pg_current_wal_flush_lsn()")
    deadline = time.monotonic() + 10
    while await standby.fetchval("SELECT pg_last_wal_replay_lsn()") < flushed:
        assert time.monotonic() < deadline, "the standby did not replay within 10 s"
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def replay_paused(admin: tuple[Any, Any]) -> AsyncIterator[None]:
    """The standby stops replaying (it keeps receiving WAL) until the block ends."""
    await replayed(admin)
    await admin[1].execute("SELECT pg_wal_replay_pause()")
    try:
        yield
    finally:
        await admin[1].execute("SELECT pg_wal_replay_resume()")


@contextlib.asynccontextmanager
async def replay_delayed(admin: tuple[Any, Any], delay: str) -> AsyncIterator[None]:
    """The standby applies each commit ``delay`` after the primary made it (recovery_min_apply_delay), as a
    standby on another machine under load lags: a reader that did not wait for the LSN would read too early."""
    standby = admin[1]
    await standby.execute(f"ALTER SYSTEM SET recovery_min_apply_delay = '{delay}'")
    await standby.execute("SELECT pg_reload_conf()")
    try:
        yield
    finally:
        await standby.execute("ALTER SYSTEM RESET recovery_min_apply_delay")
        await standby.execute("SELECT pg_reload_conf()")


async def play_one(
    client: AsyncTestClient[Any], game_id: str, tokens: list[str], chooser: random.Random, version: int
) -> dict[str, Any]:
    """One legal command of a pending seat of the game at ``version`` (read with ``min_version``: a stale
    view would offer commands the primary refuses); the detail the command answered."""
    detail = (await client.get(f"/v1/games/{game_id}", params={"min_version": version})).json()
    seat = chooser.choice(detail["pending"])["seat"]
    mine = await client.get(
        f"/v1/games/{game_id}/legal", params={"min_version": version}, headers=bearer(tokens[seat])
    )
    legal = [entry for entry in mine.json() if entry["type"] != "resign"]
    response = await client.post(
        f"/v1/games/{game_id}/commands", json=chooser.choice(legal), headers=bearer(tokens[seat])
    )
    assert response.status_code == 200, response.text
    answered: dict[str, Any] = response.json()
    return answered


async def finished(client: AsyncTestClient[Any], game_id: str, version: int) -> bool:
    """Whether the game at ``version`` (or later) is over."""
    detail = (await client.get(f"/v1/games/{game_id}", params={"min_version": version})).json()
    return bool(detail["status"] == "finished")


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a seat."""
    return {"Authorization": f"Bearer {token}"}


async def new_game(client: AsyncTestClient[Any], seed: str) -> tuple[str, list[str], int]:
    """A three-player Basari game: its id, seat tokens and version."""
    created = await create_game(client, "basari", 3, seed=seed)
    return created["game_id"], [seat["token"] for seat in created["seats"]], created["version"]


async def test_reads_go_to_the_standby_and_commands_and_listen_to_the_primary(
    client: AsyncTestClient[Any], admin: tuple[Any, Any], reads: GameReads
) -> None:
    game_id, tokens, version = await new_game(client, "replica-routing")
    assert (await client.get(f"/v1/games/{game_id}", params={"min_version": version})).json()[
        "version"
    ] == version
    async with replay_paused(admin):
        moved = (await play_one(client, game_id, tokens, random.Random(1), version))[
            "version"
        ]  # the primary's
        # the standby has not replayed it: a plain read shows the version before, so it was read there
        stale = await client.get(f"/v1/games/{game_id}")
        assert stale.status_code == 200 and stale.json()["version"] == version < moved
        assert stale.headers["etag"] == f'"{version}"'
        events = (await client.get(f"/v1/games/{game_id}/events")).json()
        assert events["version"] == version and events["events"][-1]["version"] == version
        # read-your-writes: with min_version the answer is never older (the standby is paused: the primary)
        with logs_of(eventstore.replica) as logged:
            for path in ("", "/events", "/legal", "/scoresheet", "/audit"):
                answer = await client.get(f"/v1/games/{game_id}{path}", params={"min_version": moved})
                assert answer.status_code == 200, (path, answer.text)
        assert [line for line in logged if line["event"] == "replica_lagging"]  # the operator is told
        fresh = await client.get(f"/v1/games/{game_id}", params={"min_version": moved})
        assert fresh.json()["version"] == moved and fresh.headers["etag"] == f'"{moved}"'
        assert (await client.get(f"/v1/games/{game_id}/events", params={"min_version": moved})).json()[
            "events"
        ][-1]["version"] == moved
        at = await client.get(f"/v1/games/{game_id}/state", params={"at": moved, "min_version": moved})
        assert at.status_code == 200 and at.json()["version"] == moved  # the standby has no such version yet
        # a stream resuming after a version only the primary has yet starts from the primary's game
        assert (await stream_start(reads, game_id, None)).version == version
        assert (await stream_start(reads, game_id, str(moved))).version == moved
    await replayed(admin)
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == moved

    # the standby holds the reads' connections only; the LISTEN connection and the writers are the primary's
    primary, standby = admin
    names = "SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = current_database()"
    on_standby = {row[0] for row in await standby.fetch(names)}
    on_primary = {row[0] for row in await primary.fetch(names)}
    assert "bazaar-games-reads" in on_standby and not on_standby & {"bazaar-games", "bazaar-games-listen"}
    assert {"bazaar-games", "bazaar-games-listen"} <= on_primary and "bazaar-games-reads" not in on_primary


async def test_min_version_right_after_each_command_is_never_older(client: AsyncTestClient[Any]) -> None:
    game_id, tokens, moved = await new_game(client, "replica-read-your-writes")
    chooser = random.Random(2)
    for _ in range(40):
        moved = (await play_one(client, game_id, tokens, chooser, moved))["version"]
        seat_view = await client.get(
            f"/v1/games/{game_id}", params={"min_version": moved}, headers=bearer(tokens[0])
        )
        assert seat_view.json()["version"] >= moved
        events = (await client.get(f"/v1/games/{game_id}/events", params={"min_version": moved})).json()
        assert events["version"] >= moved and events["events"][-1]["version"] >= moved


async def test_min_version_is_a_version_of_the_game(client: AsyncTestClient[Any]) -> None:
    game_id, _, version = await new_game(client, "replica-min-version-bounds")
    beyond = await client.get(f"/v1/games/{game_id}", params={"min_version": version + 1})
    assert beyond.status_code == 409 and beyond.json()["code"] == "version_not_reached"
    assert beyond.headers["content-type"].startswith("application/problem+json")
    for bad in ("-1", "x", str(2**31)):
        refused = await client.get(f"/v1/games/{game_id}/events", params={"min_version": bad})
        assert refused.status_code == 400, (bad, refused.text)
    assert (await client.get(f"/v1/games/{game_id}", params={"min_version": 0})).status_code == 200
    missing = await client.get("/v1/games/no-such-game", params={"min_version": 1})
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


async def follow_to_end(
    reads: GameReads, game_id: str, snapshot_sent: asyncio.Event | None = None
) -> list[LiveMessage]:
    """A spectator's live messages over the standby's service, snapshot to end (``snapshot_sent`` set once
    the first message, the snapshot, has come)."""
    loaded = await reads.live.loader.load(game_id)
    collected = []
    async with contextlib.aclosing(
        follow_game(LiveGames(reads.live), loaded, None, None, 60.0, NEVER_POLL)
    ) as live:
        async for message in live:
            collected.append(message)
            if snapshot_sent is not None:
                snapshot_sent.set()
            if message.kind == "end":
                return collected
    raise AssertionError("the stream ended without an end message")


@pytest.fixture
async def other_process(database_on_primary: str) -> AsyncIterator[GameService]:
    """A second writer with a LISTEN/NOTIFY connection of its own: its NOTIFYs come from another backend,
    as another host's would."""
    pool = await asyncpg.create_pool(database_on_primary, min_size=1, max_size=4, init=register_codecs)
    assert pool is not None
    store = PostgresEventStore(pool)
    await store.start()
    yield GameService(store, PostgresKeyStore(pool), all_games())
    await store.stop()
    await pool.close()


async def play_alternately(writers: list[GameService], game_id: str, seed: str) -> int:
    """Random legal commands until the game is over, each sent through the next writer in turn; the final
    version."""
    chooser = random.Random(seed)
    for turn in itertools.count():
        service = writers[turn % len(writers)]
        loaded = await service.loader.load(game_id)
        if loaded.finished:
            return loaded.version
        seat = chooser.choice(loaded.game.pending(loaded.state)).seat
        command = chooser.choice(decisions(loaded.legal(seat)))
        await service.commands.execute(game_id, seat, msgspec.to_builtins(command))
    raise AssertionError("unreachable")


async def test_a_stream_over_the_standby_gets_every_version_once(
    client: AsyncTestClient[Any], reads: GameReads, admin: tuple[Any, Any], other_process: GameService
) -> None:
    assert reads.replica is not None and reads.live is reads.replica
    game_id, _, _ = await new_game(client, "replica-stream")
    async with replay_delayed(admin, "100ms"):
        followers = [asyncio.ensure_future(follow_to_end(reads, game_id)) for _ in range(3)]
        # this process's own commands (its NOTIFY heard back) and another process's, in turn
        final = await play_alternately([reads.primary, other_process], game_id, "replica-stream")
        # a stream that read the standby before it replayed the last change would wait NEVER_POLL for it
        streams = await asyncio.wait_for(asyncio.gather(*followers), WAIT)
    for messages in streams:
        snapshot, *events, end = messages
        assert snapshot.kind == "snapshot" and end.kind == "end" and end.body.version == final
        assert [message.id for message in events] == list(range(snapshot.id + 1, final + 1))
        assert len(events) > 50  # the streams began before the game was played


async def test_a_game_the_standby_has_not_replayed_is_read_and_followed_on_the_primary(
    client: AsyncTestClient[Any], reads: GameReads, admin: tuple[Any, Any]
) -> None:
    """A game created while the standby replays nothing: the standby's store, after its bounded wait, reads
    the game's row and events on the primary, so a live stream opened at once follows it to its end; a game
    neither database has is missing, the standby replaying or not (eventstore/replica.py)."""
    assert reads.replica is not None and reads.live is reads.replica
    async with replay_paused(admin):
        game_id, _, version = await new_game(client, "replica-new-game")
        info = await reads.live.store.stream_info(game_id)
        assert info is not None and info.version == version
        assert (await reads.live.loader.load(game_id)).version == version
        assert await reads.live.store.stream_info("no-such-game") is None
        # the stream's snapshot is taken before the game moves on: its load waits out the paused standby
        # before it reads on the primary, long enough for commands sent at once to land first
        snapshot_sent = asyncio.Event()
        follower = asyncio.ensure_future(follow_to_end(reads, game_id, snapshot_sent))
        await asyncio.wait_for(snapshot_sent.wait(), WAIT)
        for seat in (0, 1):  # two of three resign: the game is over
            await reads.primary.commands.execute(game_id, seat, {"type": "resign"})
        snapshot, *events, end = await asyncio.wait_for(follower, WAIT)
        assert (await admin[1].fetchval("SELECT count(*) FROM streams WHERE stream_id = $1", game_id)) == 0
    assert snapshot.id == version and end.kind == "end" and end.body.version == version + len(events)
    assert [message.id for message in events] == list(range(version + 1, end.body.version + 1))
    assert await reads.live.store.stream_info("no-such-game") is None


async def test_with_the_standby_stopped_reads_fall_back_to_the_primary(
    client: AsyncTestClient[Any], pair: StandbyPair, reads: GameReads
) -> None:
    game_id, tokens, moved = await new_game(client, "replica-stopped")
    chooser = random.Random(4)
    pair.stop_standby()
    try:
        for _ in range(5):
            moved = (await play_one(client, game_id, tokens, chooser, moved))["version"]
            for path in ("", "/events", "/legal", "/scoresheet", "/audit"):
                answer = await client.get(f"/v1/games/{game_id}{path}")
                assert answer.status_code == 200, (path, answer.text)
            assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == moved
            assert (
                await client.get(f"/v1/games/{game_id}", params={"min_version": moved})
            ).status_code == 200
        assert (await stream_start(reads, game_id, None)).version == moved
    finally:
        pair.start_standby()
