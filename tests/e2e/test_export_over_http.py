"""End to end: play a game over HTTP, export it, and re-verify the file with ``python -m service verify`` in a
subprocess (no database); every kind of tampering makes the command fail and name the problem."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.runtime.settings import PROJECT_ROOT
from tests.support.client_play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    """Run the offline verifier on ``path`` without any database configured."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "service", "verify", str(path)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _change_event_data(document: dict[str, Any]) -> None:
    """Give the first number field of a mid-game event (the 21st or a later one) another value."""
    numbers = (
        (event["data"], key)
        for event in document["events"][20:]
        for key, value in event["data"].items()
        if isinstance(value, int) and not isinstance(value, bool)
    )
    data, key = next(numbers)
    data[key] += 1


def _change_hash(document: dict[str, Any]) -> None:
    """Replace one event's hash."""
    document["events"][10]["hash"] = "f" * 64


def _change_seed(document: dict[str, Any]) -> None:
    """Claim another seed."""
    document["seed"] += "x"


def _change_result(document: dict[str, Any]) -> None:
    """Give seat 0 another score."""
    document["result"]["scores"][0] += 1


def _remove_event(document: dict[str, Any]) -> None:
    """Leave out one event."""
    del document["events"][30]


TAMPERINGS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("event-data", _change_event_data, "does not match its hash"),
    ("hash", _change_hash, "chain_broken: at version 11: version 11 does not match its hash"),
    ("seed", _change_seed, "seed_mismatch: the seed does not match the published commitment"),
    ("result", _change_result, "result_mismatch: the result does not follow from the events"),
    (
        "removed-event",
        _remove_event,
        "chain_broken: at version 31: version 31 is missing (found 32 next)",
    ),
]


async def test_an_exported_game_verifies_offline_and_any_tampering_fails(
    any_server: str, tmp_path: Path
) -> None:
    async with httpx.AsyncClient(base_url=any_server, timeout=30) as http:
        played = await play_to_end(http, "basari", 3, seed=f"e2e-export-{any_server}")
        exported = await http.get(f"/v1/games/{played.game_id}/export")
    assert exported.status_code == 200, exported.text
    original = tmp_path / "game.json"
    original.write_bytes(exported.content)

    ok = verify(original)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count("\n") == 1 and "OK" in ok.stdout and played.game_id in ok.stdout

    document = json.loads(exported.content)
    reformatted = tmp_path / "reformatted.json"
    reformatted.write_text(json.dumps(document, indent=2))  # layout is not content: still verifies
    assert verify(reformatted).returncode == 0
    for name, tamper, expected in TAMPERINGS:
        changed = copy.deepcopy(document)
        tamper(changed)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(changed))
        failed = verify(path)
        assert failed.returncode == 1, (name, failed.stdout)
        first_line = failed.stderr.splitlines()[0]
        assert "FAILED" in first_line and expected in first_line, (name, failed.stderr)
