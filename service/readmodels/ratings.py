"""Ratings: OpenSkill (Plackett-Luce) per rated identity and game, a read model of the game projection.

The projector (service/readmodels/projections.py) folds every finished rated game into the ``ratings`` rows in feed
order, in the transaction that moves its checkpoint, through ``rate``; the endpoints only read those rows.
So the numbers never depend on which process or request computed them, and a rebuild from zero gives the
same ones. A seat's identity is the account holding it (by its name, unique), else the player name it was created
with. A game is rated when its creation metadata says so, it has two or more seats held by distinct
identities, and its result ranks every seat: a one-player game (Z-12) or anything OpenSkill refuses is
left out, never an error of a ratings or player endpoint.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from domain.core import shown
from eventstore import RecordedEvent
from service.accounts.accounts import name_key
from service.integrity.audit import Move
from service.readmodels.repository.checkpoints import Pool
from service.readmodels.repository.games import StoredRating
from service.readmodels.repository.ratings import RatingRepository
from service.readmodels.schemas import PlayerProfile, PlayerRating, RatingList
from service.runtime import errors

MAX_PAGE = 200
MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, ordinal mu - 3 sigma

# Against farming with sock accounts (docs/api.md "Ratings"):
# a game in which a seat resigned (or was resigned by its timeouts) having made fewer than this many
# decisions of its own is not rated: a Basari or Johari seat makes one a round, a Bazaar seat several a turn
MIN_OWN_DECISIONS = {"basari": 3, "bazaar": 6, "johari": 3}
NO_DECISION = frozenset({"resign", "time_out", "adjudicate"})  # commands that decide nothing for the seat
# the same two identities are rated against each other in at most this many games of a game per UTC day
PAIR_GAMES_PER_DAY = 3
# the public list shows an identity once it has this many rated games against this many distinct opponents
# (its own rating stays readable on its player page before then: a provisional rating; Lichess likewise keeps
# provisional ratings off its lists)
LADDER_MIN_GAMES = 5
LADDER_MIN_OPPONENTS = 3


@dataclass(frozen=True)
class Rating:
    """One identity's rating in one game and the number of rated games it went through."""

    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """The conservative estimate the list is ordered by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def initial_rating() -> Rating:
    """The rating of an identity before its first rated game of a game."""
    fresh = MODEL.rating()
    return Rating(mu=fresh.mu, sigma=fresh.sigma, games=0)


def rated_identities(
    metadata: dict[str, Any], seats: int, accounts: dict[int, str] | None = None
) -> list[str] | None:
    """The identities a finished game rates, by seat: the name of the account holding the seat, else the
    seat's player name; None when the game is not rated: not created rated, fewer than two seats, or an
    identity holding two seats (nobody is rated against themselves)."""
    if not metadata.get("rated"):
        return None
    accounts = accounts or {}
    identities = [accounts.get(seat, str(name)) for seat, name in enumerate(metadata.get("players") or [])]
    if len(identities) < 2 or len(identities) != seats or len(set(identities)) != len(identities):
        return None
    return identities


def own_decisions(records: Sequence[RecordedEvent], seats: int) -> list[int]:
    """How many decisions of its own each seat sent (stored commands other than resigning or the
    service's timeouts and adjudications; a stand-in's decisions are no commands)."""
    counts = [0] * seats
    for record in records:
        if record.cause is None:
            continue
        try:
            move = msgspec.json.decode(record.cause, type=Move)
            body = msgspec.json.decode(move.command)
        except msgspec.DecodeError:
            continue
        if isinstance(body, dict) and body.get("type") == "timed":  # a timed game's: the command inside
            body = body.get("command")
        kind = body.get("type") if isinstance(body, dict) else None
        if kind not in NO_DECISION and 0 <= move.seat < seats:
            counts[move.seat] += 1
    return counts


def resigned_too_early(game: str, resigned: Sequence[int], decisions: Sequence[int]) -> bool:
    """Whether a seat resigned (or timed out for good) before making ``MIN_OWN_DECISIONS`` decisions of its
    own: such a game is not rated."""
    minimum = MIN_OWN_DECISIONS.get(game, 3)
    return any(decisions[seat] < minimum for seat in resigned if 0 <= seat < len(decisions))


def rate(current: Sequence[Rating], ranks: Sequence[int]) -> list[Rating] | None:
    """The ratings after one game of these seats with these ranks (1 is best, equal ranks tie), or None when
    OpenSkill cannot rate it (fewer than two seats, ranks that do not match the seats, a non-finite result)."""
    if len(current) < 2 or len(ranks) != len(current):
        return None
    teams = [[MODEL.create_rating([rating.mu, rating.sigma])] for rating in current]
    try:
        updated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return None
    after = [
        Rating(mu=team[0].mu, sigma=team[0].sigma, games=rating.games + 1)
        for rating, team in zip(current, updated, strict=True)
    ]
    if not all(math.isfinite(r.mu) and math.isfinite(r.sigma) for r in after):
        return None
    return after


class _Cursor(msgspec.Struct, array_like=True, frozen=True):
    """Where a rating page ends: the last row's ordinal, identity and rank."""

    ordinal: float
    player: str
    rank: int


_cursor_decoder = msgspec.json.Decoder(_Cursor)


def encode_cursor(ordinal: float, player: str, rank: int) -> str:
    """An opaque cursor continuing after the row (ordinal, player) that had rank ``rank``."""
    return base64.urlsafe_b64encode(msgspec.json.encode(_Cursor(ordinal, player, rank))).decode()


def decode_cursor(cursor: str | None) -> _Cursor | None:
    """The row a cursor continues after; None for none or an empty one (the first page); 400 if it is not
    one of ours."""
    if not cursor:
        return None
    try:
        return _cursor_decoder.decode(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, msgspec.DecodeError):
        raise errors.Malformed("bad_cursor", "cursor is not one this service gave out") from None


class RatingService:
    """Serves the ratings rows the game projection keeps."""

    def __init__(
        self,
        pool: Pool,
        games: frozenset[str],
        caught_up: Any = None,
        acquire_timeout: float | None = None,
    ) -> None:
        """Read from ``pool``; ``games`` are the registered game names; ``caught_up`` (optional) is awaited
        before each read so an answer includes every game finished before the request."""
        self.rows = RatingRepository(pool, LADDER_MIN_GAMES, LADDER_MIN_OPPONENTS, acquire_timeout)
        self.games = games
        self.caught_up = caught_up

    async def _wait(self) -> None:
        if self.caught_up is not None:
            await self.caught_up()

    async def ratings(self, game: str, cursor: str | None = None, limit: int = 50) -> RatingList:
        """A page of ``game``'s rated identities, best ordinal first (404 for an unknown game)."""
        if game not in self.games:
            raise errors.NotFound("unknown_game", f"no game called {shown(game)}; see /v1/catalog")
        if not 1 <= limit <= MAX_PAGE:
            raise errors.Malformed("bad_limit", f"limit is 1..{MAX_PAGE}")
        after = decode_cursor(cursor)
        await self._wait()
        rows, rated = await self.rows.listed(
            game, None if after is None else (after.ordinal, after.player), limit + 1
        )
        first = 1 if after is None else after.rank + 1
        page = [_rating(row, game, first + index) for index, row in enumerate(rows[:limit])]
        last = rows[limit - 1] if len(rows) > limit else None
        return RatingList(
            game=game,
            games=rated,
            players=page,
            next_cursor=None if last is None else encode_cursor(last.ordinal, last.player, first + limit - 1),
        )

    async def player(self, name: str) -> PlayerProfile:
        """The identity's rating and rank in every game it has rated games of (404 if none); an account is
        found by its name compared as account names are (NFKC, case-folded)."""
        await self._wait()
        name, rows = await self.rows.of_player(name, name_key(name))
        if not rows:
            raise errors.NotFound("player_not_found", f"no rated games of a player called {shown(name)}")
        return PlayerProfile(name=name, ratings=[_rating(row, row.game, row.rank) for row in rows])


def _rating(row: StoredRating, game: str, rank: int) -> PlayerRating:
    """A ratings row as the API shows it (six decimals)."""
    return PlayerRating(
        rank=rank,
        name=row.player,
        game=game,
        mu=round(row.mu, 6),
        sigma=round(row.sigma, 6),
        ordinal=round(row.ordinal, 6),
        games=row.games,
    )
