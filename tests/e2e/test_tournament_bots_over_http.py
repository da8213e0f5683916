"""The server's bots in account tournaments, over real HTTP: a bot invited to a tournament of its game is
registered at once, its seat is played by the server's bot runner once the round is seated, and the
tournament completes; a bot invited to a tournament of another game is refused and nothing is created, and
so are as many bots as could fill a table by themselves."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.support.accounts import account, bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]

BOT = "random-bazaar"  # the server's built-in bot account of that level and game (migration 0013)


def tournament_body(game: str, players: list[dict[str, Any]]) -> dict[str, Any]:
    """An unrated (chosen seed), untimed one-round account tournament of ``game``."""
    return {
        "name": f"cup {uuid.uuid4().hex[:6]}",
        "game": game,
        "players": players,
        "rounds": 1,
        "seed": uuid.uuid4().hex,
        "untimed": True,
    }


async def play_until_finished(http: httpx.AsyncClient, game_id: str, token: str) -> dict[str, Any]:
    """Play the account's seat with random legal commands (never resign) until the game is over; the bot
    runner plays the other seat. Its final detail."""
    chooser = random.Random(7)
    deadline = time.monotonic() + 300
    while True:
        game: dict[str, Any] = (await http.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
        if game["status"] == "finished":
            return game
        assert time.monotonic() < deadline, f"stuck at version {game['version']}: {game['pending']}"
        legal = [command for command in game["legal"] if command["type"] != "resign"]
        if legal:
            await http.post(
                f"/v1/games/{game_id}/commands",
                json=chooser.choice(legal),
                headers={**bearer(token), "If-Match": f'"{game["version"]}"'},
            )
        else:
            await asyncio.sleep(0.05)  # the bot runner's decision: look again


async def test_an_invited_bot_accepts_at_once_and_plays_its_tournament_games(http: httpx.AsyncClient) -> None:
    organizer, token = await account(http, "org")
    created = await http.post(
        "/v1/tournaments",
        json=tournament_body("bazaar", [{"account": "me"}, {"invite": BOT}]),
        headers=bearer(token),
    )
    assert created.status_code == 201, created.text
    tournament_id, organizer_token = created.json()["tournament_id"], created.json()["organizer_token"]

    registration = (await http.get(f"/v1/tournaments/{tournament_id}/registration")).json()
    assert {e["name"]: e["status"] for e in registration["entries"]} == {organizer: "joined", BOT: "joined"}

    seated = await http.post(f"/v1/tournaments/{tournament_id}/rounds", headers=bearer(organizer_token))
    assert seated.status_code == 201, seated.text
    (table,) = seated.json()["tables"]
    assert sorted(s["name"] for s in table["seats"]) == sorted([organizer, BOT])

    # untimed, and nobody resigns: the game ends only if the bot runner plays the bot's every turn
    game = await play_until_finished(http, table["game_id"], token)
    assert game["result"] is not None and game["status"] == "finished"

    deadline = time.monotonic() + 30
    while (overview := (await http.get(f"/v1/tournaments/{tournament_id}")).json())["status"] != "completed":
        assert time.monotonic() < deadline, overview["status"]
        await http.get(f"/v1/tournaments/{tournament_id}/standings")  # a read waits for the results worker
    standings = (await http.get(f"/v1/tournaments/{tournament_id}/standings")).json()
    assert sorted(row["name"] for row in standings) == sorted([organizer, BOT])
    assert [row["games"] for row in standings] == [1, 1]


async def test_a_bot_invited_to_another_games_tournament_is_refused(http: httpx.AsyncClient) -> None:
    _, token = await account(http, "org")
    before = (await http.get("/v1/me/games", headers=bearer(token))).json()
    refused = await http.post(
        "/v1/tournaments",
        json=tournament_body("johari", [{"account": "me"}, {"invite": BOT}]),
        headers=bearer(token),
    )
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "bot_plays_another_game"
    assert (await http.get("/v1/me/games", headers=bearer(token))).json() == before


async def test_a_tournament_never_seats_the_servers_bots_alone(http: httpx.AsyncClient) -> None:
    """Johari's tables seat two or more: two of the server's bots could fill one with nobody to pace it."""
    _, token = await account(http, "org")
    before = (await http.get("/v1/me/games", headers=bearer(token))).json()
    players = [{"account": "me"}, {"invite": "random-johari"}, {"invite": "greedy-johari"}]
    refused = await http.post(
        "/v1/tournaments", json=tournament_body("johari", players), headers=bearer(token)
    )
    assert refused.status_code == 422 and refused.json()["code"] == "too_many_bots", refused.text
    assert (await http.get("/v1/me/games", headers=bearer(token))).json() == before
    one = await http.post(
        "/v1/tournaments", json=tournament_body("johari", players[:2]), headers=bearer(token)
    )
    assert one.status_code == 201, one.text
