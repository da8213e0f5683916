"""Tournament results as a read model on a real PostgreSQL: reads never append; the recorder fed from the
global feed reports each finished game once, however many processes' recorders race over the feed."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import asyncpg
import pytest

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore, PostgresTournamentKeyStore
from service.games.schemas import PlayerIn
from service.games.service import GameService
from service.runtime.sql import register_codecs
from service.tournaments.schemas import CreateTournamentIn
from service.tournaments.tournaments import TournamentResults, TournamentService
from tests.support.finished_games import finish

pytestmark = pytest.mark.db


@pytest.fixture
def games(pool: asyncpg.Pool) -> GameService:
    """A game service on the test database."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


async def new_tournament(service: TournamentService, game: str, players: int, rounds: int, table: int) -> str:
    """A new tournament of players no other test uses; its id."""
    tag = uuid.uuid4().hex[:8]
    created = await service.create(
        CreateTournamentIn(
            name="cup",
            game=game,
            players=[PlayerIn(name=f"p{i}-{tag}") for i in range(players)],
            rounds=rounds,
            table_size=table,
        )
    )
    return created.tournament_id


async def event_types(games: GameService, tournament_id: str) -> Counter[str]:
    """How many events of each type the tournament's stream holds."""
    return Counter(recorded.type for recorded in await games.store.read_stream(tournament_id))


async def test_reads_append_nothing_and_racing_recorders_record_each_game_once(
    pool: asyncpg.Pool, games: GameService
) -> None:
    """Without a recorder the reads show the finished games unrecorded and leave the stream as it was;
    four recorders (as four server processes) then race over the feed: every game is recorded exactly once,
    the round closes, and the reads show the results."""
    reader = TournamentService(games.store, PostgresTournamentKeyStore(pool), games)  # no recorder
    tid = await new_tournament(reader, "basari", 6, 1, 3)
    seated = await reader.seat_next_round(tid)
    for table in seated.tables:
        assert table.game_id is not None
        await finish(games, table.game_id, table.game_id)
    before = (await reader.load(tid)).version
    overview = await reader.overview(tid)
    assert await reader.standings(tid) and await reader.results(tid) == []
    assert (await reader.load(tid)).version == before, "a read appends nothing"
    assert all(not table.finished for rnd in overview.schedule for table in rnd.tables)

    recorders = [TournamentResults(pool, reader) for _ in range(4)]
    await asyncio.gather(*(recorder.catch_up() for recorder in recorders))
    await asyncio.gather(*(recorder.catch_up() for recorder in recorders))
    counts = await event_types(games, tid)
    assert counts["game_finished"] == 2, counts
    assert counts["round_closed"] == 1 and counts["tournament_completed"] == 1, counts
    results = await reader.results(tid)
    assert sorted(row.game_id for row in results) == sorted(t.game_id or "" for t in seated.tables)


async def test_reads_wait_for_the_recorder_loop(pool: asyncpg.Pool, games: GameService) -> None:
    """With the recorder's loop running (as in the service), a read right after the last game of a round
    finished shows it recorded: the read waits for the loop's pass instead of recording it itself."""
    service = TournamentService(games.store, PostgresTournamentKeyStore(pool), games, pool)
    assert service.recorder is not None
    never = asyncio.Event()
    loop = asyncio.create_task(service.recorder.run(never.wait))  # woken only by the reads' nudges
    try:
        tid = await new_tournament(service, "johari", 4, 2, 2)
        for _round in range(2):
            seated = await service.seat_next_round(tid)
            for table in seated.tables:
                assert table.game_id is not None
                await finish(games, table.game_id, table.game_id)
            overview = await service.overview(tid)
            assert all(table.finished for table in overview.schedule[-1].tables)
        assert overview.status == "completed"
        assert len(await service.results(tid)) == 4
    finally:
        loop.cancel()
        await asyncio.gather(loop, return_exceptions=True)


async def test_the_recorder_needs_one_connection_at_a_time(
    database_url: str, pool: asyncpg.Pool, games: GameService
) -> None:
    """The recorder reads the feed and the games, and reports the finished ones, before it opens its
    checkpoint's transaction, so it never holds one pooled connection while it waits for another: on a pool
    of one connection it records a finished game. (Before, it held that connection in the transaction and
    waited for a second until the acquire timeout.)"""
    reader = TournamentService(games.store, PostgresTournamentKeyStore(pool), games)
    tid = await new_tournament(reader, "johari", 2, 1, 2)
    (table,) = (await reader.seat_next_round(tid)).tables
    assert table.game_id is not None
    await finish(games, table.game_id, table.game_id)
    one = await asyncpg.create_pool(database_url, min_size=1, max_size=1, init=register_codecs)
    assert one is not None
    wait = 2.0  # the acquire timeout: past it a follower that waits for a second connection fails
    try:
        narrow = GameService(
            PostgresEventStore(one, acquire_timeout=wait),
            PostgresKeyStore(one, acquire_timeout=wait),
            all_games(),
        )
        keys = PostgresTournamentKeyStore(one, acquire_timeout=wait)
        recorder = TournamentResults(one, TournamentService(narrow.store, keys, narrow), acquire_timeout=wait)
        await recorder.catch_up()
    finally:
        await one.close()
    assert (await event_types(games, tid))["game_finished"] == 1
