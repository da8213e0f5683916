"""Games against bots over HTTP, for the e2e tests: people's seats played from ``legal`` (never
resigning) by the test, the other seats left to bots (the server's or an external one), waiting on the
game's live stream while a bot owes the decision."""

from __future__ import annotations

import random
import time
from typing import Any

import asyncpg
import httpx


def wait_past(base: str, game_id: str, version: int, seconds: float = 120) -> None:
    """Return once the game has an event after ``version`` (or is over): its live stream, resumed after that
    version, sends the next event's ``id:`` (or ``end``, or answers 204 for a finished game)."""
    headers = {"Accept": "text/event-stream", "Last-Event-ID": str(version)}
    with httpx.stream("GET", f"{base}/v1/games/{game_id}/stream", headers=headers, timeout=seconds) as stream:
        for line in stream.iter_lines():
            if line.startswith("id:") or line == "event: end":
                return


def play_people(
    base: str, game_id: str, tokens: list[str], prefer: tuple[str, ...] = (), seconds: float = 600
) -> dict[str, Any]:
    """Play the seats of ``tokens`` (a random legal entry that is not ``resign``, seeded by the game, among those
    whose ``type`` is in ``prefer`` when there are any: a random Bazaar player who buys ends the game) until the
    game is over, waiting for the bots' moves on the live stream (and for a lobby game to start); the final public
    detail."""
    deadline = time.monotonic() + seconds
    chooser = random.Random(game_id)
    while True:
        response = httpx.get(f"{base}/v1/games/{game_id}", timeout=30)
        assert time.monotonic() < deadline, f"stuck: {response.text}"
        if response.status_code == 409:  # still in the lobby: an invited bot has not joined yet
            time.sleep(0.1)
            continue
        game: dict[str, Any] = response.json()
        if game["status"] == "finished":
            return game
        moved = False
        for token in tokens:
            auth = {"Authorization": f"Bearer {token}"}
            mine = httpx.get(f"{base}/v1/games/{game_id}", headers=auth, timeout=30).json()
            legal = [command for command in mine["legal"] if command["type"] != "resign"]
            legal = [command for command in legal if command["type"] in prefer] or legal
            if legal and mine["status"] == "active":
                headers = {**auth, "If-Match": f'"{mine["version"]}"'}
                posted = httpx.post(
                    f"{base}/v1/games/{game_id}/commands",
                    json=chooser.choice(legal),
                    headers=headers,
                    timeout=30,
                )
                assert posted.status_code in (200, 412), posted.text  # 412: a bot moved meanwhile
                moved = True
        if not moved:
            wait_past(base, game_id, game["version"])


async def commands_by_key(database_url: str, game_id: str) -> list[tuple[int, str]]:
    """(version, idempotency key) of each stored command of the game (on the first event of its append: the
    version the command was decided on is one less), in order."""
    connection = await asyncpg.connect(database_url)
    try:
        rows = await connection.fetch(
            "SELECT version, command_id FROM events WHERE stream_id = $1 AND cause IS NOT NULL ORDER BY version",
            game_id,
        )
    finally:
        await connection.close()
    return [(row["version"], row["command_id"] or "") for row in rows]
