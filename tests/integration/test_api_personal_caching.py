"""Answers that depend on who asks (docs/api.md "Caching"): a seat's answers are ``Cache-Control: private``
and carry an ETag of their own (not the spectators'); every such answer, a spectator's too, varies on
``Authorization`` and ``Cookie``; a seat's ETag sent back in ``If-Match`` makes its command conditional."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
async def game(client: AsyncTestClient[Any]) -> dict[str, Any]:
    """A new Basari game: its id and seat tokens."""
    response = await client.post(
        "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ann", "Bo", "Cy")]}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def seat(game: dict[str, Any], index: int) -> dict[str, str]:
    """The Authorization header of seat ``index``."""
    return {"Authorization": f"Bearer {game['seats'][index]['token']}"}


def varies_on(response: Any) -> set[str]:
    """The request headers the answer says it varies on (lower case)."""
    return {name.strip().lower() for name in response.headers.get("vary", "").split(",") if name.strip()}


@pytest.mark.parametrize("path", ["", "/legal", "/events", "/state?at=1"])
async def test_a_seats_answers_are_private_and_every_answer_varies_on_the_caller(
    client: AsyncTestClient[Any], game: dict[str, Any], path: str
) -> None:
    url = f"/v1/games/{game['game_id']}{path}"
    mine, anyone = await client.get(url, headers=seat(game, 0)), await client.get(url)
    assert mine.status_code == anyone.status_code == 200, (mine.text, anyone.text)
    assert "private" in mine.headers.get("cache-control", "")
    assert "private" not in anyone.headers.get("cache-control", "")
    for answer in (mine, anyone):
        assert {"accept", "authorization", "cookie"} <= varies_on(answer), answer.headers


async def test_a_seats_view_has_an_etag_of_its_own(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    url = f"/v1/games/{game['game_id']}"
    tags = {
        (await client.get(url, headers=seat(game, 0))).headers["etag"],
        (await client.get(url, headers=seat(game, 1))).headers["etag"],
        (await client.get(url)).headers["etag"],
    }
    assert len(tags) == 3 and f'"{game["version"]}"' in tags


async def test_a_seats_etag_makes_its_command_conditional(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    url = f"/v1/games/{game['game_id']}"
    view = await client.get(url, headers=seat(game, 0))
    others = (await client.get(url, headers=seat(game, 1))).headers["etag"]
    legal = view.json()["legal"][0]
    refused = await client.post(f"{url}/commands", json=legal, headers={**seat(game, 0), "If-Match": others})
    assert refused.status_code == 412, refused.text  # another seat's tag names no answer of this caller
    mine = view.headers["etag"]
    accepted = await client.post(f"{url}/commands", json=legal, headers={**seat(game, 0), "If-Match": mine})
    assert accepted.status_code == 200, accepted.text
