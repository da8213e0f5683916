"""The example bot's stall at Johari's set-up: an account's stream snapshot lists a game that started
just before the stream opened even while the game listing (a projection) does not hold it yet; otherwise
neither the snapshot nor the feed after it would tell a bot whose first decision was due at the start.

On a database of its own, with no projection loop running: the listing stays empty throughout."""

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
from service.readmodels.notifications import Notifications, _Seen
from tests.support.databases import own_pool

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database of its own (no server's projection fills its listing)."""
    async with own_pool(server_url, max_size=4) as created:
        yield created


async def test_the_snapshot_lists_a_started_game_the_listing_does_not_hold_yet(pool: asyncpg.Pool) -> None:
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    lobby = LobbyService(PostgresLobby(pool), games, accounts)
    host, host_token = await accounts.create("snapshot-host")
    bot, bot_token = await accounts.create("snapshot-bot", kind="bot")
    body = {"game": "johari", "players": [{"account": "me"}, {"open": True}]}
    created = await lobby.create(msgspec.convert(body, CreateGame), host_token)
    waiting = await Notifications(pool, games).snapshot(bot, _Seen())
    assert waiting.games == []  # not seated yet
    await lobby.join(created.game_id, bot_token, JoinIn())  # the last seat: the game starts
    assert await pool.fetchval("SELECT count(*) FROM game_listing") == 0
    loaded = await games.loader.load(created.game_id)
    due = {p.seat for p in loaded.game.pending(loaded.state)}
    for account, seat in ((host, 0), (bot, 1)):
        snapshot = await Notifications(pool, games).snapshot(account, _Seen())
        assert [(g.game_id, g.seat, g.your_turn) for g in snapshot.games] == [
            (created.game_id, seat, seat in due)
        ]
