"""`make bench`, clocks: how late a deadline is acted on, with two server processes.

On a fresh database, two server processes (each with its clock scheduler) serve ``BENCH_CLOCK_GAMES``
(default 40 x BENCH_SCALE, at least 10) two-player Johari games with one-second clocks that nobody answers,
created over a few seconds so their deadlines spread. Every timeout is then read from the histories: its
lateness is the ``at`` the service stamped on ``seat_timed_out`` minus the seat's deadline in the clock
event before it (both stamped by the servers' clocks). Target: p99 at most 1 s. Prints a table, then one
JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from typing import Any

import httpx

from tests.bench.__main__ import fresh_databases, quiet_logging
from tests.e2e.conftest import start_server

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
GAMES = int(os.environ.get("BENCH_CLOCK_GAMES", str(max(10, int(40 * SCALE)))))
SPREAD_SECONDS = 5.0  # games are created over this long, so deadlines fall at many moments
TARGET_P99_MS = 1000
CLOCK_EVENTS = ("clock_started", "clock_stamped")


def lateness(events: list[dict[str, Any]]) -> list[int]:
    """Milliseconds from each timed-out seat's deadline to the timeout's stamp, in one game's history."""
    late, seats = [], None
    for event in events:
        if event["type"] in CLOCK_EVENTS:
            seats = event["data"]["seats"]
        elif event["type"] == "seat_timed_out" and seats is not None:
            late.append(event["data"]["at"] - seats[event["data"]["seat"]]["deadline"])
    return late


def run(database_url: str) -> dict[str, float]:
    """Two servers, ``GAMES`` silent timed games, every timeout's lateness."""
    started = [start_server(database_url) for _ in range(2)]
    try:
        bases = [base for _, base in started]
        body = {
            "game": "johari",
            "players": [{"name": "a"}, {"name": "b"}],
            "clock": {"decision_seconds": 1, "max_timeouts": 3},
        }
        game_ids = []
        for index in range(GAMES):
            created = httpx.post(f"{bases[index % 2]}/v1/games", json=body, timeout=30).json()
            game_ids.append(created["game_id"])
            time.sleep(SPREAD_SECONDS / GAMES)
        deadline = time.monotonic() + 120 + GAMES
        late: list[int] = []
        for index, game_id in enumerate(game_ids):
            base = bases[index % 2]
            while httpx.get(f"{base}/v1/games/{game_id}", timeout=30).json()["status"] != "finished":
                assert time.monotonic() < deadline, f"game {game_id} never finished"
                time.sleep(0.5)
            history = httpx.get(f"{base}/v1/games/{game_id}/events", params={"limit": 10000}, timeout=30)
            late += lateness(history.json()["events"])
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(10)
    ordered = sorted(late)
    return {
        "clock_games": float(GAMES),
        "clock_timeouts": float(len(ordered)),
        "clock_late_p50_ms": float(statistics.median(ordered)),
        "clock_late_p99_ms": float(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]),
        "clock_late_max_ms": float(ordered[-1]),
    }


async def main() -> dict[str, float]:
    """A fresh database for the run, dropped after."""
    quiet_logging()
    async with fresh_databases(1) as (database_url,):
        return await asyncio.to_thread(run, database_url)


if __name__ == "__main__":
    outcome = asyncio.run(main())
    print(
        f"{'timeouts (two processes)':<28}{int(outcome['clock_timeouts'])} in {int(outcome['clock_games'])} games"
    )
    for key in ("clock_late_p50_ms", "clock_late_max_ms"):
        print(f"{key:<28}{outcome[key]:.0f} ms")
    verdict = "ok" if outcome["clock_late_p99_ms"] <= TARGET_P99_MS else "MISSED"
    print(
        f"{'clock_late_p99_ms':<28}{outcome['clock_late_p99_ms']:.0f} ms (target <= {TARGET_P99_MS}: {verdict})"
    )
    print(json.dumps({key: round(value, 3) for key, value in outcome.items()}))
