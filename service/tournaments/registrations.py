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

import asyncpg
import msgspec
import structlog

from service.accounts.accounts import Account, AccountService
from service.games.schemas import registration_clock
from service.runtime import errors
from service.tournaments.schemas import CreateTournamentIn

log = structlog.get_logger("service.tournaments.registrations")

REGISTERING, STARTED = "registering", "started"
INVITED, JOINED, DECLINED = "invited", "joined", "declined"


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """An account of a tournament's registration: ``invited``, ``joined`` or ``declined``."""

    name: str
    status: str


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


class Closing(msgspec.Struct, frozen=True, kw_only=True):
    """What a closing registration hands the tournament: the request and the registered accounts."""

    request: CreateTournamentIn
    organizer_hash: str
    names: list[str]
    account_ids: list[str]


class Registrations:
    """The ``tournament_registrations`` and ``tournament_entries`` tables."""

    def __init__(self, accounts: AccountService) -> None:
        self.accounts = accounts

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
        entries = [(tournament_id, a.account_id, INVITED) for a in invited]
        entries += [(tournament_id, a.account_id, JOINED) for a in registered]
        if plays:
            entries.append((tournament_id, organizer.account_id, JOINED))
        async with self.accounts.connection() as connection, connection.transaction():
            await connection.execute(
                "INSERT INTO tournament_registrations (tournament_id, request, organizer_hash, organizer_id,"
                " open, status) VALUES ($1, $2, $3, $4, $5, $6)",
                tournament_id,
                request,
                organizer_hash,
                organizer.account_id,
                request.open,
                REGISTERING,
            )
            await connection.executemany(
                "INSERT INTO tournament_entries (tournament_id, account_id, status) VALUES ($1, $2, $3)",
                entries,
            )

    async def organizer(self, tournament_id: str) -> tuple[str, str | None] | None:
        """The organizer token hash and the organizer's account id of a tournament that registered accounts
        (None if it never did)."""
        async with self.accounts.connection() as connection:
            row = await connection.fetchrow(
                "SELECT organizer_hash, organizer_id FROM tournament_registrations WHERE tournament_id = $1",
                tournament_id,
            )
        return None if row is None else (row["organizer_hash"], row["organizer_id"])

    async def status(self, tournament_id: str) -> str | None:
        """``registering``, ``started``, or None for a tournament that never registered accounts."""
        async with self.accounts.connection() as connection:
            found: str | None = await connection.fetchval(
                "SELECT status FROM tournament_registrations WHERE tournament_id = $1", tournament_id
            )
        return found

    async def _locked(self, connection: Any, tournament_id: str) -> asyncpg.Record:
        row = await connection.fetchrow(
            "SELECT status, open, request, organizer_hash FROM tournament_registrations"
            " WHERE tournament_id = $1 FOR UPDATE",
            tournament_id,
        )
        if row is None:
            raise errors.NotFound("tournament_not_found", f"no tournament {tournament_id} registers players")
        if row["status"] != REGISTERING:
            raise errors.Conflict("registration_closed", "the tournament's first round is seated")
        return row

    async def join(self, tournament_id: str, token: str | None) -> Registration:
        """Register the caller: accept its invitation, or join an open tournament (403 ``not_invited``)."""
        account = await self.accounts.require(token)
        async with self.accounts.connection() as connection, connection.transaction():
            row = await self._locked(connection, tournament_id)
            entry = await connection.fetchval(
                "SELECT status FROM tournament_entries WHERE tournament_id = $1 AND account_id = $2",
                tournament_id,
                account.account_id,
            )
            if entry == JOINED:
                raise errors.Conflict("already_registered", "this account is registered already")
            if entry is None and not row["open"]:
                raise errors.Forbidden("not_invited", "this tournament registers invited accounts only")
            await connection.execute(
                "INSERT INTO tournament_entries (tournament_id, account_id, status) VALUES ($1, $2, $3)"
                " ON CONFLICT (tournament_id, account_id) DO UPDATE SET status = $3, updated_at = now()",
                tournament_id,
                account.account_id,
                JOINED,
            )
        log.info("tournament_registered", tournament_id=tournament_id, account_id=account.account_id)
        return await self.registration(tournament_id)

    async def withdraw(self, tournament_id: str, token: str | None, was: str) -> Registration:
        """Decline an invitation (``was`` = invited) or leave a registration (``was`` = joined)."""
        account = await self.accounts.require(token)
        async with self.accounts.connection() as connection, connection.transaction():
            await self._locked(connection, tournament_id)
            changed = await connection.fetchval(
                "UPDATE tournament_entries SET status = $4, updated_at = now()"
                " WHERE tournament_id = $1 AND account_id = $2 AND status = $3 RETURNING account_id",
                tournament_id,
                account.account_id,
                was,
                DECLINED,
            )
        if changed is None:
            code = "not_invited" if was == INVITED else "not_registered"
            raise errors.Conflict(code, f"this account is not {was} to this tournament")
        return await self.registration(tournament_id)

    async def registration(self, tournament_id: str) -> Registration:
        """The registration of a tournament (404 if it never registered accounts)."""
        async with self.accounts.connection() as connection:
            row = await connection.fetchrow(
                "SELECT r.status, r.open, r.request, r.created_at, a.name AS organizer, k.commitment"
                " FROM tournament_registrations r LEFT JOIN accounts a ON a.account_id = r.organizer_id"
                " LEFT JOIN seed_commits k ON k.subject_id = r.tournament_id"
                " WHERE r.tournament_id = $1",
                tournament_id,
            )
            if row is None:
                raise errors.NotFound(
                    "tournament_not_found", f"no tournament {tournament_id} registers players"
                )
            entries = await connection.fetch(
                "SELECT a.name, e.status FROM tournament_entries e JOIN accounts a USING (account_id)"
                " WHERE e.tournament_id = $1 ORDER BY e.updated_at, a.name",
                tournament_id,
            )
        request = row["request"]
        return Registration(
            tournament_id=tournament_id,
            name=request["name"],
            game=request["game"],
            status=row["status"],
            open=row["open"],
            organizer=row["organizer"],
            entries=[Entry(name=e["name"], status=e["status"]) for e in entries],
            created_at=row["created_at"],
            seed_commitment=row["commitment"],
            clock=registration_clock(request),
        )

    async def registering(self, limit: int) -> list[Registration]:
        """The tournaments still registering players, newest first (at most ``limit``)."""
        async with self.accounts.connection() as connection:
            ids = await connection.fetch(
                "SELECT tournament_id FROM tournament_registrations WHERE status = $1"
                " ORDER BY created_at DESC LIMIT $2",
                REGISTERING,
                limit,
            )
        return [await self.registration(row["tournament_id"]) for row in ids]

    async def close(self, tournament_id: str, start: Any) -> None:
        """Close registration holding its lock: ``await start(closing)`` opens the tournament (its refusal,
        e.g. too few players, leaves registration open); then the registration is ``started``."""
        async with self.accounts.connection() as connection, connection.transaction():
            row = await connection.fetchrow(
                "SELECT status, request, organizer_hash FROM tournament_registrations"
                " WHERE tournament_id = $1 FOR UPDATE",
                tournament_id,
            )
            if row is None or row["status"] != REGISTERING:
                return
            joined = await connection.fetch(
                "SELECT a.account_id, a.name FROM tournament_entries e JOIN accounts a USING (account_id)"
                " WHERE e.tournament_id = $1 AND e.status = $2 ORDER BY e.updated_at, a.name",
                tournament_id,
                JOINED,
            )
            await start(
                Closing(
                    request=msgspec.convert(row["request"], CreateTournamentIn),
                    organizer_hash=row["organizer_hash"],
                    names=[r["name"] for r in joined],
                    account_ids=[r["account_id"] for r in joined],
                )
            )
            await connection.execute(
                "UPDATE tournament_registrations SET status = $2 WHERE tournament_id = $1",
                tournament_id,
                STARTED,
            )
        log.info("tournament_registration_closed", tournament_id=tournament_id, players=len(joined))
