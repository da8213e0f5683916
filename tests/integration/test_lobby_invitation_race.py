"""The lobby's bounds on open invitations (``invitations_per_inviter``, ``invitations_per_invitee``:
service/lobby/lobby.py) hold for creations that arrive at once, across the connections of one pool as across
processes: the count and the new seats are one step, so two creations cannot both pass a bound with one
place left. On PostgreSQL, through the service (the HTTP test client runs one request at a time)."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.accounts.accounts import AccountService
from service.accounts.repository import PostgresAccounts
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.lobby.lobby import LobbyService
from service.lobby.repository import PostgresLobby
from service.runtime import errors

pytestmark = pytest.mark.db

SENT, RECEIVED = 3, 2  # the bounds of these tests


def lobby_on(pool: asyncpg.Pool) -> LobbyService:
    """A lobby service on the test database with the bounds above."""
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    return LobbyService(
        PostgresLobby(pool), games, accounts, invitations_per_inviter=SENT, invitations_per_invitee=RECEIVED
    )


async def new_account(lobby: LobbyService, prefix: str) -> tuple[str, str]:
    """A new account with a unique name: (name, token)."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    _, token = await lobby.accounts.create(name)
    return name, token


async def outcomes(lobby: LobbyService, invitations: list[tuple[str, str]]) -> list[str]:
    """Create at once one Johari game per (host token, invitee name); each one's outcome: ``created`` or
    the refusal's code."""

    async def invite(token: str, guest: str) -> str:
        body = {"game": "johari", "players": [{"account": "me"}, {"invite": guest}]}
        try:
            await lobby.create(msgspec.convert(body, CreateGame), token)
        except errors.TooMany as refused:
            return refused.code
        return "created"

    return list(await asyncio.gather(*(invite(token, guest) for token, guest in invitations)))


async def test_concurrent_invitations_of_one_account_stop_at_its_bound(pool: asyncpg.Pool) -> None:
    lobby = lobby_on(pool)
    target, _ = await new_account(lobby, "crowded")
    hosts = [await new_account(lobby, "crowd-host") for _ in range(6)]
    answers = await outcomes(lobby, [(token, target) for _, token in hosts])
    assert sorted(answers) == ["created"] * RECEIVED + ["invitee_has_too_many_invitations"] * (6 - RECEIVED)
    assert (
        await lobby.lobby.invitations_received((await lobby.accounts.by_name(target)).account_id) == RECEIVED
    )


async def test_concurrent_invitations_from_one_account_stop_at_its_bound(pool: asyncpg.Pool) -> None:
    lobby = lobby_on(pool)
    host, token = await new_account(lobby, "busy-host")
    guests = [await new_account(lobby, "busy-guest") for _ in range(6)]
    answers = await outcomes(lobby, [(token, guest) for guest, _ in guests])
    assert sorted(answers) == ["created"] * SENT + ["too_many_invitations"] * (6 - SENT)
    assert await lobby.lobby.invitations_sent((await lobby.accounts.by_name(host)).account_id) == SENT
