"""End to end: ``GET /v1/me/stream`` on the real server, with one and two worker processes. Bot accounts that
never poll play a whole game: each learns that it was seated, that a decision of its is due and that the
game finished only from its notification stream; a stream resumed with ``Last-Event-ID`` misses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest
from httpx_sse import ServerSentEvent, aconnect_sse

from domain.registry import all_games
from eventstore import PostgresEventStore
from service.games import GameService
from service.keys import GameKeys, PostgresKeyStore
from service.models import CreateGame, PlayerIn

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 30.0
GAME_WAIT = 180.0


class SeatingKeyStore(PostgresKeyStore):
    """Saves a new game's keys and, first, gives its seats to accounts (as the lobby does before a game's
    opening events are appended)."""

    def __init__(self, pool: asyncpg.Pool, account_ids: list[str]) -> None:
        super().__init__(pool)
        self.pool = pool
        self.account_ids = account_ids

    async def save(self, keys: GameKeys) -> None:
        """Seat the accounts, then save the keys."""
        await self.pool.executemany(
            "INSERT INTO game_seats (game_id, seat, kind, account_id, joined_at)"
            " VALUES ($1, $2, 'account', $3, now())",
            [(keys.game_id, seat, account) for seat, account in enumerate(self.account_ids)],
        )
        await super().save(keys)


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of an account token."""
    return {"Authorization": f"Bearer {token}"}


async def sign_up(http: httpx.AsyncClient, pool: asyncpg.Pool, prefix: str) -> tuple[str, str, str]:
    """A new bot account: its name, token and id."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    created = await http.post("/v1/accounts", json={"name": name, "kind": "bot"})
    assert created.status_code == 201, created.text
    account_id = await pool.fetchval("SELECT account_id FROM accounts WHERE name = $1", name)
    return name, created.json()["token"], account_id


@contextlib.asynccontextmanager
async def notifications(
    base: str, token: str, last_event_id: str | None = None
) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
    """The account's stream on its own connection, as an iterator of its events."""
    headers = bearer(token)
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    async with (
        httpx.AsyncClient(base_url=base, timeout=WAIT) as client,
        aconnect_sse(client, "GET", "/v1/me/stream", headers=headers) as source,
    ):
        assert source.response.status_code == 200, await source.response.aread()
        yield source.aiter_sse()


class Bot:
    """A bot that acts only when its stream says a decision of its is due; it never polls a game."""

    def __init__(self, base: str, name: str, token: str, seed: str) -> None:
        self.base, self.name, self.token = base, name, token
        self.chooser = random.Random(seed)
        self.notices: list[tuple[str, dict[str, Any]]] = []
        self.last_id: str | None = None
        self.finished: asyncio.Event = asyncio.Event()
        self.ready = asyncio.Event()
        self.requests = 0

    async def act(self, http: httpx.AsyncClient, game_id: str) -> None:
        """Make one legal move in the game (again while the answer says it is still this seat's turn)."""
        while True:
            self.requests += 1
            game = (await http.get(f"/v1/games/{game_id}", headers=bearer(self.token))).json()
            if game["status"] != "active" or not game["legal"]:
                return
            command = self.chooser.choice(game["legal"])
            self.requests += 1
            answer = await http.post(
                f"/v1/games/{game_id}/commands", json=command, headers=bearer(self.token)
            )
            if answer.status_code == 200:
                return  # what comes next is told by the stream

    async def run(self, game_ids: set[str]) -> None:
        """Follow the stream until every game of ``game_ids`` finished."""
        async with (
            httpx.AsyncClient(base_url=self.base, timeout=WAIT) as http,
            notifications(self.base, self.token) as events,
        ):
            async for event in events:
                if event.id:
                    self.last_id = event.id
                data = json.loads(event.data) if event.data else {}
                self.notices.append((event.event, data))
                if event.event == "snapshot":
                    self.ready.set()
                    for game in data["games"]:
                        if game["your_turn"] and game["game_id"] in game_ids:
                            await self.act(http, game["game_id"])
                elif event.event == "your_turn" and data["game_id"] in game_ids:
                    await self.act(http, data["game_id"])
                elif event.event == "game_finished" and data["game_id"] in game_ids:
                    game_ids.discard(data["game_id"])
                    if not game_ids:
                        self.finished.set()
                        return


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for the running server."""
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as client:
        yield client


async def test_bots_that_never_poll_play_a_game_from_their_streams(
    server: str, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    accounts = [await sign_up(http, pool, f"streambot{i}") for i in range(3)]
    # the game is started from this process, as one more server process would start a lobby game
    store = PostgresEventStore(pool)
    service = GameService(store, SeatingKeyStore(pool, [a[2] for a in accounts]), all_games())
    game_ids: set[str] = set()
    bots = [Bot(server, name, token, f"seed-{name}") for name, token, _ in accounts]
    pending = {bot.name: {"placeholder"} for bot in bots}
    tasks = [asyncio.create_task(bot.run(pending[bot.name])) for bot in bots]
    try:
        await asyncio.wait_for(asyncio.gather(*(bot.ready.wait() for bot in bots)), WAIT)
        created = await service.create(
            CreateGame(game="basari", players=[PlayerIn(name=name) for name, _, _ in accounts])
        )
        game_ids.add(created.game_id)
        for bot in bots:
            pending[bot.name].clear()
            pending[bot.name].add(created.game_id)
        await asyncio.wait_for(asyncio.gather(*tasks), GAME_WAIT)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    final = (await http.get(f"/v1/games/{created.game_id}")).json()
    assert final["status"] == "finished"
    for seat, bot in enumerate(bots):
        kinds = [kind for kind, data in bot.notices if data.get("game_id") == created.game_id]
        assert kinds[0] == "seated" and kinds[-1] == "game_finished", kinds
        assert "your_turn" in kinds
        seated = next(data for kind, data in bot.notices if kind == "seated")
        assert (seated["seat"], seated["game"]) == (seat, "basari")
        finished = next(data for kind, data in bot.notices if kind == "game_finished")
        assert finished["result"] == final["result"]

    async with notifications(server, bots[0].token) as events:
        snapshot = await anext(events)
        assert snapshot.event == "snapshot" and snapshot.id
        assert json.loads(snapshot.data)["games"] == [], "the game is over: no active games"


async def test_a_resumed_stream_misses_no_notice(
    server: str, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """Notices of a game played while the bot was away are told on reconnection with Last-Event-ID."""
    accounts = [await sign_up(http, pool, f"resumebot{i}") for i in range(3)]
    _, token, _ = accounts[0]
    async with notifications(server, token) as events:
        snapshot = await anext(events)
        resume_from = snapshot.id
    service = GameService(
        PostgresEventStore(pool), SeatingKeyStore(pool, [a[2] for a in accounts]), all_games()
    )
    created = await service.create(
        CreateGame(game="basari", players=[PlayerIn(name=n) for n, _, _ in accounts])
    )
    async with notifications(server, token, resume_from) as events:
        seen = []
        async for event in events:
            seen.append(event.event)
            if event.event == "seated":
                assert json.loads(event.data)["game_id"] == created.game_id
                break
    assert seen[0] == "snapshot" and seen[-1] == "seated"


async def test_the_stream_needs_an_account_token(http: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    assert (await http.get("/v1/me/stream")).status_code == 401
    assert (await http.get("/v1/me/stream", headers=bearer("made-up"))).status_code == 401
    _, token, _ = await sign_up(http, pool, "badid")
    answer = await http.get("/v1/me/stream", headers={**bearer(token), "Last-Event-ID": "nonsense"})
    assert answer.status_code == 400 and answer.json()["code"] == "bad_last_event_id"
