"""The lobby's records: what a join asks, and the lobby games, seats and an account's games it answers with
(rows become these records in service/lobby/repository.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.bots.core import Level


class JoinIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Join a waiting game: optionally which seat, and the client's ``entropy`` (at most 128 characters,
    kept with the seat; mixed into a rated game's seed); or, from the game's creator, ``bot``: seat the
    server's bot of that level (its built-in account) in an open seat instead."""

    seat: int | None = None
    entropy: str | None = None
    bot: Level | None = None


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a lobby game: ``taken`` (by ``name``: an account, or a hot-seat name), ``invited`` (reserved
    for the account ``invited``) or ``open``."""

    seat: int
    status: str
    name: str | None = None
    invited: str | None = None


def is_option_value(value: Any) -> bool:
    """A game option's value is a scalar (null, true/false, a number or text): no game has nested options."""
    return value is None or isinstance(value, bool | int | float | str)


class LobbyGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the lobby: ``waiting`` for players, ``started`` (play it at /v1/games/{game_id}) or
    ``cancelled``; ``seed_commitment``: SHA-256 of the server's secret seed half (or of a chosen seed), public
    from creation (null for a game listed before commitments were kept); ``seed_chosen``: the creator chose
    the seed (unrated games only), so it may be guessable: a player sees it before joining, which cannot be
    undone."""

    game_id: str
    game: str
    options: dict[str, Any]
    rated: bool
    status: str
    creator: str | None
    seats: list[LobbySeat]
    created_at: datetime
    seed_commitment: str | None = None
    seed_chosen: bool = False
    clock: dict[str, Any] | None = None  # the clock the game starts with (null: untimed), as chosen


class LobbyPage(msgspec.Struct, frozen=True, kw_only=True):
    """Waiting games, newest first; pass ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    games: list[LobbyGame]
    next_cursor: str | None


class MyGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the caller's: the seat held (or reserved by invitation), and the game's status
    (``waiting``, ``active``, ``finished``, ``cancelled``)."""

    game_id: str
    game: str
    seat: int
    invited: bool
    status: str
    rated: bool
    tournament: str | None
    created_at: datetime
    score: int | None = None
    rank: int | None = None
    lower_is_better: bool = False  # a Bazaar solitaire score is the turns taken, with ``solved`` (Z-12)
    solved: bool | None = None
    seed_commitment: str | None = None
    clock: dict[str, Any] | None = None  # a lobby game's clock as chosen (null: untimed, or not known here)


class MyGamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the caller's games, newest first."""

    games: list[MyGame]
    next_cursor: str | None
