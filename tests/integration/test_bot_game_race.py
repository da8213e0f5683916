"""The limit on an account's running games of server bots only (``bot_games_per_account``:
service/lobby/lobby.py) holds for creations that arrive at once: the account's creations take turns from the
count to the created game, so several cannot all pass it with one place left. On PostgreSQL, through the
service (the HTTP test client runs one request at a time), by both ways of creating such a game: ``{bot}``
seats (created at once) and invited bot accounts (listed in the lobby, started at once)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.accounts.accounts import AccountService
from service.accounts.repository import PostgresAccounts
from service.games.commands import BOTS_OWNER
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.lobby.lobby import LobbyService
from service.lobby.repository import PostgresLobby
from service.runtime import errors

pytestmark = pytest.mark.db

LIMIT = 2  # the limit of these tests
BOT_SEATS = {"game": "basari", "players": [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "strong"}]}
INVITED_BOTS = {"game": "johari", "players": [{"invite": "strong-johari"}, {"invite": "greedy-johari"}]}


def lobby_on(pool: asyncpg.Pool) -> LobbyService:
    """A lobby service on the test database with the limit above."""
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    return LobbyService(PostgresLobby(pool), games, accounts, bot_games_per_account=LIMIT)


async def outcomes(lobbies: list[LobbyService], token: str, bodies: list[dict[str, Any]]) -> list[str]:
    """Create every game at once with the account's token, in turn on each of ``lobbies``; each one's
    outcome: ``created`` or the refusal's code."""

    async def create(lobby: LobbyService, body: dict[str, Any]) -> str:
        try:
            await lobby.create(msgspec.convert(body, CreateGame), token)
        except errors.TooMany as refused:
            return refused.code
        return "created"

    turns = [lobbies[i % len(lobbies)] for i in range(len(bodies))]
    return list(
        await asyncio.gather(*(create(lobby, body) for lobby, body in zip(turns, bodies, strict=True)))
    )


async def running_bot_games(lobby: LobbyService, token: str) -> int:
    """How many games of server bots only the account has running."""
    account = await lobby.accounts.by_token(token)
    assert account is not None
    running = await lobby.games.store.list_streams(
        status="active", metadata_contains={BOTS_OWNER: account.account_id}, limit=100
    )
    return len(running)


@pytest.mark.parametrize("bodies", [[BOT_SEATS] * 8, [INVITED_BOTS] * 8, [BOT_SEATS, INVITED_BOTS] * 4])
@pytest.mark.parametrize("processes", [1, 8])
async def test_concurrent_bot_only_games_of_one_account_stop_at_its_limit(
    pool: asyncpg.Pool, bodies: list[dict[str, Any]], processes: int
) -> None:
    """Eight creations at once, on one service or each on its own (as in as many processes, which share only
    the database's locks)."""
    lobbies = [lobby_on(pool) for _ in range(processes)]
    lobby = lobbies[0]
    _, token = await lobby.accounts.create(f"bot-racer-{uuid.uuid4().hex[:8]}")
    answers = await outcomes(lobbies, token, bodies)
    assert sorted(answers) == ["created"] * LIMIT + ["too_many_bot_games"] * (len(bodies) - LIMIT)
    assert await running_bot_games(lobby, token) == LIMIT
