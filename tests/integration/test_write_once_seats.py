"""Seat holders and a lobby game's seed are write-once (migration 0014_write_once_seats): the service's own
database role cannot hand a running rated seat to another account nor choose the seed of a waiting rated
game, and a change made past the triggers (by the tables' owner) is named by the audit."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings
from service.runtime.sql import register_codecs
from tests.support.accounts import account, bearer
from tests.support.client_play import play_existing
from tests.support.databases import fresh_database, superuser_pool_on

pytestmark = pytest.mark.db

REFUSED_BY_TRIGGER = "ES405"


@pytest.fixture(scope="module")
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database of its own (its bots and clocks move nobody else's games)."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
async def client(own_database: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to that database (sign-up limit off)."""
    settings = dataclasses.replace(Settings.from_env(), database_url=own_database, account_signups_per_hour=0)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def service_pool(own_database: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool as the service's own role, the one its operator holds."""
    pool = await asyncpg.create_pool(own_database, min_size=1, max_size=2, init=register_codecs)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture(scope="module")
async def owner(own_database: str, server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool as the server's superuser, who can switch triggers off."""
    async with superuser_pool_on(own_database, server_url) as pool:
        yield pool


async def account_id(owner: asyncpg.Pool, name: str) -> str:
    """The id of the account called ``name``."""
    found = await owner.fetchval("SELECT account_id FROM accounts WHERE name = $1", name)
    assert found is not None
    return str(found)


async def a_waiting_rated_game(client: AsyncTestClient[Any]) -> tuple[str, str]:
    """A rated two-seat Bazaar game whose host holds seat 0 and whose seat 1 is open: (game id, host token)."""
    _host, host_token = await account(client, "host")
    body = {"game": "bazaar", "players": [{"account": "me"}, {"open": True}], "rated": True}
    created = await client.post("/v1/games", json=body, headers=bearer(host_token))
    assert created.status_code == 201, created.text
    return created.json()["game_id"], host_token


async def join(client: AsyncTestClient[Any], game_id: str) -> str:
    """A new account joins the game's open seat (which starts it): its token."""
    _guest, token = await account(client, "guest")
    joined = await client.post(f"/v1/games/{game_id}/join", json={}, headers=bearer(token))
    assert joined.status_code == 200, joined.text
    return token


async def test_the_service_role_cannot_hand_a_running_rated_seat_to_another_account(
    client: AsyncTestClient[Any], service_pool: asyncpg.Pool, owner: asyncpg.Pool
) -> None:
    game_id, _host_token = await a_waiting_rated_game(client)
    guest_token = await join(client, game_id)
    thief, thief_token = await account(client, "thief")
    with pytest.raises(asyncpg.PostgresError) as refusal:
        await service_pool.execute(
            "UPDATE game_seats SET account_id = $2 WHERE game_id = $1 AND seat = 1",
            game_id,
            await account_id(owner, thief),
        )
    assert refusal.value.sqlstate == REFUSED_BY_TRIGGER, refusal.value
    for statement in ("DELETE FROM game_seats WHERE game_id = $1", "TRUNCATE game_seats"):
        with pytest.raises(asyncpg.PostgresError) as refusal:
            await service_pool.execute(statement, *([game_id] if "$1" in statement else []))
        assert refusal.value.sqlstate == REFUSED_BY_TRIGGER, refusal.value
    stranger = await client.get(f"/v1/games/{game_id}", headers=bearer(thief_token))
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_a_seat_token"
    assert (await client.get(f"/v1/games/{game_id}", headers=bearer(guest_token))).json()["you"] == 1
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert audit["ok"], audit


async def test_a_seat_handed_over_past_the_triggers_is_named_by_the_audit(
    client: AsyncTestClient[Any], owner: asyncpg.Pool
) -> None:
    game_id, _host_token = await a_waiting_rated_game(client)
    await join(client, game_id)
    thief, _ = await account(client, "thief")
    async with owner.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL session_replication_role = replica")  # triggers off
        await connection.execute(
            "UPDATE game_seats SET account_id = $2 WHERE game_id = $1 AND seat = 1",
            game_id,
            await account_id(owner, thief),
        )
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert not audit["ok"]
    assert audit["problems"] == [
        "seat_holder_changed: seat 1 is held by another account than the one seated when the game started"
    ]


async def test_the_service_role_cannot_choose_the_seed_of_a_waiting_rated_game(
    client: AsyncTestClient[Any], service_pool: asyncpg.Pool
) -> None:
    game_id, _host_token = await a_waiting_rated_game(client)
    for statement in (
        "UPDATE lobby_games SET seed = 'chosen' WHERE game_id = $1",
        "UPDATE lobby_games SET rated = false WHERE game_id = $1",
        "UPDATE lobby_games SET status = 'started' WHERE game_id = $1",
        "DELETE FROM lobby_games WHERE game_id = $1",
        "TRUNCATE lobby_games",
    ):
        with pytest.raises(asyncpg.PostgresError) as refusal:
            await service_pool.execute(statement, *([game_id] if "$1" in statement else []))
        assert refusal.value.sqlstate == REFUSED_BY_TRIGGER, (statement, refusal.value)
    assert await service_pool.fetchval("SELECT seed FROM lobby_games WHERE game_id = $1", game_id) is None


async def test_a_seed_chosen_past_the_triggers_is_named_by_the_audit(
    client: AsyncTestClient[Any], owner: asyncpg.Pool
) -> None:
    game_id, host_token = await a_waiting_rated_game(client)
    async with owner.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL session_replication_role = replica")  # triggers off
        await connection.execute("UPDATE lobby_games SET seed = 'chosen' WHERE game_id = $1", game_id)
    guest_token = await join(client, game_id)
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert audit["problems"] == [
        "seed_mismatch: the game was started with another seed than the one committed when it was listed"
    ]
    await play_existing(client, game_id, [host_token, guest_token], seed="chosen-seed")
    finished = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert not finished["ok"] and finished["seed"]["seed"] == "chosen"
