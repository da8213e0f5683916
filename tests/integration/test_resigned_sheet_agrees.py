"""B-11 with a resignation, over HTTP and in the read model: the game's ``result``, the score sheet as CSV and
the game listing name the same winner, the best seat still playing, even when the resigned seat has the most
points (docs/api.md, resigning). The rule itself (result, score sheet, export) is tested on the in-memory
twins, tests/service/test_resigned_sheet.py."""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.service import GameService
from service.readmodels.projections import GameProjection
from tests.support.accounts import unlimited_client
from tests.support.finished_games import resigned_top_scorer

pytestmark = pytest.mark.db


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """A game service on the test database."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


@pytest.fixture
def live(pool: asyncpg.Pool, service: GameService) -> GameProjection:
    """The live game projection."""
    return GameProjection(pool, service)


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


async def test_result_csv_and_listing_name_the_best_seat_still_playing(
    client: AsyncTestClient[Any], service: GameService, live: GameProjection
) -> None:
    """The resigned top scorer wins nowhere: the answers over HTTP and the listing name the same winner."""
    tag = uuid.uuid4().hex[:8]
    players = [f"top-{tag}-{seat}" for seat in range(5)]
    game_id, quitter = await resigned_top_scorer(service, players)
    result = (await client.get(f"/v1/games/{game_id}")).json()["result"]
    assert result["scores"][quitter] == max(result["scores"]) and quitter not in result["winners"]
    winners = [players[seat] for seat in result["winners"]]

    sheet = (await client.get(f"/v1/games/{game_id}/scoresheet")).json()
    assert sheet["final"] and sheet["winners"] == winners
    as_csv = (await client.get(f"/v1/games/{game_id}/scoresheet", headers={"Accept": "text/csv"})).text
    rows = list(csv.reader(io.StringIO(as_csv)))
    assert rows[-2][:2] == ["resigned", players[quitter]]
    assert rows[-1][:2] == ["winners", ", ".join(winners)]
    export = (await client.get(f"/v1/games/{game_id}/export")).json()
    assert export["result"] == result

    await live.catch_up()
    (listed,) = (await live.list_games("basari", "finished", players[0], None, None, 10)).games
    assert listed.result is not None and list(listed.result.winners) == result["winners"]
