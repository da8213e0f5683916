"""Z-12 wherever results are listed: a Bazaar solitaire result is the number of turns with ``solved``, lower
is better (``lower_is_better``), in the game listing, a player's history and an account's page; a game
scored in points says ``lower_is_better: false, solved: null``; a solitaire game is never rated."""

from __future__ import annotations

import importlib.util
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from domain.bazaar.events import GameEnded
from domain.registry import all_games
from domain.resign import decisions
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.loading import FINISHED, LoadedGame
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.readmodels.projections import GameProjection
from service.readmodels.repository.games import LIVE
from service.runtime.streams import new_event
from tests.support.accounts import account, bearer, unlimited_client
from tests.support.finished_games import finish

pytestmark = pytest.mark.db

# The seed of an unsolved game: the game's seed and the random player's, whose play ends unsolved. Random
# play solves about one solitaire in sixteen (Z-12's target met by chance), so a seed drawn afresh made the
# unsolved cases fail now and then; with this one they are the same game every run.
UNSOLVED = "unsolved-solitaire"


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


async def solve(service: GameService, game_id: str) -> None:
    """End a running solitaire game as solved at its current turn (appended as the decider writes it: random
    play almost never meets the target within the turn limit)."""
    loaded = await service.loader.load(game_id)
    ended = GameEnded(reason="solitaire_solved", turn=loaded.state.turn)
    await service.store.append(game_id, loaded.version, [new_event(ended)], status=FINISHED)


async def solitaire(service: GameService, name: str, solved: bool) -> LoadedGame:
    """A finished solitaire game of ``name``: solved, or played at random to its unsolved end."""
    seed = name if solved else UNSOLVED
    created = await service.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=name)], seed=seed)
    )
    if solved:
        await play(service, created.game_id, name, 12)
        await solve(service, created.game_id)
    else:
        await finish(service, created.game_id, UNSOLVED)
    loaded = await service.loader.load(created.game_id)
    assert loaded.finished and loaded.result().solved is solved
    return loaded


async def play(service: GameService, game_id: str, seed: str, moves: int) -> None:
    """Some random legal commands of the solitaire player, so that the turns counted are more than one."""
    chooser = random.Random(seed)
    for _ in range(moves):
        loaded = await service.loader.load(game_id)
        if loaded.finished:
            return
        await service.commands.execute(
            game_id, 0, msgspec.to_builtins(chooser.choice(decisions(loaded.legal(0))))
        )


def turns(loaded: LoadedGame) -> int:
    """The turns a solitaire game took (its state's turn counter)."""
    return int(loaded.state.turn)


@pytest.mark.parametrize("solved", [True, False])
async def test_listing_and_history_show_turns_with_solved_lower_is_better(
    service: GameService, live: GameProjection, solved: bool
) -> None:
    """Z-12: the listing and the player's history show the turns, solved or not, lower is better."""
    name = f"solo-{uuid.uuid4().hex[:8]}"
    loaded = await solitaire(service, name, solved)
    await live.catch_up()
    (listed,) = (await live.list_games("bazaar", "finished", name, None, None, 10)).games
    result = listed.result
    assert result is not None
    assert (result.scores, result.lower_is_better, result.solved) == ((turns(loaded),), True, solved)
    assert loaded.result() == result  # the game's result, its note (solved or not) too
    (mine,) = (await live.player_games(name, None, None, None, 10)).games
    assert (mine.score, mine.lower_is_better, mine.solved) == (turns(loaded), True, solved)


async def test_a_game_scored_in_points_says_higher_is_better(
    service: GameService, live: GameProjection
) -> None:
    """Z-12 against Z-13: a two-player Bazaar game lists points, ``lower_is_better`` false, ``solved`` null."""
    players = [f"duo-{uuid.uuid4().hex[:8]}-{i}" for i in range(2)]
    created = await service.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=p) for p in players])
    )
    await finish(service, created.game_id, players[0])
    await live.catch_up()
    (listed,) = (await live.list_games("bazaar", "finished", players[0], None, None, 10)).games
    assert listed.result is not None and (listed.result.lower_is_better, listed.result.solved) == (
        False,
        None,
    )
    (mine,) = (await live.player_games(players[1], None, None, None, 10)).games
    assert (mine.lower_is_better, mine.solved) == (False, None)


async def test_an_account_page_shows_a_solitaire_result_as_turns_and_never_rates_it(
    client: AsyncTestClient[Any], pool: asyncpg.Pool, service: GameService
) -> None:
    """Z-12 over HTTP: /v1/games, /v1/players/{name}/games, /v1/players/{name} and the player's page show the
    turns with ``solved``, lower is better; the game is in no rating."""
    name, token = await account(client, "solo")
    created = await client.post(
        "/v1/games",
        json={"game": "bazaar", "players": [{"account": "me"}], "seed": UNSOLVED},
        headers=bearer(token),
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    await finish(service, game_id, UNSOLVED)
    loaded = await service.loader.load(game_id)
    expected = {"score": turns(loaded), "lower_is_better": True, "solved": False}
    listing = (await client.get("/v1/games", params={"player": name, "status": "finished"})).json()
    (listed,) = listing["games"]
    detail = (await client.get(f"/v1/games/{game_id}")).json()
    assert listed["result"] == detail["result"]  # one Result: the game's, its note too
    assert listed["result"]["scores"] == [turns(loaded)] and listed["result"]["winners"] == []
    (history,) = (await client.get(f"/v1/players/{name}/games")).json()["games"]
    assert {k: history[k] for k in expected} == expected
    page = (await client.get(f"/v1/players/{name}")).json()
    (held,) = page["games"]
    assert {k: held[k] for k in expected} == expected
    assert page["ratings"] == []
    html = (await client.get(f"/players/{name}")).text
    assert f"<td>{turns(loaded)} turns, unsolved</td>" in html
    home = await client.get("/")  # the home page's recent results render too
    assert home.status_code == 200 and f"({turns(loaded)} turns, unsolved)" in home.text
    rated = await pool.fetchval(f"SELECT count(*) FROM {LIVE.rated} WHERE game_id = $1", game_id)
    assert rated == 0


def migration_backfill() -> str:
    """The statement of migration 0012 that fills the solitaire rows projected before it."""
    path = Path(__file__).parents[2] / "migrations" / "versions" / "0012_solitaire_results.py"
    spec = importlib.util.spec_from_file_location("migration_0012", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    statement: str = module.UPGRADE[-1]
    return statement


@pytest.mark.parametrize("solved", [True, False])
async def test_the_migration_fills_solitaire_rows_projected_before_it(
    service: GameService, live: GameProjection, pool: asyncpg.Pool, solved: bool
) -> None:
    """Z-12, migration 0012: a solitaire row projected before it (no ``lower_is_better``, no ``solved``)
    is filled from the game's end; a game scored in points is left as it is."""
    name = f"old-{uuid.uuid4().hex[:8]}"
    loaded = await solitaire(service, name, solved)
    players = [f"pts-{uuid.uuid4().hex[:8]}-{i}" for i in range(2)]
    duo = await service.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=p) for p in players])
    )
    await finish(service, duo.game_id, players[0])
    await live.catch_up()
    ids = [loaded.game_id, duo.game_id]
    await pool.execute(
        "UPDATE game_results SET lower_is_better = false, solved = NULL WHERE game_id = ANY($1::text[])", ids
    )
    await pool.execute(migration_backfill())
    found = await pool.fetch(
        "SELECT game_id, score, lower_is_better, solved FROM game_results WHERE game_id = ANY($1::text[])"
        " ORDER BY game_id = $2 DESC, seat",
        ids,
        loaded.game_id,
    )
    assert [(r["score"], r["lower_is_better"], r["solved"]) for r in found[:1]] == [
        (turns(loaded), True, solved)
    ]
    assert [(r["lower_is_better"], r["solved"]) for r in found[1:]] == [(False, None), (False, None)]
