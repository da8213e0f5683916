"""The Games endpoints of API.md against the real app and a real PostgreSQL (in-process ASGI client)."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings
from tests.support.client_play import create_game, play_to_end

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url, max_body_bytes=16_384)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def finished_game(client: AsyncTestClient[Any]) -> dict[str, Any]:
    """One Basari game played to its end over the API."""
    played = await play_to_end(client, "basari", 3, seed="finished-game-seed")
    return {"game_id": played.game_id, "tokens": played.tokens}


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a seat."""
    return {"Authorization": f"Bearer {token}"}


def assert_problem(
    response: Any, status: int, code: str | None = None, rule: str | None = None
) -> dict[str, Any]:
    """Assert a problem+json answer with this status (and code / rule)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and "detail" in body and body["code"]
    if code is not None:
        assert body["code"] == code, body
    if rule is not None:
        assert body["rule"] == rule, body
    return body


async def version_of(client: AsyncTestClient[Any], game_id: str) -> int:
    """The game's current version."""
    version: int = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    return version


async def test_catalog_lists_basari_with_player_counts(client: AsyncTestClient[Any]) -> None:
    response = await client.get("/v1/catalog")
    assert response.status_code == 200
    basari = next(g for g in response.json()["games"] if g["game"] == "basari")
    assert (basari["min_players"], basari["max_players"]) == (3, 5)
    assert basari["rules"]


async def test_create_returns_tokens_location_and_seed_commitment(client: AsyncTestClient[Any]) -> None:
    response = await client.post(
        "/v1/games",
        json={
            "game": "basari",
            "players": [{"name": "Max"}, {"name": "Hanna"}, {"name": "Sarah"}],
            "seed": "a seed",
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["location"] == f"/v1/games/{body['game_id']}"
    assert [s["name"] for s in body["seats"]] == ["Max", "Hanna", "Sarah"]
    tokens = {s["token"] for s in body["seats"]}
    assert len(tokens) == 3 and all(len(t) >= 40 for t in tokens)
    assert body["seed_commitment"] == hashlib.sha256(b"a seed").hexdigest()
    assert "a seed" not in response.text


async def test_create_refuses_bad_requests_with_problems(client: AsyncTestClient[Any]) -> None:
    two_players = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}]}
    assert_problem(await client.post("/v1/games", json=two_players), 422, "bad_player_count", "B-1")
    unknown = {"game": "chess", "players": [{"name": "a"}, {"name": "b"}]}
    assert_problem(await client.post("/v1/games", json=unknown), 422, "unknown_game")
    duplicate = {"game": "basari", "players": [{"name": "a"}, {"name": "a"}, {"name": "b"}]}
    assert_problem(await client.post("/v1/games", json=duplicate), 422, "duplicate_player_name")
    bad_option = {"game": "basari", "players": [{"name": n} for n in "abc"], "options": {"turbo": True}}
    assert_problem(await client.post("/v1/games", json=bad_option), 422, "invalid_options")
    not_json = await client.post(
        "/v1/games", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert_problem(not_json, 400)
    extra_field = {"game": "basari", "players": [{"name": n} for n in "abc"], "colour": "red"}
    assert_problem(await client.post("/v1/games", json=extra_field), 400)
    huge = {"game": "basari", "players": [{"name": "x" * 30_000}]}
    assert_problem(await client.post("/v1/games", json=huge), 413)


async def test_unknown_ids_and_tokens(client: AsyncTestClient[Any]) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    assert_problem(await client.get(f"/v1/games/{missing}"), 404, "game_not_found")
    assert_problem(await client.post(f"/v1/games/{missing}/commands", json={"type": "x"}), 404)
    created = await create_game(client, "basari", 3)
    game_id = created["game_id"]
    assert_problem(
        await client.post(f"/v1/games/{game_id}/commands", json={"type": "x"}), 401, "token_required"
    )
    forged = await client.post(f"/v1/games/{game_id}/commands", json={"type": "x"}, headers=bearer("forged"))
    assert_problem(forged, 403, "not_a_seat_token")
    other = await create_game(client, "basari", 3)
    foreign = await client.get(f"/v1/games/{game_id}", headers=bearer(other["seats"][0]["token"]))
    assert_problem(foreign, 403)
    assert_problem(await client.get(f"/v1/games/{game_id}", headers={"Authorization": "Basic abc"}), 401)


async def test_get_game_shows_view_pending_legal_and_etag(client: AsyncTestClient[Any]) -> None:
    created = await create_game(client, "basari", 4)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    spectator = await client.get(f"/v1/games/{game_id}")
    assert spectator.status_code == 200
    body = spectator.json()
    assert spectator.headers["etag"] == f'"{body["version"]}"'
    assert body["status"] == "active" and body["you"] is None and body["legal"] == []
    assert {p["seat"] for p in body["pending"]} == {0, 1, 2, 3}
    seat = (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
    assert seat["you"] == 0 and seat["legal"]
    legal = (await client.get(f"/v1/games/{game_id}/legal", headers=bearer(token))).json()
    assert legal == seat["legal"]


async def test_a_refused_command_appends_nothing(client: AsyncTestClient[Any]) -> None:
    created = await create_game(client, "basari", 3)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    legal = (await client.get(f"/v1/games/{game_id}/legal", headers=bearer(token))).json()
    first = await client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=bearer(token))
    assert first.status_code == 200, first.text
    before = await version_of(client, game_id)
    events_before = (await client.get(f"/v1/games/{game_id}/events")).json()["events"]
    again = await client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=bearer(token))
    body = assert_problem(again, 422)
    assert re.fullmatch(r"B-\d+", body["rule"])
    unknown = await client.post(f"/v1/games/{game_id}/commands", json={"type": "fly"}, headers=bearer(token))
    assert_problem(unknown, 400, "malformed_command")
    not_object = await client.post(f"/v1/games/{game_id}/commands", json=[1, 2], headers=bearer(token))
    assert_problem(not_object, 400)
    assert await version_of(client, game_id) == before
    assert (await client.get(f"/v1/games/{game_id}/events")).json()["events"] == events_before


async def test_if_match_makes_a_command_conditional(client: AsyncTestClient[Any]) -> None:
    created = await create_game(client, "basari", 3)
    game_id = created["game_id"]
    version = await version_of(client, game_id)
    token0, token1 = created["seats"][0]["token"], created["seats"][1]["token"]
    legal0 = (await client.get(f"/v1/games/{game_id}/legal", headers=bearer(token0))).json()
    legal1 = (await client.get(f"/v1/games/{game_id}/legal", headers=bearer(token1))).json()
    ok = await client.post(
        f"/v1/games/{game_id}/commands",
        json=legal0[0],
        headers={**bearer(token0), "If-Match": f'"{version}"'},
    )
    assert ok.status_code == 200 and ok.json()["version"] == version + 1
    stale = await client.post(
        f"/v1/games/{game_id}/commands",
        json=legal1[0],
        headers={**bearer(token1), "If-Match": f'"{version}"'},
    )
    assert_problem(stale, 412, "version_mismatch")
    assert await version_of(client, game_id) == version + 1
    bad = await client.post(
        f"/v1/games/{game_id}/commands", json=legal1[0], headers={**bearer(token1), "If-Match": "soon"}
    )
    assert_problem(bad, 400, "bad_if_match")


async def test_idempotency_key_replays_the_first_answer(client: AsyncTestClient[Any]) -> None:
    created = await create_game(client, "basari", 3)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    legal = (await client.get(f"/v1/games/{game_id}/legal", headers=bearer(token))).json()
    headers = {**bearer(token), "Idempotency-Key": "key-1"}
    first = await client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=headers)
    retry = await client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=headers)
    assert first.status_code == retry.status_code == 200
    assert first.json() == retry.json()
    version = await version_of(client, game_id)
    assert version == first.json()["version"]
    other = await client.post(f"/v1/games/{game_id}/commands", json=legal[-1], headers=headers)
    if legal[-1] != legal[0]:
        assert_problem(other, 422, "idempotency_key_reused")
    assert await version_of(client, game_id) == version


async def test_history_is_redacted_while_running_and_whole_once_finished(
    client: AsyncTestClient[Any], finished_game: dict[str, Any]
) -> None:
    game_id, tokens = finished_game["game_id"], finished_game["tokens"]
    spectator = (await client.get(f"/v1/games/{game_id}/events")).json()
    seat = (await client.get(f"/v1/games/{game_id}/events", headers=bearer(tokens[1]))).json()
    assert spectator == seat and spectator["redacted"] is False
    assert all(e["hash"] for e in spectator["events"])
    assert [e["version"] for e in spectator["events"]] == list(range(1, spectator["version"] + 1))
    page = (await client.get(f"/v1/games/{game_id}/events?after=3&limit=2")).json()
    assert [e["version"] for e in page["events"]] == [4, 5]
    ndjson = await client.get(f"/v1/games/{game_id}/events", headers={"Accept": "application/x-ndjson"})
    lines = [json.loads(line) for line in ndjson.text.splitlines()]
    assert lines == spectator["events"]
    finished_command = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "anything"}, headers=bearer(tokens[0])
    )
    assert finished_command.status_code in (400, 409)


async def test_time_travel_and_score_sheet(
    client: AsyncTestClient[Any], finished_game: dict[str, Any]
) -> None:
    game_id = finished_game["game_id"]
    at_one = await client.get(f"/v1/games/{game_id}/state?at=1")
    assert at_one.status_code == 200 and at_one.json()["version"] == 1
    assert_problem(await client.get(f"/v1/games/{game_id}/state?at=999999"), 404, "no_such_version")
    sheet = (await client.get(f"/v1/games/{game_id}/scoresheet")).json()
    assert sheet["final"] is True and sheet["winners"]
    as_csv = await client.get(f"/v1/games/{game_id}/scoresheet", headers={"Accept": "text/csv"})
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(as_csv.text)))
    assert rows[0] == sheet["columns"]
    assert rows[-1][0] == "winners"


async def test_audit_reveals_the_seed_only_when_finished(
    client: AsyncTestClient[Any], finished_game: dict[str, Any]
) -> None:
    audit = (await client.get(f"/v1/games/{finished_game['game_id']}/audit")).json()
    assert audit["ok"] and audit["chain_ok"] and audit["replay_ok"] and audit["setup_ok"]
    assert audit["seed"]["seed"] == "finished-game-seed" and audit["seed"]["matches"]
    assert (
        audit["head_hash"]
        == (await client.get(f"/v1/games/{finished_game['game_id']}/events")).json()["events"][-1]["hash"]
    )
    running = await create_game(client, "basari", 3, seed="still-secret")
    audit_running = (await client.get(f"/v1/games/{running['game_id']}/audit")).json()
    assert audit_running["ok"] and audit_running["seed"] is None and audit_running["head_hash"] is None
    assert "still-secret" not in json.dumps(audit_running)


async def test_listing_filters_and_pages(client: AsyncTestClient[Any], finished_game: dict[str, Any]) -> None:
    finished = (await client.get("/v1/games?status=finished&game=basari&limit=200")).json()
    assert finished_game["game_id"] in [g["game_id"] for g in finished["games"]]
    assert all(g["status"] == "finished" for g in finished["games"])
    created = await create_game(client, "basari", 3)
    mine = (await client.get("/v1/games?player=player-1&status=active&limit=200")).json()
    assert created["game_id"] in [g["game_id"] for g in mine["games"]]
    seen: list[str] = []
    cursor = None
    while True:
        url = "/v1/games?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = (await client.get(url)).json()
        seen += [g["game_id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) and created["game_id"] in seen
    assert_problem(await client.get("/v1/games?cursor=nonsense!"), 400, "bad_cursor")
    assert_problem(await client.get("/v1/games?status=sleeping"), 400, "bad_status")


def _public_shape(value: Any) -> Any:
    """A response with what legitimately differs between two games removed (ids, timestamps, and the signed
    head: its hash covers the game id and is keyed with the secret seed, so it tells nobody anything)."""
    text = json.dumps(value, sort_keys=True)
    text = re.sub(r'"recorded_at": "[^"]*"', '"recorded_at": ""', text)
    text = re.sub(r'"(head_hash|signature)": "[0-9a-f]*"', r'"\1": ""', text)
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)
    return json.loads(text)


async def _advance_identically_until(
    client: AsyncTestClient[Any], games: list[dict[str, Any]], decision: str
) -> None:
    """Post the same first legal entry in every game until seat 0 owes ``decision`` in them."""
    for _step in range(200):
        details = [(await client.get(f"/v1/games/{g['game_id']}")).json() for g in games]
        pending = details[0]["pending"]
        assert all(d["pending"] == pending for d in details)
        if any(p["seat"] == 0 and p["decision"] == decision for p in pending):
            return
        seat = pending[0]["seat"]
        for game in games:
            token = game["seats"][seat]["token"]
            legal = (await client.get(f"/v1/games/{game['game_id']}/legal", headers=bearer(token))).json()
            response = await client.post(
                f"/v1/games/{game['game_id']}/commands", json=legal[0], headers=bearer(token)
            )
            assert response.status_code == 200, response.text
    raise AssertionError(f"seat 0 never owed {decision}")


@pytest.mark.parametrize(
    ("game", "decision", "rule"),
    [("basari", "choose_action", "B-12"), ("johari", "play_action_card", "J-18")],
)
async def test_observers_cannot_tell_a_secret_pick_before_the_reveal(
    client: AsyncTestClient[Any], game: str, decision: str, rule: str
) -> None:
    """B-12, J-18: two games with the same seed where seat 0 picks differently look the same to everybody else."""
    games = [await create_game(client, game, 3, seed=f"same-seed-{game}") for _ in range(2)]
    await _advance_identically_until(client, games, decision)
    token0 = [g["seats"][0]["token"] for g in games]
    legal = (await client.get(f"/v1/games/{games[0]['game_id']}/legal", headers=bearer(token0[0]))).json()
    assert len(legal) >= 2, f"{rule}: seat 0 needs two different secret picks"
    for index, created in enumerate(games):
        response = await client.post(
            f"/v1/games/{created['game_id']}/commands", json=legal[index], headers=bearer(token0[index])
        )
        assert response.status_code == 200, response.text
    version = await version_of(client, games[0]["game_id"])
    for observer in (None, 1, 2):
        seen = []
        for created in games:
            headers = {} if observer is None else bearer(created["seats"][observer]["token"])
            game_id = created["game_id"]
            seen.append(
                _public_shape(
                    [
                        (await client.get(f"/v1/games/{game_id}", headers=headers)).json(),
                        (await client.get(f"/v1/games/{game_id}/events", headers=headers)).json(),
                        (await client.get(f"/v1/games/{game_id}/state?at={version}", headers=headers)).json(),
                        (await client.get(f"/v1/games/{game_id}/legal", headers=headers)).json(),
                        (await client.get(f"/v1/games/{game_id}/scoresheet", headers=headers)).json(),
                        (await client.get(f"/v1/games/{game_id}/audit", headers=headers)).json(),
                        (
                            await client.get("/v1/games?player=player-0&limit=200", headers=headers)
                        ).status_code,
                    ]
                )
            )
        assert seen[0] == seen[1], f"{rule}: observer {observer} can tell the two picks apart"
    own = [
        (await client.get(f"/v1/games/{g['game_id']}", headers=bearer(t))).json()["view"]
        for g, t in zip(games, token0, strict=True)
    ]
    assert _public_shape(own[0]) != _public_shape(own[1]), "the picker sees their own pick"


async def test_health_ready_and_schema(client: AsyncTestClient[Any]) -> None:
    assert (await client.get("/health")).json()["status"] == "ok"
    assert (await client.get("/ready")).status_code == 200
    assert (await client.get("/schema")).status_code == 200
    assert (await client.get("/schema/openapi.json")).json()["info"]["title"] == "Bazaar games"
    assert_problem(await client.get("/v1/nowhere"), 404)
