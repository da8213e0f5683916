"""Commit-reveal seeds against a real PostgreSQL: a lobby game's server half is committed at
creation and published at once, every seat's entropy is mixed in when the last seat is filled and cannot
change after, the server half stays secret (views, listings, streams, errors) until the game is over, and
then anybody re-computes the seed. Tournaments commit to their seed at creation and reveal it once
completed, so every seating and game seed is re-derivable. How the seed is mixed, and an export's tampered
seed parts being named, are tested on the in-memory twins (tests/service/test_seed_commit_reveal.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.core import Rng, commitment
from domain.registry import all_games
from domain.tournament import TOURNAMENT, CreateTournament, SeatNextRound, game_seed, seating_rng
from service.integrity.audit import read_export, verify_export
from service.integrity.seeds import mixed_seed
from service.runtime.settings import Settings
from service.runtime.sql import register_codecs
from tests.support.accounts import account, bearer, refused
from tests.support.client_play import play_existing
from tests.support.databases import fresh_database, superuser_pool_on
from tests.unit.tournament.scenario import fold

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database of its own: these games must not be moved by anybody else's bots or clocks."""
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
    """A pool as the service's own role (owns nothing, not a superuser)."""
    pool = await asyncpg.create_pool(own_database, min_size=1, max_size=2, init=register_codecs)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture(scope="module")
async def operator(own_database: str, server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool as the server's superuser, to read what the service keeps secret."""
    async with superuser_pool_on(own_database, server_url) as pool:
        yield pool


async def server_half(operator: asyncpg.Pool, game_id: str) -> str:
    """The committed secret of a game or tournament, as stored."""
    secret = await operator.fetchval("SELECT secret FROM seed_commits WHERE subject_id = $1", game_id)
    assert secret is not None
    return str(secret)


async def bodies_before_the_end(client: AsyncTestClient[Any], game_id: str, tokens: list[str]) -> list[str]:
    """Everything anybody may read of a running game over plain requests: views, histories, listings,
    audit, score sheet, the refused export (the live stream sends the same envelopes as the history)."""
    paths = [
        f"/v1/games/{game_id}",
        f"/v1/games/{game_id}/events",
        f"/v1/games/{game_id}/audit",
        f"/v1/games/{game_id}/export",
        f"/v1/games/{game_id}/scoresheet",
        f"/v1/lobby/{game_id}",
        "/v1/lobby?limit=200",
        "/v1/games?limit=200",
    ]
    texts = []
    for token in [None, *tokens]:
        headers = bearer(token) if token else {}
        for path in paths:
            texts.append((await client.get(path, headers=headers)).text)
        texts.append((await client.get("/v1/me/games", headers=headers)).text)
    return texts


async def a_started_lobby_game(
    client: AsyncTestClient[Any], entropies: tuple[str | None, str | None]
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """A rated two-seat Bazaar game: the host creates it with ``entropies[0]``, a guest joins the open seat
    with ``entropies[1]`` (which starts it). The creation answer, the join answer and both account tokens."""
    _host, host_token = await account(client, "host")
    _guest, guest_token = await account(client, "guest")
    body: dict[str, Any] = {"game": "bazaar", "players": [{"account": "me"}, {"open": True}], "rated": True}
    if entropies[0] is not None:
        body["entropy"] = entropies[0]
    created = await client.post("/v1/games", json=body, headers=bearer(host_token))
    assert created.status_code == 201, created.text
    join: dict[str, Any] = {} if entropies[1] is None else {"entropy": entropies[1]}
    joined = await client.post(
        f"/v1/games/{created.json()['game_id']}/join", json=join, headers=bearer(guest_token)
    )
    assert joined.status_code == 200 and joined.json()["status"] == "started", joined.text
    return created.json(), joined.json(), [host_token, guest_token]


async def test_the_seed_is_committed_at_creation_mixed_with_each_entropy_and_revealed_at_the_end(
    client: AsyncTestClient[Any], operator: asyncpg.Pool
) -> None:
    _host, host_token = await account(client, "host")
    _guest, guest_token = await account(client, "guest")
    body = {
        "game": "bazaar",
        "players": [{"account": "me"}, {"open": True}],
        "rated": True,
        "entropy": "host",
    }
    created = (await client.post("/v1/games", json=body, headers=bearer(host_token))).json()
    game_id, published = created["game_id"], created["seed_commitment"]
    # committed at once, before anybody joins: in the creation answer, the lobby and the caller's games
    assert created["status"] == "waiting" and len(published) == 64
    secret = await server_half(operator, game_id)
    assert commitment(secret) == published and len(secret) == 64  # 256 random bits, hex
    assert (await client.get(f"/v1/lobby/{game_id}")).json()["seed_commitment"] == published
    lobby = (await client.get("/v1/lobby", params={"limit": 200})).json()["games"]
    assert [g["seed_commitment"] for g in lobby if g["game_id"] == game_id] == [published]
    mine = (await client.get("/v1/me/games", headers=bearer(host_token))).json()["games"]
    assert [g["seed_commitment"] for g in mine if g["game_id"] == game_id] == [published]

    joined = await client.post(
        f"/v1/games/{game_id}/join", json={"entropy": "guest"}, headers=bearer(guest_token)
    )
    assert joined.json()["status"] == "started"
    detail = (await client.get(f"/v1/games/{game_id}")).json()
    assert detail["seed_commitment"] == published and detail["seed_chosen"] is False
    listed = (await client.get("/v1/games", params={"limit": 200})).json()["games"]
    assert [g["seed_commitment"] for g in listed if g["game_id"] == game_id] == [published]

    # nothing anybody can read while it runs holds the server's half (or the seed, or the chain key)
    seed = mixed_seed(secret, ["host", "guest"])
    for text in await bodies_before_the_end(client, game_id, [host_token, guest_token]):
        assert secret not in text and seed not in text

    await play_existing(client, game_id, [host_token, guest_token], seed="commit-reveal")
    report = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert report["ok"] and report["moves_ok"], report
    revealed = report["seed"]
    assert revealed["server_seed"] == secret and revealed["entropies"] == ["host", "guest"]
    assert revealed["seed"] == seed and revealed["commitment"] == published and revealed["matches"]
    export = read_export((await client.get(f"/v1/games/{game_id}/export")).content)
    assert export.server_seed == secret and export.entropies == ["host", "guest"] and export.seed == seed
    findings = verify_export(export, all_games())
    assert findings.ok and findings.moves_checked > 0, findings.problems


async def test_entropy_is_locked_once_the_last_seat_is_filled(
    client: AsyncTestClient[Any], service_pool: asyncpg.Pool
) -> None:
    created, _joined, tokens = await a_started_lobby_game(client, ("first", "last"))
    game_id = created["game_id"]
    _late, late_token = await account(client, "late")
    # the seats, hence the entropies, are fixed: nobody joins, leaves or re-joins with another entropy
    refused(
        await client.post(f"/v1/games/{game_id}/join", json={"entropy": "steer"}, headers=bearer(late_token)),
        409,
        "game_started",
    )
    refused(await client.post(f"/v1/games/{game_id}/leave", headers=bearer(tokens[1])), 409, "game_started")
    # the service's role cannot rewrite a seat's entropy afterwards (migration 0014_write_once_seats), and
    # the seed was fixed from the entropies it had, kept write-once with the game's stream
    with pytest.raises(asyncpg.PostgresError):
        await service_pool.execute("UPDATE game_seats SET entropy = 'steer' WHERE game_id = $1", game_id)
    await play_existing(client, game_id, tokens, seed="locked")
    report = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert report["ok"] and report["seed"]["entropies"] == ["first", "last"], report


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE seed_commits SET secret = 'chosen' WHERE subject_id = $1",
        "UPDATE seed_commits SET commitment = 'forged' WHERE subject_id = $1",
        "DELETE FROM seed_commits WHERE subject_id = $1",
        "TRUNCATE seed_commits",
        "ALTER TABLE seed_commits DISABLE TRIGGER ALL",
    ],
)
async def test_the_service_cannot_change_a_committed_secret(
    client: AsyncTestClient[Any], service_pool: asyncpg.Pool, operator: asyncpg.Pool, statement: str
) -> None:
    _host, host_token = await account(client, "host")
    body = {"game": "bazaar", "players": [{"account": "me"}, {"open": True}]}
    created = (await client.post("/v1/games", json=body, headers=bearer(host_token))).json()
    before = await server_half(operator, created["game_id"])
    args = [created["game_id"]] if "$1" in statement else []
    with pytest.raises(asyncpg.PostgresError):
        await service_pool.execute(statement, *args)
    assert await server_half(operator, created["game_id"]) == before


async def test_a_tournament_commits_to_its_seed_at_creation_and_reveals_it_once_completed(
    client: AsyncTestClient[Any],
) -> None:
    names = ["Ada", "Bo", "Cy", "Di"]
    body = {
        "name": "Committed cup",
        "game": "johari",
        "players": [{"name": n} for n in names],
        "rounds": 1,
        "table_size": 2,
    }
    created = (await client.post("/v1/tournaments", json=body)).json()
    tid, published = created["tournament_id"], created["seed_commitment"]
    assert len(published) == 64
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert overview["seed_commitment"] == published and overview["seed"] is None
    organizer = bearer(created["organizer_token"])
    seated = (await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)).json()
    tokens = {p["name"]: p["token"] for p in created["players"]}
    listed = {
        g["game_id"]: g for g in (await client.get("/v1/games", params={"tournament": tid})).json()["games"]
    }
    for table in seated["tables"]:
        game = (await client.get(f"/v1/games/{table['game_id']}")).json()
        # each table shows the commitment to its game's seed, as the game and the listing do
        assert (
            table["seed_commitment"] == game["seed_commitment"] == listed[table["game_id"]]["seed_commitment"]
        )
    shown = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert shown["seed"] is None
    for table in seated["tables"]:
        await play_existing(client, table["game_id"], [tokens[s["name"]] for s in table["seats"]], seed=tid)
    done = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert done["status"] == "completed"
    seed = done["seed"]
    assert seed is not None and len(seed) == 64 and commitment(seed) == published
    # round 1 re-derived from the revealed seed: the same seating, and each game's seed and commitment
    opening = CreateTournament(
        name="Committed cup",
        game="johari",
        players=tuple(names),
        rounds=1,
        min_players=2,
        max_players=4,
        table_size=2,
        seed=seed,
    )
    created_events = TOURNAMENT.decide(TOURNAMENT.initial(), opening, Rng("", "unused: the seed is given"))
    state = fold(created_events)
    again = TOURNAMENT.decide(state, SeatNextRound(), seating_rng(state))
    rederived = fold(created_events + again).rounds[0].tables
    assert [list(t.players) for t in rederived] == [[s["name"] for s in t["seats"]] for t in seated["tables"]]
    for table, mine in zip(seated["tables"], rederived, strict=True):
        assert mine.seed == game_seed(seed, 1, table["table"])
        audit = (await client.get(f"/v1/games/{table['game_id']}/audit")).json()
        assert audit["seed"]["seed"] == mine.seed and table["seed_commitment"] == commitment(mine.seed)


async def test_an_account_tournament_commits_to_its_seed_when_registration_opens(
    client: AsyncTestClient[Any], operator: asyncpg.Pool
) -> None:
    _organizer, organizer_token = await account(client, "organizer")
    body = {"name": "Open cup", "game": "johari", "players": [{"account": "me"}], "open": True, "rounds": 1}
    created = await client.post("/v1/tournaments", json=body, headers=bearer(organizer_token))
    assert created.status_code == 201, created.text
    tid, published = created.json()["tournament_id"], created.json()["seed_commitment"]
    secret = await server_half(operator, tid)
    assert commitment(secret) == published and len(secret) == 64
    registration = (await client.get(f"/v1/tournaments/{tid}/registration")).json()
    assert registration["seed_commitment"] == published and secret not in json.dumps(registration)
    _player, player_token = await account(client, "player")
    assert (await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(player_token))).status_code == 200
    seated = await client.post(
        f"/v1/tournaments/{tid}/rounds", headers=bearer(created.json()["organizer_token"])
    )
    assert seated.status_code == 201, seated.text
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    # the seed seated with is the one committed to when registration opened
    assert overview["seed_commitment"] == published and overview["seed"] is None
    table = seated.json()["tables"][0]
    assert table["seed_commitment"] == commitment(game_seed(secret, 1, 1))
    assert hashlib.sha256(secret.encode()).hexdigest() == published
