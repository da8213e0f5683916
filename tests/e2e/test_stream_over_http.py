"""End to end: ``GET /v1/games/{id}/stream`` (Server-Sent Events) on the real server, with one and two worker
processes: snapshot first, ``id:`` = version, redaction per caller, resume, end, the per-client cap."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from httpx_sse import ServerSentEvent, aconnect_sse

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.service import GameService
from tests.support.client_play import create_game
from tests.support.sse import dispatched

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 30.0
# Shorter than the server's fallback poll (STREAM_POLL_SECONDS, 5 s): an event that arrives within it was
# delivered by a LISTEN/NOTIFY wake-up.
WAKE_WAIT = 3.0
STREAMS_PER_CLIENT = 8  # the server's default


@pytest.fixture
async def other_process(pool: asyncpg.Pool) -> AsyncIterator[GameService]:
    """This test process as one more process on the server's database: a game service whose store NOTIFYs."""
    store = PostgresEventStore(pool)
    await store.start()
    yield GameService(store, PostgresKeyStore(pool), all_games())
    await store.stop()


async def play_one(service: GameService, game_id: str, chooser: random.Random) -> int | None:
    """One random legal command from a random pending seat; the new version (None once the game is over)."""
    loaded = await service.loader.load(game_id)
    if loaded.finished:
        return None
    seat = chooser.choice(loaded.game.pending(loaded.state)).seat
    command = chooser.choice(loaded.legal(seat))
    accepted = await service.commands.execute(game_id, seat, msgspec.to_builtins(command))
    return accepted.version


def bearer(token: str | None) -> dict[str, str]:
    """The Authorization header of a seat (none for a spectator)."""
    return {} if token is None else {"Authorization": f"Bearer {token}"}


@contextlib.asynccontextmanager
async def live(
    base: str, game_id: str, token: str | None = None, last_event_id: int | None = None
) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
    """An open stream on its own connection, as an iterator of its events (comments are skipped)."""
    headers = bearer(token)
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    async with (
        httpx.AsyncClient(base_url=base, timeout=WAIT) as client,
        aconnect_sse(client, "GET", f"/v1/games/{game_id}/stream", headers=headers) as source,
    ):
        assert source.response.status_code == 200, await source.response.aread()
        assert source.response.headers["content-type"].startswith("text/event-stream")
        yield dispatched(source)


async def until_end(events: AsyncIterator[ServerSentEvent]) -> list[ServerSentEvent]:
    """Every event up to and including ``end``."""
    collected = []
    async for event in events:
        collected.append(event)
        if event.event == "end":
            return collected
    raise AssertionError("the stream closed without an end event")


async def test_streams_follow_a_game_to_its_end(any_server: str, other_process: GameService) -> None:
    """A seat, another seat and a spectator each follow a game played by another process on the same
    database: snapshot, every version once, redacted per caller, then end and close."""
    async with httpx.AsyncClient(base_url=any_server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-1")
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    callers = {"seat0": tokens[0], "seat1": tokens[1], "spectator": None}
    async with contextlib.AsyncExitStack() as streams:
        opened = {
            name: await streams.enter_async_context(live(any_server, game_id, token))
            for name, token in callers.items()
        }
        following = {name: asyncio.ensure_future(until_end(events)) for name, events in opened.items()}
        chooser = random.Random(1)
        final_version = created["version"]
        while (version := await play_one(other_process, game_id, chooser)) is not None:
            final_version = version
        received = {name: await asyncio.wait_for(task, WAIT) for name, task in following.items()}
    final = {"version": final_version}

    for name, events in received.items():
        snapshot, *game_events, end = events
        assert snapshot.event == "snapshot" and snapshot.id == str(created["version"])
        assert snapshot.json()["version"] == created["version"]
        assert snapshot.json()["you"] == {"seat0": 0, "seat1": 1, "spectator": None}[name]
        assert [e.id for e in game_events] == [
            str(v) for v in range(created["version"] + 1, final["version"] + 1)
        ]
        assert all(e.event == "message" and e.json()["version"] == int(e.id) for e in game_events)
        assert end.event == "end" and end.json()["version"] == final["version"]

    def seat0_picks(name: str) -> list[Any]:
        return [
            e.json()["data"].get("action")
            for e in received[name][1:-1]
            if e.json()["type"] == "action_chosen"
            and e.json()["data"]["seat"] == 0
            and e.json()["hash"] is None
        ]

    assert seat0_picks("seat0") and None not in seat0_picks("seat0")
    assert seat0_picks("seat1") and set(seat0_picks("seat1")) == {None}
    assert seat0_picks("spectator") and set(seat0_picks("spectator")) == {None}


async def test_last_event_id_resumes_after_that_version(any_server: str) -> None:
    async with httpx.AsyncClient(base_url=any_server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-2")
        game_id, token = created["game_id"], created["seats"][2]["token"]
        history = (await client.get(f"/v1/games/{game_id}/events", headers=bearer(token))).json()
    version = created["version"]
    async with live(any_server, game_id, token, last_event_id=1) as events:
        snapshot = await anext(events)
        assert snapshot.event == "snapshot" and snapshot.id == "1" and snapshot.json()["version"] == version
        resumed = [await anext(events) for _ in range(version - 1)]
    assert [e.id for e in resumed] == [str(v) for v in range(2, version + 1)]
    assert [e.json() for e in resumed] == history["events"][1:]


async def test_another_process_append_reaches_streams_on_both_workers(
    server_two_workers: str, other_process: GameService
) -> None:
    """Commands decided in this test process (another process on the same database) reach streams held by
    the server's workers within a wake-up, not a poll."""
    async with httpx.AsyncClient(base_url=server_two_workers, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-3")
    game_id = created["game_id"]
    chooser = random.Random(3)
    async with contextlib.AsyncExitStack() as streams:
        # four connections: with two workers, both hold some of them (a process picks each connection)
        opened = [await streams.enter_async_context(live(server_two_workers, game_id)) for _ in range(4)]
        for events in opened:
            assert (await anext(events)).event == "snapshot"
        for _ in range(5):
            version = await play_one(other_process, game_id, chooser)
            assert version is not None
            for events in opened:
                async with asyncio.timeout(WAKE_WAIT):
                    while int((await anext(events)).id) < version:
                        pass


async def test_stream_refusals_are_problems(server: str) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-4")
        game_id = created["game_id"]
        cases = [
            ("/v1/games/no-such-game/stream", {}, 404),
            (f"/v1/games/{game_id}/stream", bearer("not-a-seat-token"), 403),
            (f"/v1/games/{game_id}/stream", {"Last-Event-ID": "soon"}, 400),
            (f"/v1/games/{game_id}/stream", {"Last-Event-ID": str(created["version"] + 1)}, 400),
        ]
        for path, headers, status in cases:
            async with client.stream("GET", path, headers=headers) as response:
                assert response.status_code == status, path
                assert response.headers["content-type"].startswith("application/problem+json")
                body = json.loads(await response.aread())
                assert body["status"] == status and body["code"]


async def test_a_client_may_hold_a_limited_number_of_streams(server: str) -> None:
    """One worker: the cap is per process. The ninth stream of one client (a seat token counts by its
    address) gets 429 with Retry-After; other clients (an account) are unaffected; closing a stream frees
    its slot."""
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-5")
        game_id, token = created["game_id"], created["seats"][0]["token"]
        signed_up = await client.post("/v1/accounts", json={"name": f"watcher-{random.randrange(10**9)}"})
        account_token = signed_up.json()["token"]
        path = f"/v1/games/{game_id}/stream"
        async with contextlib.AsyncExitStack() as streams:
            for _ in range(STREAMS_PER_CLIENT - 1):
                await streams.enter_async_context(live(server, game_id, token))
            async with live(server, game_id, token):
                async with client.stream("GET", path, headers=bearer(token)) as refused:
                    assert refused.status_code == 429
                    assert refused.headers["content-type"].startswith("application/problem+json")
                    assert int(refused.headers["retry-after"]) > 0
                    assert json.loads(await refused.aread())["code"] == "too_many_streams"
                async with client.stream("GET", "/v1/me/stream", headers=bearer(account_token)) as other:
                    assert other.status_code == 200
            # one stream closed: once the server has noticed the disconnect, its slot is free again
            async with asyncio.timeout(WAIT):
                while True:
                    async with client.stream("GET", path, headers=bearer(token)) as response:
                        if response.status_code == 200:
                            break
                        assert response.status_code == 429
                    await asyncio.sleep(0.05)


KEEPALIVES = 6  # quiet periods each stream waits through (the shared servers keep alive every 0.3 s)


async def keepalives_then_event(response: httpx.Response, keepalives: int, ready: asyncio.Event) -> str:
    """Read a stream's raw lines: its snapshot, then ``keepalives`` keep-alive comments (``ready`` is set
    then), then the ``id:`` of the next event."""
    comments, seen_snapshot = 0, False
    try:
        async for line in response.aiter_lines():
            if line == "event: snapshot":
                seen_snapshot = True
            elif line.startswith(":") and seen_snapshot:
                comments += 1
                if comments == keepalives:
                    ready.set()
            elif line.startswith("id:") and ready.is_set():
                return line.removeprefix("id:").strip()
    except httpx.TransportError as cut:
        raise AssertionError(f"the server cut the stream after {comments} keep-alives") from cut
    raise AssertionError(f"the stream closed after {comments} keep-alives")


async def until_ready(ready: asyncio.Event, reader: asyncio.Future[str]) -> None:
    """Wait until ``ready`` is set; raise the reader's error if its stream ends first."""
    waiting: asyncio.Future[Any] = asyncio.ensure_future(ready.wait())
    await asyncio.wait([waiting, reader], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if not ready.is_set():
        reader.result()


async def test_quiet_streams_send_keep_alives_and_then_the_next_event(
    any_server: str, other_process: GameService
) -> None:
    """Streams kept quiet for several keep-alives stay open, each keep-alive a comment line, and then
    carry the next event (uvloop's timer for a keep-alive due within a millisecond has no deadline to ask)."""
    async with httpx.AsyncClient(base_url=any_server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-e2e-quiet")
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    callers = [*tokens, None, None, None, None]  # three seats, four spectators (within the cap of one IP)
    async with contextlib.AsyncExitStack() as streams:
        readers = []
        for token in callers:
            client = await streams.enter_async_context(httpx.AsyncClient(base_url=any_server, timeout=WAIT))
            response = await streams.enter_async_context(
                client.stream("GET", f"/v1/games/{game_id}/stream", headers=bearer(token))
            )
            assert response.status_code == 200
            ready = asyncio.Event()
            readers.append((ready, asyncio.ensure_future(keepalives_then_event(response, KEEPALIVES, ready))))
        async with asyncio.timeout(WAIT):
            for ready, reader in readers:
                await until_ready(ready, reader)
        version = await play_one(other_process, game_id, random.Random(7))
        ids = await asyncio.wait_for(asyncio.gather(*(reader for _ready, reader in readers)), WAIT)
    assert ids == [str(version)] * len(callers)
