"""Clocks end to end: two server processes on one database of their own, one-second clocks; a seat that
never answers is timed out by the processes' clock schedulers (each timeout appended once) until the
stand-in has it, and its game finishes and passes its audit."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.databases import fresh_database


@pytest.fixture(scope="module")
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database no other server of the session plays on (its schedulers would time out these games too)."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def two_servers(own_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two server processes (each with its own clock scheduler) on that database."""
    logs: Path = tmp_path_factory.mktemp("clocks")
    started = [start_server(own_database, log_file=logs / f"server{i}.log") for i in range(2)]
    yield [base for _, base in started]
    for process, _ in started:
        process.terminate()
        process.wait(10)


def test_a_seat_that_never_answers_still_lets_its_game_finish(two_servers: list[str]) -> None:
    """Seat 0 plays from ``legal`` through both servers in turn; seat 1 never answers. Its deadlines pass,
    the schedulers time it out (the third timeout resigns it) and the game ends with seat 0 winning."""
    first, second = two_servers
    body = {
        "game": "johari",
        "players": [{"name": "Ada"}, {"name": "Silent"}],
        "clock": {"decision_seconds": 1, "bank_seconds": 10},  # the bank covers a loaded machine's pauses
    }
    created = httpx.post(f"{first}/v1/games", json=body, timeout=30).json()
    game_id, token = created["game_id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    game = httpx.get(f"{second}/v1/games/{game_id}", headers=auth, timeout=30).json()
    assert game["clock"]["decision_seconds"] == 1 and game["clock"]["bank_seconds"] == 10
    assert all(p["deadline"] is not None and p["bank_seconds"] == 10 for p in game["pending"])
    deadline = time.monotonic() + 300
    turn = 0
    while game["status"] != "finished":
        assert time.monotonic() < deadline, f"stuck at version {game['version']}: {game['pending']}"
        base = two_servers[turn % 2]
        turn += 1
        game = httpx.get(f"{base}/v1/games/{game_id}", headers=auth, timeout=30).json()
        moves = [c for c in game["legal"] if c["type"] != "resign"]
        if moves and any(p["seat"] == 0 for p in game["pending"]):
            headers = {**auth, "If-Match": f'"{game["version"]}"'}
            answer = httpx.post(
                f"{base}/v1/games/{game_id}/commands", json=moves[0], headers=headers, timeout=30
            )
            assert answer.status_code in (200, 412, 422), answer.text  # 412: a timeout moved the game first
        else:
            time.sleep(0.2)  # waiting for the silent seat's deadline
    assert game["result"]["winners"] == [0]
    events = httpx.get(f"{first}/v1/games/{game_id}/events", params={"limit": 10000}, timeout=30).json()
    timed_out = [e["data"] for e in events["events"] if e["type"] == "seat_timed_out"]
    assert [t["seat"] for t in timed_out] == [1, 1, 1]
    assert [t["timeouts"] for t in timed_out] == [1, 2, 3]  # each once, though both processes watched them
    assert any(e["type"] == "seat_resigned" and e["data"]["seat"] == 1 for e in events["events"])
    audit = httpx.get(f"{second}/v1/games/{game_id}/audit", timeout=30).json()
    assert audit["ok"] and audit["moves_ok"], audit["problems"]
