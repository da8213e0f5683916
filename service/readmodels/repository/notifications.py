"""What an account's notifications (service/readmodels/notifications.py) and their shared feed reader
(service/readmodels/account_feed.py) read besides the feed: the account's seats and open invitations."""

from __future__ import annotations

from typing import Any

import msgspec

from service.readmodels.repository.checkpoints import HORIZON
from service.runtime.sql import PostgresRepository, records

_SEATS_IN = "SELECT game_id, seat FROM game_seats WHERE account_id = $1 AND game_id = ANY($2::text[])"
# the account's seats of started games not listed as finished: a game the listing (a projection) does not
# hold yet counts too, or a game started just before the stream opened would be missed by both the snapshot
# and the feed that follows (a bot whose first decision was due at the start then waited for ever)
_ACTIVE_SEATS = (
    "SELECT s.game_id, s.seat FROM game_seats s LEFT JOIN game_listing g USING (game_id)"
    " LEFT JOIN lobby_games l USING (game_id)"
    " WHERE s.account_id = $1 AND coalesce(g.status, 'active') = 'active'"
    " AND coalesce(l.status, 'started') IN ('starting', 'started')"
    " ORDER BY coalesce(g.created_at, l.created_at), s.game_id"
)
# the open invitations of the accounts the condition ``{}`` on the invited account picks (one, or many at once)
_SEAT_INVITATIONS = (
    "SELECT s.invited_id, s.game_id, s.seat, l.game, l.rated, l.clock, c.name AS creator FROM game_seats s"
    " JOIN lobby_games l USING (game_id) LEFT JOIN accounts c ON c.account_id = l.creator_id"
    " WHERE s.invited_id {} AND s.account_id IS NULL AND l.status = 'waiting' ORDER BY s.game_id, s.seat"
)
_TOURNAMENT_INVITATIONS = (
    "SELECT e.account_id AS invited_id, e.tournament_id, r.request->>'game' AS game, r.request,"
    " o.name AS organizer FROM tournament_entries e JOIN tournament_registrations r USING (tournament_id)"
    " LEFT JOIN accounts o ON o.account_id = r.organizer_id"
    " WHERE e.account_id {} AND e.status = 'invited' AND r.status = 'registering' ORDER BY e.tournament_id"
)
_INVITATIONS = (_SEAT_INVITATIONS.format("= $1"), _TOURNAMENT_INVITATIONS.format("= $1"))
_INVITATIONS_OF = (
    _SEAT_INVITATIONS.format("= ANY($1::text[])"),
    _TOURNAMENT_INVITATIONS.format("= ANY($1::text[])"),
)
_SEATS_OF_GAMES = (
    "SELECT game_id, seat, account_id FROM game_seats"
    " WHERE game_id = ANY($1::text[]) AND account_id IS NOT NULL"
)


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a game, held by the account asked about."""

    game_id: str
    seat: int


class HeldSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a game and the account holding it."""

    game_id: str
    seat: int
    account_id: str


class SeatInvitation(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a lobby game waiting for players, reserved for an account asked about (``invited_id``)."""

    invited_id: str
    game_id: str
    seat: int
    game: str
    rated: bool
    clock: Any
    creator: str | None


class TournamentInvitation(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament registering players that invited an account asked about (``invited_id``)."""

    invited_id: str
    tournament_id: str
    game: str
    request: dict[str, Any]
    organizer: str | None


class NotificationRepository(PostgresRepository):
    """What an account's notifications read besides the feed: its seats and its open invitations."""

    async def horizon(self) -> int:
        """The oldest running transaction's id: the feed shows nothing past it."""
        async with self.connection() as connection:
            horizon: int = await connection.fetchval(HORIZON)
        return horizon

    async def invitations(self, account_id: str) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
        """The account's open invitations: seats reserved for it in lobby games waiting for players, and
        tournaments registering players that invited it."""
        return await self._invitations(_INVITATIONS, account_id)

    async def invitations_of(
        self, account_ids: list[str]
    ) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
        """The open invitations of all those accounts in one read (each names its account), every account's
        in the order ``invitations`` gives them."""
        return await self._invitations(_INVITATIONS_OF, account_ids)

    async def _invitations(
        self, queries: tuple[str, str], accounts: Any
    ) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
        """The seat and tournament invitations ``queries`` find for ``accounts`` (their one parameter)."""
        seat_query, tournament_query = queries
        async with self.connection() as connection:
            seats = await connection.fetch(seat_query, accounts)
            tournaments = await connection.fetch(tournament_query, accounts)
        return records(SeatInvitation, seats), records(TournamentInvitation, tournaments)

    async def active_seats(self, account_id: str) -> list[Seat]:
        """The account's seats of started games not listed as finished, oldest game first."""
        async with self.connection() as connection:
            return records(Seat, await connection.fetch(_ACTIVE_SEATS, account_id))

    async def seats_in(self, account_id: str, game_ids: list[str]) -> list[Seat]:
        """The account's seats in those games."""
        async with self.connection() as connection:
            return records(Seat, await connection.fetch(_SEATS_IN, account_id, game_ids))

    async def held_seats(self, game_ids: list[str]) -> list[HeldSeat]:
        """Every seat held by an account in those games."""
        async with self.connection() as connection:
            return records(HeldSeat, await connection.fetch(_SEATS_OF_GAMES, game_ids))
