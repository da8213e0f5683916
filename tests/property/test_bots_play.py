"""Bots of every level finish seeded games of every game and player count with legal commands only,
and every determinization a bot draws agrees with everything its seat can see (view, pending, legal)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.bots import Budget, kit
from domain.bots.core import Level
from domain.bots.play import play
from domain.core import Rng
from domain.registry import all_games

# small budgets: the tests check legality and secrecy, not strength (that is `make bench`)
BUDGETS = {
    "greedy": Budget(samples=1, horizon=4),
    "strong": Budget(iterations=6, horizon=4),
}
COUNTS = {"basari": (3, 4, 5), "bazaar": (1, 2, 3, 4, 5, 6), "johari": (2, 3, 4)}
CASES = [(game, players) for game, counts in COUNTS.items() for players in counts]


def consistent(game_name: str, samples: int = 2) -> Any:
    """A check that each determinization shows the seat exactly the true view, pending and legal list."""
    game = all_games()[game_name]
    bot_kit = kit(game_name)
    calls = {"n": 0}

    def check(state: Any, seat: int, known: Any) -> None:
        calls["n"] += 1
        if calls["n"] % 7:  # every seventh decision keeps the test quick
            return
        for i in range(samples):
            world = bot_kit.sample(known, seat, Rng(f"check{calls['n']}", str(i)))
            assert game.view(world, seat) == game.view(state, seat)
            assert game.pending(world) == game.pending(state)
            assert game.legal(world, seat) == game.legal(state, seat)

    return check


@pytest.mark.parametrize(("game", "players"), CASES)
@pytest.mark.parametrize("level", ["random", "greedy"])
@pytest.mark.parametrize("seed", range(3))
def test_every_level_finishes_with_legal_commands(game: str, players: int, level: Level, seed: int) -> None:
    """Bots of one level at every seat finish the game; every command was in the seat's legal list."""
    levels = [level] * players
    played = play(game, levels, f"bots-{game}-{players}-{level}-{seed}", BUDGETS, check=consistent(game))
    assert len(played.result.scores) == players
    assert played.commands > 0


@pytest.mark.parametrize(("game", "players"), CASES)
def test_strong_finishes_against_the_other_levels(game: str, players: int) -> None:
    """A strong bot among greedy and random ones finishes the game with legal commands only."""
    others: list[Level] = ["greedy", "random"] * 3
    levels: list[Level] = ["strong", *others][:players]
    played = play(game, levels, f"bots-strong-{game}-{players}", BUDGETS, check=consistent(game))
    assert len(played.result.scores) == players


def test_a_budgets_seconds_cap_the_search_through_the_injected_clock() -> None:
    """With a clock, ``play`` stops strong's search once ``seconds`` have passed, as the server's runner does:
    the clock here ticks one second per reading and only the search reads it, so a searched decision lasts
    the cap however many iterations the budget allows."""
    ticks = iter(range(10**9))
    timings: list[tuple[str, int, float]] = []
    capped = Budget(iterations=1_000_000, horizon=4, seconds=3)
    played = play(
        "johari",
        ["strong", "random"],
        "cap",
        {"strong": capped},
        clock=lambda: float(next(ticks)),
        timings=timings,
    )
    strong = [seconds for level, _, seconds in timings if level == "strong"]
    # one tick: no search (a single decision besides resigning); five: the cap's 3 s, read once past it
    assert played.commands > 0 and set(strong) == {1.0, 5.0}, strong
