"""RATE_LIMIT_PER_MINUTE: a server started with a small limit answers 429 problem+json with Retry-After past
it, per client (account token, else address: a seat token counts by the address it is used from), never
throttles /health, /ready or /metrics, and a throttled command changes nothing. Clients at other addresses
are told apart by X-Forwarded-For, which the server believes from 127.0.0.1 (FORWARDED_ALLOW_IPS)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.ledger import bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]

LIMIT = 5


@pytest.fixture(scope="module")
def limited_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the limited server writes its JSON log lines."""
    return tmp_path_factory.mktemp("limited") / "server.log"


@pytest.fixture(scope="module")
def limited_server(database_url: str, limited_log: Path) -> Iterator[str]:
    """A server allowing each client five requests a minute."""
    process, base = start_server(
        database_url, log_file=limited_log, settings={"RATE_LIMIT_PER_MINUTE": str(LIMIT)}
    )
    yield base
    process.terminate()
    process.wait(10)


def assert_rate_limited(response: httpx.Response) -> None:
    """429 as API.md promises it: problem+json, code rate_limited, Retry-After in whole seconds."""
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "rate_limited"
    assert 1 <= int(response.headers["retry-after"]) <= 60


def address(host: str) -> dict[str, str]:
    """Headers making a request come from ``host`` (the server believes X-Forwarded-For from 127.0.0.1)."""
    return {"X-Forwarded-For": host}


async def test_each_client_is_limited_on_its_own(limited_server: str, limited_log: Path) -> None:
    async with httpx.AsyncClient(base_url=limited_server, timeout=10) as http:
        # the address's budget (spectators, creation, its seat tokens): 1 creation + 1 read with a seat
        # token + 3 reads, then refused
        body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
        created = await http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        seat_tokens = [seat["token"] for seat in created.json()["seats"]]
        seat = bearer(seat_tokens[0])
        command = (await http.get(f"/v1/games/{game_id}/legal", headers=seat)).json()[0]
        for _ in range(LIMIT - 2):
            assert (await http.get("/v1/catalog")).status_code == 200
        assert_rate_limited(await http.get("/v1/catalog"))
        assert_rate_limited(await http.post("/v1/games", json=body))

        # probes and metrics are never throttled
        for _ in range(LIMIT + 1):
            assert (await http.get("/health")).status_code == 200
            assert (await http.get("/ready")).status_code == 200
            assert (await http.get("/metrics")).status_code == 200

        # the seat's token has no budget of its own: its command is refused and appends nothing
        assert_rate_limited(await http.post(f"/v1/games/{game_id}/commands", json=command, headers=seat))
        # another address has a budget of its own, seat token or not
        other_seat = {**bearer(seat_tokens[1]), **address("192.0.2.10")}
        game = (await http.get(f"/v1/games/{game_id}", headers=other_seat)).json()
        assert game["version"] == created.json()["version"]
        assert {pending["seat"] for pending in game["pending"]} == {0, 1, 2}

    # the access log records the 429s as 429s (not as errors), with their request ids
    lines = [json.loads(line) for line in limited_log.read_text().splitlines() if line.startswith("{")]
    statuses = [line["status"] for line in lines if line.get("event") == "request"]
    assert statuses.count(429) == 3 and 500 not in statuses, statuses


async def test_seat_tokens_buy_no_budget(limited_server: str) -> None:
    """A hot-seat game hands its creator six seat tokens: all six, and the games created with one, draw on
    the budget of the address they are used from, so the six together get LIMIT requests a minute, not seven
    times that."""
    here = address("192.0.2.20")
    async with httpx.AsyncClient(base_url=limited_server, timeout=10, headers=here) as http:
        body = {"game": "bazaar", "players": [{"name": f"p{n}"} for n in range(6)]}
        created = await http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        game_id, tokens = created.json()["game_id"], [seat["token"] for seat in created.json()["seats"]]
        answered = 1
        for token in tokens:
            for _ in range(LIMIT):
                response = await http.get(f"/v1/games/{game_id}", headers=bearer(token))
                answered += response.status_code == 200
            assert_rate_limited(await http.post("/v1/games", json=body, headers=bearer(token)))
        assert answered == LIMIT
