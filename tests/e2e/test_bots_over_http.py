"""Issue 13 over HTTP, against one and two server processes: the example external bot (examples/bot.py) signs
up, creates a game against the server's bot, follows its notification stream and plays from ``legal``; the
server's bot runners (one per process) answer; the game ends with one command per decision."""

from __future__ import annotations

import threading
import time
import uuid

import httpx

from examples.bot import Server, follow


def test_the_example_bot_plays_the_server_bot_to_the_end(any_server: str) -> None:
    """Sign up (kind bot), create {account: me} against {bot: "greedy"}, follow the stream until the end."""
    bot = Server(any_server)
    status, account = bot.call("POST", "/v1/accounts", {"name": f"ex-{uuid.uuid4().hex[:8]}", "kind": "bot"})
    assert status == 201, account
    bot.token = account["token"]
    body = {"game": "bazaar", "players": [{"account": "me"}, {"bot": "greedy"}]}
    status, created = bot.call("POST", "/v1/games", body)
    assert status == 201, created
    game_id = created["game_id"]
    threading.Thread(target=follow, args=(bot,), daemon=True).start()  # the example runs forever
    deadline = time.monotonic() + 300
    while True:
        game = httpx.get(f"{any_server}/v1/games/{game_id}", timeout=30).json()
        if game["status"] == "finished":
            break
        assert time.monotonic() < deadline, (
            f"the game is stuck at version {game['version']}: {game['pending']}"
        )
        time.sleep(0.5)
    exported = httpx.get(f"{any_server}/v1/games/{game_id}/events?limit=1000", timeout=30).json()
    assert exported["events"], "the finished game's events are public"
