"""The lobby over real HTTP, on one server process and on two: accounts racing for the last seats of a game
get exactly as many seats as there are, the game starts exactly once, and each winner's account token acts
for its seat; the rate limit counts made-up tokens by address and real ones by account."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.accounts import account, bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]

RACERS = 8


async def race(base: str, game_id: str, tokens: list[str]) -> list[httpx.Response]:
    """Every token joins the game at once, each on a connection of its own."""
    clients = [httpx.AsyncClient(base_url=base, timeout=30) for _ in tokens]
    try:
        return list(
            await asyncio.gather(
                *(
                    client.post(
                        f"/v1/games/{game_id}/join", json={"entropy": uuid.uuid4().hex}, headers=bearer(t)
                    )
                    for client, t in zip(clients, tokens, strict=True)
                )
            )
        )
    finally:
        await asyncio.gather(*(client.aclose() for client in clients))


@pytest.mark.parametrize("open_seats", [1, 2])
async def test_accounts_racing_for_the_last_seats_get_exactly_that_many(
    any_server: str, open_seats: int
) -> None:
    async with httpx.AsyncClient(base_url=any_server, timeout=30) as http:
        host, host_token = await account(http, "host")
        racers = [await account(http, "racer") for _ in range(RACERS)]
        body = {
            "game": "basari",
            "players": [{"account": "me"}, {"name": "hot"}] + [{"open": True}] * open_seats,
        }
        if open_seats == 2:
            body["players"] = [{"account": "me"}] + [{"open": True}] * open_seats
        created = await http.post("/v1/games", json=body, headers=bearer(host_token))
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]

        answers = await race(any_server, game_id, [token for _name, token in racers])
        won = [racers[i] for i, answer in enumerate(answers) if answer.status_code == 200]
        unexpected = [(a.status_code, a.text[:300]) for a in answers if a.status_code not in (200, 409)]
        assert len(won) == open_seats and not unexpected, unexpected
        assert {a.json()["code"] for a in answers if a.status_code == 409} <= {"game_started", "no_free_seat"}

        lobby = (await http.get(f"/v1/lobby/{game_id}")).json()
        assert lobby["status"] == "started"
        game = (await http.get(f"/v1/games/{game_id}")).json()
        names = [seat["name"] for seat in game["seats"]]
        assert names[0] == host and sorted(n for n, _t in won) == sorted(names[-open_seats:])
        # started exactly once: one opening, a whole hash chain
        events = (await http.get(f"/v1/games/{game_id}/events")).json()["events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        assert (await http.get(f"/v1/games/{game_id}/audit")).json()["chain_ok"]
        for name, token in won:
            mine: dict[str, Any] = (await http.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
            assert names[mine["you"]] == name
        loser = next(t for n, t in racers if (n, t) not in won)
        forbidden = await http.get(f"/v1/games/{game_id}", headers=bearer(loser))
        assert forbidden.status_code == 403


async def test_sign_up_and_play_as_the_readme_says(server: str) -> None:
    """The README's walk-through: sign up, create a game with an open seat, another account joins."""
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        _ana, ana = await account(http, "Ana")
        _ben, ben = await account(http, "Ben")
        created = await http.post(
            "/v1/games",
            json={"game": "johari", "players": [{"account": "me"}, {"open": True}], "rated": True},
            headers=bearer(ana),
        )
        assert created.status_code == 201 and created.json()["status"] == "waiting"
        game_id = created.json()["game_id"]
        waiting = (
            await http.get("/v1/lobby", params={"game": "johari", "rated": "true", "limit": 200})
        ).json()
        assert game_id in [g["game_id"] for g in waiting["games"]]
        joined = await http.post(f"/v1/games/{game_id}/join", headers=bearer(ben))
        assert joined.status_code == 200 and joined.json()["status"] == "started"
        assert (await http.get(f"/v1/games/{game_id}", headers=bearer(ben))).json()["you"] == 1
        mine = (await http.get("/v1/me/games", headers=bearer(ana))).json()["games"]
        assert [(g["game_id"], g["rated"]) for g in mine] == [(game_id, True)]


@pytest.fixture(scope="module")
def limited(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server allowing each client five requests a minute."""
    process, base = start_server(
        database_url,
        log_file=tmp_path_factory.mktemp("limited-accounts") / "server.log",
        settings={"RATE_LIMIT_PER_MINUTE": "5"},
    )
    yield base
    process.terminate()
    process.wait(10)


async def test_made_up_tokens_share_the_address_budget_and_an_account_has_its_own(limited: str) -> None:
    """Invented bearer tokens count by address (tried before: 300 of 300 went through a limit of
    120); a real account token counts by its account from its first request."""
    async with httpx.AsyncClient(base_url=limited, timeout=30) as http:
        _name, token = await account(http, "limited")  # the address's first request of five
        answers = [
            (await http.get("/v1/catalog", headers=bearer(f"made-up-{i}"))).status_code for i in range(6)
        ]
        assert answers == [200] * 4 + [429] * 2
        assert (await http.get("/v1/catalog")).status_code == 429
        mine = [(await http.get("/v1/me", headers=bearer(token))).status_code for _ in range(6)]
        assert mine == [200] * 5 + [429]
