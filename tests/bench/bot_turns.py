"""`make bench`, bots taking turns: how long a person waits for the greedy bot's answer while games of server
bots only keep the same process's bot runner busy. Target: p99 under 2 s with 20 such games on two cores.

One BotRunner (service/workers/bots.py) at the server's budget (``BOT_THINK_SECONDS``, ``BOT_ITERATIONS``) plays
``BENCH_TURN_GAMES`` (default 20) Basari games of four strong bots, topped up as they end, and one Bazaar game
of a person against the greedy bot (a new one when it ends). The bench plays the person: a seeded random legal
decision (never resigning) whenever the seat owes one, after thinking up to ``BENCH_TURN_PAUSE`` seconds
(default 0.5, so the bot-only games move on meanwhile and each wait starts at a random point of the runner's
work), and times each wait from the person's accepted command
to the bot's answer, ``BENCH_TURN_ANSWERS`` answers (default 40 x BENCH_SCALE, at least 10). The store is the
in-memory twin: what is measured is the runner's turn-taking and the searches' CPU, not the database.
Prints a line, then one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from typing import Any

import msgspec

from domain.registry import all_games
from domain.resign import decisions
from eventstore import InMemoryEventStore, InMemoryKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.runtime.logging import configure_logging
from service.runtime.settings import Settings
from service.workers.bots import BotRunner
from tests.bench.bots import percentile

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
GAMES = int(os.environ.get("BENCH_TURN_GAMES", "20"))
ANSWERS = int(os.environ.get("BENCH_TURN_ANSWERS", str(max(10, int(40 * SCALE)))))
PAUSE_SECONDS = float(
    os.environ.get("BENCH_TURN_PAUSE", "0.5")
)  # the person's longest think, drawn uniformly
TARGET_P99_SECONDS = 2.0
BOTS_ONLY = {"game": "basari", "players": [{"bot": "strong"}] * 4}
PERSON = {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "greedy"}]}


async def create(games: GameService, body: dict[str, Any], seed: str) -> str:
    """A new game from ``body`` with ``seed``; its id."""
    created = await games.commands.create(msgspec.convert({**body, "seed": seed}, CreateGame))
    return created.game_id


async def keep_busy(games: GameService, running: list[str]) -> None:
    """Keep GAMES bot-only games running: replace each that ended."""
    made = len(running)
    while True:
        for index, game_id in enumerate(running):
            if (await games.loader.load(game_id)).finished:
                running[index] = await create(games, BOTS_ONLY, f"bench-turns-busy-{made}")
                made += 1
        await asyncio.sleep(0.5)


async def answers(games: GameService, store: InMemoryEventStore) -> tuple[list[float], int]:
    """The person's waits for the greedy bot's answers (seconds), and the bot-only decisions made meanwhile."""
    running = [await create(games, BOTS_ONLY, f"bench-turns-busy-{index}") for index in range(GAMES)]
    runner = BotRunner(games, _SETTINGS.bot_think_seconds, _SETTINGS.bot_iterations)
    chooser = random.Random("bench-turns")
    waits: list[float] = []
    with store.watch() as woken:
        tasks = [
            asyncio.create_task(runner.run(lambda: woken.wait(_SETTINGS.stream_poll_seconds))),
            asyncio.create_task(keep_busy(games, running)),
        ]
        try:
            person = await create(games, PERSON, "bench-turns-person-0")
            while len(waits) < ANSWERS:
                loaded = await games.loader.load(person)
                if loaded.finished:
                    person = await create(games, PERSON, f"bench-turns-person-{len(waits)}")
                    continue
                legal = decisions(loaded.legal(0))
                if not legal:  # the bot owes the first decision: no person's wait to time
                    with store.watch(person) as moved:
                        await moved.wait(5)
                    continue
                await asyncio.sleep(chooser.uniform(0, PAUSE_SECONDS))  # the person thinks
                with store.watch(person) as moved:
                    accepted = await games.commands.execute(
                        person, 0, msgspec.to_builtins(chooser.choice(legal))
                    )
                    sent = time.perf_counter()
                    after = await games.loader.load(person)
                    if after.finished or 1 not in [p.seat for p in after.game.pending(after.state)]:
                        continue  # the person still owes a step of the turn, or the game ended
                    while (await games.loader.load(person)).version == accepted.version:
                        await moved.wait(5)
                    waits.append(time.perf_counter() - sent)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return waits, runner.moves - len(waits)


_SETTINGS = Settings.from_env()


def main() -> dict[str, Any]:
    """Time the greedy bot's answers to a person while GAMES bot-only games run; print a line."""
    configure_logging("console", "warning")  # the accepted commands' log lines are not the result
    store = InMemoryEventStore()
    games = GameService(store, InMemoryKeyStore(), all_games())
    load_before = os.getloadavg()[0]
    waits, busy_moves = asyncio.run(answers(games, store))
    results: dict[str, Any] = {
        "bot_only_games": GAMES,
        "answers": len(waits),
        "answer_p50_s": statistics.median(waits),
        "answer_p99_s": percentile(waits, 0.99),
        "answer_max_s": max(waits),
        "bot_only_decisions_meanwhile": busy_moves,
        "target_p99_s": TARGET_P99_SECONDS,
        "load_average": load_before,
    }
    met = "met" if results["answer_p99_s"] < TARGET_P99_SECONDS else "MISSED"
    print(
        f"bot turns: the greedy bot's answer to a person over {len(waits)} answers while {GAMES} games of "
        f"four strong bots run: p50 {results['answer_p50_s']:.3f} s, p99 {results['answer_p99_s']:.3f} s, "
        f"max {results['answer_max_s']:.3f} s (target p99 < {TARGET_P99_SECONDS:.0f} s: {met}); "
        f"{busy_moves} bot-only decisions meanwhile; load average (1 min) {load_before:.1f} before, "
        f"on {os.cpu_count()} cores"
    )
    return results


if __name__ == "__main__":
    outcome = main()
    print(json.dumps({key: round(value, 4) for key, value in outcome.items()}))
