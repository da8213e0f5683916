"""Clocks over the API: the clock chosen at creation (422 ``bad_clock`` for a bad one, as problem+json),
a lobby game keeps its clock until its seats are filled, and the game shows each seat's deadline and bank.

The deadlines here are an hour or more away: the session's servers' clock schedulers leave these games alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.support.accounts import account, bearer, unlimited_client

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database (sign-up limit off)."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


@pytest.mark.parametrize(
    "clock",
    [
        {"decision_seconds": 0},
        {"decision_seconds": 86_401},
        {"decision_seconds": 60, "bank_seconds": 604_801},
        {"days_per_decision": 61},
        {"days_per_decision": 1, "bank_seconds": 60},
        {},
        {"decision_seconds": 60, "max_timeouts": 11},
    ],
)
async def test_a_bad_clock_is_422_bad_clock_for_hot_seat_and_lobby_games(
    client: AsyncTestClient[Any], clock: dict[str, Any]
) -> None:
    """A clock outside what the service offers is refused the same way, whoever sits."""
    _, token = await account(client, "clocky")
    for players in ([{"name": "a"}, {"name": "b"}], [{"account": "me"}, {"open": True}]):
        body = {"game": "johari", "players": players, "clock": clock}
        answer = await client.post("/v1/games", json=body, headers=bearer(token))
        assert answer.status_code == 422, answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["code"] == "bad_clock"


async def test_a_lobby_game_starts_with_its_clock(client: AsyncTestClient[Any]) -> None:
    """The clock chosen for a lobby game starts when its last seat is filled."""
    _, host = await account(client, "clockhost")
    _, guest = await account(client, "clockguest")
    body = {
        "game": "johari",
        "players": [{"account": "me"}, {"open": True}],
        "clock": {"days_per_decision": 2, "max_timeouts": 2},
    }
    created = await client.post("/v1/games", json=body, headers=bearer(host))
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    joined = await client.post(f"/v1/games/{game_id}/join", headers=bearer(guest))
    assert joined.status_code == 200, joined.text
    detail = (await client.get(f"/v1/games/{game_id}", headers=bearer(host))).json()
    assert detail["status"] == "active"
    clock = detail["clock"]
    assert clock["days_per_decision"] == 2 and clock["max_timeouts"] == 2 and clock["bank_seconds"] == 0
    started = datetime.fromisoformat(clock["at"])
    assert detail["pending"]
    for pending in detail["pending"]:
        assert datetime.fromisoformat(pending["deadline"]) == started + timedelta(days=2)
        assert pending["bank_seconds"] == 0


async def test_an_untimed_game_has_a_null_clock(client: AsyncTestClient[Any]) -> None:
    """No clock is the default for casual games: ``clock`` is null and pending has no deadline."""
    body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    created = (await client.post("/v1/games", json=body)).json()
    detail = (await client.get(f"/v1/games/{created['game_id']}")).json()
    assert detail["clock"] is None
    assert all(p["deadline"] is None and p["bank_seconds"] is None for p in detail["pending"])
