"""`make bench`, bots (issue 13): strong and greedy against random, and strong's decision time.

For each game and player count, ``BENCH_BOT_GAMES`` seeded games (default 30 x BENCH_SCALE, at least 10) of
one strong bot against random ones, and as many of one greedy bot against random ones, the bots rotated over
the seats; a win shared by k seats counts 1/k. Targets (issue 13): strong wins at least 90 % at two players
(Bazaar, Johari) and at least twice the random share (2/n) at 3-5 players; greedy between random and
strong. Strong's decision time over every decision it made: median at most 0.5 s, p99 at most 2 s, with the
server's budget (``BOT_ITERATIONS`` iterations, capped at ``BOT_THINK_SECONDS``: service/settings.py), one
process. The machine's load average is printed with the times: on a shared machine they grow with it.
Prints a table, then one JSON line.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any

from domain.bots import Budget
from domain.bots.core import Level
from domain.bots.play import play
from service.settings import Settings
from service.simulate import seating

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
GAMES = int(os.environ.get("BENCH_BOT_GAMES", str(max(10, int(30 * SCALE)))))
_SETTINGS = Settings.from_env()
STRONG = Budget(  # what a server process gives its strong bot (service/bots.py)
    iterations=_SETTINGS.bot_iterations,
    seconds=_SETTINGS.bot_think_seconds if _SETTINGS.bot_think_seconds > 0 else None,
)
TABLES = [
    ("bazaar", 2),
    ("johari", 2),
    ("basari", 3),
    ("bazaar", 3),
    ("johari", 3),
    ("basari", 4),
    ("bazaar", 4),
    ("johari", 4),
    ("basari", 5),
    ("bazaar", 5),
]


def win_share(game: str, players: int, level: Level, timings: list[tuple[str, int, float]]) -> float:
    """The share of wins of one ``level`` bot against random ones over ``GAMES`` rotated, seeded games."""
    bots: list[Level] = [level, *(["random"] * (players - 1))]
    wins = 0.0
    for index in range(GAMES):
        levels = seating(bots, index, rotate=True)
        played = play(
            game,
            levels,
            f"bench:{game}:{players}:{index}",
            {level: STRONG if level == "strong" else Budget()},
            clock=time.perf_counter,
            timings=timings,
        )
        seat = levels.index(level)
        if seat in played.result.winners:
            wins += 1 / len(played.result.winners)
    return wins / GAMES


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else 0.0


def main() -> dict[str, Any]:
    """Every table, strong and greedy against random; strong's decision times."""
    results: dict[str, Any] = {"games_per_table": GAMES}
    lines = [f"bots bench ({GAMES} games per table and level, strong's budget {STRONG})"]
    results["load_average_at_start"] = os.getloadavg()[0]
    timings: list[tuple[str, int, float]] = []
    for game, players in TABLES:
        print(f"[bench {time.strftime('%H:%M:%S')}] bots: {game} {players}p", file=sys.stderr, flush=True)
        strong = win_share(game, players, "strong", timings)
        greedy = win_share(game, players, "greedy", [])
        target = 0.9 if players == 2 else 2 / players
        results[f"{game}_{players}p_strong"] = strong
        results[f"{game}_{players}p_greedy"] = greedy
        verdict = "ok" if strong >= target else "MISSED"
        between = "ok" if 1 / players <= greedy <= strong else "not between"
        lines.append(
            f"  {game} {players}p: strong {strong:6.1%} (target >= {target:.0%}: {verdict}), "
            f"greedy {greedy:6.1%} ({between}), random share {1 / players:.0%}"
        )
        print(lines[-1], file=sys.stderr, flush=True)  # progress: a slow machine may not see the end
    strong_times = [seconds for level, _, seconds in timings if level == "strong"]
    searched = [seconds for level, options, seconds in timings if level == "strong" and options > 1]
    results["strong_decisions"] = len(strong_times)
    results["strong_median_s"] = statistics.median(strong_times) if strong_times else 0.0
    results["strong_p99_s"] = percentile(strong_times, 0.99)
    results["strong_searched_median_s"] = statistics.median(searched) if searched else 0.0
    results["strong_searched_p99_s"] = percentile(searched, 0.99)
    results["load_average_at_end"] = os.getloadavg()[0]
    lines.append(
        f"  load average (1 min) {results['load_average_at_start']:.1f} at the start, "
        f"{results['load_average_at_end']:.1f} at the end, on {os.cpu_count()} cores"
    )
    lines.append(
        f"  strong decision time over {len(strong_times)} decisions: median {results['strong_median_s']:.3f} s "
        f"(target <= 0.5), p99 {results['strong_p99_s']:.3f} s (target <= 2); with a choice to make "
        f"({len(searched)}): median {results['strong_searched_median_s']:.3f} s, "
        f"p99 {results['strong_searched_p99_s']:.3f} s"
    )
    print("\n".join(lines))
    return results


if __name__ == "__main__":
    outcome = main()
    print(json.dumps({key: round(value, 4) for key, value in outcome.items()}))
