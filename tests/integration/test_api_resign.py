"""Resigning over HTTP: it is an ordinary command (``POST /v1/games/{id}/commands {"type": "resign"}``)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings
from tests.support.accounts import bearer
from tests.support.client_play import create_game

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


async def test_resigning_a_two_player_game_finishes_it_with_the_opponent_winning(
    client: AsyncTestClient[Any],
) -> None:
    """A seat that is not to move resigns; the game is finished and the opponent wins."""
    created = await create_game(client, "johari", 2)
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[1]))).json()
    assert {"type": "resign"} in mine["legal"]
    response = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(tokens[1])
    )
    assert response.status_code == 200, response.text
    detail = (await client.get(f"/v1/games/{game_id}")).json()
    assert detail["status"] == "finished" and detail["pending"] == []
    assert detail["result"]["winners"] == [0] and detail["result"]["ranks"] == [1, 2]
    again = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(tokens[0])
    )
    assert again.status_code in (409, 422) and again.headers["content-type"].startswith(
        "application/problem+json"
    )


async def test_a_resigned_seat_in_a_larger_game_is_played_by_the_stand_in(
    client: AsyncTestClient[Any],
) -> None:
    """In a three-player Basari game the resigned seat's pick is made for it; it can send nothing."""
    created = await create_game(client, "basari", 3)
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    response = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(tokens[2])
    )
    assert response.status_code == 200, response.text
    detail = (await client.get(f"/v1/games/{game_id}")).json()
    assert detail["status"] == "active"
    assert {p["seat"] for p in detail["pending"]} == {0, 1}  # the stand-in picked for seat 2 at once
    mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[2]))).json()
    assert mine["legal"] == []
    refused = await client.post(
        f"/v1/games/{game_id}/commands",
        json={"type": "choose_action", "action": "A"},
        headers=bearer(tokens[2]),
    )
    assert refused.status_code in (409, 422), refused.text
    assert refused.json()["code"] == "resigned"


async def test_a_game_with_a_stand_in_plays_to_its_end_and_passes_its_audit(
    client: AsyncTestClient[Any],
) -> None:
    """The stand-in's decisions are re-decided by the audit like any command (same seed, same draws);
    the game finishes with the resigned seat ranked last."""
    created = await create_game(client, "basari", 3, seed="stand-in-audit")
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    response = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(tokens[1])
    )
    assert response.status_code == 200, response.text
    for _ in range(2000):
        detail = (await client.get(f"/v1/games/{game_id}")).json()
        if detail["status"] == "finished":
            break
        seat = detail["pending"][0]["seat"]
        assert seat != 1
        mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[seat]))).json()
        body = mine["legal"][0]
        assert body["type"] != "resign"
        answer = await client.post(f"/v1/games/{game_id}/commands", json=body, headers=bearer(tokens[seat]))
        assert answer.status_code == 200, answer.text
    assert detail["status"] == "finished"
    assert detail["result"]["ranks"][1] == 3
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert audit["ok"] and audit["moves_ok"], audit["problems"]
