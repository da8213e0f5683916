"""The game projection's tables (docs/decisions/0006-read-models.md): the listing, per-player history,
results and ratings, written in a checkpoint's transaction, rebuilt into their twins, read by the listing and
the histories. Table names are fixed here, never user input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import astuple, dataclass
from datetime import datetime
from typing import Any, TypeVar

import asyncpg
import msgspec

from eventstore import FeedPosition
from service.readmodels.repository.checkpoints import CHECKPOINT, LOCK_CHECKPOINT, SAVE_CHECKPOINT
from service.runtime.sql import PostgresRepository, Where, record, records

REBUILD_LOCK = 0x6761_6D65  # advisory lock key: one rebuild at a time


@dataclass(frozen=True)
class Tables:
    """The tables one projection writes and the name of its checkpoint row (fixed names, never user input)."""

    listing: str
    players: str
    results: str
    ratings: str
    rated: str
    checkpoint: str

    @property
    def data(self) -> tuple[str, ...]:
        """Every table of the projection (not the checkpoint)."""
        return (self.listing, self.players, self.results, self.ratings, self.rated)


LIVE = Tables(
    listing="game_listing",
    players="player_games",
    results="game_results",
    ratings="ratings",
    rated="rated_games",
    checkpoint="games",
)
REBUILD = Tables(*(f"{name}_rebuild" for name in astuple(LIVE)))  # the twins a rebuild projects into


def upsert_listing(t: Tables) -> str:
    """Insert or move on a game's listing row."""
    # A row never goes back to an older version; the same version is rewritten only if its stream row's
    # time differs (load() may have read the stream row one append behind its events). The result's note
    # comes with the status that finishes the game.
    return f"""
INSERT INTO {t.listing} AS l (game_id, game, status, version, players, tournament, created_at, updated_at,
                              seed_commitment, result_note)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (game_id) DO UPDATE
   SET status = EXCLUDED.status, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at,
       result_note = EXCLUDED.result_note
 WHERE EXCLUDED.version >= l.version
   AND (l.version, l.status, l.updated_at) IS DISTINCT FROM (EXCLUDED.version, EXCLUDED.status, EXCLUDED.updated_at)
"""


def insert_players(t: Tables) -> str:
    """One row per seat of a game, written once."""
    return (
        f"INSERT INTO {t.players} (game_id, seat, player, bot, created_at) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (game_id, seat) DO NOTHING"
    )


def insert_results(t: Tables) -> str:
    """A finished game's score and rank per seat, written once; a solitaire score counts turns, lower is
    better, with ``solved`` (Z-12)."""
    return (
        f"INSERT INTO {t.results} (game_id, seat, score, rank, lower_is_better, solved)"
        " VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (game_id, seat) DO NOTHING"
    )


# The accounts holding the seats of games (a game's seats are fixed once it has started, so a rebuild reads
# the same ones).
SEAT_ACCOUNTS = (
    "SELECT s.game_id, s.seat, a.name FROM game_seats s JOIN accounts a USING (account_id)"
    " WHERE s.game_id = ANY($1::text[])"
)


def read_ratings(t: Tables) -> str:
    """The current ratings of some players in one game."""
    return f"SELECT player, mu, sigma, games FROM {t.ratings} WHERE game = $1 AND player = ANY($2::text[])"


def upsert_ratings(t: Tables) -> str:
    """A player's rating in a game, inserted or replaced."""
    return (
        f"INSERT INTO {t.ratings} (game, player, mu, sigma, ordinal, games) VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (game, player) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma,"
        " ordinal = EXCLUDED.ordinal, games = EXCLUDED.games"
    )


def insert_rated(t: Tables) -> str:
    """A game as rated (each game is rated once)."""
    return f"INSERT INTO {t.rated} (game_id, game, players) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"


class ListedGame(msgspec.Struct, frozen=True, kw_only=True):
    """A listing row, with the seat of the player the listing was asked for (None without one)."""

    game_id: str
    game: str
    status: str
    version: int
    players: list[str]
    tournament: str | None
    created_at: datetime
    updated_at: datetime
    seed_commitment: str | None
    result_note: str | None = (
        None  # a finished game's Result.note (None while it runs, or listed before 0017)
    )
    seat: int | None = None


class SeatedGame(ListedGame, frozen=True, kw_only=True):
    """A listing row of a player's history, with the player's seat."""

    seat: int


Listed = TypeVar("Listed", bound=ListedGame)


class SeatResult(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game's score and rank for one seat."""

    game_id: str
    seat: int
    score: int
    rank: int
    lower_is_better: bool
    solved: bool | None


class SeatAccount(msgspec.Struct, frozen=True, kw_only=True):
    """The name of the account holding a seat of a game."""

    game_id: str
    seat: int
    name: str


class StoredRating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in a game as stored; ``game`` and ``rank`` where the query gives them."""

    player: str
    mu: float
    sigma: float
    games: int
    ordinal: float = 0.0
    game: str = ""
    rank: int = 0


class ProjectionRepository(PostgresRepository):
    """The game projection's tables ``tables``: written in a checkpoint's transaction, read by the
    listing and the histories."""

    def __init__(self, pool: asyncpg.Pool, tables: Tables, acquire_timeout: float | None = None) -> None:
        super().__init__(pool, acquire_timeout)
        self.tables = tables

    # ----------------------------------------------------------------- writes in a checkpoint's transaction

    async def write_games(
        self,
        connection: asyncpg.Connection,
        listing: list[tuple[Any, ...]],
        seats: list[tuple[Any, ...]],
        results: list[tuple[Any, ...]],
    ) -> None:
        """Upsert listing rows, insert seat and result rows (each written once)."""
        t = self.tables
        if listing:
            await connection.executemany(upsert_listing(t), listing)
        if seats:
            await connection.executemany(insert_players(t), seats)
        if results:
            await connection.executemany(insert_results(t), results)

    async def rated_already(self, connection: asyncpg.Connection, game_ids: list[str]) -> set[str]:
        """Those of the games already in the rated table."""
        rows = await connection.fetch(
            f"SELECT game_id FROM {self.tables.rated} WHERE game_id = ANY($1::text[])", game_ids
        )
        return {row["game_id"] for row in rows}

    async def seat_accounts(self, connection: asyncpg.Connection, game_ids: list[str]) -> list[SeatAccount]:
        """The accounts holding the seats of the games."""
        return records(SeatAccount, await connection.fetch(SEAT_ACCOUNTS, game_ids))

    async def pair_games(
        self, connection: asyncpg.Connection, game: str, first: str, second: str, day: datetime
    ) -> int:
        """The rated games of ``game`` the two identities played together that finished on the UTC ``day``."""
        t = self.tables
        count: int = await connection.fetchval(
            f"SELECT count(*) FROM {t.rated} r JOIN {t.listing} l USING (game_id) WHERE r.game = $1"
            " AND r.players @> ARRAY[$2, $3]::text[] AND l.updated_at >= $4"
            " AND l.updated_at < $4 + interval '1 day'",
            game,
            first,
            second,
            day,
        )
        return count

    async def ratings_of(
        self, connection: asyncpg.Connection, game: str, players: list[str]
    ) -> list[StoredRating]:
        """The current ratings of those players in ``game`` (a player without one is missing)."""
        return records(StoredRating, await connection.fetch(read_ratings(self.tables), game, players))

    async def write_ratings(
        self, connection: asyncpg.Connection, rated: list[tuple[Any, ...]], ratings: list[tuple[Any, ...]]
    ) -> None:
        """Record the games as rated and upsert the ratings they moved."""
        await connection.executemany(insert_rated(self.tables), rated)
        await connection.executemany(upsert_ratings(self.tables), ratings)

    # ----------------------------------------------------------------- rebuilding

    async def reset(self) -> None:
        """Empty the tables and move their checkpoint back to the start of the feed, in one transaction
        holding the checkpoint's lock."""
        t = self.tables
        async with self.connection() as connection, connection.transaction():
            await connection.execute(LOCK_CHECKPOINT, t.checkpoint)
            await connection.execute(f"TRUNCATE {', '.join(t.data)}")
            await connection.execute(SAVE_CHECKPOINT, t.checkpoint, 0, 0)

    @asynccontextmanager
    async def rebuild_lock(self) -> AsyncIterator[bool]:
        """Whether this process took the one rebuild's session lock (held, on a connection of its own, until
        the block ends)."""
        async with self.connection() as guard:
            if not await guard.fetchval("SELECT pg_try_advisory_lock($1)", REBUILD_LOCK):
                yield False
                return
            try:
                yield True
            finally:
                await guard.execute("SELECT pg_advisory_unlock($1)", REBUILD_LOCK)

    @asynccontextmanager
    async def swap(self) -> AsyncIterator[asyncpg.Connection]:
        """The swap's transaction, without a statement timeout (the copy takes what it takes), holding this
        projection's checkpoint lock (its projectors wait)."""
        async with self.connection() as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            await connection.execute(LOCK_CHECKPOINT, self.tables.checkpoint)
            yield connection

    async def copy_over(self, connection: asyncpg.Connection, rebuilt: Tables) -> FeedPosition:
        """In the swap's transaction: replace these tables' rows and checkpoint by ``rebuilt``'s, then empty
        ``rebuilt`` and move its checkpoint back to the start; the position copied."""
        live = self.tables
        for table, source in zip(live.data, rebuilt.data, strict=True):
            # DELETE, not TRUNCATE: readers keep seeing the old rows until this commits
            await connection.execute(f"DELETE FROM {table}")
            await connection.execute(f"INSERT INTO {table} SELECT * FROM {source}")
        reached = record(FeedPosition, await connection.fetchrow(CHECKPOINT, rebuilt.checkpoint))
        await connection.execute(SAVE_CHECKPOINT, live.checkpoint, reached.tx, reached.position)
        await connection.execute(f"TRUNCATE {', '.join(rebuilt.data)}")
        await connection.execute(SAVE_CHECKPOINT, rebuilt.checkpoint, 0, 0)
        return reached

    # ----------------------------------------------------------------- queries

    async def account_called(self, key: str) -> str | None:
        """The id of the account whose name key is ``key``, or None."""
        async with self.connection() as connection:
            found: str | None = await connection.fetchval(
                "SELECT account_id FROM accounts WHERE name_key = $1", key
            )
        return found

    async def listed(
        self,
        shape: type[Listed],
        game: str | None,
        status: str | None,
        tournament: str | None,
        account_id: str | None,
        player: str | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[Listed]:
        """Listing rows (as ``shape``) newest first, at most ``limit``, after the row ``after`` (created_at, game_id):
        those of the seats ``account_id`` holds, else of the hot-seat seats called ``player``, else all;
        each filter given goes into the SQL so that each combination is planned on its own index (with a
        player the per-player index drives the scan)."""
        t = self.tables
        order = "g" if account_id is not None or player is None else "p"
        where = Where()
        where.add_if(game, "g.game = {}").add_if(status, "g.status = {}").add_if(
            tournament, "g.tournament = {}"
        )
        if account_id is not None:
            where.add("s.account_id = {}", account_id)
            source, seat = f"game_seats s JOIN {t.listing} g USING (game_id)", ", s.seat"
        elif player is not None:
            where.add("p.player = {}", player)
            source, seat = f"{t.players} p JOIN {t.listing} g USING (game_id)", ", p.seat"
        else:
            source, seat = f"{t.listing} g", ", NULL::integer AS seat"
        if after is not None:
            where.add(f"({order}.created_at, {order}.game_id) < ({{}}, {{}})", *after)
        clause = f" {where.sql}" if where.conditions else ""
        query = (
            f"SELECT g.game_id, g.game, g.status, g.version, g.players, g.tournament, g.created_at,"
            f" g.updated_at, g.seed_commitment, g.result_note{seat} FROM {source}{clause}"
            f" ORDER BY {order}.created_at DESC, {order}.game_id DESC LIMIT {where.parameter(limit)}"
        )
        async with self.connection() as connection:
            return records(shape, await connection.fetch(query, *where.args))

    async def results(self, game_ids: list[str]) -> list[SeatResult]:
        """The result rows of those games that are finished, by game and seat."""
        async with self.connection() as connection:
            return records(
                SeatResult,
                await connection.fetch(
                    f"SELECT game_id, seat, score, rank, lower_is_better, solved FROM {self.tables.results}"
                    " WHERE game_id = ANY($1::text[]) ORDER BY game_id, seat",
                    game_ids,
                ),
            )
