"""End to end, B-12 / Z-15 / J-18: while a duplicate round plays, a table's game is readable by its own seats
only. A spectator, and a player of the round's other table (by his seat token or as a browser's ambient
session), is refused on every read path (view, legal, events, state, score sheet, audit, export, stream, the
HTML game and replay pages), and the listing and the tournament's results keep a finished table's result to
themselves; once every table has finished, everything is public."""

from __future__ import annotations

import random
import uuid
from typing import Any

import httpx
import pytest

from tests.support.client_play import play_existing

pytestmark = [pytest.mark.e2e, pytest.mark.db]

NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"]
JSON, NDJSON, CSV, SSE, HTML = (
    "application/json",
    "application/x-ndjson",
    "text/csv",
    "text/event-stream",
    "text/html",
)
# (path under /v1/games/{id} or the page's, Accept): every way to read a game
READS = [
    ("/v1/games/{id}", JSON),
    ("/v1/games/{id}/legal", JSON),
    ("/v1/games/{id}/events", JSON),
    ("/v1/games/{id}/events", NDJSON),
    ("/v1/games/{id}/state?at=1", JSON),
    ("/v1/games/{id}/scoresheet", JSON),
    ("/v1/games/{id}/scoresheet", CSV),
    ("/v1/games/{id}/audit", JSON),
    ("/v1/games/{id}/export", JSON),
    ("/v1/games/{id}/stream", SSE),
    ("/games/{id}", HTML),
    ("/games/{id}/replay", HTML),
]


async def status_of(
    http: httpx.AsyncClient, path: str, accept: str, headers: dict[str, str]
) -> httpx.Response:
    """The answer's status line and head (a stream is closed as soon as its head is read)."""
    async with http.stream("GET", path, headers={"Accept": accept, **headers}) as response:
        if response.status_code != 200 or accept != SSE:
            await response.aread()
        return response


async def assert_refused(http: httpx.AsyncClient, game_id: str, headers: dict[str, str], code: str) -> None:
    """Every read path of the game answers 403 with ``code`` (problem+json for API clients)."""
    for template, accept in READS:
        path = template.format(id=game_id)
        response = await status_of(http, path, accept, headers)
        assert response.status_code == 403, (path, accept, response.status_code, response.text)
        if accept != HTML:
            assert response.headers["content-type"].startswith("application/problem+json"), path
            assert response.json()["code"] == code, (path, response.json())


async def play_some(http: httpx.AsyncClient, game_id: str, tokens: list[str], moves: int) -> None:
    """Post ``moves`` legal commands (no resignation) from pending seats."""
    chooser = random.Random(game_id)
    for _ in range(moves):
        seat = chooser.choice(
            (await http.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()["pending"]
        )["seat"]
        mine = (await http.get(f"/v1/games/{game_id}", headers=bearer(tokens[seat]))).json()
        command = chooser.choice([entry for entry in mine["legal"] if entry["type"] != "resign"])
        posted = await http.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
        assert posted.status_code == 200, posted.text


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a token."""
    return {"Authorization": f"Bearer {token}"}


async def test_a_running_duplicate_table_is_read_by_its_own_seats_only(http: httpx.AsyncClient) -> None:
    body: dict[str, Any] = {
        "name": "Duplicate cup",
        "game": "basari",
        "players": [{"name": n} for n in NAMES],
        "rounds": 1,
        "table_size": 3,
        "duplicate": True,
        "seed": f"duplicate-{uuid.uuid4().hex}",
    }
    created = (await http.post("/v1/tournaments", json=body)).json()
    tid, organizer = created["tournament_id"], bearer(created["organizer_token"])
    tokens = {p["name"]: p["token"] for p in created["players"]}
    seated = await http.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert seated.status_code == 201, seated.text
    ahead, behind = seated.json()["tables"]
    ahead_tokens = [tokens[s["name"]] for s in ahead["seats"]]
    behind_tokens = [tokens[s["name"]] for s in behind["seats"]]
    game = ahead["game_id"]
    await play_some(http, game, ahead_tokens, 6)

    await assert_refused(http, game, {}, "duplicate_round_running")  # a spectator
    # the table behind: its player's token is no seat of this game; as a browser's session it reads as nobody
    await assert_refused(http, game, bearer(behind_tokens[0]), "not_a_seat_token")
    await assert_refused(http, game, {"Cookie": f"session={behind_tokens[0]}"}, "duplicate_round_running")
    for template, accept in READS:  # the table's own seat reads its own game
        if accept == HTML or template.endswith("/export"):
            continue  # a page reads its session only; an export waits for the end
        path = template.format(id=game)
        response = await status_of(http, path, accept, bearer(ahead_tokens[0]))
        assert response.status_code == 200, (path, response.text)

    await play_existing(
        http, game, ahead_tokens, seed=game, watch_as_seat=True
    )  # the table ahead finishes; the other plays on
    await assert_refused(http, game, {}, "duplicate_round_running")
    listed = (await http.get("/v1/games", params={"tournament": tid})).json()["games"]
    assert {g["game_id"]: (g["status"], g["result"]) for g in listed}[game] == ("finished", None)
    assert (await http.get(f"/v1/tournaments/{tid}/results")).json() == []
    assert all(row["games"] == 0 for row in (await http.get(f"/v1/tournaments/{tid}/standings")).json())
    seat_view = (await http.get(f"/v1/games/{game}", headers=bearer(ahead_tokens[1]))).json()
    assert seat_view["status"] == "finished" and seat_view["you"] == 1

    await play_existing(http, behind["game_id"], behind_tokens, seed=behind["game_id"], watch_as_seat=True)
    for table in (ahead, behind):  # every table finished: the round's games are public
        for template, accept in READS:
            path = template.format(id=table["game_id"])
            response = await status_of(http, path, accept, {})
            assert response.status_code in (200, 204), (path, response.text)
    assert len((await http.get(f"/v1/tournaments/{tid}/results")).json()) == 2
