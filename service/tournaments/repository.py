"""Where tournament registrations live: the ``tournament_registrations`` and ``tournament_entries`` tables
(migration 0007), behind one interface with a PostgreSQL implementation and an in-memory twin that pass the
same contract tests (tests/contract/test_registration_repository.py;
docs/decisions/0008-sql-in-repositories.md).

Every change of one tournament's registration runs in one transaction that first locks its row (the twin:
holds the tournament's lock), so joins, leaves, declines and the close take turns; a registration changes
only while it is ``registering`` (404 for a tournament that never registered players, else 409
``registration_closed``). Which entry may join is the service's rule, handed in as ``admit``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from eventstore import KeyStore
from service.accounts.repository import AccountRepository
from service.runtime import errors
from service.runtime.sql import PostgresRepository, record, records
from service.tournaments.schemas import CreateTournamentIn

REGISTERING, STARTED = "registering", "started"
INVITED, JOINED, DECLINED = "invited", "joined", "declined"


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """An account of a tournament's registration: ``invited``, ``joined`` or ``declined``."""

    name: str
    status: str


class Closing(msgspec.Struct, frozen=True, kw_only=True):
    """What a closing registration hands the tournament: the request and the registered accounts."""

    request: CreateTournamentIn
    organizer_hash: str
    names: list[str]
    account_ids: list[str]


class Organizer(msgspec.Struct, frozen=True, kw_only=True):
    """Who organizes a tournament that registers accounts: the organizer token's hash and the account."""

    organizer_hash: str
    organizer_id: str | None


class Locked(msgspec.Struct, frozen=True, kw_only=True):
    """A registration as its locked row shows it."""

    status: str
    open: bool
    request: dict[str, Any]
    organizer_hash: str


class Stored(msgspec.Struct, frozen=True, kw_only=True):
    """A registration as stored, with its organizer's name and the tournament's seed commitment."""

    status: str
    open: bool
    request: dict[str, Any]
    created_at: datetime
    organizer: str | None
    commitment: str | None


Admit = Callable[[bool, str | None], None]  # (open, the account's entry status or None): raises to refuse
Start = Callable[[Closing], Awaitable[None]]


def still_registering(locked: Locked | None, tournament_id: str) -> Locked:
    """The locked registration; 404 for a tournament that never registered players, 409 once closed."""
    if locked is None:
        raise errors.NotFound("tournament_not_found", f"no tournament {tournament_id} registers players")
    if locked.status != REGISTERING:
        raise errors.Conflict("registration_closed", "the tournament's first round is seated")
    return locked


class RegistrationRepository(Protocol):
    """Tournament registrations and their entries."""

    async def open(
        self,
        tournament_id: str,
        request: CreateTournamentIn,
        organizer: Organizer,
        entries: list[tuple[str, str]],
    ) -> None:
        """Open registration with these entries (account id, status), changed at one moment."""
        ...

    async def organizer(self, tournament_id: str) -> Organizer | None:
        """The organizer of a tournament that registered accounts."""
        ...

    async def status(self, tournament_id: str) -> str | None:
        """``registering``, ``started``, or None for a tournament that never registered accounts."""
        ...

    async def join(self, tournament_id: str, account_id: str, admit: Admit) -> None:
        """Holding the lock of a registering tournament, ``admit`` the account, then register it as joined."""
        ...

    async def withdraw(self, tournament_id: str, account_id: str, was: str) -> bool:
        """Holding the lock of a registering tournament, decline the account's entry if it is ``was``
        (False: it is not)."""
        ...

    async def registration(self, tournament_id: str) -> tuple[Stored, list[Entry]] | None:
        """A registration and its entries, by the time they last changed, then by name."""
        ...

    async def registering(self, limit: int) -> list[str]:
        """The ids of the tournaments still registering players, newest first (at most ``limit``)."""
        ...

    async def close(self, tournament_id: str, start: Start) -> Closing | None:
        """Holding the lock of a registering tournament, ``await start(closing)`` with the joined accounts,
        then mark it ``started`` (a refusal of ``start`` leaves it registering); None if it is not
        registering."""
        ...


class PostgresRegistrations(PostgresRepository):
    """Registrations in PostgreSQL; entries' names from ``accounts``, commitments from ``seed_commits``."""

    async def open(
        self,
        tournament_id: str,
        request: CreateTournamentIn,
        organizer: Organizer,
        entries: list[tuple[str, str]],
    ) -> None:
        """Insert the registration and its entries in one transaction."""
        async with self.connection() as connection, connection.transaction():
            await connection.execute(
                "INSERT INTO tournament_registrations (tournament_id, request, organizer_hash, organizer_id,"
                " open, status) VALUES ($1, $2, $3, $4, $5, $6)",
                tournament_id,
                request,
                organizer.organizer_hash,
                organizer.organizer_id,
                request.open,
                REGISTERING,
            )
            await connection.executemany(
                "INSERT INTO tournament_entries (tournament_id, account_id, status) VALUES ($1, $2, $3)",
                [(tournament_id, account_id, status) for account_id, status in entries],
            )

    async def organizer(self, tournament_id: str) -> Organizer | None:
        """The organizer of a tournament that registered accounts."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "SELECT organizer_hash, organizer_id FROM tournament_registrations WHERE tournament_id = $1",
                tournament_id,
            )
        return None if row is None else record(Organizer, row)

    async def status(self, tournament_id: str) -> str | None:
        """The registration's status."""
        async with self.connection() as connection:
            found: str | None = await connection.fetchval(
                "SELECT status FROM tournament_registrations WHERE tournament_id = $1", tournament_id
            )
        return found

    @staticmethod
    async def _locked(connection: Any, tournament_id: str) -> Locked:
        """The registering tournament's row, locked until the transaction ends."""
        row = await connection.fetchrow(
            "SELECT status, open, request, organizer_hash FROM tournament_registrations"
            " WHERE tournament_id = $1 FOR UPDATE",
            tournament_id,
        )
        return still_registering(None if row is None else record(Locked, row), tournament_id)

    async def join(self, tournament_id: str, account_id: str, admit: Admit) -> None:
        """Admit the account and upsert its entry as joined, under the registration's row lock."""
        async with self.connection() as connection, connection.transaction():
            locked = await self._locked(connection, tournament_id)
            entry = await connection.fetchval(
                "SELECT status FROM tournament_entries WHERE tournament_id = $1 AND account_id = $2",
                tournament_id,
                account_id,
            )
            admit(locked.open, entry)
            await connection.execute(
                "INSERT INTO tournament_entries (tournament_id, account_id, status) VALUES ($1, $2, $3)"
                " ON CONFLICT (tournament_id, account_id) DO UPDATE SET status = $3, updated_at = now()",
                tournament_id,
                account_id,
                JOINED,
            )

    async def withdraw(self, tournament_id: str, account_id: str, was: str) -> bool:
        """Decline the entry if it is ``was``, under the registration's row lock."""
        async with self.connection() as connection, connection.transaction():
            await self._locked(connection, tournament_id)
            changed = await connection.fetchval(
                "UPDATE tournament_entries SET status = $4, updated_at = now()"
                " WHERE tournament_id = $1 AND account_id = $2 AND status = $3 RETURNING account_id",
                tournament_id,
                account_id,
                was,
                DECLINED,
            )
        return changed is not None

    async def registration(self, tournament_id: str) -> tuple[Stored, list[Entry]] | None:
        """The registration with its organizer's name and commitment, and its entries with their names."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "SELECT r.status, r.open, r.request, r.created_at, a.name AS organizer, k.commitment"
                " FROM tournament_registrations r LEFT JOIN accounts a ON a.account_id = r.organizer_id"
                " LEFT JOIN seed_commits k ON k.subject_id = r.tournament_id"
                " WHERE r.tournament_id = $1",
                tournament_id,
            )
            if row is None:
                return None
            entries = await connection.fetch(
                "SELECT a.name, e.status FROM tournament_entries e JOIN accounts a USING (account_id)"
                " WHERE e.tournament_id = $1 ORDER BY e.updated_at, a.name",
                tournament_id,
            )
        return record(Stored, row), records(Entry, entries)

    async def registering(self, limit: int) -> list[str]:
        """The newest registering tournaments' ids."""
        async with self.connection() as connection:
            ids = await connection.fetch(
                "SELECT tournament_id FROM tournament_registrations WHERE status = $1"
                " ORDER BY created_at DESC LIMIT $2",
                REGISTERING,
                limit,
            )
        return [row["tournament_id"] for row in ids]

    async def close(self, tournament_id: str, start: Start) -> Closing | None:
        """Start the tournament and mark it started in one transaction holding the registration's row lock."""
        async with self.connection() as connection, connection.transaction():
            row = await connection.fetchrow(
                "SELECT status, request, organizer_hash FROM tournament_registrations"
                " WHERE tournament_id = $1 FOR UPDATE",
                tournament_id,
            )
            if row is None or row["status"] != REGISTERING:
                return None
            joined = await connection.fetch(
                "SELECT a.account_id, a.name FROM tournament_entries e JOIN accounts a USING (account_id)"
                " WHERE e.tournament_id = $1 AND e.status = $2 ORDER BY e.updated_at, a.name",
                tournament_id,
                JOINED,
            )
            closing = Closing(
                request=msgspec.convert(row["request"], CreateTournamentIn),
                organizer_hash=row["organizer_hash"],
                names=[r["name"] for r in joined],
                account_ids=[r["account_id"] for r in joined],
            )
            await start(closing)
            await connection.execute(
                "UPDATE tournament_registrations SET status = $2 WHERE tournament_id = $1",
                tournament_id,
                STARTED,
            )
        return closing


class _Registration(msgspec.Struct, kw_only=True):
    """A registration as the twin keeps it; each entry with the moment it last changed (a counter)."""

    locked: Locked
    organizer_id: str | None
    created_at: datetime
    entries: dict[str, tuple[str, int]]  # account id -> (status, changed at)


class InMemoryRegistrations:
    """Registrations in process memory with PostgresRegistrations' semantics: one asyncio.Lock per
    tournament serialises its changes as the row lock does; names come from the accounts, commitments from
    the key store (as the SQL joins ``accounts`` and ``seed_commits``)."""

    def __init__(self, accounts: AccountRepository, keys: KeyStore) -> None:
        """Look names up in ``accounts`` and seed commitments in ``keys``."""
        self.accounts = accounts
        self.keys = keys
        self._registrations: dict[str, _Registration] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._moments = (
            itertools.count()
        )  # the order changes happen in (PostgreSQL: now() of each transaction)

    async def open(
        self,
        tournament_id: str,
        request: CreateTournamentIn,
        organizer: Organizer,
        entries: list[tuple[str, str]],
    ) -> None:
        """Store the registration (its request as jsonb reads back) and its entries, changed at one moment."""
        if tournament_id in self._registrations:
            raise ValueError(f"tournament {tournament_id} registers already")
        moment = next(self._moments)
        self._registrations[tournament_id] = _Registration(
            locked=Locked(
                status=REGISTERING,
                open=request.open,
                request=msgspec.json.decode(msgspec.json.encode(request)),
                organizer_hash=organizer.organizer_hash,
            ),
            organizer_id=organizer.organizer_id,
            created_at=datetime.now(UTC),
            entries={account_id: (status, moment) for account_id, status in entries},
        )
        self._locks[tournament_id] = asyncio.Lock()

    async def organizer(self, tournament_id: str) -> Organizer | None:
        """The organizer of a tournament that registered accounts."""
        found = self._registrations.get(tournament_id)
        if found is None:
            return None
        return Organizer(organizer_hash=found.locked.organizer_hash, organizer_id=found.organizer_id)

    async def status(self, tournament_id: str) -> str | None:
        """The registration's status."""
        found = self._registrations.get(tournament_id)
        return None if found is None else found.locked.status

    def _lock(self, tournament_id: str) -> asyncio.Lock:
        """The tournament's lock (a fresh one for a tournament that never registered: nothing to guard)."""
        return self._locks.get(tournament_id) or asyncio.Lock()

    def _registering(self, tournament_id: str) -> _Registration:
        """The registering tournament (404 / 409 as the locked row answers)."""
        found = self._registrations.get(tournament_id)
        still_registering(None if found is None else found.locked, tournament_id)
        assert found is not None
        return found

    async def join(self, tournament_id: str, account_id: str, admit: Admit) -> None:
        """Admit the account and register it as joined, holding the tournament's lock."""
        async with self._lock(tournament_id):
            found = self._registering(tournament_id)
            entry = found.entries.get(account_id)
            admit(found.locked.open, None if entry is None else entry[0])
            found.entries[account_id] = (JOINED, next(self._moments))

    async def withdraw(self, tournament_id: str, account_id: str, was: str) -> bool:
        """Decline the entry if it is ``was``, holding the tournament's lock."""
        async with self._lock(tournament_id):
            found = self._registering(tournament_id)
            entry = found.entries.get(account_id)
            if entry is None or entry[0] != was:
                return False
            found.entries[account_id] = (DECLINED, next(self._moments))
            return True

    async def _entries(self, found: _Registration, status: str | None = None) -> list[tuple[str, Entry]]:
        """(account id, entry) of the registration, by the moment they changed, then by name; only those of
        ``status`` if given."""
        names = {a.account_id: a.name for a in await self.accounts.by_ids(list(found.entries))}
        chosen = [
            (moment, names[account_id], account_id, entry_status)
            for account_id, (entry_status, moment) in found.entries.items()
            if status is None or entry_status == status
        ]
        return [(account_id, Entry(name=name, status=s)) for _, name, account_id, s in sorted(chosen)]

    async def registration(self, tournament_id: str) -> tuple[Stored, list[Entry]] | None:
        """The registration with its organizer's name and commitment, and its entries with their names."""
        found = self._registrations.get(tournament_id)
        if found is None:
            return None
        organizer = await self.accounts.by_ids([found.organizer_id] if found.organizer_id else [])
        committed = await self.keys.committed(tournament_id)
        stored = Stored(
            status=found.locked.status,
            open=found.locked.open,
            request=found.locked.request,
            created_at=found.created_at,
            organizer=organizer[0].name if organizer else None,
            commitment=None if committed is None else committed.commitment,
        )
        return stored, [entry for _, entry in await self._entries(found)]

    async def registering(self, limit: int) -> list[str]:
        """The newest registering tournaments' ids (later opened first among equal times)."""
        newest = sorted(
            (
                (found.created_at, order, tournament_id)
                for order, (tournament_id, found) in enumerate(self._registrations.items())
                if found.locked.status == REGISTERING
            ),
            reverse=True,
        )
        return [tournament_id for _, _, tournament_id in newest[:limit]]

    async def close(self, tournament_id: str, start: Start) -> Closing | None:
        """Start the tournament and mark it started, holding the tournament's lock."""
        async with self._lock(tournament_id):
            found = self._registrations.get(tournament_id)
            if found is None or found.locked.status != REGISTERING:
                return None
            joined = await self._entries(found, JOINED)
            closing = Closing(
                request=msgspec.convert(found.locked.request, CreateTournamentIn),
                organizer_hash=found.locked.organizer_hash,
                names=[entry.name for _, entry in joined],
                account_ids=[account_id for account_id, _ in joined],
            )
            await start(closing)
            found.locked = msgspec.structs.replace(found.locked, status=STARTED)
        return closing
