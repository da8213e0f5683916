"""Where accounts live: the ``accounts`` table (migrations 0007, 0013, 0015) and the seats accounts hold in
the lobby's tables, behind one interface with a PostgreSQL implementation and an in-memory twin that pass
the same contract tests (tests/contract/test_account_repository.py; docs/decisions/0008-sql-in-repositories.md).

The repository stores and finds; the rules (which names are allowed, what a token is, what a stale token
answers) are the service's (service/accounts/accounts.py). Two rules are the store's, since only it can
apply them atomically: a name whose key another account has is taken, and so is one that looks like
another account's (one skeleton, domain/names.py) — both 409 ``name_taken``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol

import asyncpg
import msgspec

from domain.bots import LEVELS
from domain.core import shown
from domain.names import skeleton
from domain.registry import all_games
from service.runtime import errors
from service.runtime.sql import PostgresRepository, record, records


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """An account: its id, its name as registered (NFKC form), its kind (``human`` or ``bot``); for one of
    the server's built-in bots (migration 0013), the game it plays and its level."""

    account_id: str
    name: str
    kind: str
    created_at: datetime
    bot_game: str | None = None
    bot_level: str | None = None


class NewAccount(msgspec.Struct, frozen=True, kw_only=True):
    """An account to store: its name as registered, the name's key (unique) and skeleton (unique but for
    names of one key), its kind and the hash of its first token."""

    name: str
    name_key: str
    name_skeleton: str
    kind: str
    token_hash: str


class SeatHeld(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a game and the account holding it."""

    seat: int
    account_id: str


def name_taken(name: str) -> errors.Conflict:
    """409: another account's name has this name's key (NFKC and case-folding)."""
    return errors.Conflict("name_taken", f"the name {shown(name)} is taken")


def name_looks_taken(name: str, alike: str) -> errors.Conflict:
    """409: another account's name looks like this one (one skeleton, another key)."""
    return errors.Conflict("name_taken", f"the name {shown(name)} looks like the account {shown(alike)}")


class AccountRepository(Protocol):
    """The accounts and the seats they hold."""

    async def create(self, account_id: str, new: NewAccount) -> Account:
        """Store a new account (409 ``name_taken`` for a name of another's key or skeleton)."""
        ...

    async def by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose current token has this hash."""
        ...

    async def by_name_key(self, name_key: str) -> Account | None:
        """The account whose name has this key."""
        ...

    async def server_bot(self, game: str, level: str) -> Account | None:
        """The built-in account of the server's bot of ``level`` for ``game``."""
        ...

    async def by_ids(self, account_ids: list[str]) -> list[Account]:
        """The accounts with these ids (unknown ids left out)."""
        ...

    async def rotate(self, token_hash: str, new_token_hash: str) -> Account | None:
        """Replace a current token hash with a new one at once (None: no account's current token)."""
        ...

    async def revoke(self, token_hash: str) -> str | None:
        """Forget a current token hash at once; the account's id (None: no account's current token)."""
        ...

    async def seat_in_game(self, game_id: str, token_hash: str) -> SeatHeld | None:
        """The seat of ``game_id`` held by the account whose current token has this hash."""
        ...

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The current token hash of the account holding ``seat`` (None: no account, or a revoked token)."""
        ...

    async def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        """Every (game id, seat) the account holds, ordered."""
        ...

    async def game_accounts(self, game_id: str) -> list[str | None]:
        """The account id holding each seat of a game, by seat (None: a seat no account holds)."""
        ...

    async def seat_holders(self, game_id: str) -> dict[int, str]:
        """The account holding each seat of a game that an account holds, by seat."""
        ...

    async def lobby_status(self, game_id: str) -> str | None:
        """The lobby status of a game (None: it never was in the lobby)."""
        ...

    async def seat_game(self, game_id: str, account_ids: list[str]) -> None:
        """These accounts hold the seats of a game that never was in the lobby, in seat order (a
        tournament's table), so their tokens act for them."""
        ...


ACCOUNT_COLUMNS = "account_id, name, kind, created_at, bot_game, bot_level"


class PostgresAccounts(PostgresRepository):
    """Accounts in PostgreSQL: the ``accounts`` table; seats in ``game_seats`` and ``lobby_games``."""

    async def create(self, account_id: str, new: NewAccount) -> Account:
        """Insert the account; sign-ups of names that look alike take turns (an advisory lock on the
        skeleton), so two of them cannot both find the other absent."""
        async with self.connection() as connection, connection.transaction():
            await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtext('account-name:' || $1))", new.name_skeleton
            )
            alike = await connection.fetchval(
                "SELECT name FROM accounts WHERE name_skeleton = $1 AND name_key <> $2 LIMIT 1",
                new.name_skeleton,
                new.name_key,
            )
            if alike is not None:
                raise name_looks_taken(new.name, alike)
            try:
                row = await connection.fetchrow(
                    "INSERT INTO accounts (account_id, name, name_key, name_skeleton, kind, token_hash)"
                    " VALUES ($1, $2, $3, $4, $5, $6) RETURNING " + ACCOUNT_COLUMNS,
                    account_id,
                    new.name,
                    new.name_key,
                    new.name_skeleton,
                    new.kind,
                    new.token_hash,
                )
            except asyncpg.UniqueViolationError:
                raise name_taken(new.name) from None
        return record(Account, row)

    async def by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose current token has this hash."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE token_hash = $1", token_hash
            )
        return None if row is None else record(Account, row)

    async def by_name_key(self, name_key: str) -> Account | None:
        """The account whose name has this key."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1", name_key
            )
        return None if row is None else record(Account, row)

    async def server_bot(self, game: str, level: str) -> Account | None:
        """The built-in account of the server's bot of ``level`` for ``game`` (migration 0013)."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE bot_game = $1 AND bot_level = $2", game, level
            )
        return None if row is None else record(Account, row)

    async def by_ids(self, account_ids: list[str]) -> list[Account]:
        """The accounts with these ids."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE account_id = ANY($1)",
                account_ids,
            )
        return records(Account, rows)

    async def rotate(self, token_hash: str, new_token_hash: str) -> Account | None:
        """Replace the token hash in one statement, noting when it changed."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "UPDATE accounts SET token_hash = $2, token_changed_at = now() WHERE token_hash = $1"
                " RETURNING " + ACCOUNT_COLUMNS,
                token_hash,
                new_token_hash,
            )
        return None if row is None else record(Account, row)

    async def revoke(self, token_hash: str) -> str | None:
        """Clear the token hash in one statement, noting when it changed."""
        async with self.connection() as connection:
            account_id: str | None = await connection.fetchval(
                "UPDATE accounts SET token_hash = NULL, token_changed_at = now() WHERE token_hash = $1"
                " RETURNING account_id",
                token_hash,
            )
        return account_id

    async def seat_in_game(self, game_id: str, token_hash: str) -> SeatHeld | None:
        """The seat of ``game_id`` held by the account whose current token has this hash."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "SELECT s.seat, a.account_id FROM accounts a JOIN game_seats s ON s.account_id = a.account_id"
                " WHERE a.token_hash = $1 AND s.game_id = $2",
                token_hash,
                game_id,
            )
        return None if row is None else record(SeatHeld, row)

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The current token hash of the account holding ``seat`` of ``game_id``."""
        async with self.connection() as connection:
            token_hash: str | None = await connection.fetchval(
                "SELECT a.token_hash FROM game_seats s JOIN accounts a ON a.account_id = s.account_id"
                " WHERE s.game_id = $1 AND s.seat = $2",
                game_id,
                seat,
            )
        return token_hash

    async def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        """Every (game id, seat) the account holds, by game id and seat."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT game_id, seat FROM game_seats WHERE account_id = $1 ORDER BY game_id, seat",
                account_id,
            )
        return [(row["game_id"], row["seat"]) for row in rows]

    async def game_accounts(self, game_id: str) -> list[str | None]:
        """The account id holding each seat of a game, by seat."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT seat, account_id FROM game_seats WHERE game_id = $1 ORDER BY seat", game_id
            )
        return [row["account_id"] for row in rows]

    async def seat_holders(self, game_id: str) -> dict[int, str]:
        """The account holding each seat of a game that an account holds, by seat."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT seat, account_id FROM game_seats WHERE game_id = $1 AND account_id IS NOT NULL",
                game_id,
            )
        return {row["seat"]: row["account_id"] for row in rows}

    async def lobby_status(self, game_id: str) -> str | None:
        """The ``lobby_games`` status of a game."""
        async with self.connection() as connection:
            status: str | None = await connection.fetchval(
                "SELECT status FROM lobby_games WHERE game_id = $1", game_id
            )
        return status

    async def seat_game(self, game_id: str, account_ids: list[str]) -> None:
        """One ``game_seats`` row per account, in seat order."""
        async with self.connection() as connection:
            await connection.executemany(
                "INSERT INTO game_seats (game_id, seat, kind, account_id, joined_at)"
                " VALUES ($1, $2, 'account', $3, now())",
                [(game_id, seat, account_id) for seat, account_id in enumerate(account_ids)],
            )


class _Stored(msgspec.Struct, kw_only=True):
    """An account as the twin keeps it: the record and what only the store sees."""

    account: Account
    name_key: str
    name_skeleton: str
    token_hash: str | None


class InMemoryAccounts:
    """The accounts in process memory, with the same semantics as PostgresAccounts: names unique by key,
    a name looking like another's (one skeleton, another key) refused, tokens found by hash, rotation and
    revocation effective at once, the server's built-in bots present from the start (as migration 0013
    inserts them, one per registered game and level, with no token).

    The seats accounts hold and the lobby statuses live in the lobby's tables in PostgreSQL; here they are
    two small tables that the lobby's twin writes (``hold_seat``, ``set_lobby_status``)."""

    def __init__(self) -> None:
        """No account but the server's bots; no seat."""
        self._accounts: dict[str, _Stored] = {}
        self._seats: dict[str, dict[int, str | None]] = {}  # game id -> seat -> account id (None: no account)
        self._lobby: dict[str, str] = {}  # game id -> lobby status
        for game in all_games():
            for level in LEVELS:
                name = f"{level}-{game}"
                bot = Account(
                    account_id=f"server-bot-{name}",
                    name=name,
                    kind="bot",
                    created_at=datetime.now(UTC),
                    bot_game=game,
                    bot_level=level,
                )
                self._accounts[bot.account_id] = _Stored(
                    account=bot, name_key=name.lower(), name_skeleton=skeleton(name), token_hash=None
                )

    def _find(self, **wanted: Any) -> _Stored | None:
        """The stored account whose fields have these values."""
        for stored in self._accounts.values():
            if all(getattr(stored, field) == value for field, value in wanted.items()):
                return stored
        return None

    async def create(self, account_id: str, new: NewAccount) -> Account:
        """Store the account, refusing a name of another's skeleton first, then one of another's key."""
        for stored in self._accounts.values():
            if stored.name_skeleton == new.name_skeleton and stored.name_key != new.name_key:
                raise name_looks_taken(new.name, stored.account.name)
        if self._find(name_key=new.name_key) is not None:
            raise name_taken(new.name)
        account = Account(account_id=account_id, name=new.name, kind=new.kind, created_at=datetime.now(UTC))
        self._accounts[account_id] = _Stored(
            account=account, name_key=new.name_key, name_skeleton=new.name_skeleton, token_hash=new.token_hash
        )
        return account

    async def by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose current token has this hash."""
        stored = self._find(token_hash=token_hash)
        return None if stored is None else stored.account

    async def by_name_key(self, name_key: str) -> Account | None:
        """The account whose name has this key."""
        stored = self._find(name_key=name_key)
        return None if stored is None else stored.account

    async def server_bot(self, game: str, level: str) -> Account | None:
        """The built-in account of the server's bot of ``level`` for ``game``."""
        for stored in self._accounts.values():
            if stored.account.bot_game == game and stored.account.bot_level == level:
                return stored.account
        return None

    async def by_ids(self, account_ids: list[str]) -> list[Account]:
        """The accounts with these ids."""
        return [self._accounts[i].account for i in dict.fromkeys(account_ids) if i in self._accounts]

    async def rotate(self, token_hash: str, new_token_hash: str) -> Account | None:
        """Replace the token hash."""
        stored = self._find(token_hash=token_hash)
        if stored is None:
            return None
        stored.token_hash = new_token_hash
        return stored.account

    async def revoke(self, token_hash: str) -> str | None:
        """Clear the token hash."""
        stored = self._find(token_hash=token_hash)
        if stored is None:
            return None
        stored.token_hash = None
        return stored.account.account_id

    def hold_seat(self, game_id: str, seat: int, account_id: str | None) -> None:
        """``seat`` of ``game_id`` is held by this account (None: by no account: an open, invited or hot
        seat); one account holds at most one seat of a game. The lobby's twin calls this."""
        seats = self._seats.setdefault(game_id, {})
        if account_id is not None and any(seats.get(s) == account_id for s in seats if s != seat):
            raise ValueError(f"account {account_id} holds another seat of game {game_id}")
        seats[seat] = account_id

    def set_lobby_status(self, game_id: str, status: str) -> None:
        """The lobby status of ``game_id``. The lobby's twin calls this."""
        self._lobby[game_id] = status

    async def seat_game(self, game_id: str, account_ids: list[str]) -> None:
        """These accounts hold the game's seats, in seat order."""
        for seat, account_id in enumerate(account_ids):
            self.hold_seat(game_id, seat, account_id)

    async def seat_in_game(self, game_id: str, token_hash: str) -> SeatHeld | None:
        """The seat of ``game_id`` held by the account whose current token has this hash."""
        stored = self._find(token_hash=token_hash)
        if stored is None:
            return None
        for seat, account_id in self._seats.get(game_id, {}).items():
            if account_id == stored.account.account_id:
                return SeatHeld(seat=seat, account_id=account_id)
        return None

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The current token hash of the account holding ``seat`` of ``game_id``."""
        account_id = self._seats.get(game_id, {}).get(seat)
        return None if account_id is None else self._accounts[account_id].token_hash

    async def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        """Every (game id, seat) the account holds, by game id and seat."""
        return sorted(
            (game_id, seat)
            for game_id, seats in self._seats.items()
            for seat, holder in seats.items()
            if holder == account_id
        )

    async def game_accounts(self, game_id: str) -> list[str | None]:
        """The account id holding each seat of a game, by seat."""
        seats = self._seats.get(game_id, {})
        return [seats[seat] for seat in sorted(seats)]

    async def seat_holders(self, game_id: str) -> dict[int, str]:
        """The account holding each seat of a game that an account holds, by seat."""
        return {seat: holder for seat, holder in self._seats.get(game_id, {}).items() if holder is not None}

    async def lobby_status(self, game_id: str) -> str | None:
        """The lobby status of a game."""
        return self._lobby.get(game_id)
