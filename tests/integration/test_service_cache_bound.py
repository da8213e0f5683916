"""Every cache of the game service is bounded: a process that touches many games keeps only the most recent
(on the in-memory twin and on PostgreSQL)."""

from __future__ import annotations

import msgspec

from service.games.schemas import CreateGame
from tests.support.twins import Processes


async def test_states_and_keys_fall_out_least_recently_used_first(services: Processes) -> None:
    """Past ``cache_size`` games, the least recently used game's state and keys are dropped."""
    creator = services()
    ids = []
    for n in range(3):
        body = {"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}], "seed": f"bound-{n}"}
        ids.append((await creator.commands.create(msgspec.convert(body, CreateGame))).game_id)
    service = services(cache_size=2)
    for game_id in ids:
        await service.loader.load(game_id)
    assert service.loader.cached(ids[0]) is None
    assert service.loader.cached(ids[1]) is not None and service.loader.cached(ids[2]) is not None
    assert list(service.loader._keys_cache) == ids[1:]
    await service.loader.game_keys(ids[1])  # used again: now the most recent, so ids[2]'s keys go first
    await service.loader.game_keys(ids[0])
    assert list(service.loader._keys_cache) == [ids[1], ids[0]]
