"""Commands decided on a cached state: two GameServices on one store act as two server processes, each with
its own cache, so one of them is always behind; nothing it answers may depend on that (docs/architecture.md).
On the in-memory twin and on PostgreSQL."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from service.games.schemas import CreateGame
from service.runtime import errors
from tests.support.twins import Processes


@pytest.fixture
async def game(services: Processes) -> str:
    """A new two-player Bazaar game."""
    body = {"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}], "seed": "stale-cache"}
    created = await services().commands.create(msgspec.convert(body, CreateGame))
    return created.game_id


async def next_move(services: Processes, game_id: str) -> tuple[int, dict[str, Any]]:
    """The seat to act and its first legal command that is not a purchase, on the stored state."""
    loaded = await services().loader.load(game_id)
    seat = loaded.game.pending(loaded.state)[0].seat
    legal = loaded.legal(seat)
    command = next(c for c in legal if type(c).__struct_config__.tag != "buy")
    return seat, msgspec.to_builtins(command)


async def stored_version(services: Processes, game_id: str) -> int:
    """The version the store holds."""
    return (await services().loader.info(game_id)).version


async def move_on_elsewhere(services: Processes, game_id: str) -> None:
    """Another process plays until the other seat is to act (so the first one's cached state is behind)."""
    other = services()
    first_seat, _ = await next_move(services, game_id)
    while True:
        seat, body = await next_move(services, game_id)
        if seat != first_seat:
            return
        await other.commands.execute(game_id, seat, body)


async def test_a_command_refused_on_a_stale_cache_is_decided_again_on_the_stored_state(
    services: Processes, game: str
) -> None:
    behind = services()
    seat, body = await next_move(services, game)
    await behind.commands.execute(game, seat, body)  # ``behind`` now caches this version
    await move_on_elsewhere(services, game)
    seat, body = await next_move(services, game)
    cached = behind.loader.cached(game)
    assert cached is not None and cached.version < await stored_version(services, game)
    accepted = await behind.commands.execute(game, seat, body)
    assert accepted.version == await stored_version(services, game)


async def test_a_command_legal_on_a_stale_cache_loses_the_race_and_is_decided_again(
    services: Processes, game: str
) -> None:
    behind = services()
    await behind.loader.load(game)
    seat, body = await next_move(services, game)
    await services().commands.execute(game, seat, body)  # ``behind`` does not know
    seat, body = await next_move(services, game)
    before = await stored_version(services, game)
    accepted = await behind.commands.execute(game, seat, body)
    assert accepted.version > before == accepted.events[0].version - 1


async def test_if_match_is_compared_with_the_stored_version_not_the_cached_one(
    services: Processes, game: str
) -> None:
    behind = services()
    await behind.loader.load(game)
    stale = await stored_version(services, game)
    seat, body = await next_move(services, game)
    await services().commands.execute(game, seat, body)
    current = await stored_version(services, game)
    seat, body = await next_move(services, game)
    with pytest.raises(errors.PreconditionFailed):
        await behind.commands.execute(game, seat, body, if_match=stale)
    assert await stored_version(services, game) == current
    accepted = await behind.commands.execute(game, seat, body, if_match=current)
    assert accepted.events[0].version == current + 1


async def test_a_keyed_retry_gets_its_first_answer_from_a_process_that_is_behind_or_ahead(
    services: Processes, game: str
) -> None:
    first, other = services(), services()
    seat, body = await next_move(services, game)
    answer = msgspec.json.encode(await first.commands.execute(game, seat, body, idempotency_key="k1"))
    await move_on_elsewhere(services, game)
    moved_on = await stored_version(services, game)
    # ``first`` still caches the state right after k1, on which the retry is legal again; ``other`` has
    # never seen the game and decides on the stored state, where the retry is refused. Both replay.
    assert msgspec.json.encode(await first.commands.execute(game, seat, body, idempotency_key="k1")) == answer
    assert msgspec.json.encode(await other.commands.execute(game, seat, body, idempotency_key="k1")) == answer
    assert await stored_version(services, game) == moved_on
    with pytest.raises(errors.RuleViolation) as refused:
        await other.commands.execute(game, seat, {"type": "end_turn"}, idempotency_key="k1")
    assert refused.value.code == "idempotency_key_reused"
