"""A whole game played by bots through the deciders, in process (the simulator's and the tests' loop).

Each seat's bot keeps its own ``Knowledge`` and receives every event redacted for its seat; the game's
``legal`` list for that seat is the only other input, exactly what an HTTP client of that seat gets.
When several seats owe a decision at once (secret picks), they answer in seat order; the order cannot
matter, since none of them sees the others' picks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain.bots.core import Budget, Knowledge, Level, choose
from domain.core import Event, GameConfig, Result, Rng, fold

__all__ = ["Played", "play"]


class Played(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one bot game: the result, how many commands it took, and the final scores."""

    result: Result
    commands: int
    events: int
    holdings: tuple[tuple[str, ...], ...]
    finished: bool = True


def play(
    game_name: str,
    levels: Sequence[Level],
    seed: str,
    budgets: dict[str, Budget] | None = None,
    max_commands: int = 20_000,
    record: list[Event] | None = None,
    check: Callable[[Any, int, Any], None] | None = None,
    clock: Callable[[], float] | None = None,
    timings: list[tuple[str, int, float]] | None = None,
    abandon: bool = False,
) -> Played:
    """Play one game with ``levels[seat]`` at each seat; every command is the bot's, from its own knowledge.

    ``check(true_state, seat, knowledge)`` runs before every decision (tests compare the two there). With a
    ``clock`` (the domain reads none of its own), each decision's (level, legal count, seconds) goes to ``timings``,
    and a budget's ``seconds`` caps the search as the service's runner does. A game still running after
    ``max_commands`` raises, or with ``abandon`` ends unfinished (its scores so far, no winner): bots can stall a
    game whose rules set no limit (Bazaar's hand limit, Z-10)."""
    from domain.bots import kit as kit_of
    from domain.registry import all_games

    game = all_games()[game_name]
    kit = kit_of(game_name)
    config = GameConfig(players=tuple(f"bot{i}" for i in range(len(levels))), options=game.options_type())
    events = game.setup(config, Rng(seed, "setup"))
    state: Any = fold(game, events)
    seats = [Knowledge(kit, s) for s in range(len(levels))]
    for knowledge in seats:
        knowledge.see(events)
    history: list[Event] = list(events)
    commands = 0
    budgets = budgets or {}
    while not game.is_over(state):
        if commands >= max_commands and abandon:
            scores = game.result(state).scores
            unfinished = Result(scores=scores, ranks=tuple(1 for _ in scores), winners=(), note="abandoned")
            return Played(
                result=unfinished,
                commands=commands,
                events=len(history),
                holdings=kit.holdings(state),
                finished=False,
            )
        if commands >= max_commands:
            raise RuntimeError(f"{game_name} game {seed} did not end within {max_commands} commands")
        pending = game.pending(state)
        seat = min(p.seat for p in pending)
        legal = game.legal(state, seat)
        level = levels[seat]
        if check is not None:
            check(state, seat, seats[seat].state)
        started = clock() if clock is not None else 0.0
        budget = budgets.get(level)
        stop = None
        if clock is not None and budget is not None and budget.seconds is not None:
            stop = _deadline(clock, started + budget.seconds)
        command = choose(
            kit, seats[seat].state, seat, legal, level, f"{seed}:{seat}:{len(history)}", budget, stop
        )
        if clock is not None and timings is not None:
            timings.append((level, len(legal), clock() - started))
        if command not in legal:
            raise RuntimeError(f"bot at seat {seat} chose {command!r}, not in its legal list")
        new = game.decide(state, seat, command, Rng(seed, f"v{len(history)}"))
        for event in new:
            state = game.evolve(state, event)
        for knowledge in seats:
            knowledge.see(new)
        history.extend(new)
        commands += 1
    if record is not None:
        record.extend(history)
    return Played(
        result=game.result(state), commands=commands, events=len(history), holdings=kit.holdings(state)
    )


def _deadline(clock: Callable[[], float], at: float) -> Callable[[], bool]:
    """Whether ``clock`` has passed ``at`` (a search's stop signal)."""
    return lambda: clock() > at
