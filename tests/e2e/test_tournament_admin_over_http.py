"""End to end: tournaments with players who go silent complete every round on two server processes.

Untimed by the organizer's hand: the organizer withdraws a silent player (the stand-in plays their seat to the
end), lets a late entry in, adjudicates a game stalled by another silent player, and withdraws that one before
the last round. Timed: with one-second clocks a player who never answers is timed out by the servers' clock
schedulers until the stand-in has their seat. Either way every round closes by itself, and the standings are
recomputed here from the results export and the overview alone. The servers run on a database of their own:
nobody else's games, bots or clocks act on these.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.databases import fresh_database

pytestmark = [pytest.mark.e2e, pytest.mark.db]

PLAYERS = [f"P{i}" for i in range(1, 8)]  # 7 Basari players at a preferred 3: tables of 4 and 3
SILENT, GHOST, LATE = "P1", "P2", "Late"
MAX_COMMANDS = 20_000


@pytest.fixture(scope="module")
async def http(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    """A client of a two-process server on a database of its own."""
    log: Path = tmp_path_factory.mktemp("tadmin") / "server.log"
    async with fresh_database(server_url) as url:
        process, base = start_server(url, workers=2, log_file=log)
        try:
            async with httpx.AsyncClient(base_url=base, timeout=60) as client:
                yield client
        finally:
            process.terminate()
            process.wait(10)


async def play(
    http: httpx.AsyncClient, game_id: str, tokens: dict[int, str], silent: set[int], seed: str
) -> dict[str, Any]:
    """Play a game with random legal commands (never resigning) for every seat but the silent ones, until it
    ends or only silent seats owe a decision; the game's detail then."""
    chooser = random.Random(seed)
    for _ in range(MAX_COMMANDS):
        detail: dict[str, Any] = (await http.get(f"/v1/games/{game_id}")).json()
        due = [p["seat"] for p in detail["pending"] if p["seat"] not in silent]
        if detail["status"] == "finished" or not due:
            return detail
        seat = chooser.choice(due)
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = (await http.get(f"/v1/games/{game_id}", headers=auth)).json()
        legal = [entry for entry in mine["legal"] if entry["type"] != "resign"]
        response = await http.post(f"/v1/games/{game_id}/commands", json=chooser.choice(legal), headers=auth)
        assert response.status_code == 200, response.text
    raise AssertionError("game did not end")


def recompute(results: list[dict[str, Any]], players: list[str], withdrawn: set[str]) -> list[dict[str, Any]]:
    """The standings from the results rows alone (docs/api.md, "Administration"): pairwise points, Buchholz,
    first places; equal on all three share a rank; no byes in this tournament."""
    points: dict[str, float] = defaultdict(float)
    firsts: dict[str, int] = defaultdict(int)
    games: dict[str, int] = defaultdict(int)
    met: dict[str, list[str]] = defaultdict(list)
    for row in results:
        for me in row["seats"]:
            games[me["name"]] += 1
            firsts[me["name"]] += me["rank"] == 1
            for other in row["seats"]:
                if other is not me:
                    met[me["name"]].append(other["name"])
                    points[me["name"]] += (
                        1.0 if me["rank"] < other["rank"] else 0.5 if me["rank"] == other["rank"] else 0
                    )
    buchholz = {name: sum(points[o] for o in met[name]) for name in players}

    def key(name: str) -> tuple[float, float, int]:
        return (-points[name], -buchholz[name], -firsts[name])

    ordered = sorted(players, key=lambda name: (key(name), name))
    rows: list[dict[str, Any]] = []
    for index, name in enumerate(ordered):
        shared = index > 0 and key(name) == key(ordered[index - 1])
        rows.append(
            {
                "rank": rows[-1]["rank"] if shared else index + 1,
                "name": name,
                "points": points[name],
                "buchholz": buchholz[name],
                "firsts": firsts[name],
                "games": games[name],
                "byes": 0,
                "withdrawn": name in withdrawn,
            }
        )
    return rows


async def create_tournament(
    http: httpx.AsyncClient, name: str, players: list[str], rounds: int, **more: Any
) -> tuple[str, dict[str, str], dict[str, str]]:
    """A Basari tournament at a preferred table size of 3: its id, the organizer's header, player tokens."""
    body = {
        "name": name,
        "game": "basari",
        "players": [{"name": n} for n in players],
        "rounds": rounds,
        "table_size": 3,
        "seed": name,
        **more,
    }
    response = await http.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    organizer = {"Authorization": f"Bearer {created['organizer_token']}"}
    return created["tournament_id"], organizer, {p["name"]: p["token"] for p in created["players"]}


async def test_a_tournament_with_silent_players_completes_every_round(http: httpx.AsyncClient) -> None:
    tid, organizer, tokens = await create_tournament(
        http,
        "Silent cup",
        PLAYERS,
        rounds=3,
        untimed=True,  # the organizer's hand only: no clock acts
    )

    async def seat(number: int) -> dict[str, Any]:
        response = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
        assert response.status_code == 201, response.text
        seated: dict[str, Any] = response.json()
        assert seated["round"] == number
        return seated

    async def play_round(seated: dict[str, Any], silent: set[str]) -> list[dict[str, Any]]:
        """Play every table, the silent players never acting; the tables left stalled."""
        stalled = []
        for table in seated["tables"]:
            seats = {s["seat"]: tokens.get(s["name"], "") for s in table["seats"]}
            quiet = {s["seat"] for s in table["seats"] if s["name"] in silent}
            detail = await play(
                http, table["game_id"], seats, quiet, seed=f"{seated['round']}-{table['table']}"
            )
            if detail["status"] != "finished":
                stalled.append(table)
        return stalled

    # round 1: SILENT stops answering; their game stalls until the organizer withdraws them
    first = await seat(1)
    stalled = await play_round(first, {SILENT})
    assert len(stalled) == 1 and SILENT in {s["name"] for s in stalled[0]["seats"]}
    early = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert early.status_code == 409 and early.json()["code"] == "round_in_progress"
    response = await http.post(f"/v1/tournaments/{tid}/withdrawals", json={"name": SILENT}, headers=organizer)
    assert response.status_code == 200, response.text
    assert await play_round({"round": 1, "tables": stalled}, {SILENT}) == []  # the stand-in plays their seat
    overview = (await http.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "ready" and overview["schedule"][0]["closed"]  # closed by itself

    # a late entry before round 2 is seated; GHOST goes silent and their game is adjudicated
    response = await http.post(f"/v1/tournaments/{tid}/entries", json={"name": LATE}, headers=organizer)
    assert response.status_code == 201, response.text
    tokens[LATE] = response.json()["token"]
    second = await seat(2)
    names = sorted(s["name"] for t in second["tables"] for s in t["seats"])
    assert names == sorted({*PLAYERS, LATE} - {SILENT})
    stalled = await play_round(second, {GHOST})
    assert len(stalled) == 1
    response = await http.post(
        f"/v1/tournaments/{tid}/adjudications", json={"game_id": stalled[0]["game_id"]}, headers=organizer
    )
    assert response.status_code == 200, response.text
    assert response.json()["adjudicated"] is True
    assert (await http.get(f"/v1/tournaments/{tid}")).json()["schedule"][1]["closed"]

    # GHOST is withdrawn before the last round; it seats the six left
    response = await http.post(f"/v1/tournaments/{tid}/withdrawals", json={"name": GHOST}, headers=organizer)
    assert response.status_code == 200, response.text
    third = await seat(3)
    assert sorted(s["name"] for t in third["tables"] for s in t["seats"]) == sorted(
        {*PLAYERS, LATE} - {SILENT, GHOST}
    )
    assert await play_round(third, set()) == []

    overview = (await http.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "completed" and overview["withdrawn"] == [SILENT, GHOST]
    assert overview["entered"] == [LATE]
    export = await http.get(f"/v1/tournaments/{tid}/results", headers={"Accept": "application/x-ndjson"})
    results = [json.loads(line) for line in export.text.splitlines()]
    assert len(results) == sum(len(r["tables"]) for r in (first, second, third))
    assert [r["adjudicated"] for r in results].count(True) == 1
    standings = (await http.get(f"/v1/tournaments/{tid}/standings")).json()
    assert standings == recompute(results, overview["players"], set(overview["withdrawn"]))
    # the withdrawn SILENT resigned in round 1: ranked below every seat still playing there
    row = next(r for r in results if r["round"] == 1 and SILENT in {s["name"] for s in r["seats"]})
    seats = row["seats"]
    assert next(s["rank"] for s in seats if s["name"] == SILENT) == len(seats)


async def play_timed(
    http: httpx.AsyncClient, game_id: str, tokens: dict[int, str], silent: set[int], seed: str
) -> None:
    """Play a timed game to its end, the silent seats never answering (the servers' clock schedulers time
    them out); an answer the game refuses because a timeout moved it first is simply chosen again."""
    chooser = random.Random(seed)
    deadline = time.monotonic() + 600
    while True:
        assert time.monotonic() < deadline, f"game {game_id} did not end"
        detail = (await http.get(f"/v1/games/{game_id}")).json()
        if detail["status"] == "finished":
            return
        due = [p["seat"] for p in detail["pending"] if p["seat"] not in silent]
        if not due:
            await asyncio.sleep(0.2)  # waiting for a silent seat's deadline
            continue
        seat = chooser.choice(due)
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = (await http.get(f"/v1/games/{game_id}", headers=auth)).json()
        legal = [entry for entry in mine["legal"] if entry["type"] != "resign"]
        if not legal:
            continue  # timed out meanwhile, or resigned after its timeouts: the stand-in has the seat
        headers = {**auth, "If-Match": f'"{mine["version"]}"'}
        answer = await http.post(f"/v1/games/{game_id}/commands", json=chooser.choice(legal), headers=headers)
        # 412: a timeout moved the game first; 409/422: it ended, or the seat ran out of time meanwhile
        assert answer.status_code in (200, 409, 412, 422), answer.text


async def test_a_timed_tournament_with_a_seat_that_never_answers_completes_every_round(
    http: httpx.AsyncClient,
) -> None:
    """One-second clocks (with a small bank for a loaded machine's pauses): SILENT never answers and is
    never withdrawn; the clock schedulers of the two processes time them out until the stand-in plays
    their seat, every game ends, every round closes by itself and the standings match a recomputation."""
    players = [f"T{i}" for i in range(1, 7)]
    silent = players[0]
    tid, organizer, tokens = await create_tournament(
        http, "Timed cup", players, rounds=2, clock={"decision_seconds": 1, "bank_seconds": 10}
    )
    silent_games = []
    for number in (1, 2):
        response = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
        assert response.status_code == 201, response.text
        seated = response.json()
        await asyncio.gather(
            *(
                play_timed(
                    http,
                    table["game_id"],
                    {s["seat"]: tokens[s["name"]] for s in table["seats"]},
                    {s["seat"] for s in table["seats"] if s["name"] == silent},
                    seed=f"timed-{number}-{table['table']}",
                )
                for table in seated["tables"]
            )
        )
        silent_games += [
            (t["game_id"], next(s["seat"] for s in t["seats"] if s["name"] == silent))
            for t in seated["tables"]
            if silent in {s["name"] for s in t["seats"]}
        ]
        overview = (await http.get(f"/v1/tournaments/{tid}")).json()
        assert overview["schedule"][number - 1]["closed"]  # closed by itself
    assert overview["status"] == "completed"
    for game_id, seat in silent_games:
        events = (await http.get(f"/v1/games/{game_id}/events", params={"limit": 10000})).json()["events"]
        assert any(e["type"] == "seat_timed_out" and e["data"]["seat"] == seat for e in events)
    results = (await http.get(f"/v1/tournaments/{tid}/results")).json()
    assert len(results) == 4 and not any(r["adjudicated"] for r in results)
    standings = (await http.get(f"/v1/tournaments/{tid}/standings")).json()
    assert standings == recompute(results, players, set())
