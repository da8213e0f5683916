"""Games of server bots only cost the server's cores for as long as they last, with no person to pace them:
creating one needs an account, and each account may have at most ``BOT_GAMES_PER_ACCOUNT`` of them running
(docs/api.md, "Lobby"). Games with a person's seat beside the bots are not counted.

The module plays on a database of its own, with no bot runner: the games it creates stay running, so what
is counted is exactly what was created."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

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
from tests.support.databases import own_pool

pytestmark = pytest.mark.db

BOTS_ONLY = {"game": "basari", "players": [{"bot": "strong"}, {"bot": "strong"}, {"bot": "greedy"}]}


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database no server process of the session plays on."""
    async with own_pool(server_url) as created:
        yield created


def lobby(pool: asyncpg.Pool, limit: int) -> LobbyService:
    """The lobby as a server process builds it, allowing ``limit`` running bot-only games per account."""
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    return LobbyService(PostgresLobby(pool), games, accounts, bot_games_per_account=limit)


async def create(service: LobbyService, body: dict[str, Any], token: str | None) -> str:
    """Create a game from ``body`` with ``token``; its id."""
    return (await service.create(msgspec.convert(body, CreateGame), token)).game_id


async def test_a_bot_only_game_needs_an_account(pool: asyncpg.Pool) -> None:
    """Without a token, or with a seat token of a hot-seat game, creation is refused (401
    account_required); a game with a person's seat beside the bots still needs none."""
    service = lobby(pool, 2)
    with pytest.raises(errors.Unauthorized) as anonymous:
        await create(service, BOTS_ONLY, None)
    assert anonymous.value.code == "account_required"
    hotseat = await service.create(
        msgspec.convert({"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "strong"}]}, CreateGame), None
    )
    with pytest.raises(errors.Unauthorized) as seat_token:
        await create(service, BOTS_ONLY, hotseat.seats[0].token)
    assert seat_token.value.code == "account_required"


async def test_an_account_runs_at_most_the_limit_of_bot_only_games(pool: asyncpg.Pool) -> None:
    """The third running bot-only game of an account is refused (429 too_many_bot_games, Retry-After) and
    creates nothing, whether its seats are ``{bot}`` seats or invited bot accounts; another account is not
    affected; once one of the account's games has ended it may create one again."""
    service = lobby(pool, 2)
    _, token = await service.accounts.create("bot-fan")
    _, other = await service.accounts.create("bot-fan-2")
    first = await create(service, BOTS_ONLY, token)
    invited = {"game": "johari", "players": [{"invite": "strong-johari"}, {"invite": "greedy-johari"}]}
    await create(service, invited, token)
    before = await service.games.store.list_streams(status="active", limit=100)
    for body in (BOTS_ONLY, invited):
        with pytest.raises(errors.TooMany) as refused:
            await create(service, body, token)
        assert refused.value.code == "too_many_bot_games" and refused.value.headers["Retry-After"]
    assert await service.games.store.list_streams(status="active", limit=100) == before
    await create(service, BOTS_ONLY, other)
    await service.games.commands.execute(first, 0, {"type": "resign"})
    for seat in (1, 2):  # the last two: the game ends once fewer than two seats still play
        loaded = await service.games.loader.load(first)
        if not loaded.finished:
            await service.games.commands.execute(first, seat, {"type": "resign"})
    assert (await service.games.loader.load(first)).finished
    await create(service, BOTS_ONLY, token)
