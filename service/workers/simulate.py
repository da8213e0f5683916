"""``python -m service simulate``: bot games played in process through the deciders (no HTTP, no database).

Game ``i`` seats the bots rotated by ``i`` places (unless ``--fixed-seats``), so every bot plays every seat
equally often: the table by seat then measures the seats (first-seat advantage) and the table by bot the bots.
Each game's seed is ``<seed>:<i>``. A win shared by k seats counts 1/k to each. The margin of a game is the
winner's score minus the best other seat's (0 on a tie). A game still running after ``MAX_COMMANDS`` is
abandoned: it counts in ``abandoned`` and nowhere else.

Writes ``<out>.json`` (the aggregates) and ``<out>.csv`` (one row per game).
"""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
from tqdm import tqdm  # type: ignore[import-untyped]  # (no type hints shipped)

from domain.bots import LEVELS, Budget, Level
from domain.bots.play import Played, play
from domain.registry import all_games

__all__ = ["Report", "add_arguments", "run", "simulate"]

MAX_COMMANDS = 3000  # a game still running then is abandoned (no winner): ten times the longest seen


class SeatLine(msgspec.Struct, frozen=True, kw_only=True):
    """Wins (ties shared) and scores of one seat or one bot."""

    name: str
    games: int
    wins: float
    win_share: float
    mean_score: float


class HoldingLine(msgspec.Struct, frozen=True, kw_only=True):
    """How often seats that ended with an item won, against the table's base rate (1/players)."""

    item: str
    held: int
    win_share: float
    lift: float


class Report(msgspec.Struct, frozen=True, kw_only=True):
    """The aggregates of a simulation run."""

    game: str
    players: int
    bots: tuple[str, ...]
    games: int
    abandoned: int
    seed: str
    rotated: bool
    budgets: dict[str, Budget]
    by_seat: tuple[SeatLine, ...]
    by_bot: tuple[SeatLine, ...]
    length: dict[str, float]
    margins: dict[str, int]
    margin_mean: float
    holdings: tuple[HoldingLine, ...]


def seating(bots: Sequence[Level], index: int, rotate: bool) -> list[Level]:
    """The bots at each seat in game ``index``: rotated by ``index`` places when ``rotate``."""
    shift = index % len(bots) if rotate else 0
    return list(bots[shift:]) + list(bots[:shift])


def _one(job: tuple[str, list[Level], str, dict[str, Budget]]) -> Played:
    """One game (a process-pool task)."""
    game, levels, seed, budgets = job
    return play(game, levels, seed, budgets, max_commands=MAX_COMMANDS, abandon=True)


def simulate(
    game: str,
    bots: Sequence[Level],
    games: int,
    seed: str = "balance",
    jobs: int = 1,
    rotate: bool = True,
    budgets: dict[str, Budget] | None = None,
    progress: bool = True,
) -> tuple[Report, list[dict[str, Any]]]:
    """Play ``games`` games and aggregate them; also the per-game rows (for the CSV)."""
    budgets = budgets or {}
    tasks = [(game, seating(bots, i, rotate), f"{seed}:{i}", budgets) for i in range(games)]
    results: Iterator[Played]
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_one, tasks, chunksize=4)
    else:
        pool = None
        results = map(_one, tasks)
    rows: list[dict[str, Any]] = []
    try:
        for (_, levels, game_seed, _), played in tqdm(
            zip(tasks, results, strict=True), total=games, disable=not progress, unit="game"
        ):
            rows.append(_row(levels, game_seed, played))
    finally:
        if pool is not None:
            pool.shutdown()
    return _aggregate(game, list(bots), games, seed, rotate, budgets, rows), rows


def _margin(scores: Sequence[int]) -> int:
    """The winner's score minus the best other seat's (0 on a tie; a solitaire game's score)."""
    ordered = sorted(scores, reverse=True)
    return ordered[0] - ordered[1] if len(ordered) > 1 else ordered[0]


def _row(levels: Sequence[str], game_seed: str, played: Played) -> dict[str, Any]:
    """One game as a CSV row (lists joined by ``|``)."""
    result = played.result
    return {
        "seed": game_seed,
        "bots": "|".join(levels),
        "scores": "|".join(str(s) for s in result.scores),
        "winners": "|".join(str(s) for s in result.winners),
        "commands": played.commands,
        "events": played.events,
        "margin": _margin(result.scores) if played.finished else "",
        "finished": int(played.finished),
        "holdings": "|".join(";".join(h) for h in played.holdings),
    }


def _line(name: str, games: int, wins: float, scores: list[int]) -> SeatLine:
    """A seat's or a bot's line."""
    return SeatLine(
        name=name,
        games=games,
        wins=round(wins, 2),
        win_share=round(wins / games, 4) if games else 0.0,
        mean_score=round(statistics.fmean(scores), 2) if scores else 0.0,
    )


def _aggregate(
    game: str,
    bots: list[Level],
    games: int,
    seed: str,
    rotate: bool,
    budgets: dict[str, Budget],
    rows: list[dict[str, Any]],
) -> Report:
    """Wins and mean scores by seat and by bot, game lengths, margins, and items' win shares."""
    players = len(bots)
    seat_wins = [0.0] * players
    seat_scores: list[list[int]] = [[] for _ in range(players)]
    bot_wins: dict[str, float] = defaultdict(float)
    bot_scores: dict[str, list[int]] = defaultdict(list)
    bot_games: Counter[str] = Counter()
    held: Counter[str] = Counter()
    held_wins: dict[str, float] = defaultdict(float)
    abandoned = sum(1 for row in rows if not int(row["finished"]))
    for row in rows:
        if not int(row["finished"]):
            continue  # an abandoned game (no winner, see MAX_COMMANDS) counts in ``abandoned`` only
        scores = [int(s) for s in row["scores"].split("|")]
        winners = [int(s) for s in row["winners"].split("|") if s]
        levels = row["bots"].split("|")
        holdings = [h.split(";") if h else [] for h in row["holdings"].split("|")]
        for seat, score in enumerate(scores):
            share = 1 / len(winners) if seat in winners else 0.0
            seat_wins[seat] += share
            seat_scores[seat].append(score)
            label = f"{levels[seat]}"
            bot_wins[label] += share
            bot_scores[label].append(score)
            bot_games[label] += 1
            for item in set(holdings[seat]) if seat < len(holdings) else ():
                held[item] += 1
                held_wins[item] += share
    finished = [row for row in rows if int(row["finished"])]
    lengths = [int(row["commands"]) for row in finished]
    margins = [int(row["margin"]) for row in finished]
    buckets: Counter[str] = Counter()
    for margin in margins:
        low = (margin // 5) * 5
        buckets[f"{low}-{low + 4}"] += 1
    base = 1 / players
    holding_lines = tuple(
        sorted(
            (
                HoldingLine(
                    item=item,
                    held=count,
                    win_share=round(held_wins[item] / count, 4),
                    lift=round(held_wins[item] / count / base, 3),
                )
                for item, count in held.items()
                if count >= 10
            ),
            key=lambda line: -line.lift,
        )
    )
    return Report(
        game=game,
        players=players,
        bots=tuple(bots),
        games=games,
        abandoned=abandoned,
        seed=seed,
        rotated=rotate,
        budgets={level: budgets.get(level, Budget()) for level in sorted(set(bots)) if level != "random"},
        by_seat=tuple(_line(f"seat {s}", len(rows), seat_wins[s], seat_scores[s]) for s in range(players)),
        by_bot=tuple(
            _line(label, bot_games[label], bot_wins[label], bot_scores[label]) for label in sorted(bot_games)
        ),
        length={
            "mean_commands": round(statistics.fmean(lengths), 1) if lengths else 0.0,
            "median_commands": float(statistics.median(lengths)) if lengths else 0.0,
            "min_commands": float(min(lengths, default=0)),
            "max_commands": float(max(lengths, default=0)),
        },
        margins=dict(sorted(buckets.items(), key=lambda kv: int(kv[0].split("-")[0]))),
        margin_mean=round(statistics.fmean(margins), 2) if margins else 0.0,
        holdings=holding_lines,
    )


def write(report: Report, rows: list[dict[str, Any]], out: Path) -> tuple[Path, Path]:
    """``<out>.json`` (the report, indented) and ``<out>.csv`` (one row per game)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out.with_suffix(".json"), out.with_suffix(".csv")
    json_path.write_bytes(msgspec.json.format(msgspec.json.encode(report), indent=1) + b"\n")
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["seed"])
        writer.writeheader()
        writer.writerows(rows)
    return json_path, csv_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulate command's options."""
    parser.add_argument("--game", required=True, choices=sorted(all_games()))
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument(
        "--bots",
        required=True,
        help=f"one level per seat, comma-separated ({', '.join(LEVELS)}), or one for all",
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", default="balance", help="game i is seeded '<seed>:<i>'")
    parser.add_argument("--fixed-seats", action="store_true", help="do not rotate the bots over the seats")
    parser.add_argument(
        "--iterations", type=int, default=Budget().iterations, help="strong's search iterations"
    )
    parser.add_argument("--samples", type=int, default=Budget().samples, help="greedy's determinizations")
    parser.add_argument(
        "--horizon", type=int, default=Budget().horizon, help="commands simulated past a choice"
    )
    parser.add_argument("--out", type=Path, default=None, help="report path without suffix")


def run(args: argparse.Namespace) -> None:
    """Run the simulate command and print where the reports went."""
    levels = [level.strip() for level in args.bots.split(",")]
    if len(levels) == 1:
        levels = levels * args.players
    if len(levels) != args.players or any(level not in LEVELS for level in levels):
        raise SystemExit(f"--bots needs {args.players} levels among {', '.join(LEVELS)}")
    game = all_games()[args.game]
    if not game.min_players <= args.players <= game.max_players:
        raise SystemExit(f"{args.game} seats {game.min_players} to {game.max_players} players")
    budget = Budget(iterations=args.iterations, samples=args.samples, horizon=args.horizon)
    bots: list[Level] = [next(level for level in LEVELS if level == chosen) for chosen in levels]
    report, rows = simulate(
        args.game,
        bots,
        args.games,
        seed=args.seed,
        jobs=args.jobs,
        rotate=not args.fixed_seats,
        budgets={"greedy": budget, "strong": budget},
    )
    out = args.out or Path(f"simulate-{args.game}-{args.players}p")
    json_path, csv_path = write(report, rows, out)
    print(f"wrote {json_path} and {csv_path}")
    for line in (*report.by_seat, *report.by_bot):
        print(f"  {line.name:10} wins {line.win_share:6.1%}  mean score {line.mean_score}")
