"""Random legal play for property tests: any game, any seed, with the invariants every game must keep."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain.core import Event, Game, GameConfig, Rng, fold
from domain.resign import decisions


@dataclass
class Playthrough:
    """What a random game produced: every event, the final state, and how many commands it took."""

    events: list[Event] = field(default_factory=list)
    state: Any = None
    commands: int = 0


def play_randomly(
    game: Game[Any],
    players: int,
    seed: str,
    options: msgspec.Struct | None = None,
    invariant: Callable[[Any], None] | None = None,
    max_commands: int = 20_000,
    check_all_legal: bool = False,
) -> Playthrough:
    """Play one game to its end by posting random entries of ``legal`` for random pending seats.

    Checks on the way: every chosen legal command is accepted; with ``check_all_legal`` every entry of
    every seat's ``legal`` list is accepted by ``decide``; ``invariant`` holds after every event;
    the game ends within ``max_commands``; replaying all events equals the incremental state.
    """
    config = GameConfig(
        players=tuple(f"p{i}" for i in range(players)),
        options=options if options is not None else game.options_type(),
    )
    game.validate_config(config)
    chooser = random.Random(seed)
    run = Playthrough()
    run.events = game.setup(config, Rng(seed, "setup"))
    state = fold(game, run.events)
    if invariant:
        invariant(state)
    while not game.is_over(state):
        assert run.commands < max_commands, f"game did not end within {max_commands} commands"
        pending = game.pending(state)
        assert pending, "game not over but nobody is pending"
        seat = chooser.choice(pending).seat
        options_now = game.legal(state, seat)
        assert options_now, f"seat {seat} is pending but has no legal command"
        if check_all_legal:
            for candidate in options_now:
                game.decide(state, seat, candidate, Rng(seed, f"v{len(run.events)}"))
        command = chooser.choice(decisions(options_now))  # resigning: tests/unit/test_resign.py
        new_events = game.decide(state, seat, command, Rng(seed, f"v{len(run.events)}"))
        assert new_events, f"accepted command {command!r} caused no event"
        for event in new_events:
            state = game.evolve(state, event)
            if invariant:
                invariant(state)
        run.events.extend(new_events)
        run.commands += 1
    assert fold(game, run.events) == state, "replaying all events differs from the incremental state"
    decoded = msgspec.json.decode(msgspec.json.encode(run.events), type=list[game.event_type])  # type: ignore[name-defined]
    assert decoded == run.events, "events do not survive a JSON round trip through the game's event union"
    run.state = state
    return run
