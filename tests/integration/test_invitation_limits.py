"""Open invitations are bounded (INVITATIONS_PER_INVITER, INVITATIONS_PER_INVITEE; docs/api.md, "Lobby"): one
account cannot reserve seats for another in hundreds of games, nor can many accounts flood one account's
invitations. A refused creation is 429 with Retry-After and creates nothing; answered invitations (joined,
declined) no longer count.

The module plays on a database of its own, so what is counted is exactly what its tests created."""

from __future__ import annotations

from collections.abc import AsyncIterator

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
from service.lobby.schemas import JoinIn
from service.runtime import errors
from tests.support.databases import own_pool

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database of its own."""
    async with own_pool(server_url) as created:
        yield created


def lobby(pool: asyncpg.Pool) -> LobbyService:
    """The lobby allowing 3 open invitations sent and 2 received per account."""
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    return LobbyService(
        PostgresLobby(pool), games, accounts, invitations_per_inviter=3, invitations_per_invitee=2
    )


async def invite(service: LobbyService, token: str, *guests: str) -> str:
    """A Johari game of the inviter and the invited accounts; its id."""
    players = [{"account": "me"}, *({"invite": guest} for guest in guests)]
    body = msgspec.convert({"game": "johari", "players": players}, CreateGame)
    return (await service.create(body, token)).game_id


async def waiting_games(pool: asyncpg.Pool) -> int:
    """The games waiting in the lobby."""
    count: int = await pool.fetchval("SELECT count(*) FROM lobby_games WHERE status = 'waiting'")
    return count


async def test_an_inviter_has_a_bounded_number_of_open_invitations(pool: asyncpg.Pool) -> None:
    """The fourth open invitation of one account is refused; once one is answered, it may invite again."""
    service = lobby(pool)
    _, host = await service.accounts.create("host-a")
    guests = [await service.accounts.create(f"guest-a{n}") for n in range(4)]
    first = await invite(service, host, "guest-a0")
    await invite(service, host, "guest-a1", "guest-a2")  # two invitations in one game: 3 open now
    before = await waiting_games(pool)
    with pytest.raises(errors.TooMany) as refused:
        await invite(service, host, "guest-a3")
    assert refused.value.code == "too_many_invitations" and refused.value.headers["Retry-After"]
    assert await waiting_games(pool) == before  # nothing created
    await service.join(first, guests[0][1], JoinIn())  # answered: the game starts, the invitation is used
    await invite(service, host, "guest-a3")


async def test_an_invitee_receives_a_bounded_number_of_open_invitations(pool: asyncpg.Pool) -> None:
    """Two open invitations of one account, from anyone: a third inviter is refused; once the invitee
    declines one, it may be invited again."""
    service = lobby(pool)
    _, target = await service.accounts.create("popular")
    hosts = [(await service.accounts.create(f"host-b{n}"))[1] for n in range(3)]
    first = await invite(service, hosts[0], "popular")
    await invite(service, hosts[1], "popular")
    with pytest.raises(errors.TooMany) as refused:
        await invite(service, hosts[2], "popular")
    assert refused.value.code == "invitee_has_too_many_invitations"
    await service.decline(first, target)
    await invite(service, hosts[2], "popular")
