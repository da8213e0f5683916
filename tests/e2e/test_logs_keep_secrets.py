"""Logs: one JSON line per request and per command (game id, seat, version), and never a secret."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.support.client_play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_logs_name_commands_but_never_tokens_or_seeds(
    http: httpx.AsyncClient, server_log: Path
) -> None:
    seed = "log-check-seed-5e1f"
    played = await play_to_end(http, "basari", 3, seed=seed)
    lines = [json.loads(line) for line in server_log.read_text().splitlines() if line.startswith("{")]
    commands = [
        line
        for line in lines
        if line.get("event") == "command_accepted" and line["game_id"] == played.game_id
    ]
    assert len(commands) == played.commands
    assert all({"seat", "version", "request_id"} <= set(line) for line in commands)
    assert any(line.get("event") == "request" and line.get("status") == 200 for line in lines)
    text = server_log.read_text()
    for secret in [seed, *played.tokens]:
        assert secret not in text, "a secret reached the log"
