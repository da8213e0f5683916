"""What a bot's simulations play by. A kit's playout command is always one the game's rules accept,
and the searching levels decide in timed games and in games where a seat has resigned (their simulations
play the game's own rules, and the declared game's with its stand-in once a seat has resigned)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.bots import Budget, Knowledge, choose, kit
from domain.bots.core import Level
from domain.core import Event, GameConfig, Rng, TimeControl, fold
from domain.registry import all_games
from domain.resign import Resign, decisions

PLAYERS = {"basari": 3, "bazaar": 3, "johari": 3}
BUDGET = Budget(iterations=12, samples=1, horizon=6)


def history(
    game_name: str, seed: int, steps: int, clock: TimeControl | None = None
) -> tuple[list[Event], Any]:
    """The events of at most ``steps`` random legal commands (never resigning) and the true state after them."""
    game = all_games()[game_name]
    chooser = random.Random(seed)
    config = GameConfig(
        players=tuple(f"p{i}" for i in range(PLAYERS[game_name])), options=game.options_type(), clock=clock
    )
    events = game.setup(config, Rng(str(seed), "setup"))
    state = fold(game, events)
    for step in range(steps):
        pending = game.pending(state)
        if game.is_over(state) or not pending:
            break
        seat = chooser.choice(pending).seat
        command = chooser.choice(decisions(game.legal(state, seat)))
        if clock is not None:
            from domain.clock import stamp

            command = stamp(command, clock.start + step)
        new = game.decide(state, seat, command, Rng(str(seed), f"v{len(events)}"))
        events += new
        state = fold(game, new, state)
    return events, state


@pytest.mark.parametrize("game_name", sorted(PLAYERS))
@pytest.mark.parametrize("seed", range(4))
def test_every_playout_command_is_accepted_by_the_rules(game_name: str, seed: int) -> None:
    """Along random games, the kit's playout command for each pending seat is one the game's decider accepts."""
    game = all_games()[game_name]
    bot_kit = kit(game_name)
    rng = Rng(str(seed), "rollout")
    _, state = history(game_name, seed, 0)
    checked = 0
    for _ in range(400):
        pending = game.pending(state)
        if game.is_over(state) or not pending:
            break
        for p in pending:
            command = bot_kit.rollout(state, p.seat, rng)
            game.decide(state, p.seat, command, Rng(str(seed), f"check{checked}"))  # raises Rejected if not
            checked += 1
        seat = pending[0].seat
        state = fold(game, game.decide(state, seat, bot_kit.rollout(state, seat, rng), rng), state)
    assert checked > 50


def assert_every_pending_seat_decides(
    game_name: str, events: list[Event], state: Any, level: Level, seed: str
) -> None:
    """Each seat due to decide, knowing only what it has seen, picks one of its legal commands."""
    game = all_games()[game_name]
    pending = game.pending(state)
    assert pending
    for p in pending:
        knowledge = Knowledge(kit(game_name), p.seat)
        knowledge.see(events)
        legal = game.legal(state, p.seat)
        command = choose(kit(game_name), knowledge.state, p.seat, legal, level, seed, BUDGET)
        assert command in decisions(legal)


@pytest.mark.parametrize("game_name", sorted(PLAYERS))
@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_a_searching_bot_decides_in_a_timed_game(game_name: str, level: Level) -> None:
    """In a game with a clock, greedy and strong pick one of the seat's legal commands."""
    events, state = history(game_name, 7, 12, clock=TimeControl(decision_ms=60_000, start=1_000))
    assert state.clock is not None
    assert_every_pending_seat_decides(game_name, events, state, level, "timed")


@pytest.mark.parametrize("game_name", sorted(PLAYERS))
@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_a_searching_bot_decides_after_a_seat_resigned(game_name: str, level: Level) -> None:
    """With a resigned seat (a stand-in plays it), greedy and strong pick one of a playing seat's legal commands."""
    game = all_games()[game_name]
    events, state = history(game_name, 3, 10)
    resigning = game.pending(state)[0].seat
    new = game.decide(state, resigning, Resign(), Rng("3", f"v{len(events)}"))
    events += new
    state = fold(game, new, state)
    assert state.resigned == (resigning,) and not game.is_over(state)
    assert_every_pending_seat_decides(game_name, events, state, level, "resigned")
