"""RATE_LIMIT_PER_MINUTE: a server started with a small limit answers 429 problem+json with Retry-After past
it, per client (bearer token, else address), never throttles /health, /ready or /metrics, and a throttled
command changes nothing."""

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


async def test_each_client_is_limited_on_its_own(limited_server: str, limited_log: Path) -> None:
    async with httpx.AsyncClient(base_url=limited_server, timeout=10) as http:
        # the address's budget (spectators, creation): 1 creation + 4 reads, then refused
        body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
        created = await http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        seat_tokens = [seat["token"] for seat in created.json()["seats"]]
        for _ in range(LIMIT - 1):
            assert (await http.get("/v1/catalog")).status_code == 200
        assert_rate_limited(await http.get("/v1/catalog"))
        assert_rate_limited(await http.post("/v1/games", json=body))

        # probes and metrics are never throttled
        for _ in range(LIMIT + 1):
            assert (await http.get("/health")).status_code == 200
            assert (await http.get("/ready")).status_code == 200
            assert (await http.get("/metrics")).status_code == 200

        # a seat's token has a budget of its own; once it is spent a command is refused and appends nothing
        seat = bearer(seat_tokens[0])
        for _ in range(LIMIT - 1):
            assert (await http.get(f"/v1/games/{game_id}", headers=seat)).status_code == 200
        command = (await http.get(f"/v1/games/{game_id}/legal", headers=seat)).json()[0]
        assert_rate_limited(await http.post(f"/v1/games/{game_id}/commands", json=command, headers=seat))
        other_seat = bearer(seat_tokens[1])
        game = (await http.get(f"/v1/games/{game_id}", headers=other_seat)).json()
        assert game["version"] == created.json()["version"]
        assert {pending["seat"] for pending in game["pending"]} == {0, 1, 2}

    # the access log records the 429s as 429s (not as errors), with their request ids
    lines = [json.loads(line) for line in limited_log.read_text().splitlines() if line.startswith("{")]
    statuses = [line["status"] for line in lines if line.get("event") == "request"]
    assert statuses.count(429) == 3 and 500 not in statuses, statuses
