"""Rulebook-style tournament scenarios: ``given(events).when(command).then(events)`` or ``.rejects(code)``."""

from __future__ import annotations

from collections.abc import Sequence

from domain.core import Command, Event, Rejected, Rng
from domain.tournament import (
    TOURNAMENT,
    AttachGames,
    CreateTournament,
    RecordGame,
    SeatNextRound,
    State,
    seating_rng,
)


def fold(events: Sequence[Event], state: State | None = None) -> State:
    """The state after ``events`` (from the initial state unless given)."""
    current = TOURNAMENT.initial() if state is None else state
    for event in events:
        current = TOURNAMENT.evolve(current, event)
    return current


def rng_for(state: State, command: Command) -> Rng:
    """The Rng the service hands in: the seating Rng for seating, any other otherwise."""
    return seating_rng(state) if isinstance(command, SeatNextRound) else Rng("scenario", "create")


class Scenario:
    """A tournament built from past events, and the command to decide against it."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.history = list(events)
        self.state = fold(self.history)
        self._command: Command | None = None

    def when(self, command: Command) -> Scenario:
        """The command the service sends next."""
        self._command = command
        return self

    def decide(self) -> list[Event]:
        """The events the command causes (raises Rejected)."""
        assert self._command is not None, "call .when(command) first"
        return TOURNAMENT.decide(self.state, self._command, rng_for(self.state, self._command))

    def then(self, expected: Sequence[Event] | None = None) -> State:
        """Assert the command is accepted (causing exactly ``expected`` if given); return the new state."""
        events = self.decide()
        if expected is not None:
            assert events == list(expected), f"expected {expected!r}\n     got {events!r}"
        return fold(events, self.state)

    def rejects(self, code: str) -> Rejected:
        """Assert the command is refused with ``code``."""
        try:
            self.decide()
        except Rejected as refusal:
            assert refusal.code == code, f"refused as {refusal.code!r} ({refusal.detail}), expected {code!r}"
            return refusal
        raise AssertionError(f"command was accepted, expected a refusal {code!r}")


def given(events: Sequence[Event]) -> Scenario:
    """Start a scenario from a history of events."""
    return Scenario(events)


def names(count: int) -> tuple[str, ...]:
    """``count`` distinct player names."""
    return tuple(f"P{i:02d}" for i in range(1, count + 1))


def create(
    count: int = 9,
    *,
    rounds: int = 3,
    min_players: int = 3,
    max_players: int = 5,
    table_size: int | None = None,
    duplicate: bool = False,
    seed: str | None = "tournament-seed",
    players: tuple[str, ...] | None = None,
) -> CreateTournament:
    """A CreateTournament command (defaults: 9 Basari-like players, 3 rounds)."""
    return CreateTournament(
        name="Spring Cup",
        game="basari",
        players=players if players is not None else names(count),
        rounds=rounds,
        min_players=min_players,
        max_players=max_players,
        table_size=table_size,
        duplicate=duplicate,
        seed=seed,
    )


class Run:
    """A tournament driven through the decider as the service would, keeping every event appended."""

    def __init__(self, command: CreateTournament) -> None:
        self.events: list[Event] = []
        self.state = TOURNAMENT.initial()
        self.apply(command)

    def apply(self, command: Command) -> list[Event]:
        """Decide ``command`` on the current state and apply its events."""
        events = TOURNAMENT.decide(self.state, command, rng_for(self.state, command))
        for event in events:
            self.state = TOURNAMENT.evolve(self.state, event)
        self.events.extend(events)
        return events

    def seat(self) -> int:
        """Seat the next round and attach made-up game ids; the round number."""
        self.apply(SeatNextRound())
        current = self.state.rounds[-1]
        ids = tuple(f"game-{current.round}-{table.table}" for table in current.tables)
        self.apply(AttachGames(round=current.round, game_ids=ids))
        return current.round

    def report(
        self, round_number: int, table: int, ranks: Sequence[int], scores: Sequence[int] | None = None
    ) -> list[Event]:
        """Report the game of a table with these ranks (and scores; default: 10 minus rank)."""
        game_id = self.state.rounds[round_number - 1].tables[table - 1].game_id
        assert game_id is not None
        return self.apply(
            RecordGame(
                round=round_number,
                table=table,
                game_id=game_id,
                ranks=tuple(ranks),
                scores=tuple(scores) if scores is not None else tuple(10 - r for r in ranks),
                audit_head=f"head-{round_number}-{table}",
            )
        )

    def play_round(self, rng: Rng) -> int:
        """Seat a round and report every table with random ranks (ties possible); the round number."""
        number = self.seat()
        for table in self.state.rounds[-1].tables:
            size = len(table.players)
            ranks = sorted(1 + rng.below(size) for _ in range(size))
            ranks = [ranks.index(r) + 1 for r in ranks]  # competition ranking: 1, 1, 3, ...
            self.report(number, table.table, rng.shuffle(ranks), [rng.below(50) for _ in range(size)])
        return number

    def table_of(self, round_number: int, player: str) -> int:
        """The table ``player`` sat at in that round."""
        for table in self.state.rounds[round_number - 1].tables:
            if player in table.players:
                return table.table
        raise KeyError(player)
