"""A restart mid-game resumes the bots: the server process is killed (SIGKILL) while its bot owes a
decision; a new process takes the decision up on start (nothing new is appended to wake it) and the game
plays to its end with exactly one move per bot decision.

The server runs on a database of its own, so no other process's bot runner plays the game."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.bot_games import commands_by_key, play_people
from tests.support.databases import fresh_database

pytestmark = [pytest.mark.e2e, pytest.mark.db]

# the first process's strong bot thinks for ten minutes: it is surely still thinking when it is killed
THINKING_FOREVER = {"BOT_THINK_SECONDS": "600", "BOT_ITERATIONS": "1000000000"}
THINKING_BRIEFLY = {"BOT_THINK_SECONDS": "0.2", "BOT_ITERATIONS": "8"}


async def test_a_new_process_resumes_the_bot_decision_a_killed_one_was_thinking_about(
    server_url: str, tmp_path: Path
) -> None:
    async with fresh_database(server_url) as database:
        process, base = start_server(database, log_file=tmp_path / "before.log", settings=THINKING_FOREVER)
        try:
            body = {"game": "johari", "players": [{"name": "Ada"}, {"bot": "strong"}], "seed": "restart"}
            created = httpx.post(f"{base}/v1/games", json=body, timeout=30).json()
            game_id, token = created["game_id"], created["seats"][0]["token"]
            auth = {"Authorization": f"Bearer {token}"}
            while True:  # Ada plays until only the bot owes a decision
                game = httpx.get(f"{base}/v1/games/{game_id}", headers=auth, timeout=30).json()
                legal = [c for c in game["legal"] if c["type"] != "resign"]
                if not legal:
                    break
                posted = httpx.post(
                    f"{base}/v1/games/{game_id}/commands", json=legal[0], headers=auth, timeout=30
                )
                assert posted.status_code == 200, posted.text
            assert [p["seat"] for p in game["pending"]] == [1] and game["status"] == "active"
            at_kill = game["version"]
            process.kill()  # SIGKILL: the bot's search dies with the process, nothing is appended
            process.wait(10)
        finally:
            if process.poll() is None:
                process.kill()
        assert not [key for _, key in await commands_by_key(database, game_id) if ":bot-v" in key]

        process, base = start_server(database, log_file=tmp_path / "after.log", settings=THINKING_BRIEFLY)
        try:
            final = play_people(base, game_id, [token])
        finally:
            process.terminate()
            process.wait(10)
        assert final["status"] == "finished"
        commands = await commands_by_key(database, game_id)
        by_bot = [(version, key) for version, key in commands if ":bot-v" in key]
        assert by_bot[0] == (at_kill + 1, f"1:bot-v{at_kill}"), "the pending decision was taken up first"
        for version, key in by_bot:  # each bot command was appended right after the version it decided on
            assert key == f"1:bot-v{version - 1}"
