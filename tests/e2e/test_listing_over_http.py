"""End to end: the game listing and a player's history over HTTP, served from the projection, with one and
with two worker processes (each running its own projector over the one checkpoint)."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from typing import Any

import httpx
import pytest

from service.runtime.settings import PROJECT_ROOT
from tests.support.client_play import play_existing

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def create(http: httpx.AsyncClient, game: str, players: list[str]) -> dict[str, Any]:
    """POST /v1/games with these players; the answer."""
    response = await http.post("/v1/games", json={"game": game, "players": [{"name": n} for n in players]})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def pages(http: httpx.AsyncClient, url: str, limit: int) -> list[dict[str, Any]]:
    """Every entry of a cursor-paged listing, following ``next_cursor``."""
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"&cursor={cursor}" if cursor else ""
        response = await http.get(f"{url}{'&' if '?' in url else '?'}limit={limit}{query}")
        assert response.status_code == 200, response.text
        page = response.json()
        seen += page["games"]
        cursor = page["next_cursor"]
        if cursor is None:
            return seen


async def test_listing_and_player_history_over_http(any_server: str) -> None:
    tag = uuid.uuid4().hex[:8]
    players = [f"lister-{tag}-{i}" for i in range(3)]
    async with httpx.AsyncClient(base_url=any_server, timeout=30) as http:
        made = []
        for game in ("basari", "johari", "basari"):
            created = await create(http, game, players)
            made.append(created)
            # read-your-writes, whichever worker answers: the new game is listed at once
            listed = (await http.get(f"/v1/games?player={players[0]}&limit=1")).json()["games"]
            assert [g["game_id"] for g in listed] == [created["game_id"]]
        ids = [c["game_id"] for c in made]
        assert [g["game_id"] for g in await pages(http, f"/v1/games?player={players[1]}", 2)] == ids[::-1]
        basari = await pages(http, f"/v1/games?player={players[1]}&game=basari", 1)
        assert [g["game_id"] for g in basari] == [ids[2], ids[0]]

        final = await play_existing(
            http, ids[0], [seat["token"] for seat in made[0]["seats"]], seed=f"listing-{tag}"
        )
        finished = (await http.get(f"/v1/games?player={players[2]}&status=finished")).json()["games"]
        assert [(g["game_id"], g["status"], g["version"]) for g in finished] == [
            (ids[0], "finished", final["version"])
        ]
        assert finished[0]["result"] == final["result"]  # one Result: the game's, its note too
        active = await pages(http, f"/v1/games?player={players[2]}&status=active", 5)
        assert [g["game_id"] for g in active] == [ids[2], ids[1]]
        assert all(g["result"] is None for g in active)

        history = await pages(http, f"/v1/players/{players[2]}/games", 2)
        assert [(g["game_id"], g["seat"], g["status"]) for g in history] == [
            (ids[2], 2, "active"),
            (ids[1], 2, "active"),
            (ids[0], 2, "finished"),
        ]
        assert (history[2]["score"], history[2]["rank"]) == (
            final["result"]["scores"][2],
            final["result"]["ranks"][2],
        )
        assert (await http.get(f"/v1/players/{players[2]}/games?status=finished")).json()["games"][0][
            "game_id"
        ] == ids[0]

        bad = await http.get(f"/v1/players/{players[0]}/games?cursor=nonsense!")
        assert bad.status_code == 400 and bad.json()["code"] == "bad_cursor"
        assert (await http.get(f"/v1/players/{players[0]}/games?status=sleeping")).json()[
            "code"
        ] == "bad_status"


async def keep_playing(http: httpx.AsyncClient, game_id: str, tokens: list[str], stop: asyncio.Event) -> int:
    """Post the first legal entry of a pending seat, again and again until ``stop``; the moves made."""
    moves = 0
    while not stop.is_set():
        spectator = (await http.get(f"/v1/games/{game_id}")).json()
        if spectator["status"] == "finished":
            break
        seat = spectator["pending"][0]["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = (await http.get(f"/v1/games/{game_id}/legal", headers=auth)).json()
        response = await http.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=auth)
        assert response.status_code == 200, response.text
        moves += 1
    return moves


async def test_rebuild_command_while_the_server_serves(server_two_workers: str, database_url: str) -> None:
    """``python -m service projections rebuild`` runs while both workers serve and a game is being played;
    the listing afterwards holds every game, each at its latest version."""
    tag = uuid.uuid4().hex[:8]
    players = [f"rebuild-{tag}-{i}" for i in range(3)]
    async with httpx.AsyncClient(base_url=server_two_workers, timeout=30) as http:
        waiting = await create(http, "johari", players)
        played = await create(http, "basari", players)
        tokens = [seat["token"] for seat in played["seats"]]
        stop = asyncio.Event()
        playing = asyncio.create_task(keep_playing(http, played["game_id"], tokens, stop))
        rebuild = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "service",
            "projections",
            "rebuild",
            cwd=PROJECT_ROOT,
            env={**os.environ, "DATABASE_URL": database_url, "LOG_FORMAT": "json"},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await rebuild.communicate()
        stop.set()
        assert await playing > 0
        assert rebuild.returncode == 0, err.decode()
        assert b"rebuilding game projections" in err, "a progress bar on stderr"
        now = (await http.get(f"/v1/games/{played['game_id']}")).json()
        listed = await pages(http, f"/v1/games?player={players[0]}", 5)
        assert [(g["game_id"], g["status"], g["version"]) for g in listed] == [
            (played["game_id"], now["status"], now["version"]),
            (waiting["game_id"], "active", waiting["version"]),
        ]
