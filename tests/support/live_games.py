"""Games on the test database driven in-process through GameService (fast), for tests that then read them
over HTTP from the real server: create, play random legal commands until a condition, see the true state."""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import msgspec

from domain.resign import decisions
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.loading import LoadedGame
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.runtime.sql import register_codecs


@asynccontextmanager
async def game_service(database_url: str) -> AsyncIterator[GameService]:
    """A GameService on the test database (the same store and keys the server uses)."""
    from domain.registry import all_games

    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=4, init=register_codecs)
    assert pool is not None
    try:
        yield GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())
    finally:
        await pool.close()


@dataclass
class LiveGame:
    """A game created for a test: its id, name, seed and seat tokens (index = seat)."""

    game_id: str
    game: str
    seed: str
    tokens: list[str]
    names: list[str]


async def create_live_game(service: GameService, game: str, players: int, label: str) -> LiveGame:
    """Create a game with a long seed (so a leaked seed cannot hide among short strings), the same on every
    run so that what the test sees is reproducible."""
    seed = f"seed-{label}-{hashlib.sha256(label.encode()).hexdigest()[:24]}"
    names = [f"{label}-{i}" for i in range(players)]
    created = await service.commands.create(
        CreateGame(game=game, players=[PlayerIn(name=n) for n in names], seed=seed)
    )
    return LiveGame(
        game_id=created.game_id,
        game=game,
        seed=seed,
        tokens=[s.token for s in created.seats if s.token is not None],  # hot-seat seats: all have one
        names=names,
    )


async def play_until(
    service: GameService,
    live: LiveGame,
    chooser: random.Random,
    stop: Callable[[LoadedGame], bool] = lambda _loaded: False,
    max_commands: int = 20_000,
) -> LoadedGame:
    """Post random legal commands of random pending seats until ``stop`` holds or the game is over."""
    loaded = await service.loader.load(live.game_id)
    for _ in range(max_commands):
        if loaded.finished or stop(loaded):
            return loaded
        seat = chooser.choice(loaded.game.pending(loaded.state)).seat
        command = chooser.choice(decisions(loaded.legal(seat)))
        await service.commands.execute(live.game_id, seat, msgspec.to_builtins(command))
        loaded = await service.loader.load(live.game_id)
    raise AssertionError(f"{live.game} game {live.game_id} did not stop within {max_commands} commands")


def legal_body(loaded: LoadedGame, seat: int, chooser: random.Random) -> dict[str, Any] | None:
    """A random legal command body of ``seat`` now (None if it has none)."""
    options = decisions(loaded.legal(seat))
    if not options:
        return None
    body: dict[str, Any] = msgspec.to_builtins(chooser.choice(options))
    return body
