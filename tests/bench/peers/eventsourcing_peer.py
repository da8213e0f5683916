"""The `eventsourcing` library's peer, in-process: no HTTP and no rules, a game aggregate with one event per
move stored by the library's PostgreSQL recorder (psycopg), one thread per concurrent game.

Run as ``python -m tests.bench.peers.eventsourcing_peer`` with POSTGRES_* (the library's own settings),
GAMES, SECONDS, MOVES_PER_GAME (moves before a game ends and the thread starts another) and ACKS (1: print
``ack <game> <version>`` as each move is stored, for the kill -9 check). Prints one JSON line when done:
moves, seconds, latencies (ms) and this process's CPU seconds.

With PAIRS set, the latency-growth run instead: each of the GAMES threads plays an old game to OLD_MOVES
moves (not timed), waits for the others, then times PAIRS pairs of moves, one on its old game and one on a
young game (moves 1 to YOUNG_MOVES of a fresh game, then another), in turns, the pair's order alternating;
its JSON line has moves (the old games' first ones too) and pairs ([old ms, young ms] each).
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


GEMS = {"red": 0, "yellow": 0, "green": 0, "blue": 1}  # every move's bid (the peer has no rules)


def record(app: Games, game_id: UUID, number: int) -> tuple[float, int]:
    """Move ``number`` of ``game_id``; its latency (ms) and the game's new version."""
    sent = time.perf_counter()
    version = app.move(game_id, number % 3, "bid" if number % 4 else "pick", GEMS)
    return (time.perf_counter() - sent) * 1000, version


def main() -> None:
    """Play GAMES games at once for SECONDS (or, with PAIRS, the latency-growth run); print the result."""
    games = int(os.environ["GAMES"])
    seconds = float(os.environ["SECONDS"])
    moves_per_game = int(os.environ.get("MOVES_PER_GAME", "80"))
    acks = os.environ.get("ACKS") == "1"
    pairs = int(os.environ.get("PAIRS", "0"))
    old_moves = int(os.environ.get("OLD_MOVES", "0"))
    young_moves = int(os.environ.get("YOUNG_MOVES", "20"))
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
    timed_pairs: list[tuple[float, float]] = []
    counted = threading.Lock()
    moves = 0
    deadline = time.perf_counter() + seconds
    old_ones_old = threading.Barrier(games)

    def play(worker: int) -> None:
        nonlocal moves
        while time.perf_counter() < deadline:
            game_id = app.start()
            for number in range(1, moves_per_game + 1):
                if time.perf_counter() >= deadline:
                    return
                latency, version = record(app, game_id, number)
                if acks:
                    sys.stdout.write(f"ack {game_id} {version}\n")
                    sys.stdout.flush()
                with counted:
                    latencies.append(latency)
                    moves += 1

    def paired(worker: int) -> None:
        nonlocal moves
        old = app.start()
        for number in range(1, old_moves + 1):
            record(app, old, number)
        old_ones_old.wait()  # every old game is old before any pair is timed
        young, young_number = None, 0
        for n in range(pairs):
            if young is None or young_number == young_moves:
                young, young_number = app.start(), 0
            young_number += 1
            if (n + worker) % 2:
                young_ms, _ = record(app, young, young_number)
                old_ms, _ = record(app, old, old_moves + n + 1)
            else:
                old_ms, _ = record(app, old, old_moves + n + 1)
                young_ms, _ = record(app, young, young_number)
            with counted:
                timed_pairs.append((old_ms, young_ms))
        with counted:
            moves += old_moves + 2 * pairs

    cpu_before = time.process_time()  # the application's start-up is not a move's cost
    started = time.perf_counter()
    threads = [threading.Thread(target=paired if pairs else play, args=(w,)) for w in range(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result: dict[str, Any] = {
        "moves": moves,
        "seconds": time.perf_counter() - started,
        "latencies": latencies,
        "pairs": timed_pairs,
        "cpu": time.process_time() - cpu_before,
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
