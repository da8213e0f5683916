"""A cached state ahead of the store is dropped: after a failover that lost the newest commits (simulated by
deleting them as a superuser) a process that had cached them serves the game at the stored version, and its
next command is decided and appended there, not refused (docs/operations.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService

pytestmark = pytest.mark.db

KEPT = 8  # the version the store keeps; the commits after it are lost


def new_service(pool: asyncpg.Pool) -> GameService:
    """A service with its own (empty) state cache, like one more server process."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


async def play(service: GameService, game_id: str, until: int) -> None:
    """Play the seat to act's first legal command (not a purchase, not resigning) until the game is past
    version ``until``."""
    while (loaded := await service.loader.load(game_id)).version <= until:
        seat = loaded.game.pending(loaded.state)[0].seat
        command = next(
            c for c in loaded.legal(seat) if type(c).__struct_config__.tag not in ("buy", "resign")
        )
        await service.commands.execute(game_id, seat, msgspec.to_builtins(command))


async def lose_commits_after(superuser_pool: asyncpg.Pool, game_id: str, version: int) -> None:
    """What a failover to a standby that lacked the newest commits leaves: the game's events and commands
    after ``version`` gone, its stream row back at ``version`` and that event's hash."""
    async with superuser_pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL session_replication_role = replica")  # past the append-only rules
        await connection.execute("DELETE FROM events WHERE stream_id = $1 AND version > $2", game_id, version)
        await connection.execute(
            "DELETE FROM commands WHERE stream_id = $1 AND version > $2", game_id, version
        )
        await connection.execute(
            "UPDATE streams SET version = $2,"
            " head_hash = (SELECT hash FROM events WHERE stream_id = $1 AND version = $2)"
            " WHERE stream_id = $1",
            game_id,
            version,
        )


@pytest.fixture
async def lost(pool: asyncpg.Pool, superuser_pool: asyncpg.Pool) -> AsyncIterator[tuple[GameService, str]]:
    """A service whose cache holds a game past KEPT, and the game, whose commits after KEPT were lost."""
    body = {"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}], "seed": "lost-commits"}
    ahead = new_service(pool)
    game_id = (await ahead.commands.create(msgspec.convert(body, CreateGame))).game_id
    await play(ahead, game_id, KEPT + 3)
    cached = ahead.loader.cached(game_id)
    assert cached is not None and cached.version > KEPT + 3
    await lose_commits_after(superuser_pool, game_id, KEPT)
    yield ahead, game_id


def seen(service_game: Any) -> bytes:
    """A loaded game's public view, encoded (equal views: the same state)."""
    return msgspec.json.encode(service_game.view(None))


async def test_a_read_serves_the_stored_version(lost: tuple[GameService, str], pool: asyncpg.Pool) -> None:
    ahead, game_id = lost
    loaded = await ahead.loader.load(game_id)
    assert loaded.version == KEPT
    assert seen(loaded) == seen(await new_service(pool).loader.load(game_id))


async def test_the_next_command_is_decided_at_the_stored_version(
    lost: tuple[GameService, str], pool: asyncpg.Pool
) -> None:
    ahead, game_id = lost
    stored = await new_service(pool).loader.load(game_id)
    seat = stored.game.pending(stored.state)[0].seat
    command = next(c for c in stored.legal(seat) if type(c).__struct_config__.tag not in ("buy", "resign"))
    accepted = await ahead.commands.execute(game_id, seat, msgspec.to_builtins(command))
    assert accepted.events[0].version == KEPT + 1
    audit = await new_service(pool).store.verify_chain(game_id)
    assert audit.ok
