"""Random legal play for property tests: any game, any seed, with the invariants every game must keep."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain.clock import TimeOut, stamp
from domain.core import Command, Event, Game, GameConfig, Rng, TimeControl, fold
from domain.resign import Resign, decisions


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
    after_command: Callable[[Any], None] | None = None,
    names: tuple[str, ...] | None = None,
) -> Playthrough:
    """Play one game to its end by posting random entries of ``legal`` for random pending seats.

    Checks on the way: every chosen legal command is accepted; with ``check_all_legal`` every entry of
    every seat's ``legal`` list is accepted by ``decide``; ``invariant`` holds after every event and
    ``after_command`` on every state a seat can see (after the setup and after each command's events); the
    game ends within ``max_commands``; replaying all events equals the incremental state. The seats are
    named ``names`` (default p0, p1, ...).
    """
    config = GameConfig(
        players=names or tuple(f"p{i}" for i in range(players)),
        options=options if options is not None else game.options_type(),
    )
    game.validate_config(config)
    chooser = random.Random(seed)
    run = Playthrough()
    run.events = game.setup(config, Rng(seed, "setup"))
    state = fold(game, run.events)
    if invariant:
        invariant(state)
    if after_command:
        after_command(state)
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
        if after_command:
            after_command(state)
    assert fold(game, run.events) == state, "replaying all events differs from the incremental state"
    decoded = msgspec.json.decode(msgspec.json.encode(run.events), type=list[game.event_type])  # type: ignore[name-defined]
    assert decoded == run.events, "events do not survive a JSON round trip through the game's event union"
    run.state = state
    return run


def play_with_departures(
    game: Game[Any], players: int, seed: str, timed: bool, check: Callable[[Any], None] | None = None
) -> Playthrough:
    """Random legal play where seats also leave: each seat resigns at a random step with probability 0.4,
    and in a timed game a pending seat sometimes lets its deadline pass (the service's ``TimeOut`` at the
    deadline; the second timeout resigns it, ``domain/clock.py``). ``check`` runs on the state after every
    command; the game ends within 20,000 commands and replays to the same state."""
    control = TimeControl(decision_ms=60_000, max_timeouts=2) if timed else None
    config = GameConfig(
        players=tuple(f"p{i}" for i in range(players)), options=game.options_type(), clock=control
    )
    chooser = random.Random(seed)
    leave_at = {seat: chooser.randrange(300) for seat in range(players) if chooser.random() < 0.4}
    run = Playthrough(events=game.setup(config, Rng(seed, "setup")))
    state = fold(game, run.events)

    def send(seat: int, command: Command, late: bool = False) -> None:
        """``seat`` sends ``command`` now (stamped in a timed game; ``late``: at the seat's deadline)."""
        nonlocal state
        if state.clock is not None:
            deadline = state.clock.seats[seat].deadline if late else None
            command = stamp(command, max(state.clock.at, deadline or 0))
        new = game.decide(state, seat, command, Rng(seed, f"v{len(run.events)}"))
        state = fold(game, new, state)
        run.events.extend(new)
        run.commands += 1
        if check:
            check(state)

    while not game.is_over(state):
        assert run.commands < 20_000, "game did not end within 20,000 commands"
        leaving = [seat for seat, at in leave_at.items() if at <= run.commands and seat not in state.resigned]
        if leaving:
            send(leaving[0], Resign())
            continue
        seat = chooser.choice(game.pending(state)).seat
        clock = state.clock
        overdue = clock is not None and (clock.seats[seat].deadline or clock.at) < clock.at
        if overdue or (clock is not None and chooser.random() < 0.03):
            send(seat, TimeOut(), late=True)
        else:
            send(seat, chooser.choice(decisions(game.legal(state, seat))))
    assert fold(game, run.events) == state, "replaying all events differs from the incremental state"
    run.state = state
    return run
