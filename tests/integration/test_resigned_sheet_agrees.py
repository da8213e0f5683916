"""B-11 with a resignation, as the service shows it: the score sheet (JSON and CSV), the game's ``result``,
the game listing and the export name the same winner, the best seat still playing, even when the resigned
seat has the most points (docs/api.md, resigning)."""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from domain.core import Command, Event, Rng, fold
from domain.registry import all_games
from domain.resign import Resign, decisions
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.loading import FINISHED, LoadedGame
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.readmodels.projections import GameProjection
from service.runtime.streams import new_event
from tests.support.accounts import unlimited_client

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


def leader_resigns_at(loaded: LoadedGame, step: int) -> tuple[list[Event], int]:
    """The game played to its end as the service decides (first pending seat, first legal command), the
    leader on points resigning before command ``step``: the events and the resigned seat."""
    game, state, version = loaded.game, loaded.state, loaded.version
    events: list[Event] = []
    quitter, commands = -1, 0
    while not game.is_over(state):
        command: Command
        if commands == step:
            scores = game.result(state).scores
            quitter = max(range(len(scores)), key=lambda seat: scores[seat])
            seat, command = quitter, Resign()
        else:
            seat = game.pending(state)[0].seat
            command = decisions(game.legal(state, seat))[0]
        commands += 1
        decided = game.decide(state, seat, command, Rng(loaded.keys.seed, f"v{version + len(events)}"))
        state = fold(game, decided, state)
        events.extend(decided)
    return events, quitter


async def resigned_top_scorer(service: GameService, players: list[str]) -> tuple[str, int]:
    """A finished 5-player Basari game whose resigned seat ends with the most points: its id and that seat."""
    created = await service.commands.create(
        CreateGame(game="basari", players=[PlayerIn(name=p) for p in players])
    )
    loaded = await service.loader.load(created.game_id)
    for step in range(20, 120, 5):
        events, quitter = leader_resigns_at(loaded, step)
        scores = loaded.game.result(fold(loaded.game, events, loaded.state)).scores
        if quitter >= 0 and scores[quitter] == max(scores) and scores.count(max(scores)) == 1:
            await service.store.append(
                created.game_id, loaded.version, [new_event(e) for e in events], status=FINISHED
            )
            return created.game_id, quitter
    raise AssertionError("no resignation step left the resigned seat with the most points")


async def test_sheet_result_listing_and_export_name_the_best_seat_still_playing(
    client: AsyncTestClient[Any], service: GameService, live: GameProjection
) -> None:
    """The resigned top scorer wins nowhere: every view of the finished game names the same winner."""
    tag = uuid.uuid4().hex[:8]
    players = [f"top-{tag}-{seat}" for seat in range(5)]
    game_id, quitter = await resigned_top_scorer(service, players)
    result = (await client.get(f"/v1/games/{game_id}")).json()["result"]
    assert result["scores"][quitter] == max(result["scores"]) and quitter not in result["winners"]
    winners = [players[seat] for seat in result["winners"]]

    sheet = (await client.get(f"/v1/games/{game_id}/scoresheet")).json()
    assert sheet["final"] and sheet["winners"] == winners
    assert sheet["rows"][-2][:2] == ["resigned", players[quitter]]
    assert sheet["rows"][-1][:2] == ["winners", ", ".join(winners)]
    as_csv = (await client.get(f"/v1/games/{game_id}/scoresheet", headers={"Accept": "text/csv"})).text
    assert list(csv.reader(io.StringIO(as_csv)))[-1][:2] == ["winners", ", ".join(winners)]

    export = (await client.get(f"/v1/games/{game_id}/export")).json()
    assert export["result"] == result
    assert export["scoresheet"]["winners"] == winners and export["scoresheet"]["rows"] == sheet["rows"]

    await live.catch_up()
    (listed,) = (await live.list_games("basari", "finished", players[0], None, None, 10)).games
    assert listed.result is not None and list(listed.result.winners) == result["winners"]
