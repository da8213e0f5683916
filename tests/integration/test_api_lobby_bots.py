"""The server's bots as accounts: a lobby (or rated) game seats a server bot by ``{bot: level}`` or by
inviting its built-in account (``strong-johari``, ...); the bot's account takes the seat at once and the bot
runner plays it through the same commands as any client.

The module plays on a database of its own: the session's running servers (tests/e2e) run bot runners that
would play the bot seats of the shared database, and these tests check which moves the bot made."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.service import GameService
from service.runtime.settings import Settings
from service.runtime.sql import register_codecs
from service.workers.bots import BotRunner
from tests.support.accounts import account, bearer, refused
from tests.support.databases import fresh_database

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def database(server_url: str) -> AsyncIterator[str]:
    """A database no server process of the session plays on."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
async def client(database: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app on that database; its bot runner searches briefly (the test is about seating, not skill)."""
    settings = dataclasses.replace(
        Settings.from_env(),
        database_url=database,
        account_signups_per_hour=0,
        bot_think_seconds=0.2,
        bot_iterations=4,
    )
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


async def create(client: AsyncTestClient[Any], token: str | None, body: dict[str, Any]) -> Any:
    """POST /v1/games with the creator's token."""
    return await client.post("/v1/games", json=body, headers=bearer(token) if token else {})


@pytest.fixture(scope="module")
async def runner(database: str) -> AsyncIterator[BotRunner]:
    """A bot runner like the app's own (which plays too: whichever appends first, the other is refused)."""
    pool = await asyncpg.create_pool(database, min_size=1, max_size=4, init=register_codecs)
    assert pool is not None
    try:
        service = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())
        yield BotRunner(service, think_seconds=0, iterations=4)
    finally:
        await pool.close()


async def play_to_the_end(
    client: AsyncTestClient[Any], runner: BotRunner, game_id: str, tokens: list[str]
) -> dict[str, Any]:
    """The accounts play their seats from ``legal`` (never resigning), a seeded random entry each, until the
    game ends; when only the bot's seat owes a decision, the runner takes it (``act``, as the feed wakes it
    in a server). Random, not always the first entry: in Bazaar the first entry against the greedy bot can
    trade back and forth without end (CI met a game that did not end in 5,000 moves)."""
    chooser = random.Random(game_id)
    for _ in range(5_000):
        spectator: dict[str, Any] = (await client.get(f"/v1/games/{game_id}")).json()
        if spectator["status"] == "finished":
            return spectator
        moved = False
        for token in tokens:
            mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
            legal = [command for command in mine["legal"] if command["type"] != "resign"]
            if legal and mine["status"] == "active":
                headers = {**bearer(token), "If-Match": f'"{mine["version"]}"'}
                command = chooser.choice(legal)
                posted = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
                assert posted.status_code in (200, 412), posted.text  # 412: the bot moved meanwhile
                moved = True
        if not moved:
            await runner.act(game_id)
    raise AssertionError("the game did not end")


async def bot_moves(database: str, game_id: str) -> int:
    """The commands the server's bot appended (their idempotency key names the version decided on), after
    checking that each was appended right after that version: one move per decision."""
    connection = await asyncpg.connect(database)
    try:
        rows = await connection.fetch(
            "SELECT version, command_id FROM events WHERE stream_id = $1 AND cause IS NOT NULL"
            " AND command_id LIKE '%:bot-v%'",
            game_id,
        )
    finally:
        await connection.close()
    for row in rows:
        assert row["command_id"].endswith(f":bot-v{row['version'] - 1}")
    return len(rows)


async def test_a_rated_lobby_game_with_a_bot_seat_starts_at_once_and_the_bot_plays_it(
    client: AsyncTestClient[Any], runner: BotRunner, database: str
) -> None:
    """``{bot: "greedy"}`` beside the creator's seat: the game starts on creation, rated, the seat held by the
    bot's account ``greedy-bazaar`` (kind bot), and the runner plays it to the end."""
    host, token = await account(client, "host")
    body = {"game": "bazaar", "players": [{"account": "me"}, {"bot": "greedy"}], "rated": True}
    created = await create(client, token, body)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["status"] == "active" and game["version"] > 0
    assert [(s["name"], s["account"], s["token"]) for s in game["seats"]] == [
        (host, host, None),
        ("greedy-bazaar", "greedy-bazaar", None),
    ]
    lobby = (await client.get(f"/v1/lobby/{game['game_id']}")).json()
    assert lobby["rated"] and [s["name"] for s in lobby["seats"]] == [host, "greedy-bazaar"]
    final = await play_to_the_end(client, runner, game["game_id"], [token])
    assert final["status"] == "finished" and [s["bot"] for s in final["seats"]] == [False, True]
    assert await bot_moves(database, game["game_id"]) > 0
    bot_page = (await client.get("/v1/players/greedy-bazaar")).json()
    assert bot_page["kind"] == "bot" and game["game_id"] in [g["game_id"] for g in bot_page["games"]]


async def test_inviting_a_bot_account_seats_it_and_an_open_seat_still_waits(
    client: AsyncTestClient[Any], runner: BotRunner, database: str
) -> None:
    """An invitation of ``strong-johari`` is accepted at once; the game starts when a person takes the open
    seat, and the bot plays its seat."""
    _host, host_token = await account(client, "host")
    _guest, guest_token = await account(client, "guest")
    body = {"game": "johari", "players": [{"invite": "Strong-Johari"}, {"account": "me"}, {"open": True}]}
    created = await create(client, host_token, body)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["status"] == "waiting" and game["seats"][0]["account"] == "strong-johari"
    lobby = (await client.get(f"/v1/lobby/{game['game_id']}")).json()
    assert [s["status"] for s in lobby["seats"]] == ["taken", "taken", "open"]
    joined = await client.post(f"/v1/games/{game['game_id']}/join", headers=bearer(guest_token))
    assert joined.status_code == 200 and joined.json()["status"] == "started"
    final = await play_to_the_end(client, runner, game["game_id"], [host_token, guest_token])
    assert final["status"] == "finished" and final["seats"][0]["name"] == "strong-johari"
    assert await bot_moves(database, game["game_id"]) > 0


async def test_the_creator_seats_a_server_bot_in_an_open_seat_of_a_waiting_game(
    client: AsyncTestClient[Any], runner: BotRunner, database: str
) -> None:
    """A bot joins an open seat: the creator's ``join`` with ``{bot: level}`` seats that bot's account (only
    the creator may; it brings no entropy; a reserved seat stays reserved), the last seat filled starts the
    rated game, and the runner plays the bot's seat."""
    host, host_token = await account(client, "host")
    guest, guest_token = await account(client, "guest")
    body = {
        "game": "johari",
        "players": [{"account": "me"}, {"invite": guest}, {"open": True}],
        "rated": True,
    }
    created = await create(client, host_token, body)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    join = f"/v1/games/{game_id}/join"
    refused(await client.post(join, json={"bot": "strong"}, headers=bearer(guest_token)), 403, "not_creator")
    refused(
        await client.post(join, json={"bot": "strong", "entropy": "x"}, headers=bearer(host_token)),
        422,
        "bad_entropy",
    )
    refused(
        await client.post(join, json={"bot": "strong", "seat": 1}, headers=bearer(host_token)),
        403,
        "seat_reserved",
    )
    clever = await client.post(join, json={"bot": "clever"}, headers=bearer(host_token))
    assert clever.status_code == 400, clever.text
    lobby = (await client.get(f"/v1/lobby/{game_id}")).json()
    assert [s["status"] for s in lobby["seats"]] == ["taken", "invited", "open"]  # nothing changed
    seated = await client.post(join, json={"bot": "strong"}, headers=bearer(host_token))
    assert seated.status_code == 200 and seated.json()["status"] == "waiting", seated.text
    assert [s["name"] for s in seated.json()["seats"]][2] == "strong-johari"
    refused(await client.post(join, json={"bot": "greedy"}, headers=bearer(host_token)), 409, "no_free_seat")
    started = await client.post(join, headers=bearer(guest_token))
    assert started.status_code == 200 and started.json()["status"] == "started", started.text
    final = await play_to_the_end(client, runner, game_id, [host_token, guest_token])
    assert final["status"] == "finished" and [s["bot"] for s in final["seats"]] == [False, False, True]
    assert [s["name"] for s in final["seats"]] == [host, guest, "strong-johari"]
    assert await bot_moves(database, game_id) > 0


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (
            {"game": "basari", "players": [{"account": "me"}, {"invite": "strong-johari"}, {"open": True}]},
            "bot_plays_another_game",
        ),
        ({"game": "johari", "players": [{"account": "me"}, {"bot": "strong", "name": "X"}]}, "bad_seat"),
        ({"game": "johari", "players": [{"account": "me"}, {"bot": "clever"}]}, "unknown_bot_level"),
        (
            {"game": "johari", "players": [{"account": "me"}, {"bot": "strong"}, {"bot": "strong"}]},
            "duplicate_account",
        ),
        (
            {
                "game": "johari",
                "players": [{"account": "me"}, {"bot": "strong"}, {"invite": "strong-johari"}],
            },
            "duplicate_account",
        ),
        (
            {"game": "johari", "players": [{"bot": "random"}, {"bot": "strong"}], "rated": True},
            "rated_needs_accounts",
        ),
    ],
)
async def test_bad_bot_seats_are_refused_and_create_nothing(
    client: AsyncTestClient[Any], body: dict[str, Any], code: str
) -> None:
    """A bot seat that cannot be: a bot of another game, a renamed bot, an unknown level, one bot twice, a
    rated game of bots only."""
    _name, token = await account(client)
    refused(await create(client, token, body), 422, code)
    assert (await client.get("/v1/me/games", headers=bearer(token))).json()["games"] == []


async def test_the_bot_accounts_names_are_taken(client: AsyncTestClient[Any]) -> None:
    """Nobody signs up as a server bot; its page says kind bot."""
    refused(await client.post("/v1/accounts", json={"name": "RANDOM-basari"}), 409, "name_taken")
    for game in ("basari", "bazaar", "johari"):
        for level in ("random", "greedy", "strong"):
            page = await client.get(f"/v1/players/{level}-{game}")
            assert page.status_code == 200 and page.json()["kind"] == "bot"


async def test_a_game_of_bots_only_needs_an_account(client: AsyncTestClient[Any]) -> None:
    """Anonymous creation of a game whose every seat is a server bot is 401 problem+json (what it creates
    and how many an account may run: tests/integration/test_bot_game_limits.py); with an account token it is
    created."""
    body = {"game": "johari", "players": [{"bot": "strong"}, {"bot": "greedy"}]}
    refused(await create(client, None, body), 401, "account_required")
    _name, token = await account(client)
    assert (await create(client, token, body)).status_code == 201
