"""The read models' answers: the game listing, a player's history, ratings."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.core import Result


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One game of the listing; ``result`` once it is finished (the game's Result: scores, ranks and winners
    by seat, and its ``note``: who resigned, how a tie was decided); ``seed_commitment`` as published at
    creation."""

    game_id: str
    game: str
    status: str
    version: int
    players: list[str]
    tournament: str | None
    created_at: datetime
    updated_at: datetime
    seed_commitment: str | None = None
    result: Result | None = None


class GamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the listing; pass ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    games: list[GameSummary]
    next_cursor: str | None


class PlayerGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a player's history: the game as listed, the player's seat and, once finished, their
    score and rank (a Bazaar solitaire score is the turns taken, ``lower_is_better``, with ``solved``: Z-12)."""

    game_id: str
    game: str
    status: str
    version: int
    seat: int
    players: list[str]
    tournament: str | None
    created_at: datetime
    updated_at: datetime
    seed_commitment: str | None = None
    score: int | None = None
    rank: int | None = None
    lower_is_better: bool = False
    solved: bool | None = None


class PlayerGamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of a player's games, newest first; pass ``next_cursor`` as ``cursor`` for the next page."""

    name: str
    games: list[PlayerGame]
    next_cursor: str | None


class PlayerRating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in one game: OpenSkill Plackett-Luce ``mu``/``sigma``, ``ordinal`` = mu - 3 sigma."""

    rank: int
    name: str
    game: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class RatingList(msgspec.Struct, frozen=True, kw_only=True):
    """A page of a game's rated players, best ordinal first, and how many rated games went into them; pass
    ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    game: str
    games: int
    players: list[PlayerRating]
    next_cursor: str | None


class PlayerProfile(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in every game they have played rated games of."""

    name: str
    ratings: list[PlayerRating]
