"""Accounts: a player's (or bot's) one identity and bearer token, and the seats accounts hold.

Names are unique after Unicode NFKC and case-folding, 1-40 characters of letters, digits, spaces and
``._-``; only the SHA-256 of an account's current token is stored, so rotating or revoking it takes effect
at once in every process (each request looks the hash up; nothing is cached across requests).
"""

from __future__ import annotations

import unicodedata
import uuid
from collections import OrderedDict
from datetime import datetime

import msgspec
import structlog

from domain.core import shown
from domain.names import account_name_problem, skeleton
from service.accounts.repository import Account as Account  # the record, where its users find it
from service.accounts.repository import AccountRepository, NewAccount
from service.integrity.tokens import hash_token, new_token
from service.runtime import errors

log = structlog.get_logger("service.accounts.accounts")

HUMAN, BOT = "human", "bot"
KINDS = (HUMAN, BOT)


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


class AccountService:
    """Accounts on a repository (service/accounts/repository.py): sign-up, token lookup, rotation, seats."""

    def __init__(self, repository: AccountRepository, clients: VerifiedClients | None = None) -> None:
        """Keep accounts in ``repository``; note verified tokens in ``clients``."""
        self.repository = repository
        self.clients = clients or VerifiedClients()

    async def seat_game(self, game_id: str, account_ids: list[str]) -> None:
        """These accounts hold the seats of a new game outside the lobby (a tournament's table), in seat
        order, so their tokens act for them."""
        await self.repository.seat_game(game_id, account_ids)

    async def create(self, name: str, kind: str = HUMAN) -> tuple[Account, str]:
        """A new account and its token (shown once): 422 for a name breaking a rule or an unknown kind,
        409 ``name_taken`` if the name equals another after NFKC and case-folding, or looks like another
        (domain/names.py ``skeleton``). Bots' runners call this
        directly (``kind="bot"``)."""
        if kind not in KINDS:
            raise errors.RuleViolation("unknown_account_kind", 'kind is "human" or "bot"')
        display = check_name(name)
        token = new_token()
        new = NewAccount(
            name=display,
            name_key=name_key(display),
            name_skeleton=skeleton(display),
            kind=kind,
            token_hash=hash_token(token),
        )
        account = await self.repository.create(str(uuid.uuid4()), new)
        log.info("account_created", account_id=account.account_id, kind=kind)
        return account, token

    async def by_token(self, token: str) -> Account | None:
        """The account whose current token this is (None for any other token)."""
        digest = hash_token(token)
        account = await self.repository.by_token_hash(digest)
        if account is not None:
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
        return await self.repository.by_name_key(name_key(name))

    async def named(self, name: str) -> Account:
        """The account called ``name`` (404 if none)."""
        account = await self.by_name(name)
        if account is None:
            raise errors.NotFound("account_not_found", f"no account called {shown(name)}")
        return account

    async def server_bot(self, game: str, level: str) -> Account:
        """The built-in account of the server's bot of ``level`` for ``game`` (migration 0013)."""
        account = await self.repository.server_bot(game, level)
        if account is None:
            raise errors.RuleViolation(
                "unknown_bot_level", f"the server has no {shown(level)} bot for {shown(game)}"
            )
        return account

    async def by_ids(self, account_ids: list[str]) -> dict[str, Account]:
        """The accounts with these ids."""
        return {account.account_id: account for account in await self.repository.by_ids(account_ids)}

    async def rotate(self, token: str) -> tuple[Account, str]:
        """Replace the caller's token with a new one; the old stops working at once (401 for a stale token)."""
        fresh = new_token()
        old = hash_token(token)
        account = await self.repository.rotate(old, hash_token(fresh))
        if account is None:
            raise errors.Unauthorized("unknown_token", "this token is no account's current token")
        self.clients.forget(old)
        log.info("account_token_rotated", account_id=account.account_id)
        return account, fresh

    async def revoke(self, token: str) -> None:
        """Revoke the caller's token: the account has none until it signs up anew (401 for a stale token)."""
        old = hash_token(token)
        account_id = await self.repository.revoke(old)
        if account_id is None:
            raise errors.Unauthorized("unknown_token", "this token is no account's current token")
        self.clients.forget(old)
        log.info("account_token_revoked", account_id=account_id)

    # ----------------------------------------------------------------- seats held by accounts

    async def seat_in_game(self, game_id: str, token: str) -> int | None:
        """The seat of ``game_id`` held by the account whose current token this is (None if none)."""
        digest = hash_token(token)
        held = await self.repository.seat_in_game(game_id, digest)
        if held is None:
            return None
        self.clients.verified(digest, f"account:{held.account_id}")
        return held.seat

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The current token hash of the account holding ``seat`` of ``game_id`` (None if no account holds
        it or the account's token is revoked)."""
        return await self.repository.seat_token_hash(game_id, seat)

    async def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        """Every (game id, seat) the account holds, in lobby games and started games alike."""
        return await self.repository.seats_of(account_id)

    async def game_accounts(self, game_id: str) -> list[str | None]:
        """The account id holding each seat of a game, by seat (None: hot-seat, open or invited seat);
        empty for a game without accounts."""
        return await self.repository.game_accounts(game_id)

    async def seat_holders(self, game_id: str) -> dict[int, str]:
        """The account holding each seat of a game that an account holds, by seat."""
        return await self.repository.seat_holders(game_id)

    async def lobby_status(self, game_id: str) -> str | None:
        """The lobby status of a game (``waiting``, ``starting``, ``started``, ``cancelled``), None if it never
        was in the lobby."""
        return await self.repository.lobby_status(game_id)
