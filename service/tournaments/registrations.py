"""Tournament registration: an account tournament registers accounts (each joins, or is invited by the
organizer and accepts) until its first round is seated, which closes registration and opens the
tournament's stream with the registered accounts as its players.

Every change of one tournament's registration runs in a transaction that first locks its row, so joins,
leaves, declines and the close take turns across processes; the close creates the stream while holding
the lock (a close cut short after the stream was created is finished by the next one).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import structlog

from service.accounts.accounts import Account, AccountService
from service.games.schemas import registration_clock
from service.runtime import errors
from service.tournaments.repository import INVITED as INVITED  # the names its users import from here
from service.tournaments.repository import JOINED as JOINED
from service.tournaments.repository import Closing as Closing
from service.tournaments.repository import Entry, Organizer, RegistrationRepository, Start
from service.tournaments.schemas import CreateTournamentIn

log = structlog.get_logger("service.tournaments.registrations")


class Registration(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's registration: ``registering`` until its first round is seated, then ``started``;
    ``open``: any account may register itself."""

    tournament_id: str
    name: str
    game: str
    status: str
    open: bool
    organizer: str | None
    entries: list[Entry]
    created_at: datetime
    seed_commitment: str | None = None  # SHA-256 of the tournament's seed, committed at creation
    clock: dict[str, Any] | None = None  # the clock of every game of the tournament (null: untimed)


def admit(open_: bool, entry: str | None) -> None:
    """An account may join a tournament it is invited to, or an open one; 409 ``already_registered`` if it
    has joined, 403 ``not_invited`` if it is not invited to a tournament for invited accounts only."""
    if entry == JOINED:
        raise errors.Conflict("already_registered", "this account is registered already")
    if entry is None and not open_:
        raise errors.Forbidden("not_invited", "this tournament registers invited accounts only")


class Registrations:
    """Tournament registration on a repository (service/tournaments/repository.py)."""

    def __init__(self, accounts: AccountService, repository: RegistrationRepository) -> None:
        """Find callers' accounts in ``accounts``; keep registrations in ``repository``."""
        self.accounts = accounts
        self.repository = repository

    async def open(
        self,
        tournament_id: str,
        request: CreateTournamentIn,
        organizer_hash: str,
        organizer: Account,
        plays: bool,
        invited: list[Account],
        registered: list[Account],
    ) -> None:
        """Open registration: the organizer's account registered if it plays, the invited accounts invited,
        the ``registered`` ones (the server's bots, which accept at once) joined."""
        entries = [(a.account_id, INVITED) for a in invited]
        entries += [(a.account_id, JOINED) for a in registered]
        if plays:
            entries.append((organizer.account_id, JOINED))
        await self.repository.open(
            tournament_id,
            request,
            Organizer(organizer_hash=organizer_hash, organizer_id=organizer.account_id),
            entries,
        )

    async def organizer(self, tournament_id: str) -> tuple[str, str | None] | None:
        """The organizer token hash and the organizer's account id of a tournament that registered accounts
        (None if it never did)."""
        found = await self.repository.organizer(tournament_id)
        return None if found is None else (found.organizer_hash, found.organizer_id)

    async def status(self, tournament_id: str) -> str | None:
        """``registering``, ``started``, or None for a tournament that never registered accounts."""
        return await self.repository.status(tournament_id)

    async def join(self, tournament_id: str, token: str | None) -> Registration:
        """Register the caller: accept its invitation, or join an open tournament (403 ``not_invited``)."""
        account = await self.accounts.require(token)
        await self.repository.join(tournament_id, account.account_id, admit)
        log.info("tournament_registered", tournament_id=tournament_id, account_id=account.account_id)
        return await self.registration(tournament_id)

    async def withdraw(self, tournament_id: str, token: str | None, was: str) -> Registration:
        """Decline an invitation (``was`` = invited) or leave a registration (``was`` = joined)."""
        account = await self.accounts.require(token)
        if not await self.repository.withdraw(tournament_id, account.account_id, was):
            code = "not_invited" if was == INVITED else "not_registered"
            raise errors.Conflict(code, f"this account is not {was} to this tournament")
        return await self.registration(tournament_id)

    async def registration(self, tournament_id: str) -> Registration:
        """The registration of a tournament (404 if it never registered accounts)."""
        found = await self.repository.registration(tournament_id)
        if found is None:
            raise errors.NotFound("tournament_not_found", f"no tournament {tournament_id} registers players")
        stored, entries = found
        return Registration(
            tournament_id=tournament_id,
            name=stored.request["name"],
            game=stored.request["game"],
            status=stored.status,
            open=stored.open,
            organizer=stored.organizer,
            entries=entries,
            created_at=stored.created_at,
            seed_commitment=stored.commitment,
            clock=registration_clock(stored.request),
        )

    async def registering(self, limit: int) -> list[Registration]:
        """The tournaments still registering players, newest first (at most ``limit``)."""
        return [await self.registration(i) for i in await self.repository.registering(limit)]

    async def close(self, tournament_id: str, start: Start) -> None:
        """Close registration holding its lock: ``await start(closing)`` opens the tournament (its refusal,
        e.g. too few players, leaves registration open); then the registration is ``started``."""
        closing = await self.repository.close(tournament_id, start)
        if closing is not None:
            log.info(
                "tournament_registration_closed", tournament_id=tournament_id, players=len(closing.names)
            )
