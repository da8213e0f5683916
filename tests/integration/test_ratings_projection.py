"""Ratings as a projection on a real PostgreSQL: every finished game of every kind, size and option is
projected without failing a ratings or player query; one-player games are never rated; the ratings equal
OpenSkill over the rated games in finish order; pages; a rebuild from zero gives the same numbers."""

from __future__ import annotations

import itertools
import random
import uuid
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from domain.resign import decisions
from eventstore import PostgresEventStore, PostgresKeyStore
from service.accounts.accounts import AccountService
from service.accounts.repository import PostgresAccounts
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.readmodels.projections import LIVE, REBUILD, GameProjection
from service.readmodels.ratings import (
    LADDER_MIN_GAMES,
    MIN_OWN_DECISIONS,
    MODEL,
    PAIR_GAMES_PER_DAY,
    RatingService,
    initial_rating,
    rate,
    rated_identities,
)
from service.runtime import errors
from tests.support.account_seats import SeatingKeyStore
from tests.support.finished_games import finish

pytestmark = pytest.mark.db


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """A game service on the test database."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


@pytest.fixture
def live(pool: asyncpg.Pool, service: GameService) -> GameProjection:
    """The live game projection."""
    return GameProjection(pool, service)


@pytest.fixture
def ratings(pool: asyncpg.Pool, service: GameService, live: GameProjection) -> RatingService:
    """The ratings read side, catching the projection up before each read as the app does."""
    return RatingService(pool, frozenset(service.games), caught_up=live.read_your_writes)


def names(prefix: str, count: int) -> list[str]:
    """Player names no other test uses."""
    tag = uuid.uuid4().hex[:8]
    return [f"{prefix}-{tag}-{i}" for i in range(count)]


def option_sets(options_type: type[msgspec.Struct]) -> list[dict[str, Any]]:
    """Every combination of a game's boolean options (the only kind the games have)."""
    fields = msgspec.structs.fields(options_type)
    assert all(field.type is bool for field in fields), "a new kind of option: enumerate it here"
    return [
        dict(zip([field.name for field in fields], values, strict=True))
        for values in itertools.product([False, True], repeat=len(fields))
    ]


EVERY_GAME = [
    (name, players, options)
    for name, game in sorted(all_games().items())
    for players in range(game.min_players if name != "bazaar" else 1, game.max_players + 1)
    for options in option_sets(game.options_type)
]


async def finished_game(
    service: GameService, game: str, players: list[str], options: dict[str, Any], rated: bool = True
) -> str:
    """A finished game of these players; its id."""
    created = await service.commands.create(
        CreateGame(game=game, players=[PlayerIn(name=n) for n in players], options=options, rated=rated)
    )
    await finish(service, created.game_id, created.game_id)
    return created.game_id


async def every_page(ratings: RatingService, game: str, limit: int) -> list[Any]:
    """The whole rating list of a game, page by page."""
    rows, cursor = [], None
    while True:
        page = await ratings.ratings(game, cursor, limit)
        rows += page.players
        cursor = page.next_cursor
        if cursor is None:
            return rows


@pytest.mark.parametrize(("game", "count", "options"), EVERY_GAME)
async def test_every_finished_game_keeps_the_ratings_and_player_queries_answering(
    service: GameService, ratings: RatingService, game: str, count: int, options: dict[str, Any]
) -> None:
    """Z-12: a finished rated game of any kind, size and option is projected; the rating list and every
    seat's player page still answer; a one-player game is never rated, every other game rates each seat."""
    players = names(f"{game}{count}", count)
    before = (await ratings.ratings(game)).games
    await finished_game(service, game, players, options)
    listed = await ratings.ratings(game, limit=200)
    if count == 1:
        assert listed.games == before, "Z-12: solitaire is never rated"
        with pytest.raises(errors.NotFound):
            await ratings.player(players[0])
        return
    assert listed.games == before + 1
    for name in players:
        (profile,) = (await ratings.player(name)).ratings
        assert (profile.game, profile.name, profile.games) == (game, name, 1)


async def test_ratings_are_openskill_over_the_rated_games_in_finish_order(
    service: GameService, ratings: RatingService
) -> None:
    """Three rated games among four players and one unrated one: each player's rating is OpenSkill's over
    the rated games in the order they finished; the unrated game changes nothing."""
    players = names("order", 4)
    tables = [players[:3], players[1:], [players[0], players[1], players[3]]]
    expected: dict[str, Any] = {}
    for table in tables:
        game_id = await finished_game(service, "basari", table, {})
        loaded = await service.loader.load(game_id)
        before = [expected.get(name) or MODEL.rating() for name in table]
        teams = MODEL.rate([[r] for r in before], ranks=[float(r) for r in loaded.result().ranks])
        expected.update({name: team[0] for name, team in zip(table, teams, strict=True)})
    await finished_game(service, "basari", players[:3], {}, rated=False)
    for name in players:
        (rating,) = (await ratings.player(name)).ratings
        assert (rating.mu, rating.sigma) == (round(expected[name].mu, 6), round(expected[name].sigma, 6))
    assert {r.name: r.games for r in (await ratings.player(players[0])).ratings} == {players[0]: 2}


async def test_pages_follow_the_list_in_order_with_their_ranks(
    service: GameService, ratings: RatingService
) -> None:
    await finished_game(service, "johari", names("pages", 4), {})
    whole = (await ratings.ratings("johari", limit=200)).players
    assert [r.rank for r in whole] == list(range(1, len(whole) + 1))
    assert [r.ordinal for r in whole] == sorted((r.ordinal for r in whole), reverse=True)
    paged = await every_page(ratings, "johari", 3)
    assert paged == whole


async def test_unknown_games_bad_cursors_and_limits_are_refused(ratings: RatingService) -> None:
    with pytest.raises(errors.NotFound):
        await ratings.ratings("chess")
    with pytest.raises(errors.Malformed):
        await ratings.ratings("basari", "not a cursor!")
    with pytest.raises(errors.Malformed):
        await ratings.ratings("basari", limit=0)
    with pytest.raises(errors.NotFound):
        await ratings.player(f"nobody-{uuid.uuid4()}")


def test_games_openskill_cannot_rate_are_left_out() -> None:
    """One seat, a name on two seats, ranks that do not match the seats: not rated, never an error."""
    fresh = rate([], [])
    assert fresh is None
    assert rated_identities({"rated": True, "players": ["solo"]}, 1) is None
    assert rated_identities({"rated": True, "players": ["a", "a"]}, 2) is None
    assert rated_identities({"rated": False, "players": ["a", "b"]}, 2) is None
    assert rated_identities({"rated": True, "players": ["a", "b"]}, 2) == ["a", "b"]
    assert rate([initial_rating()], [1]) is None
    assert rate([initial_rating(), initial_rating()], [1]) is None
    pair = rate([initial_rating(), initial_rating()], [1, 2])
    assert pair is not None and pair[0].mu > pair[1].mu and [r.games for r in pair] == [1, 1]


async def test_a_rebuild_from_zero_gives_the_same_ratings(
    pool: asyncpg.Pool, service: GameService, live: GameProjection
) -> None:
    players = names("rebuild", 5)
    for index in range(3):
        await finished_game(service, "bazaar", players[index : index + 3], {"double_purchase": index == 1})
    await live.catch_up()
    shadow = await live.build_shadow()
    await live.catch_up()
    await shadow.catch_up()
    for live_table, rebuilt_table in ((LIVE.ratings, REBUILD.ratings), (LIVE.rated, REBUILD.rated)):
        current = [tuple(r) for r in await pool.fetch(f"SELECT * FROM {live_table} ORDER BY 1, 2")]
        rebuilt = [tuple(r) for r in await pool.fetch(f"SELECT * FROM {rebuilt_table} ORDER BY 1, 2")]
        assert rebuilt == current and current
    await shadow.reset()


async def test_a_seat_held_by_an_account_is_rated_as_the_account(
    pool: asyncpg.Pool, service: GameService, ratings: RatingService
) -> None:
    """The rated identity of a seat is the account holding it, whatever name the seat was created with;
    the player page finds it by the account name compared as account names are (case-folded)."""
    accounts = AccountService(PostgresAccounts(pool))
    held = [(await accounts.create(name))[0] for name in names("Account", 3)]
    seating = GameService(service.store, SeatingKeyStore(pool, [a.account_id for a in held]), service.games)
    created = await seating.commands.create(
        CreateGame(game="basari", players=[PlayerIn(name=n) for n in names("seat", 3)], rated=True)
    )
    await finish(service, created.game_id, created.game_id)
    for account in held:
        (rating,) = (await ratings.player(account.name.upper())).ratings
        assert (rating.name, rating.games) == (account.name, 1)
    with pytest.raises(errors.NotFound):
        await ratings.player(created.seats[0].name)


async def play_then_resign(service: GameService, game_id: str, before_resigning: int) -> None:
    """Both seats of a two-player game send legal decisions of their own until each has sent
    ``before_resigning`` (or the game ends), then seat 1 resigns (its opponent wins)."""
    chooser = random.Random(game_id)
    sent = [0, 0]
    while min(sent) < before_resigning:
        loaded = await service.loader.load(game_id)
        if loaded.finished:
            return
        seat = chooser.choice(loaded.game.pending(loaded.state)).seat
        command = chooser.choice(decisions(loaded.legal(seat)))
        await service.commands.execute(game_id, seat, msgspec.to_builtins(command))
        sent[seat] += 1
    await service.commands.execute(game_id, 1, {"type": "resign"})


async def test_a_seat_resigning_before_deciding_anything_rates_nobody(
    service: GameService, ratings: RatingService
) -> None:
    """docs/api.md "Ratings": a sock account that resigns at once (fewer than MIN_OWN_DECISIONS decisions of
    its own) feeds no rating; a game resigned after both seats played on is rated."""
    at_once, played = names("sock", 2), names("played", 2)
    quick = await service.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=n) for n in at_once], rated=True)
    )
    await play_then_resign(service, quick.game_id, 0)
    later = await service.commands.create(
        CreateGame(game="bazaar", players=[PlayerIn(name=n) for n in played], rated=True)
    )
    await play_then_resign(service, later.game_id, MIN_OWN_DECISIONS["bazaar"])
    assert (await service.loader.load(quick.game_id)).finished and (
        await service.loader.load(later.game_id)
    ).finished
    for name in at_once:
        with pytest.raises(errors.NotFound):
            await ratings.player(name)
    for name in played:
        assert [r.games for r in (await ratings.player(name)).ratings] == [1]


async def test_the_same_two_players_are_rated_a_few_games_a_day(
    service: GameService, ratings: RatingService
) -> None:
    """docs/api.md "Ratings": past PAIR_GAMES_PER_DAY rated games of the same two identities in a day, their
    further games that day are not rated."""
    pair = names("pair", 2)
    for _ in range(PAIR_GAMES_PER_DAY + 2):
        await finished_game(service, "bazaar", pair, {})
    for name in pair:
        assert [r.games for r in (await ratings.player(name)).ratings] == [PAIR_GAMES_PER_DAY]


async def test_the_public_list_shows_established_ratings_only(
    service: GameService, ratings: RatingService
) -> None:
    """docs/api.md "Ratings": an identity is listed once it has LADDER_MIN_GAMES rated games against
    LADDER_MIN_OPPONENTS distinct opponents; before that its rating is readable on its own page only."""
    star, *others = names("ladder", 5)
    tables = [[star, others[0]], [star, others[1]], [star, others[2]], [star, others[3]], [star, others[0]]]
    for table in tables[:-1]:
        await finished_game(service, "bazaar", table, {})
    listed = {r.name for r in await every_page(ratings, "bazaar", 200)}
    assert star not in listed and not listed & set(others)
    assert [r.games for r in (await ratings.player(star)).ratings] == [LADDER_MIN_GAMES - 1]
    await finished_game(service, "bazaar", tables[-1], {})
    board = await every_page(ratings, "bazaar", 200)
    assert star in {r.name for r in board} and not {r.name for r in board} & set(others)
    (mine,) = (await ratings.player(star)).ratings
    assert mine.rank == next(r.rank for r in board if r.name == star)
