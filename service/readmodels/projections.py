"""Game projections (docs/decisions/0006-read-models.md): the listing, per-player history and finished
results, read models fed from the global feed with their checkpoint written in the same transaction.

A batch reads the feed after the checkpoint and folds the games it moved, then in one transaction locks
the checkpoint (so projectors in several processes take turns), checks that no other moved it meanwhile,
writes the rows and the new checkpoint, commits; every event is applied exactly once. The feed says which
games moved; each moved game is folded by the domain through ``GameLoader.load`` (its state cache makes
that a top-up), and its status and result come from that fold. A game's players, bots and tournament come
from its stream's creation metadata, written in the same transaction as its first events.

``rebuild`` projects from zero into the ``*_rebuild`` tables with their own checkpoint while the live
projection keeps serving, then, holding the live checkpoint's lock, catches up and copies them over
the live tables in one transaction.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
import structlog

from domain.core import Result
from eventstore import EventStore, FeedPosition, RecordedEvent, pooled_connection
from eventstore.readmodels import (
    CHECKPOINT,
    HORIZON,
    LIVE,
    LOCK_CHECKPOINT,
    REBUILD,
    SAVE_CHECKPOINT,
    SEAT_ACCOUNTS,
    SNAPSHOT,
    Tables,
    insert_players,
    insert_rated,
    insert_results,
    read_ratings,
    upsert_listing,
    upsert_ratings,
)
from service.accounts.accounts import name_key
from service.games.loading import ACTIVE, FINISHED, LoadedGame, decided_by_organizer
from service.games.service import GameService
from service.readmodels.ratings import (
    PAIR_GAMES_PER_DAY,
    Rating,
    initial_rating,
    own_decisions,
    rate,
    rated_identities,
    resigned_too_early,
)
from service.readmodels.schemas import GamePage, GameSummary, PlayerGame, PlayerGamePage
from service.runtime import errors
from service.runtime.settings import Settings

log = structlog.get_logger("service.readmodels.projections")

FeedPage = list[tuple[FeedPosition, RecordedEvent]]
# A batch's writes, run in the checkpoint's transaction on its connection (and on no other).
Writes = Callable[[asyncpg.Connection], Awaitable[None]]

BATCH_SIZE = 500
POLL_SECONDS = 0.5  # the background loop's default wake-up until LISTEN/NOTIFY wakes it
READ_YOUR_WRITES_WAIT = 2.0  # at most this long a listing waits for transactions older than itself
MAX_PAGE = 200
REBUILD_LOCK = 0x6761_6D65  # advisory lock key: one rebuild at a time


def encode_cursor(created_at: datetime, game_id: str) -> str:
    """An opaque listing cursor for the row (created_at, game_id)."""
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{game_id}".encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    """The (created_at, game_id) a cursor stands for; None for none or an empty one (the first page); 400 if
    it is not one of ours."""
    if not cursor:
        return None
    try:
        created, _, game_id = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
        return datetime.fromisoformat(created), game_id
    except (ValueError, UnicodeDecodeError):
        raise errors.Malformed("bad_cursor", "cursor is not one this service gave out") from None


def _check_page(status: str | None, limit: int) -> None:
    """400 for a status other than active/finished or a limit outside 1..200."""
    if status is not None and status not in (ACTIVE, FINISHED):
        raise errors.Malformed("bad_status", 'status is "active" or "finished"')
    if not 1 <= limit <= MAX_PAGE:
        raise errors.Malformed("bad_limit", f"limit is 1..{MAX_PAGE}")


def poll(seconds: float = POLL_SECONDS) -> Callable[[], Awaitable[None]]:
    """The default wake-up of the background loop: sleep a short interval."""

    async def wake() -> None:
        await asyncio.sleep(seconds)

    return wake


async def no_writes(_connection: asyncpg.Connection) -> None:
    """The writes of a batch whose read model writes nothing but its checkpoint."""


def last_events(feed: FeedPage) -> dict[str, tuple[int, int]]:
    """Each stream of a feed batch, in the order it first appears, with the index in the batch and the
    version of its last event there."""
    last: dict[str, tuple[int, int]] = {}
    for index, (_, event) in enumerate(feed):
        last[event.stream_id] = (index, event.version)
    return last


class FeedFollower:
    """A read model kept caught up with the global feed under a named checkpoint
    (docs/decisions/0006-read-models.md).

    A batch reads the feed after the checkpoint and ``prepare``s it (reading through the pool), then in
    one transaction locks the checkpoint (so followers in several processes take turns), checks that no
    other moved it meanwhile, writes and moves the checkpoint past it, commits; every event is applied
    exactly once. In the service a background loop (``run``) does every batch: a request that must see
    everything committed before it (``read_your_writes``) asks that loop for a pass and waits for it, so no
    request writes; without a loop (tools, tests) the caller catches up itself.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        store: EventStore,
        checkpoint_name: str,
        batch_size: int = BATCH_SIZE,
        acquire_timeout: float | None = None,
    ) -> None:
        self.pool = pool
        self.acquire_timeout = acquire_timeout  # past it, StoreUnavailable (503), as for every request
        self.store = store
        self.checkpoint_name = checkpoint_name
        self.batch_size = batch_size
        # One catch-up at a time in this process: the others wait here, not on the checkpoint's lock holding a
        # pooled connection each (which could starve the holder of the connections it reads with).
        self._catching_up = asyncio.Lock()
        self._running = False  # whether run() is looping in this process
        self._nudge = asyncio.Event()  # a request wants a pass now (no debounce)
        self._passes_started = 0
        self._passes_done = 0
        self._pass_done = asyncio.Condition()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection within the acquire timeout; an unreachable database is StoreUnavailable."""
        async with (
            pooled_connection(self.pool, self.acquire_timeout) as connection,
        ):
            yield connection

    async def checkpoint(self) -> FeedPosition:
        """Where this follower stands in the feed."""
        async with self.connection() as connection:
            row = await connection.fetchrow(CHECKPOINT, self.checkpoint_name)
        return FeedPosition(tx=row["tx"], position=row["position"])

    async def behind(self) -> bool:
        """Whether the feed holds events after the checkpoint (no lock, no transaction id taken)."""
        return bool(await self.store.read_all(await self.checkpoint(), limit=1))

    async def prepare(self, feed: FeedPage) -> Writes:
        """Read what applying one batch of the feed needs (the read model's own part), through the pool, and
        return the writes that apply it in the checkpoint's transaction, on that transaction's connection
        only."""
        raise NotImplementedError

    async def _position(self, connection: asyncpg.Connection) -> FeedPosition:
        """The checkpoint, read on ``connection``."""
        row = await connection.fetchrow(CHECKPOINT, self.checkpoint_name)
        return FeedPosition(tx=row["tx"], position=row["position"])

    async def _write(self, connection: asyncpg.Connection, feed: FeedPage, writes: Writes) -> int:
        """Apply ``writes`` and move the checkpoint past ``feed`` in ``connection``'s open transaction."""
        await writes(connection)
        last = feed[-1][0]
        await connection.execute(SAVE_CHECKPOINT, self.checkpoint_name, last.tx, last.position)
        return len(feed)

    async def apply_batch(self, connection: asyncpg.Connection) -> int:
        """In ``connection``'s open transaction: lock the checkpoint, apply the next batch of the feed and
        move the checkpoint past it; the number of events applied (0: caught up). It reads through the pool
        while it holds ``connection``: for a rebuild's final catch-up under the live checkpoint's lock, not
        for the followers of a running service (``catch_up_once``)."""
        await connection.execute(LOCK_CHECKPOINT, self.checkpoint_name)
        feed = await self.store.read_all(await self._position(connection), self.batch_size)
        if not feed:
            return 0
        return await self._write(connection, feed, await self.prepare(feed))

    async def catch_up_once(self, lock_wait: float | None = None) -> int:
        """One batch; the number of events applied (0: caught up, or, with ``lock_wait``, another
        transaction held the checkpoint longer than that many seconds).

        The feed and what applying it needs are read first, holding no connection in between; only then
        does one connection open the transaction that locks the checkpoint, writes and moves it. A follower
        that held its transaction's connection while it waited for another to read with could starve a
        small pool: two followers, each holding one of two connections, waited for each other until the
        acquire timeout, and every request with them. If another process moved the checkpoint meanwhile,
        the batch starts again from there (a read model's writes are idempotent, and so is the results
        recorder's report)."""
        while True:
            start = await self.checkpoint()
            feed = await self.store.read_all(start, self.batch_size)
            if not feed:
                return 0
            writes = await self.prepare(feed)
            try:
                async with self.connection() as connection, connection.transaction():
                    if lock_wait is not None:
                        await connection.execute(f"SET LOCAL lock_timeout = {max(int(lock_wait * 1000), 1)}")
                    await connection.execute(LOCK_CHECKPOINT, self.checkpoint_name)
                    if await self._position(connection) == start:
                        return await self._write(connection, feed, writes)
            except asyncpg.exceptions.LockNotAvailableError:
                return 0

    async def catch_up(self, lock_wait: float | None = None) -> int:
        """Apply batches until the feed holds nothing after the checkpoint; the number of events applied
        here (another process may have applied some of them)."""
        applied = 0
        async with self._catching_up:
            while await self.behind():
                batch = await self.catch_up_once(lock_wait)
                if not batch:
                    break  # another process applied them while this one waited for the lock
                applied += batch
        return applied

    async def run(self, wake: Callable[[], Awaitable[object]] | None = None) -> None:
        """The background loop: a pass (catch up), then wait for ``wake`` (default: a short sleep) or a
        request's nudge; forever."""
        wake = wake or poll()
        self._running = True
        try:
            while True:
                self._passes_started += 1
                try:
                    await self.catch_up()
                except Exception as exc:  # a database outage must not end the loop; the next wake retries
                    log.warning(
                        "feed_catch_up_failed",
                        checkpoint=self.checkpoint_name,
                        error=type(exc).__name__,
                        detail=str(exc),
                    )
                finally:
                    self._passes_done += 1
                    async with self._pass_done:
                        self._pass_done.notify_all()
                await self._woken(wake)
        finally:
            self._running = False

    async def _woken(self, wake: Callable[[], Awaitable[object]]) -> None:
        """Until ``wake`` returns or a request nudges."""
        if not self._nudge.is_set():
            waits = [asyncio.ensure_future(wake()), asyncio.ensure_future(self._nudge.wait())]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()
                await asyncio.gather(*waits, return_exceptions=True)
        self._nudge.clear()

    async def read_your_writes(self, wait: float = READ_YOUR_WRITES_WAIT) -> None:
        """Wait (at most ``wait`` seconds) until the read model holds every transaction committed before
        this call: first until none that started earlier is still running, since the feed shows nothing
        past the oldest running transaction; then for a pass of this process's loop that starts after
        that (or, without a loop, catch up here)."""
        async with self.connection() as connection:
            horizon, target = await connection.fetchrow(SNAPSHOT)
        deadline = time.monotonic() + wait
        while horizon < target and time.monotonic() < deadline:
            await asyncio.sleep(0.005)  # holding no connection meanwhile: a crowd of listings may wait here
            async with self.connection() as connection:
                horizon = await connection.fetchval(HORIZON)
        # A rebuild's swap holds the checkpoint for as long as its copy takes: past the deadline, serve the
        # rows as they are rather than wait for it.
        budget = max(deadline - time.monotonic(), 0.05)
        if not self._running:
            await self.catch_up(lock_wait=budget)
            return
        needed = self._passes_started + 1  # the next pass to start reads the feed after the horizon
        self._nudge.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(budget), self._pass_done:
                await self._pass_done.wait_for(lambda: self._passes_done >= needed)


class GameProjection(FeedFollower):
    """Keeps the game projection in ``tables`` caught up with the feed and serves its queries."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        games: GameService,
        tables: Tables = LIVE,
        batch_size: int = BATCH_SIZE,
        acquire_timeout: float | None = None,
    ) -> None:
        super().__init__(pool, games.store, tables.checkpoint, batch_size, acquire_timeout)
        self.games = games
        self.tables = tables

    # ----------------------------------------------------------------- feeding

    async def prepare(self, feed: FeedPage) -> Writes:
        """The listing, seat and result rows of the games the batch moved (folded through the pool), and
        the ratings of the rated games it finishes, in the order they finish."""
        t = self.tables
        moved = last_events(feed)
        opened = {event.stream_id for _, event in feed if event.version == 1}
        listing: list[tuple[Any, ...]] = []
        seats: list[tuple[Any, ...]] = []
        results: list[tuple[Any, ...]] = []
        finishing: list[tuple[int, LoadedGame]] = []  # (feed index of the game's last event, game)
        for game_id, (end, version) in moved.items():
            try:
                loaded = await self.games.loader.load(game_id)
            except errors.NotFound:
                continue  # another kind of stream (a tournament's)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                # A stored event this code cannot read must not stop every other game's projection (its
                # audit reports it); the game keeps its last projected row.
                log.error("projection_skipped_game", game_id=game_id, error=str(exc))
                continue
            listing.append(_listing_row(loaded))
            if game_id in opened:  # the feed brings version 1 once: the seats are written once
                seats.extend(_seat_rows(loaded))
            if loaded.finished:
                outcome = loaded.result()
                results.extend(
                    (game_id, seat, score, rank, outcome.lower_is_better, outcome.solved)
                    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True))
                )
                if version == loaded.version and not await self._decided_unfairly(loaded):
                    finishing.append((end, loaded))  # the batch brings the game's last event: rated now
        finished = [loaded for _, loaded in sorted(finishing, key=lambda f: f[0])]

        async def write(connection: asyncpg.Connection) -> None:
            if listing:
                await connection.executemany(upsert_listing(t), listing)
            if seats:
                await connection.executemany(insert_players(t), seats)
            if results:
                await connection.executemany(insert_results(t), results)
            if finished:
                await self._rate(connection, finished)

        return write

    async def _decided_unfairly(self, loaded: LoadedGame) -> bool:
        """Whether a rated game's end moves no rating (docs/api.md "Ratings"): a tournament organizer's
        action (a withdrawal's resignation, an adjudication) decided it, or a seat resigned (or timed out for
        good) before making decisions of its own."""
        metadata = loaded.info.metadata
        resigned: tuple[int, ...] = getattr(loaded.state, "resigned", ())
        if not metadata.get("rated") or not (metadata.get("tournament") or resigned):
            return False
        records = await self.games.store.read_stream(loaded.game_id)
        if metadata.get("tournament") and decided_by_organizer(records):
            return True
        decisions = own_decisions(records, len(loaded.result().ranks))
        return resigned_too_early(loaded.game.name, resigned, decisions)

    async def _pair_capped(
        self, connection: asyncpg.Connection, loaded: LoadedGame, identities: list[str], batch: dict[Any, int]
    ) -> bool:
        """Whether two of the game's identities already have ``PAIR_GAMES_PER_DAY`` rated games of this game
        together on the UTC day it finished (counting the games of this batch, kept in ``batch``); if not,
        the game is counted for each of its pairs."""
        finished = loaded.info.updated_at.astimezone(UTC)
        day = datetime(finished.year, finished.month, finished.day, tzinfo=UTC)
        game, t = loaded.game.name, self.tables
        pairs = [(game, a, b, day) for a, b in itertools.combinations(sorted(identities), 2)]
        for pair in pairs:
            earlier = await connection.fetchval(
                f"SELECT count(*) FROM {t.rated} r JOIN {t.listing} l USING (game_id) WHERE r.game = $1"
                " AND r.players @> ARRAY[$2, $3]::text[] AND l.updated_at >= $4"
                " AND l.updated_at < $4 + interval '1 day'",
                *pair,
            )
            if earlier + batch.get(pair, 0) >= PAIR_GAMES_PER_DAY:
                return True
        for pair in pairs:
            batch[pair] = batch.get(pair, 0) + 1
        return False

    async def _rate(self, connection: asyncpg.Connection, finished: list[LoadedGame]) -> None:
        """Fold these finished games, in the order their last events have in the feed, into the ratings
        (each game once: one already in the rated table is skipped)."""
        t = self.tables
        done = {
            row["game_id"]
            for row in await connection.fetch(
                f"SELECT game_id FROM {t.rated} WHERE game_id = ANY($1::text[])",
                [loaded.game_id for loaded in finished],
            )
        }
        accounts: dict[str, dict[int, str]] = {}  # game -> seat -> the name of the account holding it
        for row in await connection.fetch(SEAT_ACCOUNTS, [loaded.game_id for loaded in finished]):
            accounts.setdefault(row["game_id"], {})[row["seat"]] = row["name"]
        current: dict[tuple[str, str], Rating] = {}
        rated: list[tuple[Any, ...]] = []
        paired: dict[Any, int] = {}  # (game, identity, identity, day) -> games of this batch rated so far
        for loaded in finished:
            game = loaded.game.name
            identities = rated_identities(
                loaded.info.metadata,
                len(loaded.result().ranks),
                accounts.get(loaded.game_id, {}),
            )
            if identities is None or loaded.game_id in done:
                continue
            if await self._pair_capped(connection, loaded, identities, paired):
                continue  # the same two accounts again that day: not rated
            missing = [who for who in identities if (game, who) not in current]
            if missing:
                for row in await connection.fetch(read_ratings(t), game, missing):
                    current[game, row["player"]] = Rating(
                        mu=row["mu"], sigma=row["sigma"], games=row["games"]
                    )
            before = [current.get((game, who)) or initial_rating() for who in identities]
            after = rate(before, loaded.result().ranks)
            if after is None:
                log.warning("rating_skipped_game", game_id=loaded.game_id, game=game)
                continue
            current.update({(game, who): rating for who, rating in zip(identities, after, strict=True)})
            rated.append((loaded.game_id, game, identities))
        if rated:
            await connection.executemany(insert_rated(t), rated)
            await connection.executemany(
                upsert_ratings(t),
                [(game, who, r.mu, r.sigma, r.ordinal, r.games) for (game, who), r in current.items()],
            )

    # ----------------------------------------------------------------- rebuilding

    async def reset(self) -> None:
        """Empty this projection's tables and move its checkpoint back to the start of the feed."""
        t = self.tables
        async with self.connection() as connection, connection.transaction():
            await connection.execute(LOCK_CHECKPOINT, t.checkpoint)
            await connection.execute(f"TRUNCATE {', '.join(t.data)}")
            await connection.execute(SAVE_CHECKPOINT, t.checkpoint, 0, 0)

    async def build_shadow(
        self, progress: Callable[[int, FeedPosition], None] | None = None
    ) -> GameProjection:
        """Project the whole feed from zero into the rebuild tables (the live projection is untouched);
        ``progress`` gets each batch's size and the position reached. One rebuild at a time (409)."""
        shadow = GameProjection(self.pool, self.games, REBUILD, self.batch_size, self.acquire_timeout)
        await shadow.reset()
        while applied := await shadow.catch_up_once():
            if progress is not None:
                progress(applied, await shadow.checkpoint())
        return shadow

    async def rebuild(self, progress: Callable[[int, FeedPosition], None] | None = None) -> None:
        """Rebuild the live projection from zero while it keeps serving: build the shadow, then under the
        live checkpoint's lock catch the shadow up to the end of the feed and copy it over the live
        tables with its checkpoint, in one transaction (readers see the old rows until it commits)."""
        if self.tables != LIVE:
            raise ValueError("only the live projection is rebuilt")
        async with self.connection() as guard:
            if not await guard.fetchval("SELECT pg_try_advisory_lock($1)", REBUILD_LOCK):
                raise errors.Conflict("rebuild_running", "another rebuild of the projections is running")
            try:
                shadow = await self.build_shadow(progress)
                await self._swap_in(shadow, progress)
            finally:
                await guard.execute("SELECT pg_advisory_unlock($1)", REBUILD_LOCK)

    async def _swap_in(
        self, shadow: GameProjection, progress: Callable[[int, FeedPosition], None] | None
    ) -> None:
        """The final catch-up and the atomic copy of the shadow over the live tables."""
        live, rebuilt = self.tables, shadow.tables
        async with self.connection() as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")  # the copy takes what it takes
            await connection.execute(LOCK_CHECKPOINT, live.checkpoint)  # live projectors wait here
            while applied := await shadow.apply_batch(connection):
                if progress is not None:
                    progress(applied, await shadow.checkpoint())
            for table, source in zip(live.data, rebuilt.data, strict=True):
                # DELETE, not TRUNCATE: readers keep seeing the old rows until this commits
                await connection.execute(f"DELETE FROM {table}")
                await connection.execute(f"INSERT INTO {table} SELECT * FROM {source}")
            reached = await connection.fetchrow(CHECKPOINT, rebuilt.checkpoint)
            tx, position = reached["tx"], reached["position"]
            await connection.execute(SAVE_CHECKPOINT, live.checkpoint, tx, position)
            await connection.execute(f"TRUNCATE {', '.join(rebuilt.data)}")
            await connection.execute(SAVE_CHECKPOINT, rebuilt.checkpoint, 0, 0)
        log.info("projections_rebuilt", tx=tx, position=position)

    # ----------------------------------------------------------------- queries

    async def _rows(
        self,
        game: str | None,
        status: str | None,
        player: str | None,
        tournament: str | None,
        cursor: str | None,
        limit: int,
    ) -> list[Any]:
        """Listing rows newest first (with the player's seat when ``player`` is given), at most ``limit``.

        A player who is an account (names compared after NFKC and case-folding) is matched by the seats
        the account holds, never by a hot-seat seat that happens to carry the same name; any other name
        matches the hot-seat seats of that name (a hot-seat name is no identity)."""
        t = self.tables
        account_id = None if player is None else await self._account_called(player)
        # With a player the per-player index drives the scan; each filter given goes into the SQL so that
        # each combination is planned on its own index.
        order = "g" if player is None or account_id is not None else "p"
        args: list[Any] = []
        conditions: list[str] = []
        for column, value in (("g.game", game), ("g.status", status), ("g.tournament", tournament)):
            if value is not None:
                args.append(value)
                conditions.append(f"{column} = ${len(args)}")
        if account_id is not None:
            args.append(account_id)
            conditions.append(f"s.account_id = ${len(args)}")
            source, seat = f"game_seats s JOIN {t.listing} g USING (game_id)", ", s.seat"
        elif player is not None:
            args.append(player)
            conditions.append(f"p.player = ${len(args)}")
            source, seat = f"{t.players} p JOIN {t.listing} g USING (game_id)", ", p.seat"
        else:
            source, seat = f"{t.listing} g", ", NULL::integer AS seat"
        after = decode_cursor(cursor)
        if after is not None:
            args.extend(after)
            conditions.append(f"({order}.created_at, {order}.game_id) < (${len(args) - 1}, ${len(args)})")
        args.append(limit)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        query = (
            f"SELECT g.game_id, g.game, g.status, g.version, g.players, g.tournament, g.created_at,"
            f" g.updated_at, g.seed_commitment{seat} FROM {source}{where}"
            f" ORDER BY {order}.created_at DESC, {order}.game_id DESC LIMIT ${len(args)}"
        )
        async with self.connection() as connection:
            return list(await connection.fetch(query, *args))

    async def _account_called(self, name: str) -> str | None:
        """The id of the account called ``name`` (after NFKC and case-folding), or None."""
        async with self.connection() as connection:
            found: str | None = await connection.fetchval(
                "SELECT account_id FROM accounts WHERE name_key = $1", name_key(name)
            )
        return found

    async def _results(self, game_ids: list[str]) -> dict[str, list[asyncpg.Record]]:
        """The result rows (seat, score, rank, lower_is_better, solved) of those games that are finished."""
        found: dict[str, list[asyncpg.Record]] = {}
        if not game_ids:
            return found
        async with self.connection() as connection:
            rows = await connection.fetch(
                f"SELECT game_id, seat, score, rank, lower_is_better, solved FROM {self.tables.results}"
                " WHERE game_id = ANY($1::text[]) ORDER BY game_id, seat",
                game_ids,
            )
        for row in rows:
            found.setdefault(row["game_id"], []).append(row)
        return found

    async def _public_results(self, page: list[asyncpg.Record]) -> dict[str, list[asyncpg.Record]]:
        """The results of the page's finished games that anybody may read: a finished table of a duplicate
        round keeps its result to its seats until every table of the round has finished (B-12, Z-15, J-18)."""
        results = await self._results([row["game_id"] for row in page if row["status"] == FINISHED])
        for row in page:
            if row["game_id"] in results and row["tournament"]:
                info = await self.games.store.stream_info(row["game_id"])
                if info is not None and await self.games.loader.sealed(info):
                    del results[row["game_id"]]
        return results

    async def list_games(
        self,
        game: str | None,
        status: str | None,
        player: str | None,
        tournament: str | None,
        cursor: str | None,
        limit: int,
    ) -> GamePage:
        """A page of games, newest first, filtered; ``next_cursor`` continues after the last one. The
        projection first catches up with everything committed before the request (read-your-writes)."""
        _check_page(status, limit)
        decode_cursor(cursor)  # a bad cursor is refused before any work
        await self.read_your_writes()
        rows = await self._rows(game, status, player, tournament, cursor, limit + 1)
        page = rows[:limit]
        results = await self._public_results(page)
        return GamePage(
            games=[
                GameSummary(
                    game_id=row["game_id"],
                    game=row["game"],
                    status=row["status"],
                    version=row["version"],
                    players=list(row["players"]),
                    tournament=row["tournament"],
                    created_at=row["created_at"],
                    updated_at=row["updated_at"],
                    seed_commitment=row["seed_commitment"],
                    result=_listed_result(results[row["game_id"]]) if row["game_id"] in results else None,
                )
                for row in page
            ],
            next_cursor=encode_cursor(page[-1]["created_at"], page[-1]["game_id"])
            if len(rows) > limit
            else None,
        )

    async def player_games(
        self, name: str, game: str | None, status: str | None, cursor: str | None, limit: int
    ) -> PlayerGamePage:
        """A page of the games ``name`` sits in, newest first, with their seat and (finished) score and rank."""
        _check_page(status, limit)
        decode_cursor(cursor)  # a bad cursor is refused before any work
        await self.read_your_writes()
        rows = await self._rows(game, status, name, None, cursor, limit + 1)
        page = rows[:limit]
        results = await self._public_results(page)
        games = []
        for row in page:
            seat: int = row["seat"]
            mine = next((r for r in results.get(row["game_id"], []) if r["seat"] == seat), None)
            games.append(
                PlayerGame(
                    game_id=row["game_id"],
                    game=row["game"],
                    status=row["status"],
                    version=row["version"],
                    seat=seat,
                    players=list(row["players"]),
                    tournament=row["tournament"],
                    created_at=row["created_at"],
                    updated_at=row["updated_at"],
                    seed_commitment=row["seed_commitment"],
                    score=None if mine is None else mine["score"],
                    rank=None if mine is None else mine["rank"],
                    lower_is_better=mine is not None and mine["lower_is_better"],
                    solved=None if mine is None else mine["solved"],
                )
            )
        return PlayerGamePage(
            name=name,
            games=games,
            next_cursor=encode_cursor(page[-1]["created_at"], page[-1]["game_id"])
            if len(rows) > limit
            else None,
        )


def _listing_row(loaded: LoadedGame) -> tuple[Any, ...]:
    """The listing row of a folded game: its status is the domain's verdict on the fold."""
    info = loaded.info
    return (
        loaded.game_id,
        loaded.game.name,
        FINISHED if loaded.finished else ACTIVE,
        loaded.version,
        list(info.metadata.get("players", [])),
        info.metadata.get("tournament"),
        info.created_at,
        info.updated_at,
        info.metadata.get("seed_commitment"),
    )


def _seat_rows(loaded: LoadedGame) -> list[tuple[Any, ...]]:
    """One per-player row per seat, from the creation metadata."""
    players: list[str] = list(loaded.info.metadata.get("players", []))
    bots: list[Any] = list(loaded.info.metadata.get("bots") or [])
    return [
        (loaded.game_id, seat, name, seat < len(bots) and bool(bots[seat]), loaded.info.created_at)
        for seat, name in enumerate(players)
    ]


def _listed_result(rows: list[asyncpg.Record]) -> Result:
    """A finished game's result from its result rows, in the shape ``GET /v1/games/{id}`` gives it: the winners
    are the seats ranked first (B-10, Z-13, J-15; a resigned seat ranks after every seat still playing),
    none in a solitaire game not solved (Z-12); the note, the game's own explanation, is not kept here."""
    ordered = sorted(rows, key=lambda row: int(row["seat"]))
    lower = any(row["lower_is_better"] for row in ordered)
    return Result(
        scores=tuple(row["score"] for row in ordered),
        ranks=tuple(row["rank"] for row in ordered),
        winners=tuple(row["seat"] for row in ordered if row["rank"] == 1 and (not lower or row["solved"])),
        lower_is_better=lower,
        solved=ordered[0]["solved"] if lower else None,
    )


async def rebuild_command(settings: Settings) -> None:
    """``python -m service projections rebuild``: rebuild the game projection (listing, histories, results,
    ratings) from zero while the service
    runs, with a progress bar of feed positions (the live checkpoint's position is the expected end)."""
    from tqdm import tqdm  # type: ignore[import-untyped]  # (no type hints shipped)

    from domain.registry import all_games
    from eventstore import PostgresEventStore, PostgresKeyStore
    from service.runtime.database import create_pool, migrate_urls, resolve_database_urls

    urls = resolve_database_urls(settings)
    migrate_urls(urls)
    url = urls.service
    pool = await create_pool(url, settings)
    try:
        games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())
        live = GameProjection(pool, games)
        end = (await live.checkpoint()).position
        with tqdm(total=end or None, unit="pos", desc="rebuilding game projections") as bar:

            def advance(_applied: int, reached: FeedPosition) -> None:
                bar.update(max(reached.position - bar.n, 0))

            await live.rebuild(advance)
    except errors.Conflict as exc:
        raise SystemExit(exc.detail) from None
    finally:
        await pool.close()
