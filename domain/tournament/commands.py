"""A tournament's commands: sent by the service for the organizer (create, seat, attach, record)."""

from __future__ import annotations

from typing import Any

from domain.core import Command

__all__ = ["AttachGames", "CreateTournament", "RecordGame", "SeatNextRound", "TournamentCommand"]


class CreateTournament(Command, frozen=True, kw_only=True, tag="create_tournament"):
    """Open a tournament; ``min_players``/``max_players`` are the game's limits, passed in by the service."""

    name: str
    game: str
    players: tuple[str, ...]
    rounds: int
    min_players: int
    max_players: int
    table_size: int | None = None
    options: dict[str, Any] | None = None  # the game's options, already validated by the service
    duplicate: bool = False
    seed: str | None = None  # None: drawn from the Rng handed to ``decide``


class SeatNextRound(Command, frozen=True, kw_only=True, tag="seat_next_round"):
    """Seat the next round: round 1 at random, later rounds Swiss-style from the standings."""


class AttachGames(Command, frozen=True, kw_only=True, tag="attach_games"):
    """Record the ids of the games the service created for a seated round, in table order."""

    round: int
    game_ids: tuple[str, ...]


class RecordGame(Command, frozen=True, kw_only=True, tag="record_game"):
    """Report a finished game of a table: per seat its rank (1 is best, equal ranks tie) and score."""

    round: int
    table: int
    game_id: str
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str


TournamentCommand = CreateTournament | SeatNextRound | AttachGames | RecordGame
