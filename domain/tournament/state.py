"""A tournament's state: the fold of its events, frozen and comparable (what decider and read models need)."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["Outcome", "RoundState", "State", "TableState"]


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """A finished table game: per seat its rank (1 is best) and score, the game's audit head hash."""

    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str
    adjudicated: bool = False  # decided by the organizer (the game's standing then), not played out


class TableState(msgspec.Struct, frozen=True, kw_only=True):
    """One table of a round: players in seat order, the game seed, the game once created, its outcome."""

    table: int
    players: tuple[str, ...]
    seed: str
    game_id: str | None = None
    outcome: Outcome | None = None


class RoundState(msgspec.Struct, frozen=True, kw_only=True):
    """One seated round: its tables and whether every game of it has finished."""

    round: int
    tables: tuple[TableState, ...]
    byes: tuple[str, ...] = ()  # the players this round could not seat
    closed: bool = False

    def games_created(self) -> bool:
        """Whether the service has attached a game to every table."""
        return all(table.game_id is not None for table in self.tables)


class State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole tournament as its events built it, seeds included (the service redacts them)."""

    created: bool = False
    name: str = ""
    game: str = ""
    players: tuple[str, ...] = ()  # every player ever entered, late entries last
    round_count: int = 0  # rounds to play
    table_sizes: tuple[int, ...] = ()
    min_players: int = 0
    max_players: int = 0
    options: dict[str, Any] | None = None
    duplicate: bool = False
    table_size: int | None = None  # requested at creation (None: the game's maximum)
    clock: dict[str, Any] | None = None  # every game's clock choice (None: untimed)
    seed: str = ""
    rounds: tuple[RoundState, ...] = ()  # seated rounds, round 1 first
    completed: bool = False
    withdrawn: tuple[str, ...] = ()  # in order of withdrawal
    entered: tuple[str, ...] = ()  # late entries, in order
    terminated: bool = False

    def current(self) -> RoundState | None:
        """The latest seated round (None before round 1)."""
        return self.rounds[-1] if self.rounds else None

    def over(self) -> bool:
        """Whether no more rounds will be played (completed, or terminated by the organizer)."""
        return self.completed or self.terminated

    def active(self) -> tuple[str, ...]:
        """The players later rounds seat: every player not withdrawn, in entry order."""
        return tuple(name for name in self.players if name not in self.withdrawn)
