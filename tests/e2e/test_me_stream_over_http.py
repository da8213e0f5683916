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
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from tests.support.account_seats import SeatingKeyStore

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 30.0
GAME_WAIT = 180.0


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
    """A bot that acts only on what its stream tells it: it accepts invitations, moves when a decision of its
    is due, and stops after ``games`` games finished; it never polls a game or the lobby."""

    def __init__(self, base: str, name: str, token: str, games: int = 1) -> None:
        self.base, self.name, self.token, self.games = base, name, token, games
        self.chooser = random.Random(name)
        self.notices: list[tuple[str, dict[str, Any]]] = []
        self.ready = asyncio.Event()

    async def act(self, http: httpx.AsyncClient, game_id: str) -> None:
        """Make one legal move in the game (again while the answer says it is still this seat's turn)."""
        while True:
            game = (await http.get(f"/v1/games/{game_id}", headers=bearer(self.token))).json()
            if game["status"] != "active" or not [e for e in game["legal"] if e["type"] != "resign"]:
                return
            command = self.chooser.choice([e for e in game["legal"] if e["type"] != "resign"])
            answer = await http.post(
                f"/v1/games/{game_id}/commands", json=command, headers=bearer(self.token)
            )
            if answer.status_code == 200:
                return  # what comes next is told by the stream

    async def run(self) -> None:
        """Follow the stream until ``games`` games finished."""
        async with (
            httpx.AsyncClient(base_url=self.base, timeout=WAIT) as http,
            notifications(self.base, self.token) as events,
        ):
            async for event in events:
                data = json.loads(event.data) if event.data else {}
                self.notices.append((event.event, data))
                if event.event == "snapshot":
                    self.ready.set()
                    for game in data["games"]:
                        if game["your_turn"]:
                            await self.act(http, game["game_id"])
                elif event.event == "tournament_invited":
                    joined = await http.post(
                        f"/v1/tournaments/{data['tournament']}/join", headers=bearer(self.token)
                    )
                    assert joined.status_code == 200, joined.text
                elif event.event == "invited":
                    joined = await http.post(f"/v1/games/{data['game_id']}/join", headers=bearer(self.token))
                    assert joined.status_code == 200, joined.text
                elif event.event == "your_turn":
                    await self.act(http, data["game_id"])
                elif event.event == "game_finished":
                    self.games -= 1
                    if not self.games:
                        return


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for the running server."""
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as client:
        yield client


async def test_bots_that_never_poll_play_a_game_from_their_streams(
    any_server: str, pool: asyncpg.Pool
) -> None:
    """With one and with two server processes (a bot's stream and its commands may be served by either)."""
    server = any_server
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as http:
        await play_from_streams(server, http, pool)


async def play_from_streams(server: str, http: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    """Three bot accounts follow their streams; one creates a rated game inviting the two others, who learn
    of it from their streams and join; the game starts and they play it to the end."""
    accounts = [await sign_up(http, pool, f"streambot{i}") for i in range(3)]
    bots = [Bot(server, name, token) for name, token, _ in accounts]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        await asyncio.wait_for(asyncio.gather(*(bot.ready.wait() for bot in bots)), WAIT)
        body = {
            "game": "basari",
            "players": [{"account": "me"}, {"invite": bots[1].name}, {"invite": bots[2].name}],
            "rated": True,
        }
        created = await http.post("/v1/games", json=body, headers=bearer(bots[0].token))
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        await asyncio.wait_for(asyncio.gather(*tasks), GAME_WAIT)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    final = (await http.get(f"/v1/games/{game_id}")).json()
    assert final["status"] == "finished"
    for seat, bot in enumerate(bots):
        kinds = [kind for kind, data in bot.notices if data.get("game_id") == game_id]
        told = ["seated"] if seat == 0 else ["invited", "seated"]
        assert kinds[: len(told)] == told and kinds[-1] == "game_finished", kinds
        assert "your_turn" in kinds
        seated = next(data for kind, data in bot.notices if kind == "seated")
        assert (seated["seat"], seated["game"]) == (seat, "basari")
        finished = next(data for kind, data in bot.notices if kind == "game_finished")
        assert finished["result"] == final["result"]
    for bot in bots:  # a provisional rating: on the account's own page, not yet on the public list
        ratings = (await http.get(f"/v1/players/{bot.name}")).json()["ratings"]
        assert [(r["game"], r["games"]) for r in ratings] == [("basari", 1)], (
            "a rated game rates each account"
        )
    async with notifications(server, bots[0].token) as events:
        snapshot = await anext(events)
        assert snapshot.event == "snapshot" and snapshot.id
        assert json.loads(snapshot.data)["games"] == [], "the game is over: no active games"


async def test_bot_accounts_play_a_tournament_from_their_streams(
    server: str, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """A tournament run end to end with accounts, the players being bots that only follow their
    streams: invited, registered, told their round was seated, play, and the results are recorded (by the
    recorder fed from the feed) into the standings."""
    accounts = [await sign_up(http, pool, f"cupbot{i}") for i in range(4)]
    bots = [Bot(server, name, token) for name, token, _ in accounts]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        await asyncio.wait_for(asyncio.gather(*(bot.ready.wait() for bot in bots)), WAIT)
        body = {
            "name": "stream cup",
            "game": "johari",
            "players": [{"account": "me"}, *({"invite": bot.name} for bot in bots[1:])],
            "rounds": 1,
            "table_size": 2,
        }
        created = await http.post("/v1/tournaments", json=body, headers=bearer(bots[0].token))
        assert created.status_code == 201, created.text
        tid = created.json()["tournament_id"]
        for _ in range(int(WAIT / 0.2)):  # the organizer waits for the registrations (the bots need no poll)
            entries = (await http.get(f"/v1/tournaments/{tid}/registration")).json()["entries"]
            if sum(entry["status"] == "joined" for entry in entries) == len(bots):
                break
            await asyncio.sleep(0.2)
        organizer = created.json()["organizer_token"]
        seated = await http.post(f"/v1/tournaments/{tid}/rounds", headers=bearer(organizer))
        assert seated.status_code == 201, seated.text
        await asyncio.wait_for(asyncio.gather(*tasks), GAME_WAIT)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for index, bot in enumerate(bots):
        kinds = [kind for kind, _ in bot.notices]
        if index:
            assert "tournament_invited" in kinds, kinds
        (round_seated,) = [data for kind, data in bot.notices if kind == "round_seated"]
        assert round_seated["tournament"] == tid
        assert kinds[-1] == "game_finished"
    standings = (await http.get(f"/v1/tournaments/{tid}/standings")).json()
    assert sorted(row["name"] for row in standings) == sorted(bot.name for bot in bots)
    assert all(row["games"] == 1 for row in standings), standings
    assert (await http.get(f"/v1/tournaments/{tid}")).json()["status"] == "completed"


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
    created = await service.commands.create(
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
