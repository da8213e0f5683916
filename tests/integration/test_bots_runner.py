"""Server bots: a game created with bot seats is played by the runner through GameCommands.execute;
two runners (two processes' services on one store) make exactly one move per decision; a runner started
after a crash resumes every pending bot decision; creation names bot seats and refuses unknown levels. On
the in-memory twin and on PostgreSQL.

On PostgreSQL the module plays on a database of its own: the session's running servers (tests/e2e) each have
a bot runner that plays every bot seat of the shared database, and these tests count which runner made each
move."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.resign import decisions
from service.games.schemas import CreateGame
from service.runtime import errors
from service.workers import bots
from service.workers.bots import BotRunner
from tests.support.databases import own_pool
from tests.support.logs import logs_of
from tests.support.stream_rows import count_stream_rows
from tests.support.twins import Processes


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database no server process of the session plays on (the PostgreSQL variant's)."""
    async with own_pool(server_url) as created:
        yield created


async def create(services: Processes, body: dict[str, Any]) -> str:
    """A new game from a creation body; its id."""
    created = await services().commands.create(msgspec.convert(body, CreateGame))
    return created.game_id


async def finished(services: Processes, game_id: str) -> bool:
    """Whether the stored game is over."""
    return (await services().loader.load(game_id)).finished


async def commands_stored(services: Processes, game_id: str) -> int:
    """How many commands the game's events came from (each append stores its command on its first event)."""
    return sum(1 for event in await services().store.read_stream(game_id) if event.cause is not None)


async def one_move_per_decision(services: Processes, game_id: str) -> None:
    """Every bot command was appended right after the version it was decided on (its idempotency key names
    it): no decision got a second move, since each version is followed by exactly one append."""
    commands = [event for event in await services().store.read_stream(game_id) if event.cause is not None]
    assert commands
    for event in commands:
        assert event.command_id is not None and event.command_id.endswith(f":bot-v{event.version - 1}")


def runner_task(services: Processes, name: str) -> tuple[BotRunner, asyncio.Task[None]]:
    """A runner on a service of its own, following the feed and woken every 50 ms at the latest."""
    service = services()
    runner = BotRunner(service, think_seconds=0, iterations=4)
    watch = service.store.watch()
    watch.__enter__()

    async def wake() -> None:
        await watch.wait(0.05)

    return runner, asyncio.create_task(runner.run(wake), name=name)


async def until(condition: Any, seconds: float = 120) -> None:
    """Wait until ``condition()`` is true (awaited), failing after ``seconds``."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_two_runners_play_a_bot_game_with_one_move_per_decision(services: Processes) -> None:
    """Both runners see every append; the store lets exactly one command per decision in."""
    body = {"game": "johari", "players": [{"bot": "random"}, {"bot": "greedy"}], "seed": "two-runners"}
    game_id = await create(services, body)
    (first, one), (second, two) = runner_task(services, "bots-1"), runner_task(services, "bots-2")
    try:
        await until(lambda: finished(services, game_id))
        stored = await commands_stored(services, game_id)

        async def counted() -> bool:
            """Whether the runners counted every stored move. Each counts its own once its command returns,
            which may be a moment after the last commit is seen here; an idempotent replay of the same
            decision counts for both, so the sum may exceed the store's count."""
            return first.moves + second.moves >= stored

        await until(counted, seconds=30)  # fails if a stored move went uncounted
    finally:
        for task in (one, two):
            task.cancel()
        await asyncio.gather(one, two, return_exceptions=True)
    await one_move_per_decision(services, game_id)


async def test_a_new_runner_resumes_pending_bot_decisions(services: Processes) -> None:
    """A runner that was not running when the decision became due (a crash, a restart) takes it up."""
    body = {
        "game": "basari",
        "players": [{"bot": "random"}, {"bot": "random"}, {"bot": "greedy"}],
        "seed": "resume",
    }
    game_id = await create(services, body)
    runner = BotRunner(services(), think_seconds=0, iterations=4)
    moved = await runner.resume()  # as a process does on start
    assert moved > 0 and await finished(services, game_id)
    assert moved == await commands_stored(services, game_id)
    await one_move_per_decision(services, game_id)


async def test_a_failing_bot_is_logged_without_its_message(services: Processes) -> None:
    """A bot's bug is logged by type and place only: its message could quote the bot's hand or deliberation
    (no traceback text, which would carry it)."""
    body = {"game": "basari", "players": [{"bot": "random"}, {"bot": "random"}, {"bot": "random"}]}
    game_id = await create(services, body)
    runner = BotRunner(services(), think_seconds=0, iterations=4)

    async def failing(*_args: Any) -> Any:
        raise RuntimeError("the bot's hand: secret-card-17")

    runner._decide = failing  # type: ignore[method-assign]  # a bug inside the bot's decision
    with logs_of(bots) as logs:
        assert await runner.act(game_id) == 0
    (failed,) = [entry for entry in logs if entry["event"] == "bot_failed"]
    assert failed["error"] == "RuntimeError" and failed["where"], failed
    assert "exc_info" not in failed and "secret-card-17" not in repr(logs), failed


async def test_a_human_and_a_bot_take_turns(services: Processes) -> None:
    """The bot answers the human's moves; the human's seat is never played by the runner."""
    body = {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "strong"}], "seed": "human-bot"}
    game_id = await create(services, body)
    human = services()
    runner = BotRunner(services(), think_seconds=0, iterations=4)
    for _ in range(400):
        await runner.resume()
        loaded = await human.loader.load(game_id)
        if loaded.finished:
            break
        pending = loaded.game.pending(loaded.state)
        assert [p.seat for p in pending] == [0]  # the bot never leaves its decision pending here
        legal = decisions(loaded.legal(0))  # never resign
        await human.commands.execute(game_id, 0, msgspec.to_builtins(legal[-1]))
    assert runner.moves > 0


async def test_a_persons_bot_answers_while_bot_only_games_run(services: Processes) -> None:
    """The runner takes turns across games: a bot owing a person's game its answer is not kept waiting until
    the bot-only games queued before it have been played to their end (they are still running when it
    answers)."""
    human = services()
    game_id = await create(services, {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "greedy"}]})
    loaded = await human.loader.load(game_id)
    while [p.seat for p in loaded.game.pending(loaded.state)] == [0]:  # Ada's turn, to its end
        await human.commands.execute(game_id, 0, msgspec.to_builtins(decisions(loaded.legal(0))[-1]))
        loaded = await human.loader.load(game_id)
    answered_at = loaded.version  # the greedy bot owes its answer now
    bot_only = [
        await create(
            services, {"game": "basari", "players": [{"bot": "strong"}] * 4, "seed": f"busy-{index}"}
        )
        for index in range(4)
    ]  # newer than the person's game: a runner resuming newest first meets them first
    runner, task = runner_task(services, "bots-fair")
    order: list[str] = []
    execute = runner.games.commands.execute

    async def recorded(game: str, *args: Any, **kwargs: Any) -> Any:
        accepted = await execute(game, *args, **kwargs)
        order.append(game)
        return accepted

    runner.games.commands.execute = recorded  # type: ignore[method-assign]  # the real append, its order recorded
    try:
        await until(lambda: answered(services, game_id, answered_at))
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert game_id in order
    for busy in bot_only:
        assert not await finished(services, busy)  # still running when the person's bot answered
    assert order.index(game_id) <= len(bot_only) + 1, order  # one turn each, at most, before it


async def answered(services: Processes, game_id: str, version: int) -> bool:
    """Whether the game moved on past ``version``."""
    return (await services().loader.load(game_id)).version > version


async def test_a_game_without_bots_costs_the_runner_one_read_of_its_stream_row(services: Processes) -> None:
    """Its moves on the feed are skipped once its creation metadata showed no bot seat; a bot game's are not."""
    runner = BotRunner(services(), think_seconds=0, iterations=4)
    humans = await create(
        services, {"game": "basari", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}
    )
    with_bot = await create(services, {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "random"}]})
    read: list[str] = []
    stream_info = runner.games.store.stream_info

    async def counted(game_id: str) -> Any:
        read.append(game_id)
        return await stream_info(game_id)

    runner.games.store.stream_info = counted  # type: ignore[method-assign]  # the real read, counted
    for _ in range(3):
        assert await runner.act(humans) == 0
        await runner.act(with_bot)
    assert read.count(humans) == 1
    assert read.count(with_bot) >= 3  # a bot game is read each time: its status may have changed


async def test_moves_of_a_game_without_bots_do_not_wake_the_runner(services: Processes) -> None:
    """Once the runner knows a game has no bot seat, its wake-up (a watch ignoring ``without_bots``) sleeps
    through that game's appends; an append to a bot game wakes it."""
    runner = BotRunner(services(), think_seconds=0, iterations=4)
    games = runner.games
    humans = await create(
        services, {"game": "basari", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}
    )
    with_bot = await create(services, {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "random"}]})
    assert await runner.act(humans) == 0
    assert await runner.act(with_bot) == 0  # Ada's turn: its levels are known, not "without bots"

    async def move(game_id: str, seat: int) -> None:
        loaded = await games.loader.load(game_id)
        await games.commands.execute(game_id, seat, msgspec.to_builtins(decisions(loaded.legal(seat))[-1]))

    with games.store.watch(ignoring=runner.without_bots) as woken:
        await move(humans, 0)
        assert not await woken.wait(0), "a game without bots moved: the runner sleeps on"
        await move(with_bot, 0)
        assert await woken.wait(0), "a bot game moved: the runner wakes"


async def test_a_bot_game_this_process_moved_costs_the_runner_no_read(services: Processes) -> None:
    """Once its levels are known, a game whose cached state is the stored one as of its latest event on the
    feed (the person's move was made by this process) is decided on without reading its stream row."""
    runner = BotRunner(services(), think_seconds=0, iterations=4)
    game_id = await create(services, {"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "random"}]})
    games = runner.games
    assert await runner.act(game_id) == 0  # Ada's turn: the levels are read with the stream row
    read = count_stream_rows(games.store)
    loaded = await games.loader.load(game_id)
    while [p.seat for p in loaded.game.pending(loaded.state)] == [0]:  # Ada's turn, to its end
        await games.commands.execute(game_id, 0, msgspec.to_builtins(decisions(loaded.legal(0))[-1]))
        loaded = await games.loader.load(game_id)
    latest = (await games.store.read_stream(game_id, after=loaded.version - 1))[-1]
    read.clear()
    runner.enqueue(game_id, latest)
    assert await runner.step() == 1, "the bot answered"
    assert read == [], "decided on the cached state: no stream row read"
    await runner.step()  # its next turn, queued without an event read off the feed: the store is asked
    assert game_id in read


async def test_bot_seats_are_named_and_levels_checked(services: Processes) -> None:
    """A bot seat without a name is called after its level and game; an unknown level is refused (422)."""
    service = services()
    body = {"game": "johari", "players": [{"name": "Ada"}, {"bot": "strong"}, {"bot": "strong"}]}
    created = await service.commands.create(msgspec.convert(body, CreateGame))
    assert [s.name for s in created.seats] == ["Ada", "strong-johari 1", "strong-johari 2"]
    loaded = await service.loader.load(created.game_id)
    assert loaded.info.metadata["bot_levels"] == [None, "strong", "strong"]
    assert [s.bot for s in service.queries.seats(loaded)] == [False, True, True]
    with pytest.raises(errors.RuleViolation):
        await service.commands.create(
            msgspec.convert({"game": "johari", "players": [{"bot": "clever"}, {"name": "B"}]}, CreateGame)
        )
