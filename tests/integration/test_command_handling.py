"""Command handling (service/games/commands.py) against both stores of the contract: the in-memory twin (fast) and
PostgreSQL. The same cases must hold on each: an accepted command moves the game on, a refusal, a stale
``If-Match``, a malformed body or a finished game change nothing, an idempotent retry gets its first answer,
and a process deciding on a stale cached state is corrected by the store's version check."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.core import Rejected, Rng
from domain.resign import decisions
from service.games import commands
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.runtime import errors
from tests.support.logs import logs_of
from tests.support.twins import Processes


async def new_game(service: GameService, seed: str = "handling") -> str:
    """A new two-player Bazaar game; its id."""
    body = {"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}], "seed": seed}
    return (await service.commands.create(msgspec.convert(body, CreateGame))).game_id


async def next_move(service: GameService, game_id: str) -> tuple[int, dict[str, Any]]:
    """The seat to act and its first legal command, on the stored state."""
    loaded = await service.loader.load(game_id)
    seat = loaded.game.pending(loaded.state)[0].seat
    return seat, msgspec.to_builtins(decisions(loaded.legal(seat))[0])


async def stored_version(service: GameService, game_id: str) -> int:
    """The version the store holds."""
    return (await service.loader.info(game_id)).version


async def test_an_accepted_command_appends_its_events(services: Processes) -> None:
    service = services()
    game_id = await new_game(service)
    before = await stored_version(service, game_id)
    seat, body = await next_move(service, game_id)
    accepted = await service.commands.execute(game_id, seat, body)
    assert accepted.version == await stored_version(service, game_id) > before
    assert [e.version for e in accepted.events] == list(range(before + 1, accepted.version + 1))


async def test_a_refused_command_answers_the_rules_code_and_changes_nothing(services: Processes) -> None:
    service = services()
    game_id = await new_game(service)
    loaded = await service.loader.load(game_id)
    waiting = 1 - loaded.game.pending(loaded.state)[0].seat
    command = {"type": "roll"}
    with pytest.raises(Rejected) as ruled:
        loaded.game.decide(
            loaded.state, waiting, service.commands.parse_command(loaded.game, command), Rng("x", "v")
        )
    with logs_of(commands) as logs, pytest.raises(errors.RuleViolation) as refused:
        await service.commands.execute(
            game_id, waiting, command
        )  # refused on the cached state, then on the stored
    assert refused.value.code == ruled.value.code
    assert await stored_version(service, game_id) == loaded.version
    rejected = [line for line in logs if line["event"] == "command_rejected"]
    assert [(line["seat"], line["code"]) for line in rejected] == [(waiting, ruled.value.code)], "logged once"


@pytest.mark.parametrize(
    ("body", "problem", "code"),
    [
        ({"type": "no_such_command"}, errors.Malformed, "malformed_command"),
        ({"type": "roll", "extra": 1}, errors.Malformed, "malformed_command"),
        ([1, 2], errors.Malformed, "malformed_command"),
    ],
)
async def test_a_malformed_body_is_refused_and_changes_nothing(
    services: Processes, body: Any, problem: type[errors.ServiceError], code: str
) -> None:
    service = services()
    game_id = await new_game(service)
    before = await stored_version(service, game_id)
    with pytest.raises(problem) as refused:
        await service.commands.execute(game_id, 0, body)
    assert refused.value.code == code
    assert await stored_version(service, game_id) == before


async def test_a_stale_if_match_is_refused_and_changes_nothing(services: Processes) -> None:
    service = services()
    game_id = await new_game(service)
    before = await stored_version(service, game_id)
    seat, body = await next_move(service, game_id)
    with pytest.raises(errors.PreconditionFailed) as refused:
        await service.commands.execute(game_id, seat, body, if_match=before - 1)
    assert refused.value.code == "version_mismatch"
    assert await stored_version(service, game_id) == before
    assert (await service.commands.execute(game_id, seat, body, if_match=before)).version > before


async def test_an_idempotent_retry_gets_its_first_answer_and_a_reused_key_is_refused(
    services: Processes,
) -> None:
    service = services()
    game_id = await new_game(service)
    seat, body = await next_move(service, game_id)
    first = await service.commands.execute(game_id, seat, body, idempotency_key="k1")
    again = await services().commands.execute(game_id, seat, body, idempotency_key="k1")  # another process
    assert again.version == first.version == await stored_version(service, game_id)
    assert [e.version for e in again.events] == [e.version for e in first.events]
    different = {"type": "end_turn"} if body != {"type": "end_turn"} else {"type": "roll"}
    with pytest.raises(errors.RuleViolation) as refused:
        await service.commands.execute(game_id, seat, different, idempotency_key="k1")
    assert refused.value.code == "idempotency_key_reused"
    assert await stored_version(service, game_id) == first.version


async def test_a_finished_game_refuses_every_command(services: Processes) -> None:
    service = services()
    game_id = await new_game(service)
    seat, _ = await next_move(service, game_id)
    await service.commands.execute(game_id, seat, {"type": "resign"})
    loaded = await service.loader.load(game_id)
    assert loaded.finished
    with pytest.raises(errors.Conflict) as refused:
        await service.commands.execute(game_id, 1 - seat, {"type": "roll"})
    assert refused.value.code == "game_finished"
    assert await stored_version(service, game_id) == loaded.version


async def test_a_process_behind_is_corrected_by_the_stores_version_check(services: Processes) -> None:
    behind, ahead = services(), services()
    game_id = await new_game(behind)
    await behind.loader.load(game_id)  # ``behind`` caches the opening
    seat, body = await next_move(ahead, game_id)
    await ahead.commands.execute(game_id, seat, body)
    cached = behind.loader.cached(game_id)
    assert cached is not None and cached.version < await stored_version(ahead, game_id)
    seat, body = await next_move(ahead, game_id)
    with pytest.raises(errors.PreconditionFailed):
        await behind.commands.execute(game_id, seat, body, if_match=cached.version)
    accepted = await behind.commands.execute(
        game_id, seat, body
    )  # unconditional: decided again on the stored state
    assert accepted.version == await stored_version(ahead, game_id)


async def test_an_idempotent_retry_of_the_command_that_ends_the_game_gets_its_first_answer(
    services: Processes,
) -> None:
    """The first answer of the game's last command shows its events whole (hashes, the stored times); a
    retry, from this process or another, answers exactly that."""
    service = services()
    game_id = await new_game(service, seed="ending-retry")
    seat, _ = await next_move(service, game_id)
    first = await service.commands.execute(game_id, seat, {"type": "resign"}, idempotency_key="last")
    assert (await service.loader.load(game_id)).finished and all(e.hash for e in first.events)
    for retrying in (service, services()):
        again = await retrying.commands.execute(game_id, seat, {"type": "resign"}, idempotency_key="last")
        assert msgspec.json.encode(again) == msgspec.json.encode(first)
