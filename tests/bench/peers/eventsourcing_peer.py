"""The `eventsourcing` library's peer, in-process: no HTTP and no rules, a game aggregate with one event per
move stored by the library's PostgreSQL recorder (psycopg), one thread per concurrent game.

Run as ``python -m tests.bench.peers.eventsourcing_peer`` with POSTGRES_* (the library's own settings),
GAMES, SECONDS, MOVES_PER_GAME (moves before a game ends and the thread starts another), ONE_GAME (1: a
thread stops after its first game: the latency-growth run) and ACKS (1: print
``ack <game> <version>`` as each move is stored, for the kill -9 check). Prints one JSON line when done:
moves, seconds, latencies (ms), latencies by move number, and this process's CPU seconds.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Game(Aggregate):
    """A game: who moved and what, one event per move (the rules are not this peer's job)."""

    @event("Started")
    def __init__(self, players: int) -> None:
        self.players = players
        self.moves = 0

    @event("Moved")
    def move(self, seat: int, kind: str, gems: dict[str, int]) -> None:
        """Record one move."""
        self.moves += 1


class Games(Application[UUID]):
    """The application: start a game, record a move."""

    def start(self) -> UUID:
        """A new game of three."""
        game = Game(players=3)
        self.save(game)
        return game.id

    def move(self, game_id: UUID, seat: int, kind: str, gems: dict[str, int]) -> int:
        """Record a move of ``game_id`` (read from the repository, its cache when warm); its new version."""
        game: Game = self.repository.get(game_id)
        game.move(seat, kind, gems)
        self.save(game)
        return int(game.version)


def main() -> None:
    """Play GAMES games at once for SECONDS; print the result."""
    games = int(os.environ["GAMES"])
    seconds = float(os.environ["SECONDS"])
    moves_per_game = int(os.environ.get("MOVES_PER_GAME", "80"))
    acks = os.environ.get("ACKS") == "1"
    one_game = os.environ.get("ONE_GAME") == "1"
    app = Games(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "CREATE_TABLE": "y",
            "POSTGRES_POOL_SIZE": str(games),
            "POSTGRES_MAX_OVERFLOW": "0",
            "AGGREGATE_CACHE_MAXSIZE": str(4 * games),  # a warm game is not replayed each move
        }
    )
    latencies: list[float] = []
    by_move: dict[int, list[float]] = {}
    counted = threading.Lock()
    deadline = time.perf_counter() + seconds
    gems = {"red": 0, "yellow": 0, "green": 0, "blue": 1}

    def play(worker: int) -> None:
        while time.perf_counter() < deadline:
            game_id = app.start()
            for number in range(1, moves_per_game + 1):
                if time.perf_counter() >= deadline:
                    return
                sent = time.perf_counter()
                version = app.move(game_id, number % 3, "bid" if number % 4 else "pick", gems)
                latency = (time.perf_counter() - sent) * 1000
                if acks:
                    sys.stdout.write(f"ack {game_id} {version}\n")
                    sys.stdout.flush()
                with counted:
                    latencies.append(latency)
                    by_move.setdefault(number, []).append(latency)
            if one_game:
                return

    cpu_before = time.process_time()  # the application's start-up is not a move's cost
    started = time.perf_counter()
    threads = [threading.Thread(target=play, args=(w,)) for w in range(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result: dict[str, Any] = {
        "moves": len(latencies),
        "seconds": time.perf_counter() - started,
        "latencies": latencies,
        "byMove": by_move,
        "cpu": time.process_time() - cpu_before,
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
