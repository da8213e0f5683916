"""The Tournaments endpoints of API.md against the real app and a real PostgreSQL (in-process ASGI client)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.core import commitment
from domain.registry import all_games
from domain.tournament import game_seed
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.integrity.signing import SignedHead, verify_head
from service.runtime.settings import Settings
from tests.support.client_play import play_existing
from tests.support.finished_games import finish

pytestmark = pytest.mark.db

NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"]


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url, max_body_bytes=16_384)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a token."""
    return {"Authorization": f"Bearer {token}"}


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """Assert a problem+json answer with this status (and code)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["code"]
    if code is not None:
        assert body["code"] == code, body
    return body


def tournament_body(**changes: Any) -> dict[str, Any]:
    """A valid creation body: six Basari players, two rounds at tables of three."""
    body: dict[str, Any] = {
        "name": "Spring cup",
        "game": "basari",
        "players": [{"name": n} for n in NAMES],
        "rounds": 2,
        "table_size": 3,
        "seed": "spring-cup",
    }
    body.update(changes)
    return body


async def create(client: AsyncTestClient[Any], **changes: Any) -> dict[str, Any]:
    """POST /v1/tournaments, asserting 201."""
    response = await client.post("/v1/tournaments", json=tournament_body(**changes))
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def count_tournaments(client: AsyncTestClient[Any]) -> int:
    """How many games exist (a refused request must create none)."""
    return len((await client.get("/v1/games", params={"limit": 200})).json()["games"])


async def test_create_returns_organizer_and_player_tokens(client: AsyncTestClient[Any]) -> None:
    response = await client.post("/v1/tournaments", json=tournament_body())
    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["location"] == f"/v1/tournaments/{body['tournament_id']}"
    assert [p["name"] for p in body["players"]] == NAMES
    tokens = [p["token"] for p in body["players"]] + [body["organizer_token"]]
    assert len(set(tokens)) == len(tokens) and all(len(t) > 30 for t in tokens)
    overview = (await client.get(f"/v1/tournaments/{body['tournament_id']}")).json()
    assert overview["status"] == "ready" and overview["rounds"] == 2 and overview["schedule"] == []
    assert overview["seed"] is None and "spring-cup" not in json.dumps(overview)
    assert overview["seed_commitment"] == body["seed_commitment"] == commitment("spring-cup")


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"game": "chess"}, 422, "unknown_game"),
        ({"players": [{"name": "Ada"}, {"name": "Ada"}, {"name": "Bo"}]}, 422, "duplicate_player_name"),
        ({"table_size": 9}, 422, None),
        ({"players": [{"name": n} for n in NAMES[:2]]}, 422, None),
        ({"rounds": 0}, 422, "bad_rounds"),
        ({"options": {"no_such_option": 1}}, 422, "invalid_options"),
    ],
)
async def test_create_refuses_bad_input_and_changes_nothing(
    client: AsyncTestClient[Any], changes: dict[str, Any], status: int, code: str | None
) -> None:
    before = await count_tournaments(client)
    response = await client.post("/v1/tournaments", json=tournament_body(**changes))
    assert_problem(response, status, code)
    assert await count_tournaments(client) == before


async def test_create_rejects_malformed_body(client: AsyncTestClient[Any]) -> None:
    response = await client.post("/v1/tournaments", json={"name": "x"})
    assert_problem(response, 400)


async def test_unknown_tournament_is_404(client: AsyncTestClient[Any]) -> None:
    for path in ("", "/standings", "/results"):
        assert_problem(await client.get(f"/v1/tournaments/nope{path}"), 404, "tournament_not_found")


async def test_rounds_need_the_organizer_token(client: AsyncTestClient[Any]) -> None:
    created = await create(client)
    other = await create(client)
    path = f"/v1/tournaments/{created['tournament_id']}/rounds"
    assert_problem(await client.post(path), 401, "token_required")
    assert_problem(await client.post(path, headers=bearer(other["organizer_token"])), 403, "not_organizer")
    player = created["players"][0]["token"]
    assert_problem(await client.post(path, headers=bearer(player)), 403, "not_organizer")
    overview = (await client.get(f"/v1/tournaments/{created['tournament_id']}")).json()
    assert overview["schedule"] == [] and overview["current_round"] == 0


async def play_round(client: AsyncTestClient[Any], seated: dict[str, Any], tokens: dict[str, str]) -> None:
    """Play every game of a seated round with the players' tournament tokens."""
    for table in seated["tables"]:
        seat_tokens = [tokens[seat["name"]] for seat in table["seats"]]
        await play_existing(client, table["game_id"], seat_tokens, seed=table["game_id"])


async def test_a_whole_tournament_over_the_api(client: AsyncTestClient[Any]) -> None:
    created = await create(client, seed="whole-tournament")
    tid = created["tournament_id"]
    organizer = bearer(created["organizer_token"])
    tokens = {p["name"]: p["token"] for p in created["players"]}

    response = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert response.status_code == 201, response.text
    seated = response.json()
    assert seated["round"] == 1 and len(seated["tables"]) == 2
    seated_names = sorted(s["name"] for t in seated["tables"] for s in t["seats"])
    assert seated_names == sorted(NAMES)

    # a player's tournament token acts as their seat in the game
    table = seated["tables"][0]
    game = (await client.get(f"/v1/games/{table['game_id']}")).json()
    assert [s["name"] for s in game["seats"]] == [s["name"] for s in table["seats"]]
    for seat in table["seats"]:
        mine = await client.get(f"/v1/games/{table['game_id']}", headers=bearer(tokens[seat["name"]]))
        assert mine.json()["you"] == seat["seat"]
    listed = (await client.get("/v1/games", params={"tournament": tid})).json()["games"]
    assert {g["game_id"] for g in listed} == {t["game_id"] for t in seated["tables"]}

    # too early: the round is still running; nothing is seated
    assert_problem(
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer), 409, "round_in_progress"
    )
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "playing" and overview["current_round"] == 1
    shown = json.dumps(overview)
    assert overview["seed"] is None and "whole-tournament" not in shown
    assert all(game_seed("whole-tournament", 1, table) not in shown for table in (1, 2))

    await play_round(client, seated, tokens)
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "ready" and overview["schedule"][0]["closed"] is True

    response = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert response.status_code == 201, response.text
    second = response.json()
    assert second["round"] == 2
    await play_round(client, second, tokens)

    assert_problem(
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer), 409, "tournament_complete"
    )
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "completed"

    # standings: JSON and CSV agree
    standings = (await client.get(f"/v1/tournaments/{tid}/standings")).json()
    assert sorted(row["name"] for row in standings) == sorted(NAMES)
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert all(row["games"] == 2 for row in standings)
    assert sum(row["points"] for row in standings) == 4 * 3  # 3 pairs per table, 4 tables
    response = await client.get(f"/v1/tournaments/{tid}/standings", headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["name"] for r in rows] == [row["name"] for row in standings]
    assert [float(r["points"]) for r in rows] == [row["points"] for row in standings]
    assert list(rows[0]) == ["rank", "name", "points", "buchholz", "firsts", "games", "byes", "withdrawn"]

    # results: JSON and NDJSON agree; audit heads are the games' audited head hashes
    results = (await client.get(f"/v1/tournaments/{tid}/results")).json()
    assert [(r["round"], r["table"]) for r in results] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    response = await client.get(f"/v1/tournaments/{tid}/results", headers={"Accept": "application/x-ndjson"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines == results
    again = await client.get(f"/v1/tournaments/{tid}/results", headers={"Accept": "application/x-ndjson"})
    assert again.content == response.content
    for row in results:
        audit = (await client.get(f"/v1/games/{row['game_id']}/audit")).json()
        assert audit["ok"] and audit["head_hash"] == row["audit_head"]
        final = (await client.get(f"/v1/games/{row['game_id']}")).json()
        assert [s["score"] for s in row["seats"]] == list(final["result"]["scores"])
        assert [s["rank"] for s in row["seats"]] == list(final["result"]["ranks"])

    # players holding tokens the organizer handed out are not accounts that joined themselves,
    # so these games are not rated (tournaments of accounts are: test_api_account_tournaments.py)
    for row in results:
        assert (await client.get(f"/v1/games/{row['game_id']}/export")).json()["rated"] is False


async def test_ratings_refuse_unknown_game_and_player(client: AsyncTestClient[Any]) -> None:
    assert_problem(await client.get("/v1/ratings/chess"), 404, "unknown_game")
    assert_problem(await client.get("/v1/players/Nobody-at-all"), 404, "player_not_found")
    assert_problem(await client.get("/v1/ratings/basari?cursor=nonsense!"), 400, "bad_cursor")


async def test_a_rated_solitaire_game_breaks_no_ratings_or_player_page(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    """Z-12: a finished rated solitaire Bazaar game is never rated, and the ratings and player
    endpoints keep answering (once, OpenSkill's refusal of a one-team game made them 500 for good)."""
    name = f"Solo-{uuid.uuid4().hex[:8]}"
    refused = await client.post(
        "/v1/games", json={"game": "bazaar", "players": [{"name": name}], "rated": True}
    )
    assert_problem(
        refused, 422, "rated_needs_accounts"
    )  # the API refuses it; the service can still write one
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())
    created = await games.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=name)], rated=True)
    )
    await finish(games, created.game_id, name)
    assert (await client.get(f"/v1/games/{created.game_id}")).json()["status"] == "finished"
    assert (await client.get("/v1/ratings/bazaar")).status_code == 200
    assert_problem(await client.get(f"/v1/players/{name}"), 404, "player_not_found")
    assert (await client.get("/v1/players/Ada")).status_code in (200, 404)


async def test_a_duplicate_rounds_finished_table_keeps_its_secrets_while_another_plays(
    client: AsyncTestClient[Any],
) -> None:
    """J-18 / docs/api.md: the tables of a duplicate round share one deal; a finished table is read by its
    own seats only until every table of the round has finished."""
    created = await create(client, seed="duplicate-secrets", duplicate=True, rounds=1)
    organizer = bearer(created["organizer_token"])
    tokens = {p["name"]: p["token"] for p in created["players"]}
    seated = (
        await client.post(f"/v1/tournaments/{created['tournament_id']}/rounds", headers=organizer)
    ).json()
    first, second = seated["tables"]
    first_tokens = [tokens[s["name"]] for s in first["seats"]]
    await play_existing(client, first["game_id"], first_tokens, seed=first["game_id"], watch_as_seat=True)
    done = first["game_id"]
    for path in ("", "/events", "/audit", "/export", "/scoresheet"):
        assert_problem(await client.get(f"/v1/games/{done}{path}"), 403, "duplicate_round_running")
    detail = (await client.get(f"/v1/games/{done}", headers=bearer(first_tokens[0]))).json()
    assert detail["status"] == "finished"
    history = (await client.get(f"/v1/games/{done}/events", headers=bearer(first_tokens[0]))).json()
    assert history["redacted"] is True and all(
        "hash" not in e or e["hash"] is None for e in history["events"]
    )
    audit = (await client.get(f"/v1/games/{done}/audit", headers=bearer(first_tokens[0]))).json()
    assert audit["ok"] and audit["seed"] is None and audit["head_hash"] is None
    assert_problem(
        await client.get(f"/v1/games/{done}/export", headers=bearer(first_tokens[0])),
        409,
        "game_not_finished",
    )

    await play_existing(
        client,
        second["game_id"],
        [tokens[s["name"]] for s in second["seats"]],
        seed=second["game_id"],
        watch_as_seat=True,
    )
    for table in (first, second):
        history = (await client.get(f"/v1/games/{table['game_id']}/events")).json()
        assert history["redacted"] is False and all(e["hash"] for e in history["events"])
        audit = (await client.get(f"/v1/games/{table['game_id']}/audit")).json()
        assert audit["ok"] and audit["seed"]["matches"] and audit["moves_ok"]
        assert (await client.get(f"/v1/games/{table['game_id']}/export")).status_code == 200
    rows = (await client.get(f"/v1/tournaments/{created['tournament_id']}/results")).json()
    assert len(rows) == 2
    for row in rows:  # each result carries its game's final head, signed: a receipt for the tournament
        head = msgspec.convert(row["head"], SignedHead)
        assert verify_head(head) and (head.game_id, head.head_hash) == (row["game_id"], row["audit_head"])
