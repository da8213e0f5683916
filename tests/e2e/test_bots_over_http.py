"""Bots over HTTP, against one and two server processes: the server's bot runners play a bot seat
against an HTTP client to the end of the game."""

from __future__ import annotations

import random
import time
import uuid

import httpx


def finished(base: str, game_id: str, seconds: float = 300) -> dict[str, object]:
    """Wait until the game is over; its public detail."""
    deadline = time.monotonic() + seconds
    while True:
        game = httpx.get(f"{base}/v1/games/{game_id}", timeout=30).json()
        if game["status"] == "finished":
            return dict(game)
        assert time.monotonic() < deadline, f"stuck at version {game['version']}: {game['pending']}"
        time.sleep(0.5)


def test_the_server_bot_answers_a_client_to_the_end(any_server: str) -> None:
    """A hot-seat client plays seat 0 from ``legal``; the runners of every process play the greedy seat."""
    body = {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "greedy"}], "seed": uuid.uuid4().hex}
    created = httpx.post(f"{any_server}/v1/games", json=body, timeout=30).json()
    game_id, token = created["game_id"], created["seats"][0]["token"]
    assert created["seats"][1]["name"] == "greedy-bazaar"
    chooser = random.Random(1)
    auth = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        game = httpx.get(f"{any_server}/v1/games/{game_id}", headers=auth, timeout=30).json()
        if game["status"] == "finished":
            break
        legal = [command for command in game["legal"] if command["type"] != "resign"]  # play to the end
        if legal:
            headers = {**auth, "If-Match": f'"{game["version"]}"'}
            httpx.post(
                f"{any_server}/v1/games/{game_id}/commands",
                json=chooser.choice(legal),
                headers=headers,
                timeout=30,
            )
        else:
            time.sleep(0.05)  # the bot's turn
    assert finished(any_server, game_id, 1)["status"] == "finished"
