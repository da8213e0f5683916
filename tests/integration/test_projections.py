"""The game projections on a real PostgreSQL: fed from the feed exactly once, read-your-writes listing,
per-player history, results of finished games, and a rebuild from zero that equals the live projection.

The module runs on a database of its own: the session's running servers (tests/e2e) keep appending to the
shared one (their bot runners and clock schedulers act on its games), and these tests count the feed's
events and compare projections built at different moments."""

from __future__ import annotations

import asyncio
import functools
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from domain.resign import decisions
from eventstore import GameKeys, NewEvent, PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.readmodels.projections import GameProjection, poll
from service.readmodels.repository.checkpoints import LOCK_CHECKPOINT
from service.readmodels.repository.games import LIVE, REBUILD, Tables
from tests.support.databases import own_pool
from tests.support.stream_rows import count_stream_rows

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database nothing else of the session writes to."""
    async with own_pool(server_url, max_size=20) as created:
        yield created


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """A game service on the test database."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


@pytest.fixture
def live(pool: asyncpg.Pool, service: GameService) -> GameProjection:
    """The live game projection."""
    return GameProjection(pool, service)


def names(prefix: str, count: int) -> list[str]:
    """Player names no other test uses."""
    tag = uuid.uuid4().hex[:8]
    return [f"{prefix}-{tag}-{i}" for i in range(count)]


async def create(service: GameService, players: list[str], game: str = "basari") -> str:
    """Create a game with these players; its id."""
    created = await service.commands.create(
        CreateGame(game=game, players=[PlayerIn(name=name) for name in players])
    )
    return created.game_id


async def play(service: GameService, game_id: str, seed: str, moves: int | None = None) -> None:
    """Random entries of ``legal`` from random pending seats, until the game ends (or ``moves`` were made)."""
    chooser = random.Random(seed)
    made = 0
    while moves is None or made < moves:
        loaded = await service.loader.load(game_id)
        if loaded.finished:
            return
        seat = chooser.choice(loaded.game.pending(loaded.state)).seat
        command = chooser.choice(decisions(loaded.legal(seat)))
        await service.commands.execute(game_id, seat, msgspec.to_builtins(command))
        made += 1


async def rows(pool: asyncpg.Pool, tables: Tables) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of a projection's tables, in key order."""
    found = {}
    for name, table in zip(("listing", "players", "results", "ratings", "rated"), tables.data, strict=True):
        found[name] = [tuple(row) for row in await pool.fetch(f"SELECT * FROM {table} ORDER BY 1, 2")]
    return found


async def test_listing_follows_the_feed_to_the_result(service: GameService, live: GameProjection) -> None:
    players = names("follow", 3)
    game_id = await create(service, players)
    await live.catch_up()
    page = await live.list_games(None, None, players[1], None, None, 10)
    assert [(g.game_id, g.status, g.players, g.result) for g in page.games] == [
        (game_id, "active", players, None)
    ]
    await play(service, game_id, "follow")
    await live.catch_up()
    (listed,) = (await live.list_games("basari", "finished", players[0], None, None, 10)).games
    loaded = await service.loader.load(game_id)
    outcome = loaded.result()
    assert listed.version == loaded.version
    assert listed.result == outcome  # the game's Result, its note too
    history = await live.player_games(players[2], None, None, None, 10)
    assert [(g.game_id, g.seat, g.score, g.rank) for g in history.games] == [
        (game_id, 2, outcome.scores[2], outcome.ranks[2])
    ]
    assert (await live.list_games(None, "active", players[0], None, None, 10)).games == []


async def test_a_pass_reads_the_feed_until_a_batch_comes_back_short(
    pool: asyncpg.Pool, service: GameService
) -> None:
    """A pass applies full batches while the feed has more, and ends with the first short one: one read of
    the feed per batch, none to ask whether more is there (under load, what commits meanwhile waits for
    the next pass instead of a pass of a few events each)."""
    projection = GameProjection(pool, service, batch_size=4)
    await projection.catch_up()
    game_id = await create(service, names("short", 3))
    await play(service, game_id, "short", moves=8)
    read = projection.read
    reads: list[int] = []

    async def counted(after: Any, limit: int) -> Any:
        page = await read(after, limit)
        reads.append(len(page))
        return page

    projection.read = counted  # the real read, counted
    applied = await projection.catch_up_pass()
    assert applied == sum(reads) and applied > 4
    assert reads[:-1] == [4] * (len(reads) - 1) and reads[-1] < 4, reads


async def test_the_projection_reads_the_feed_without_bodies(pool: asyncpg.Pool, service: GameService) -> None:
    """The projection folds the games the feed moved itself: it reads the feed's headers
    (``read_all_headers``), never the events with their bodies, and projects the same rows."""
    projection = GameProjection(pool, service)
    await projection.catch_up()
    game_id = await create(service, names("headers", 3))
    await play(service, game_id, "headers", moves=4)

    async def refused(after: Any, limit: int) -> Any:
        raise AssertionError("the projection read the feed's bodies")

    service.store.read_all = refused  # type: ignore[method-assign]
    assert await projection.catch_up() > 0
    row = await pool.fetchrow("SELECT version, updated_at FROM game_listing WHERE game_id = $1", game_id)
    info = await service.store.stream_info(game_id)
    assert info is not None and (row["version"], row["updated_at"]) == (info.version, info.updated_at)


async def test_a_pass_takes_a_game_this_process_just_moved_as_it_holds_it(
    pool: asyncpg.Pool, service: GameService
) -> None:
    """A game whose state this process holds as of its last event in the batch (it appended that event) is
    projected without reading its stream row, and its listing row is the one a read of the row gives; a
    game another process moved is read."""
    projection = GameProjection(pool, service)
    await projection.catch_up()
    held, elsewhere = await create(service, names("held", 3)), await create(service, names("else", 3))
    await play(service, held, "held", moves=3)
    other = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())  # another process
    await play(other, elsewhere, "else", moves=3)
    read = count_stream_rows(service.store)
    await projection.catch_up()
    assert held not in read
    assert elsewhere in read
    for game_id in (held, elsewhere):
        row = await pool.fetchrow(
            "SELECT version, status, updated_at FROM game_listing WHERE game_id = $1", game_id
        )
        info = await service.store.stream_info(game_id)
        assert info is not None
        assert (row["version"], row["status"], row["updated_at"]) == (info.version, "active", info.updated_at)


async def test_the_listed_result_carries_the_games_note_on_how_it_ended(
    service: GameService, live: GameProjection
) -> None:
    """Two of three seats resign: the listing's result names them in its note, as the game's own does."""
    players = names("resigning", 3)
    game_id = await create(service, players)
    for seat in (2, 0):
        await service.commands.execute(game_id, seat, {"type": "resign"})
    loaded = await service.loader.load(game_id)
    assert loaded.finished
    await live.catch_up()
    (listed,) = (await live.list_games(None, "finished", players[1], None, None, 10)).games
    assert listed.result == loaded.result()
    assert listed.result.note.startswith(f"resigned: {players[2]}, {players[0]}")


async def test_listing_reads_its_own_writes_without_a_separate_catch_up(
    service: GameService, live: GameProjection
) -> None:
    """A game created just before a listing request is in it: the listing catches up first."""
    for _ in range(5):
        players = names("ryw", 3)
        game_id = await create(service, players)
        assert [g.game_id for g in (await live.list_games(None, None, players[0], None, None, 5)).games] == [
            game_id
        ]
        assert [g.game_id for g in (await live.player_games(players[2], None, None, None, 5)).games] == [
            game_id
        ]
    players = names("crowd", 3)
    game_id = await create(service, players)
    crowd = await asyncio.gather(*(live.list_games(None, None, players[1], None, None, 5) for _ in range(30)))
    assert all([g.game_id for g in page.games] == [game_id] for page in crowd)


async def test_listing_waits_for_older_transactions_before_reading_the_feed(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    """The feed hides commits newer than the oldest running transaction; a listing waits for transactions
    older than itself to end, so a game committed before the request is listed even then."""
    players = names("older", 3)
    # no read-your-writes budget to run out on a loaded machine before the rollback: only that ends the wait
    live.read_your_writes = functools.partial(live.read_your_writes, wait=60)  # type: ignore[method-assign]
    async with pool.acquire() as connection:
        blocker = connection.transaction()
        await blocker.start()
        await connection.fetchval("SELECT pg_current_xact_id()")  # an id older than the game's commit
        game_id = await create(service, players)
        listing = asyncio.create_task(live.list_games(None, None, players[0], None, None, 5))
        await asyncio.sleep(0.2)
        assert not listing.done(), "the listing waits for the older transaction"
        await blocker.rollback()
    assert [g.game_id for g in (await listing).games] == [game_id]


async def test_listing_serves_the_rows_it_has_while_the_checkpoint_is_held(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    """While a rebuild's swap (here: any transaction) holds the live checkpoint, a listing gives up waiting
    after its read-your-writes budget and answers from the rows it has; afterwards it catches up."""
    players = names("held", 3)
    async with pool.acquire() as connection:
        holder = connection.transaction()
        await holder.start()
        await connection.execute(LOCK_CHECKPOINT, "games")
        await connection.fetchval("SELECT pg_current_xact_id()")  # as a swap's copy, it writes
        game_id = await create(service, players)
        stale = await asyncio.wait_for(live.list_games(None, None, players[0], None, None, 5), 30)
        await holder.rollback()
    assert stale.games == []
    assert [g.game_id for g in (await live.list_games(None, None, players[0], None, None, 5)).games] == [
        game_id
    ]


async def test_a_game_whose_events_cannot_be_read_does_not_stop_the_others(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    players = names("unreadable", 3)
    broken = f"broken-{uuid.uuid4()}"
    await service.keys.save(GameKeys(game_id=broken, seed="s", token_hashes=("a", "b", "c")))
    body = NewEvent(type="no_such_event", schema_version=1, data=b'{"n": 1}')
    await service.store.create_stream(broken, "basari", [body], metadata={"players": players})
    game_id = await create(service, players)
    listed = await live.list_games(None, None, players[0], None, None, 5)
    assert [g.game_id for g in listed.games] == [game_id]


async def test_filters_and_cursor_pages(service: GameService, live: GameProjection) -> None:
    players = names("pages", 3)
    made = [await create(service, players, game="basari") for _ in range(3)]
    made.append(await create(service, [*players[:2], "someone-else"], game="johari"))
    await live.catch_up()
    seen, cursor = [], None
    while True:
        page = await live.list_games(None, None, players[0], None, cursor, 2)
        seen += [g.game_id for g in page.games]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == made[::-1], "newest first, every game once"
    assert [g.game_id for g in (await live.list_games("johari", None, players[1], None, None, 9)).games] == [
        made[3]
    ]
    history, cursor = [], None
    while True:
        mine = await live.player_games(players[2], None, None, cursor, 1)
        history += [(g.game_id, g.seat) for g in mine.games]
        cursor = mine.next_cursor
        if cursor is None:
            break
    assert history == [(game_id, 2) for game_id in made[2::-1]]
    assert (await live.player_games(f"nobody-{uuid.uuid4()}", None, None, None, 5)).games == []


async def test_concurrent_projectors_apply_every_event_exactly_once(
    pool: asyncpg.Pool, service: GameService
) -> None:
    """Four projectors racing over one checkpoint (as several server processes do) apply each event of the
    feed once between them, and end with the rows of a single projector (the live projection)."""
    game_id = await create(service, names("race", 3))
    await play(service, game_id, "race", moves=20)
    feed = len(await service.store.read_all(limit=10**9))
    racers = [GameProjection(pool, service, REBUILD, batch_size=7) for _ in range(4)]
    await racers[0].reset()
    applied = await asyncio.gather(*(racer.catch_up() for racer in racers))
    assert sum(applied) == feed and len([a for a in applied if a]) > 1
    live = GameProjection(pool, service, LIVE)
    await live.catch_up()
    assert await rows(pool, REBUILD) == await rows(pool, LIVE)
    await racers[0].reset()


async def test_a_projection_rebuilt_from_zero_equals_the_live_one(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    finished = await create(service, names("rebuilt", 4))
    await play(service, finished, "rebuilt")
    running = await create(service, names("rebuilt", 3), game="johari")
    await play(service, running, "rebuilt", moves=10)
    await live.catch_up()
    positions: list[int] = []
    shadow = await live.build_shadow(lambda _applied, reached: positions.append(reached.position))
    await live.catch_up()
    await shadow.catch_up()
    assert positions, "the rebuild reports its progress"
    rebuilt, current = await rows(pool, REBUILD), await rows(pool, LIVE)
    assert finished in [row[0] for row in current["results"]]
    assert rebuilt == current
    await shadow.reset()


async def test_rebuild_while_games_are_played_keeps_every_event(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    """Games are created and played, and the live projector keeps running, during the rebuild and its swap;
    afterwards the live projection holds every game and equals a projection built from zero."""
    players = names("busy", 3)
    projector = asyncio.create_task(live.run(poll(0.01)))

    async def writer(index: int) -> str:
        game_id = await create(service, players)
        await play(service, game_id, f"busy-{index}")
        return game_id

    try:
        writers = asyncio.gather(*(writer(i) for i in range(3)))
        await asyncio.sleep(0.05)
        await live.rebuild()
        played = await writers
    finally:
        projector.cancel()
        await asyncio.gather(projector, return_exceptions=True)
    await live.catch_up()
    listed = await live.list_games(None, None, players[0], None, None, 10)
    assert sorted(g.game_id for g in listed.games) == sorted(played)
    assert all(g.status == "finished" and g.result for g in listed.games)
    assert (await rows(pool, REBUILD))["listing"] == [], "the swap leaves the rebuild tables empty"
    shadow = await live.build_shadow()
    await live.catch_up()
    await shadow.catch_up()
    assert await rows(pool, REBUILD) == await rows(pool, LIVE)
    await shadow.reset()


async def test_with_the_loop_running_a_listing_asks_it_and_writes_nothing_itself(
    service: GameService, live: GameProjection
) -> None:
    """No GET writes a row. With the background loop running (as in the service), a listing
    request nudges it and waits for its pass; every catch-up runs in the loop's task, none in the request's,
    and the game created just before the request is listed."""
    callers: list[str] = []

    def recording(
        catch_up: Callable[[float | None], Awaitable[int]],
    ) -> Callable[[float | None], Awaitable[int]]:
        async def recorded(lock_wait: float | None = None) -> int:
            task = asyncio.current_task()
            callers.append(task.get_name() if task else "")
            return await catch_up(lock_wait)

        return recorded

    live.catch_up = recording(live.catch_up)  # type: ignore[method-assign]
    live.catch_up_pass = recording(live.catch_up_pass)  # type: ignore[method-assign]
    never = asyncio.Event()
    loop = asyncio.create_task(live.run(never.wait), name="projector")
    try:
        async with asyncio.timeout(30):  # the loop's first pass (whatever the feed holds)
            while not callers or await live.behind():
                await asyncio.sleep(0.01)
        for _ in range(3):
            players = names("nudged", 3)
            game_id = await create(service, players)
            page = await asyncio.wait_for(live.list_games(None, None, players[0], None, None, 5), 30)
            assert [g.game_id for g in page.games] == [game_id]
    finally:
        loop.cancel()
        await asyncio.gather(loop, return_exceptions=True)
    assert callers and set(callers) == {"projector"}, callers
