"""End to end: a whole Basari tournament on the real server, games played by clients posting only ``legal``.

The standings are recomputed here from the results export alone and compared with the server's.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import time
from collections import defaultdict
from typing import Any

import httpx
import pytest

from tests.support.client_play import play_existing

pytestmark = [pytest.mark.e2e, pytest.mark.db]

PLAYERS = [f"P{i:02d}" for i in range(1, 12)]  # 11 players: tables of 4, 4 and 3
ROUNDS = 3


def expected_standings(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Standings from the finished games alone: pairwise points (1 per opponent ranked below, 1/2 per tie),
    Buchholz (the points of every opponent, once per game met), first places; equal on all three share a rank.
    """
    points: dict[str, float] = defaultdict(float)
    firsts: dict[str, int] = defaultdict(int)
    games: dict[str, int] = defaultdict(int)
    met: dict[str, list[str]] = defaultdict(list)
    for row in results:
        for me in row["seats"]:
            games[me["name"]] += 1
            firsts[me["name"]] += me["rank"] == 1
            for other in row["seats"]:
                if other["name"] == me["name"]:
                    continue
                met[me["name"]].append(other["name"])
                if me["rank"] < other["rank"]:
                    points[me["name"]] += 1
                elif me["rank"] == other["rank"]:
                    points[me["name"]] += 0.5
    buchholz = {name: sum(points[o] for o in met[name]) for name in PLAYERS}

    def key(name: str) -> tuple[float, float, int]:
        return (-points[name], -buchholz[name], -firsts[name])

    ordered = sorted(PLAYERS, key=lambda name: (key(name), name))
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
                "withdrawn": False,
            }
        )
    return rows


async def test_an_eleven_player_basari_tournament_over_http(http: httpx.AsyncClient) -> None:
    started = time.perf_counter()
    response = await http.post(
        "/v1/tournaments",
        json={
            "name": "E2E open",
            "game": "basari",
            "players": [{"name": n} for n in PLAYERS],
            "rounds": ROUNDS,
            "seed": "e2e-open",
        },
    )
    assert response.status_code == 201, response.text
    created = response.json()
    tid = created["tournament_id"]
    organizer = {"Authorization": f"Bearer {created['organizer_token']}"}
    tokens = {p["name"]: p["token"] for p in created["players"]}

    game_ids: list[str] = []
    for round_number in range(1, ROUNDS + 1):
        response = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
        assert response.status_code == 201, response.text
        seated = response.json()
        assert seated["round"] == round_number
        assert sorted(len(t["seats"]) for t in seated["tables"]) == [3, 4, 4]
        assert sorted(s["name"] for t in seated["tables"] for s in t["seats"]) == PLAYERS
        early = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
        assert early.status_code == 409 and early.json()["code"] == "round_in_progress"
        await asyncio.gather(
            *(
                play_existing(
                    http,
                    table["game_id"],
                    [tokens[seat["name"]] for seat in table["seats"]],
                    seed=f"{round_number}-{table['table']}",
                )
                for table in seated["tables"]
            )
        )
        game_ids.extend(t["game_id"] for t in seated["tables"])

    overview = (await http.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "completed" and overview["current_round"] == ROUNDS
    assert overview["seed"] == "e2e-open"  # revealed once the tournament is completed, not before
    done = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert done.status_code == 409 and done.json()["code"] == "tournament_complete"

    listed = (await http.get("/v1/games", params={"tournament": tid, "limit": 50})).json()["games"]
    assert {g["game_id"] for g in listed} == set(game_ids)
    assert all(g["status"] == "finished" for g in listed)

    export = await http.get(f"/v1/tournaments/{tid}/results", headers={"Accept": "application/x-ndjson"})
    assert export.status_code == 200
    results = [json.loads(line) for line in export.text.splitlines()]
    assert len(results) == len(game_ids) == 9
    assert results == (await http.get(f"/v1/tournaments/{tid}/results")).json()
    for row in results:
        audit = (await http.get(f"/v1/games/{row['game_id']}/audit")).json()
        assert audit["ok"] and audit["head_hash"] == row["audit_head"]

    standings = (await http.get(f"/v1/tournaments/{tid}/standings")).json()
    assert standings == expected_standings(results)
    as_csv = await http.get(f"/v1/tournaments/{tid}/standings", headers={"Accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert [(r["name"], float(r["points"]), float(r["buchholz"])) for r in rows] == [
        (s["name"], s["points"], s["buchholz"]) for s in standings
    ]
    # a tournament of token players (no accounts) is never rated (rated means accounts)
    ratings = (await http.get("/v1/ratings/basari?limit=200")).json()["players"]
    assert not [row for row in ratings if row["name"] in PLAYERS]
    print(f"tournament of {len(PLAYERS)} players, {ROUNDS} rounds in {time.perf_counter() - started:.1f}s")
