"""A tournament's events: one stream (created, seated, games created, game finished, closed, completed; and the
organizer's administration: withdrawn, entered, adjudicated, terminated).

Secrets, to be redacted by the service: ``TournamentCreated.seed`` until the tournament is completed (every
game seed derives from it), and ``SeatedTable.seed`` until that round is closed (with ``duplicate`` one seed
deals every table of the round, so one finished table must not reveal the deal of another) — and either only
once every game concerned is over (an adjudicated game may still run after its round closed).
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import Event

__all__ = [
    "EVENT_TYPE",
    "GameAdjudicated",
    "GameFinished",
    "GamesCreated",
    "PlayerEntered",
    "PlayerWithdrawn",
    "RoundClosed",
    "RoundSeated",
    "SeatedTable",
    "TournamentCompleted",
    "TournamentCreated",
    "TournamentEvent",
    "TournamentTerminated",
]


class TournamentCreated(Event, frozen=True, kw_only=True, tag="tournament_created"):
    """The tournament opened: players (names trimmed), rounds, table sizes of every round, secret seed."""

    name: str
    game: str
    players: tuple[str, ...]
    rounds: int
    table_sizes: tuple[int, ...]  # every round seats these tables, largest first
    min_players: int
    max_players: int
    options: dict[str, Any] | None = None
    duplicate: bool = False
    table_size: int | None = None  # the requested table size (None: the game's maximum), for later rounds
    clock: dict[str, Any] | None = None  # the clock every game of the tournament is created with (None: none)
    seed: str  # secret until the tournament is completed


class SeatedTable(msgspec.Struct, frozen=True, kw_only=True):
    """One table of a seated round: number (from 1), players in seat order (seat 0 first), game seed."""

    table: int
    players: tuple[str, ...]
    seed: str  # the game's seed; secret until the round is closed


class RoundSeated(Event, frozen=True, kw_only=True, tag="round_seated"):
    """A round's tables were seated (round 1 at random, later rounds from the standings)."""

    round: int
    tables: tuple[SeatedTable, ...]
    byes: tuple[str, ...] = ()  # the players the tables could not seat this round (bye scoring: standings)


class GamesCreated(Event, frozen=True, kw_only=True, tag="games_created"):
    """The service created the games of a seated round; their ids, in table order."""

    round: int
    game_ids: tuple[str, ...]


class GameFinished(Event, frozen=True, kw_only=True, tag="game_finished"):
    """A table's game ended: per seat its rank (1 is best, equal ranks tie) and score; its audit head."""

    round: int
    table: int
    game_id: str
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str


class RoundClosed(Event, frozen=True, kw_only=True, tag="round_closed"):
    """Every game of the round has finished."""

    round: int


class TournamentCompleted(Event, frozen=True, kw_only=True, tag="tournament_completed"):
    """The last round closed: the standings are final."""


class PlayerWithdrawn(Event, frozen=True, kw_only=True, tag="player_withdrawn"):
    """The organizer withdrew a player after ``round`` rounds were seated: later rounds skip them."""

    name: str
    round: int


class PlayerEntered(Event, frozen=True, kw_only=True, tag="player_entered"):
    """A late entry: the player takes part from round ``round`` (the next seated) on."""

    name: str
    round: int


class GameAdjudicated(Event, frozen=True, kw_only=True, tag="game_adjudicated"):
    """The organizer adjudicated a table's unfinished game: per seat its rank and score as the game stood
    (its head then: ``audit_head``); it counts as the table's result, like ``GameFinished``."""

    round: int
    table: int
    game_id: str
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str


class TournamentTerminated(Event, frozen=True, kw_only=True, tag="tournament_terminated"):
    """The organizer ended the tournament after ``round`` rounds were seated: the standings are final."""

    round: int


TournamentEvent = (
    TournamentCreated
    | RoundSeated
    | GamesCreated
    | GameFinished
    | RoundClosed
    | TournamentCompleted
    | PlayerWithdrawn
    | PlayerEntered
    | GameAdjudicated
    | TournamentTerminated
)
EVENT_TYPE: Any = TournamentEvent
