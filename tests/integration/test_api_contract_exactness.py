"""The server accepts exactly what openapi/openapi.json says (docs/api.md, "HTTP conventions"): a JSON value of
another type than its schema's is refused, not coerced; OPTIONS allows every method the path documents."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import jsonschema_rs
import pytest
from litestar.testing import AsyncTestClient

from api.openapi import DEFAULT_PATH
from tests.support.accounts import account, bearer, unlimited_client

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database (sign-up limit off)."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        (
            {
                "game": "johari",
                "players": [{"name": "a"}, {"name": "b"}],
                "clock": {"decision_seconds": "10"},
            },
            "/clock/decision_seconds",
        ),
        ({"game": "johari", "players": [{"name": "a"}, {"name": "b"}], "rated": "false"}, "/rated"),
        ({"game": "johari", "players": [{"name": "a"}, {"name": "b"}], "seed": 7}, "/seed"),
    ],
)
async def test_a_value_of_another_json_type_is_400_and_creates_nothing(
    client: AsyncTestClient[Any], body: dict[str, Any], pointer: str
) -> None:
    before = (await client.get("/v1/games", params={"limit": 200})).json()["games"]
    answer = await client.post("/v1/games", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert [error["pointer"] for error in answer.json()["errors"]] == [pointer]
    assert (await client.get("/v1/games", params={"limit": 200})).json()["games"] == before


async def test_a_string_for_a_number_is_400_in_a_tournament_and_a_join(client: AsyncTestClient[Any]) -> None:
    tournament = {
        "name": "cup",
        "game": "basari",
        "players": [{"name": f"P{i}"} for i in range(3)],
        "rounds": "2",
    }
    answer = await client.post("/v1/tournaments", json=tournament)
    assert answer.status_code == 400, answer.text
    assert [error["pointer"] for error in answer.json()["errors"]] == ["/rounds"]
    created = (await client.post("/v1/games", json={"game": "bazaar", "players": [{"name": "a"}]})).json()
    game_id = created["game_id"]
    _, account_token = await account(client, "strict")
    join = await client.post(f"/v1/games/{game_id}/join", json={"seat": "0"}, headers=bearer(account_token))
    assert join.status_code == 400, join.text


def document_paths() -> dict[str, set[str]]:
    """Each path of openapi/openapi.json (live streams included) with the methods it documents."""
    document = json.loads(DEFAULT_PATH.read_text())
    return {
        path: {method.upper() for method in item if method in ("get", "post", "put", "patch", "delete")}
        for section in ("paths", "x-event-streams")
        for path, item in document[section].items()
    }


async def test_options_allows_every_method_of_its_path(client: AsyncTestClient[Any]) -> None:
    """RFC 9110 9.3.7: ``Allow`` lists what the path takes, e.g. GET and POST on /v1/games."""
    for path, methods in document_paths().items():
        concrete = re.sub(r"\{game\}", "basari", re.sub(r"\{(game_id|tournament_id|name|kind)\}", "x", path))
        answer = await client.options(concrete)
        assert answer.status_code == 204, (path, answer.text)
        allowed = {method.strip() for method in answer.headers["allow"].split(",")}
        expected = methods | {"OPTIONS"} | ({"HEAD"} if "GET" in methods else set())
        assert allowed == expected, path


async def test_another_games_command_is_422_and_no_command_at_all_400(client: AsyncTestClient[Any]) -> None:
    """The body's schema is every game's commands: a Basari bid sent to a Johari game is well formed but
    names a command this game has not (422 ``wrong_game_command``); a type of no game is malformed (400)."""
    created = (
        await client.post("/v1/games", json={"game": "johari", "players": [{"name": "a"}, {"name": "b"}]})
    ).json()
    game_id, token = created["game_id"], created["seats"][0]["token"]
    before = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    bid = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "bid", "gems": {"green": 1}}, headers=bearer(token)
    )
    assert bid.status_code == 422, bid.text
    assert bid.json()["code"] == "wrong_game_command"
    fly = await client.post(f"/v1/games/{game_id}/commands", json={"type": "fly"}, headers=bearer(token))
    assert fly.status_code == 400 and fly.json()["code"] == "malformed_command", fly.text
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == before


GAME = {"game": "bazaar", "players": [{"name": "a"}, {"name": "b"}]}
TOURNAMENT = {"name": "cup", "game": "basari", "players": [{"name": f"P{i}"} for i in range(4)], "rounds": 2}


@pytest.mark.parametrize(
    ("path", "schema", "body", "fixed"),
    [
        ("/v1/games", "CreateGame", {**GAME, "options": {"double\u0014purchase": True}}, GAME),
        ("/v1/games", "CreateGame", {**GAME, "options": {"a": [{"b": "\u0001"}]}}, GAME),
        ("/v1/games", "CreateGame", {**GAME, "seed": ""}, {**GAME, "seed": "s"}),
        ("/v1/games", "CreateGame", {**GAME, "seed": "s" * 201}, {**GAME, "seed": "s" * 200}),
        ("/v1/tournaments", "CreateTournamentIn", {**TOURNAMENT, "options": {"\u001b": {}}}, TOURNAMENT),
        ("/v1/tournaments", "CreateTournamentIn", {**TOURNAMENT, "seed": ""}, TOURNAMENT),
        (
            "/v1/games/no-such-game/commands",
            "Command",
            {"type": "discard_excess", "stones": {"red\n": 1}},
            {"type": "discard_excess", "stones": {"red": 1}},
        ),
    ],
)
async def test_a_body_the_server_refuses_as_malformed_the_document_refuses_too(
    client: AsyncTestClient[Any], path: str, schema: str, body: dict[str, Any], fixed: dict[str, Any]
) -> None:
    """A control character in a key (of options, or of a command's map) or in a nested string of options,
    or a seed of the wrong length, is 400, and the committed document's body schema says so (a client it
    generates, or a fuzzer, is not told such a body is fine); the body without that fault it allows."""
    response = await client.post(path, json=body)
    assert response.status_code == 400, response.text
    components = json.loads(DEFAULT_PATH.read_text())["components"]
    validator = jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{schema}", "components": components}
    )
    assert not validator.is_valid(body)
    assert validator.is_valid(fixed)


async def test_a_body_decoded_into_its_schema_is_still_checked_for_control_characters(
    client: AsyncTestClient[Any],
) -> None:
    """The body is decoded once, into its schema's type: a control character in a field of it is still a 400
    naming the field, and a value of the wrong type is refused first."""
    players = [{"name": "a\u0001"}, {"name": "b"}]
    answer = await client.post("/v1/games", json={"game": "johari", "players": players})
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "control_character"
    assert [error["pointer"] for error in answer.json()["errors"]] == ["/players/0/name"]
    both = await client.post("/v1/games", json={"game": "johari", "players": players, "rated": "no"})
    assert both.status_code == 400, both.text
    assert [error["pointer"] for error in both.json()["errors"]] == ["/rated"]
