"""End to end, a real server with READ_DATABASE_URL a real streaming standby that lags: spectators' streams
(read on the standby, woken by the primary's NOTIFY and fenced by its LSN) get every version exactly once,
and a read with ``min_version`` right after each command is never older than that command."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Iterator

import asyncpg
import httpx
import pytest
from httpx_sse import aconnect_sse

from tests.e2e.conftest import SERVED_AS_SHIPPED, start_server
from tests.support.databases import fresh_database, superuser_url
from tests.support.sse import dispatched
from tests.support.standby import StandbyPair

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 60.0
SPECTATORS = 3
LAG = "50ms"  # the standby applies each commit this long after the primary (recovery_min_apply_delay)


@pytest.fixture(scope="module")
def pair(standby_pair: StandbyPair) -> StandbyPair:
    """The session's primary and its streaming standby (tests/conftest.py)."""
    return standby_pair


@pytest.fixture(scope="module")
async def database(pair: StandbyPair) -> AsyncIterator[str]:
    """A migrated database on the primary, as the service's role; the standby replays it lagging by LAG."""
    async with fresh_database(pair.primary_url) as url:
        standby = await asyncpg.connect(pair.on_standby(superuser_url(url, pair.primary_url)))
        await standby.execute(f"ALTER SYSTEM SET recovery_min_apply_delay = '{LAG}'")
        await standby.execute("SELECT pg_reload_conf()")
        yield url
        await standby.execute("ALTER SYSTEM RESET recovery_min_apply_delay")
        await standby.execute("SELECT pg_reload_conf()")
        await standby.close()


@pytest.fixture(scope="module")
def server(pair: StandbyPair, database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server reading the standby; its streams never poll, so only a fenced wake-up delivers a change."""
    process, base = start_server(
        database,
        log_file=tmp_path_factory.mktemp("replica") / "server.log",
        settings={
            **SERVED_AS_SHIPPED,
            "READ_DATABASE_URL": pair.on_standby(database),
            "STREAM_POLL_SECONDS": "600",
        },
    )
    yield base
    process.terminate()
    process.wait(10)


@contextlib.asynccontextmanager
async def replay_paused(pair: StandbyPair, database: str) -> AsyncIterator[None]:
    """Once the standby has replayed what the primary has flushed, it stops replaying (it keeps receiving
    WAL) until the block ends."""
    primary = await asyncpg.connect(superuser_url(database, pair.primary_url))
    standby = await asyncpg.connect(pair.on_standby(superuser_url(database, pair.primary_url)))
    try:
        flushed = await primary.fetchval("SELECT pg_current_wal_flush_lsn()")
        async with asyncio.timeout(WAIT):
            while await standby.fetchval("SELECT pg_last_wal_replay_lsn()") < flushed:
                await asyncio.sleep(0.01)
        await standby.execute("SELECT pg_wal_replay_pause()")
        try:
            yield
        finally:
            await standby.execute("SELECT pg_wal_replay_resume()")
    finally:
        await standby.close()
        await primary.close()


async def versions_until_end(http: httpx.AsyncClient, path: str) -> tuple[int, list[int], int]:
    """A spectator's stream: the snapshot's version, each event's version, and the version the end names."""
    async with aconnect_sse(http, "GET", path) as source:
        stream = dispatched(source)
        snapshot = await anext(stream)
        assert snapshot.event == "snapshot"
        versions = []
        async for message in stream:
            if message.event == "end":
                return int(snapshot.id), versions, json.loads(message.data)["version"]
            if message.event == "message":
                versions.append(int(message.id))
    raise AssertionError("the stream closed without an end event")


async def test_streams_and_min_version_reads_over_a_lagging_standby(
    server: str, pair: StandbyPair, database: str
) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as http:
        created = await http.post(
            "/v1/games",
            json={"game": "basari", "players": [{"name": f"p{i}"} for i in range(3)], "seed": "e2e"},
        )
        assert created.status_code == 201, created.text
        game_id, version = created.json()["game_id"], created.json()["version"]
        tokens = [seat["token"] for seat in created.json()["seats"]]
        path = f"/v1/games/{game_id}/stream"
        spectators = [asyncio.ensure_future(versions_until_end(http, path)) for _ in range(SPECTATORS)]
        chooser = random.Random(7)
        while True:
            detail = (await http.get(f"/v1/games/{game_id}", params={"min_version": version})).json()
            assert detail["version"] >= version  # never older than the client's own last command
            if detail["status"] == "finished":
                break
            seat = chooser.choice(detail["pending"])["seat"]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = await http.get(
                f"/v1/games/{game_id}/legal", params={"min_version": version}, headers=auth
            )
            command = chooser.choice([entry for entry in legal.json() if entry["type"] != "resign"])
            before, first = version, version == created.json()["version"]
            # plain reads go to the standby: with its replay paused, the first command's plain read shows the
            # version before it, however fast the machine (a read within LAG of a commit needs a fast one)
            async with replay_paused(pair, database) if first else contextlib.nullcontext():
                answered = await http.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
                assert answered.status_code == 200, answered.text
                version = answered.json()["version"]
                if first:
                    plain = (await http.get(f"/v1/games/{game_id}")).json()
                    assert plain["version"] == before < version, (plain["version"], before, version)
        streams = await asyncio.wait_for(asyncio.gather(*spectators), WAIT)
    for start, versions, end in streams:
        assert end == version and versions == list(range(start + 1, version + 1))  # each version once
