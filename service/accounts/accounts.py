"""Accounts: a player's (or bot's) one identity and bearer token, and the seats accounts hold.

Names are unique after Unicode NFKC and case-folding, 1-40 characters of letters, digits, spaces and
``._-``; only the SHA-256 of an account's current token is stored, so rotating or revoking it takes effect
at once in every process (each request looks the hash up; nothing is cached across requests).
"""

from __future__ import annotations

import unicodedata
import uuid
from collections import OrderedDict
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

import asyncpg
import msgspec
import structlog

from domain.core import shown
from domain.names import account_name_problem, skeleton
from eventstore import pooled_connection
from service.integrity.tokens import hash_token, new_token
from service.runtime import errors

log = structlog.get_logger("service.accounts.accounts")

HUMAN, BOT = "human", "bot"
KINDS = (HUMAN, BOT)


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """An account: its id, its name as registered (NFKC form), its kind (``human`` or ``bot``); for one of
    the server's built-in bots (migration 0013), the game it plays and its level."""

    account_id: str
    name: str
    kind: str
    created_at: datetime
    bot_game: str | None = None
    bot_level: str | None = None


class AccountIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Sign up: a name (unique after NFKC and case-folding) and the kind, ``human`` (default) or ``bot``."""

    name: str
    kind: str = HUMAN


class AccountCreated(msgspec.Struct, frozen=True, kw_only=True):
    """A new account: its name and its secret bearer token (shown only here; only its hash is stored)."""

    name: str
    kind: str
    token: str


class AccountToken(msgspec.Struct, frozen=True, kw_only=True):
    """A replacement token (the previous one stopped working at once)."""

    name: str
    token: str


class Me(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's account."""

    name: str
    kind: str
    created_at: datetime


def name_key(name: str) -> str:
    """The identity of a name for uniqueness: NFKC of its case-folded NFKC form (so "ﬁ", "FI" and "fi" clash)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def check_name(raw: str) -> str:
    """The name as registered (its NFKC form), or a 422 naming the first rule it breaks (domain/names.py)."""
    name = unicodedata.normalize("NFKC", raw)
    problem = account_name_problem(name)
    if problem is not None:
        raise errors.RuleViolation(*problem)
    return name


class VerifiedClients:
    """Whom a verified account token stands for (``account:<id>``), by token hash, for the rate limit and
    the live-stream cap; any other token (a seat token, one never verified here) counts by address. Bounded
    (least recently verified forgotten first), in process memory like the counts it keys."""

    def __init__(self, size: int = 65536) -> None:
        """Remember at most ``size`` tokens."""
        self._known: OrderedDict[str, str] = OrderedDict()
        self._size = size

    def verified(self, token_hash: str, identity: str) -> None:
        """``token_hash`` was just verified as ``identity``."""
        self._known[token_hash] = identity
        self._known.move_to_end(token_hash)
        while len(self._known) > self._size:
            self._known.popitem(last=False)

    def forget(self, token_hash: str) -> None:
        """The token was rotated or revoked here."""
        self._known.pop(token_hash, None)

    def identity(self, token_hash: str) -> str | None:
        """The identity a token was verified as in this process, or None."""
        return self._known.get(token_hash)


ACCOUNT_COLUMNS = "account_id, name, kind, created_at, bot_game, bot_level"


def _account(row: asyncpg.Record) -> Account:
    return Account(
        account_id=row["account_id"],
        name=row["name"],
        kind=row["kind"],
        created_at=row["created_at"],
        bot_game=row["bot_game"],
        bot_level=row["bot_level"],
    )


class AccountService:
    """Accounts in PostgreSQL (tables of migration 0007_accounts): sign-up, token lookup, rotation, seats."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        acquire_timeout: float | None = None,
        clients: VerifiedClients | None = None,
    ) -> None:
        """Use ``pool``, waiting at most ``acquire_timeout`` seconds for a connection (then 503)."""
        self.pool = pool
        self.acquire_timeout = acquire_timeout
        self.clients = clients or VerifiedClients()

    def connection(self) -> AbstractAsyncContextManager[Any]:
        """A pooled connection (503 past the acquire timeout)."""
        return pooled_connection(self.pool, self.acquire_timeout)

    async def create(self, name: str, kind: str = HUMAN) -> tuple[Account, str]:
        """A new account and its token (shown once): 422 for a name breaking a rule or an unknown kind,
        409 ``name_taken`` if the name equals another after NFKC and case-folding, or looks like another
        (domain/names.py ``skeleton``). Bots' runners call this
        directly (``kind="bot"``)."""
        if kind not in KINDS:
            raise errors.RuleViolation("unknown_account_kind", 'kind is "human" or "bot"')
        display = check_name(name)
        look = skeleton(display)
        token = new_token()
        async with self.connection() as connection, connection.transaction():
            # sign-ups of names that look alike take turns, so two of them cannot both find the other absent
            await connection.execute("SELECT pg_advisory_xact_lock(hashtext('account-name:' || $1))", look)
            alike = await connection.fetchval(
                "SELECT name FROM accounts WHERE name_skeleton = $1 AND name_key <> $2 LIMIT 1",
                look,
                name_key(display),
            )
            if alike is not None:
                raise errors.Conflict(
                    "name_taken", f"the name {shown(display)} looks like the account {shown(alike)}"
                )
            try:
                row = await connection.fetchrow(
                    "INSERT INTO accounts (account_id, name, name_key, name_skeleton, kind, token_hash)"
                    " VALUES ($1, $2, $3, $4, $5, $6) RETURNING " + ACCOUNT_COLUMNS,
                    str(uuid.uuid4()),
                    display,
                    name_key(display),
                    look,
                    kind,
                    hash_token(token),
                )
            except asyncpg.UniqueViolationError:
                raise errors.Conflict("name_taken", f"the name {shown(display)} is taken") from None
        account = _account(row)
        log.info("account_created", account_id=account.account_id, kind=kind)
        return account, token

    async def by_token(self, token: str) -> Account | None:
        """The account whose current token this is (None for any other token)."""
        digest = hash_token(token)
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE token_hash = $1", digest
            )
        if row is None:
            return None
        account = _account(row)
        self.clients.verified(digest, f"account:{account.account_id}")
        return account

    async def require(self, token: str | None) -> Account:
        """The caller's account: 401 without a token or with one that is no account's current token."""
        if token is None:
            raise errors.Unauthorized(
                "token_required", 'this needs an "Authorization: Bearer <account token>" header'
            )
        account = await self.by_token(token)
        if account is None:
            raise errors.Unauthorized("unknown_token", "this token is no account's current token")
        return account

    async def by_name(self, name: str) -> Account | None:
        """The account called ``name`` (compared after NFKC and case-folding), or None."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1", name_key(name)
            )
        return None if row is None else _account(row)

    async def named(self, name: str) -> Account:
        """The account called ``name`` (404 if none)."""
        account = await self.by_name(name)
        if account is None:
            raise errors.NotFound("account_not_found", f"no account called {shown(name)}")
        return account

    async def server_bot(self, game: str, level: str) -> Account:
        """The built-in account of the server's bot of ``level`` for ``game`` (migration 0013)."""
        async with self.connection() as connection:
            row = await connection.fetchrow(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE bot_game = $1 AND bot_level = $2", game, level
            )
        if row is None:
            raise errors.RuleViolation(
                "unknown_bot_level", f"the server has no {shown(level)} bot for {shown(game)}"
            )
        return _account(row)

    async def by_ids(self, account_ids: list[str]) -> dict[str, Account]:
        """The accounts with these ids."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE account_id = ANY($1)",
                account_ids,
            )
        return {row["account_id"]: _account(row) for row in rows}

    async def rotate(self, token: str) -> tuple[Account, str]:
        """Replace the caller's token with a new one; the old stops working at once (401 for a stale token)."""
        fresh = new_token()
        old = hash_token(token)
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "UPDATE accounts SET token_hash = $2, token_changed_at = now() WHERE token_hash = $1"
                " RETURNING " + ACCOUNT_COLUMNS,
                old,
                hash_token(fresh),
            )
        if row is None:
            raise errors.Unauthorized("unknown_token", "this token is no account's current token")
        self.clients.forget(old)
        log.info("account_token_rotated", account_id=row["account_id"])
        return _account(row), fresh

    async def revoke(self, token: str) -> None:
        """Revoke the caller's token: the account has none until it signs up anew (401 for a stale token)."""
        old = hash_token(token)
        async with self.connection() as connection:
            account_id = await connection.fetchval(
                "UPDATE accounts SET token_hash = NULL, token_changed_at = now() WHERE token_hash = $1"
                " RETURNING account_id",
                old,
            )
        if account_id is None:
            raise errors.Unauthorized("unknown_token", "this token is no account's current token")
        self.clients.forget(old)
        log.info("account_token_revoked", account_id=account_id)

    # ----------------------------------------------------------------- seats held by accounts

    async def seat_in_game(self, game_id: str, token: str) -> int | None:
        """The seat of ``game_id`` held by the account whose current token this is (None if none)."""
        digest = hash_token(token)
        async with self.connection() as connection:
            row = await connection.fetchrow(
                "SELECT s.seat, a.account_id FROM accounts a JOIN game_seats s ON s.account_id = a.account_id"
                " WHERE a.token_hash = $1 AND s.game_id = $2",
                digest,
                game_id,
            )
        if row is None:
            return None
        self.clients.verified(digest, f"account:{row['account_id']}")
        seat: int = row["seat"]
        return seat

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The current token hash of the account holding ``seat`` of ``game_id`` (None if no account holds
        it or the account's token is revoked)."""
        async with self.connection() as connection:
            token_hash: str | None = await connection.fetchval(
                "SELECT a.token_hash FROM game_seats s JOIN accounts a ON a.account_id = s.account_id"
                " WHERE s.game_id = $1 AND s.seat = $2",
                game_id,
                seat,
            )
        return token_hash

    async def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        """Every (game id, seat) the account holds, in lobby games and started games alike."""
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT game_id, seat FROM game_seats WHERE account_id = $1 ORDER BY game_id, seat",
                account_id,
            )
        return [(row["game_id"], row["seat"]) for row in rows]

    async def game_accounts(self, game_id: str) -> list[str | None]:
        """The account id holding each seat of a game, by seat (None: hot-seat, open or invited seat);
        empty for a game without accounts."""
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
        """The lobby status of a game (``waiting``, ``starting``, ``started``, ``cancelled``), None if it never
        was in the lobby."""
        async with self.connection() as connection:
            status: str | None = await connection.fetchval(
                "SELECT status FROM lobby_games WHERE game_id = $1", game_id
            )
        return status
