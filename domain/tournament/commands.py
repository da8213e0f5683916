"""A tournament's commands: sent by the service for the organizer (create, seat, attach, record, and the
administration: withdraw, late entry, terminate, adjudicate)."""

from __future__ import annotations

from typing import Any

from domain.core import Command

__all__ = [
    "AdjudicateGame",
    "AttachGames",
    "CreateTournament",
    "EnterPlayer",
    "RecordGame",
    "SeatNextRound",
    "TerminateTournament",
    "TournamentCommand",
    "WithdrawPlayer",
]


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
    clock: dict[str, Any] | None = None  # every game's clock choice, validated by the service (None: untimed)


class SeatNextRound(Command, frozen=True, kw_only=True, tag="seat_next_round"):
    """Seat the next round: round 1 at random, later rounds Swiss-style from the standings."""


class AttachGames(Command, frozen=True, kw_only=True, tag="attach_games"):
    """Record the ids of the games the service created for a seated round, in table order."""

    round: int
    game_ids: tuple[str, ...]


class RecordGame(Command, frozen=True, kw_only=True, tag="record_game", omit_defaults=True):
    """Report a finished game of a table: per seat its rank (1 is best, equal ranks tie) and score; whether
    the game was ended by adjudication (the decider leaves its result to the adjudication)."""

    round: int
    table: int
    game_id: str
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str
    adjudicated: bool = False  # the game's own stream says so (domain/resign.py ``Adjudicate``)


class WithdrawPlayer(Command, frozen=True, kw_only=True, tag="withdraw_player"):
    """Withdraw a player: later rounds skip them; a game of theirs still running goes on with a stand-in."""

    name: str


class EnterPlayer(Command, frozen=True, kw_only=True, tag="enter_player"):
    """Late entry: a new player takes part from the next round seated on (0 points for the rounds missed)."""

    name: str


class TerminateTournament(Command, frozen=True, kw_only=True, tag="terminate_tournament"):
    """End the tournament now: no more rounds; the standings are final as they stand."""


class AdjudicateGame(Command, frozen=True, kw_only=True, tag="adjudicate_game"):
    """Record a result for a game of the current round that cannot finish (the service passes the game's
    own result as it stands: per seat rank and current score, and whether it has finished by itself), in
    place of its report."""

    round: int
    table: int
    game_id: str
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    audit_head: str
    played_out: bool = False  # the game finished by itself (not by an adjudication): its own result counts


TournamentCommand = (
    CreateTournament
    | SeatNextRound
    | AttachGames
    | RecordGame
    | WithdrawPlayer
    | EnterPlayer
    | TerminateTournament
    | AdjudicateGame
)
