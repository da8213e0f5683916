"""What a tournament is created with and answers with."""

from __future__ import annotations

from typing import Any

import msgspec

from service.games.schemas import ClockIn, PlayerIn


class CreateTournamentIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Create a tournament: name, game, players, rounds, and optionally table size, options, duplicate, seed.

    Players are either all ``{name}`` (each gets a player token, as a hot-seat seat does) or accounts:
    ``{account: "me"}`` (the organizer's account plays) and ``{invite: "<account>"}``; with ``open: true``
    any account may register itself too. An account tournament registers players until its first round
    is seated. Every game gets the tournament's clock: ``clock``, by default ``TOURNAMENT_CLOCK``;
    ``untimed: true`` for none."""

    name: str
    game: str
    players: list[PlayerIn]
    rounds: int
    table_size: int | None = None
    options: dict[str, Any] | None = None
    duplicate: bool = False
    seed: str | None = None
    open: bool = False
    clock: ClockIn | None = None  # None: the tournament default (TOURNAMENT_CLOCK), unless ``untimed``
    untimed: bool = False  # games without a clock


class PlayerNameIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tournament player, by name: the one to withdraw, or a late entry (1-40 characters)."""

    name: str


class AdjudicationIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The game of the current round to adjudicate (its result as it stands now is recorded)."""

    game_id: str


class PlayerToken(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament player and their secret token (their seat's bearer token in every game of the tournament)."""

    name: str
    token: str


class TournamentCreatedOut(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a tournament creation: its id, the organizer's token and each player's token (shown
    once), and ``seed_commitment``: SHA-256 of the tournament's secret seed (revealed once it is completed)."""

    tournament_id: str
    organizer_token: str
    players: list[PlayerToken]
    registering: bool = False
    seed_commitment: str = ""
