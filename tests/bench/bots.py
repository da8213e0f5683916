"""`make bench`, bots: strong and greedy against random, and strong's decision time.

Win rates: for each game and player count (a cell), ``BENCH_BOT_GAMES`` seeded games (default 12 x
BENCH_SCALE, at least 4) of one strong bot against random ones, and as many of one greedy bot against random
ones, the bots rotated over the seats, played by the simulator (``service.workers.simulate``) in ``BENCH_BOT_JOBS``
processes (default 2) at the server's iteration budget (``BOT_ITERATIONS``; no wall-clock cap, so a loaded
machine does not change the outcome); a win shared by k seats counts 1/k. Targets: strong wins at
least 90 % at two players (Bazaar, Johari) and at least twice the random share (2/n) at 3-5 players; greedy
between random and strong. The noise of a share p over g games is about 2 x sqrt(p(1-p)/g): read a small
cell as a smoke test, and raise ``BENCH_BOT_GAMES`` for a verdict.

Decision time: ``BENCH_BOT_TIMED`` games per cell (default 1) of one strong bot against random ones, in this
process, each decision with the server's whole budget (``BOT_ITERATIONS`` iterations capped at
``BOT_THINK_SECONDS``: service/runtime/settings.py); median at most 0.5 s, p99 at most 2 s. They run before the win
rates, alone; the machine's load average is printed with them: on a shared machine they grow with it.
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
from service.runtime.settings import Settings
from service.workers.simulate import seating, simulate

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
GAMES = int(os.environ.get("BENCH_BOT_GAMES", str(max(4, int(12 * SCALE)))))
TIMED = int(os.environ.get("BENCH_BOT_TIMED", "1"))
JOBS = int(os.environ.get("BENCH_BOT_JOBS", "2"))
_SETTINGS = Settings.from_env()
STRONG = Budget(  # what a server process gives its strong bot (service/workers/bots.py)
    iterations=_SETTINGS.bot_iterations,
    seconds=_SETTINGS.bot_think_seconds if _SETTINGS.bot_think_seconds > 0 else None,
)
SEARCH = Budget(iterations=STRONG.iterations)  # the same budget without the wall clock (win rates)
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


def decision_times(game: str, players: int, timings: list[tuple[str, int, float]]) -> None:
    """Strong's decisions in ``TIMED`` games against random ones, timed with the server's whole budget."""
    opponents: list[Level] = ["random"] * (players - 1)
    bots: list[Level] = ["strong", *opponents]
    for index in range(TIMED):
        play(
            game,
            seating(bots, index, rotate=True),
            f"bench-timed:{game}:{players}:{index}",
            {"strong": STRONG},
            clock=time.perf_counter,
            timings=timings,
        )


def win_share(game: str, players: int, level: Level) -> tuple[float, int]:
    """The share of wins of one ``level`` bot against random ones over ``GAMES`` rotated, seeded games, and
    the games abandoned (still running after the simulator's cap, counted nowhere else)."""
    opponents: list[Level] = ["random"] * (players - 1)
    bots: list[Level] = [level, *opponents]
    report, _ = simulate(
        game,
        bots,
        GAMES,
        seed=f"bench:{game}:{players}",
        jobs=JOBS,
        budgets={level: SEARCH},
        progress=False,
    )
    line = next(line for line in report.by_bot if line.name == level)
    return line.win_share, report.abandoned


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else 0.0


def _progress(text: str) -> None:
    """A progress line on stderr (a slow machine may not see the end)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] bots: {text}", file=sys.stderr, flush=True)


def main() -> dict[str, Any]:
    """Strong's decision times, then every cell's win rates of strong and greedy against random."""
    started = time.monotonic()
    results: dict[str, Any] = {"games_per_cell": GAMES, "timed_games_per_cell": TIMED}
    lines = [
        f"bots bench: strong's budget {STRONG.iterations} iterations capped at {STRONG.seconds} s; "
        f"{TIMED} timed game(s) per cell, then {GAMES} games per cell and level in {JOBS} process(es)"
    ]
    results["load_average_at_start"] = os.getloadavg()[0]
    timings: list[tuple[str, int, float]] = []
    for game, players in TABLES:
        _progress(f"timing strong, {game} {players}p")
        decision_times(game, players, timings)
    results["load_average_after_timing"] = os.getloadavg()[0]
    strong_times = [seconds for level, _, seconds in timings if level == "strong"]
    searched = [seconds for level, options, seconds in timings if level == "strong" and options > 1]
    capped = sum(1 for seconds in searched if STRONG.seconds is not None and seconds >= STRONG.seconds)
    results["strong_decisions"] = len(strong_times)
    results["strong_median_s"] = statistics.median(strong_times) if strong_times else 0.0
    results["strong_p99_s"] = percentile(strong_times, 0.99)
    results["strong_searched_median_s"] = statistics.median(searched) if searched else 0.0
    results["strong_searched_p99_s"] = percentile(searched, 0.99)
    results["strong_capped"] = capped
    lines.append(
        f"  strong decision time over {len(strong_times)} decisions: median {results['strong_median_s']:.3f} s "
        f"(target <= 0.5), p99 {results['strong_p99_s']:.3f} s (target <= 2); with a choice to make "
        f"({len(searched)}): median {results['strong_searched_median_s']:.3f} s, "
        f"p99 {results['strong_searched_p99_s']:.3f} s, {capped} stopped by the time cap; load average "
        f"(1 min) {results['load_average_at_start']:.1f} before, "
        f"{results['load_average_after_timing']:.1f} after, on {os.cpu_count()} cores"
    )
    print(lines[-1], file=sys.stderr, flush=True)
    for game, players in TABLES:
        _progress(f"win rates, {game} {players}p")
        strong, strong_abandoned = win_share(game, players, "strong")
        greedy, greedy_abandoned = win_share(game, players, "greedy")
        target = 0.9 if players == 2 else 2 / players
        results[f"{game}_{players}p_strong"] = strong
        results[f"{game}_{players}p_greedy"] = greedy
        verdict = "ok" if strong >= target else "MISSED"
        between = "ok" if 1 / players <= greedy <= strong else "not between"
        abandoned = strong_abandoned + greedy_abandoned
        lines.append(
            f"  {game} {players}p: strong {strong:6.1%} (target >= {target:.0%}: {verdict}), "
            f"greedy {greedy:6.1%} ({between}), random share {1 / players:.0%}"
            + (f", {abandoned} game(s) abandoned" if abandoned else "")
        )
        print(lines[-1], file=sys.stderr, flush=True)
    results["load_average_at_end"] = os.getloadavg()[0]
    results["minutes"] = (time.monotonic() - started) / 60
    lines.append(
        f"  load average (1 min) {results['load_average_at_end']:.1f} at the end; "
        f"{results['minutes']:.1f} minutes in all"
    )
    print("\n".join(lines))
    return results


if __name__ == "__main__":
    outcome = main()
    print(json.dumps({key: round(value, 4) for key, value in outcome.items()}))
