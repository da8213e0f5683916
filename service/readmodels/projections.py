"""Game projections (docs/decisions/0006-read-models.md): the listing, per-player history and finished
results, read models fed from the global feed with their checkpoint written in the same transaction.

A batch reads the feed after the checkpoint and folds the games it moved, then in one transaction locks
the checkpoint, checks that no other projector moved it meanwhile, writes the rows and the new checkpoint,
commits; every event is applied exactly once. Of several app processes only the checkpoint's leader runs
batches (service/readmodels/repository/leadership.py); the lock keeps two at once correct. The feed says which
games moved; each moved game is folded by the domain: the state this process holds when it is the stored
one as of the game's last event in the batch (``GameLoader.held_as_of``: this process appended it), else
through ``GameLoader.load`` (its state cache makes that a top-up); its status and result come from that
fold. A game's players, bots and tournament come from its stream's creation metadata, written in the same
transaction as its first events.

``rebuild`` projects from zero into the ``*_rebuild`` tables with their own checkpoint while the live
projection keeps serving, then, holding the live checkpoint's lock, catches up and copies them over
the live tables in one transaction.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import msgspec
import structlog

from domain.core import Result
from eventstore import FeedHeader, FeedPosition, RecordedEvent
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
from service.readmodels.repository.checkpoints import CheckpointBusy, Checkpoints, Connection, Pool
from service.readmodels.repository.checkpoints import (
    Writes as Writes,  # the followers of other features use it
)
from service.readmodels.repository.games import (
    LIVE,
    REBUILD,
    Listed,
    ListedGame,
    ProjectionRepository,
    SeatedGame,
    SeatResult,
    Tables,
)
from service.readmodels.repository.leadership import Lead, Leadership
from service.readmodels.schemas import GamePage, GameSummary, PlayerGame, PlayerGamePage
from service.runtime import errors
from service.runtime.settings import Settings

log = structlog.get_logger("service.readmodels.projections")

# What a follower reads of each event: its header (``read_all_headers``), or the whole event (``read_all``)
# for one that needs some events' bodies.
Entry = TypeVar("Entry", FeedHeader, RecordedEvent)
FeedPage = list[tuple[FeedPosition, Entry]]
ReadFeed = Callable[[FeedPosition | None, int], Awaitable[FeedPage[Entry]]]

BATCH_SIZE = 500
POLL_SECONDS = 0.5  # the background loop's default wake-up until LISTEN/NOTIFY wakes it
READ_YOUR_WRITES_WAIT = 2.0  # at most this long a listing waits for transactions older than itself
CHECKPOINT_POLL_SECONDS = 0.05  # a listing waiting for the checkpoint reads it this often without news
MAX_PAGE = 200


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


async def no_writes(_connection: Connection) -> None:
    """The writes of a batch whose read model writes nothing but its checkpoint."""


def last_events(feed: FeedPage[Entry]) -> dict[str, tuple[int, int]]:
    """Each stream of a feed batch, in the order it first appears, with the index in the batch and the
    version of its last event there."""
    last: dict[str, tuple[int, int]] = {}
    for index, (_, event) in enumerate(feed):
        last[event.stream_id] = (index, event.version)
    return last


class FeedFollower(Generic[Entry]):
    """A read model kept caught up with the global feed under a named checkpoint
    (docs/decisions/0006-read-models.md), reading it through ``read``: the store's ``read_all_headers``
    unless it needs some events' bodies.

    A batch reads the feed after the checkpoint and ``prepare``s it (reading through the pool), then in
    one transaction locks the checkpoint (so followers in several processes take turns), checks that no
    other moved it meanwhile, writes and moves the checkpoint past it, commits; every event is applied
    exactly once. In the service a background loop (``run``) does every batch, in the one process leading
    the checkpoint (``lead_with``): a request that must see everything committed before it
    (``read_your_writes``) asks the leader for a pass and waits for the checkpoint, so no request writes;
    without a loop (tools, tests) the caller catches up itself.
    """

    # Whether requests wait for this read model's checkpoint (``read_your_writes``): then each checkpoint saved is
    # announced to them, in this process and (over NOTIFY) in the others.
    waited_for = True

    def __init__(
        self,
        pool: Pool,
        read: ReadFeed[Entry],
        checkpoint_name: str,
        batch_size: int = BATCH_SIZE,
        acquire_timeout: float | None = None,
    ) -> None:
        self.pool = pool
        self.acquire_timeout = acquire_timeout  # past it, StoreUnavailable (503), as for every request
        self.checkpoints = Checkpoints(pool, acquire_timeout)
        self.read: ReadFeed[Entry] = read
        self.checkpoint_name = checkpoint_name
        self.batch_size = batch_size
        # One catch-up at a time in this process: the others wait here, not on the checkpoint's lock holding a
        # pooled connection each (which could starve the holder of the connections it reads with).
        self._catching_up = asyncio.Lock()
        self._running = False  # whether run() is looping in this process
        self._nudge = asyncio.Event()  # a request wants a pass now (no debounce)
        self.lead = Lead(checkpoint_name)  # alone, this process leads; ``lead_with`` joins an election
        self.lead.wanted = self._nudge.set

    def lead_with(self, leadership: Leadership) -> None:
        """Run passes only while this process leads this checkpoint in ``leadership``'s elections
        (service/readmodels/repository/leadership.py); another process's request for a pass nudges the loop."""
        self.lead = leadership.lead(self.checkpoint_name)
        self.lead.wanted = self._nudge.set

    async def checkpoint(self) -> FeedPosition:
        """Where this follower stands in the feed."""
        return await self.checkpoints.position(self.checkpoint_name)

    async def behind(self) -> bool:
        """Whether the feed holds events after the checkpoint (no lock, no transaction id taken)."""
        return bool(await self.read(await self.checkpoint(), 1))

    async def prepare(self, feed: FeedPage[Entry]) -> Writes:
        """Read what applying one batch of the feed needs (the read model's own part), through the pool, and
        return the writes that apply it in the checkpoint's transaction, on that transaction's connection
        only."""
        raise NotImplementedError

    async def _write(self, connection: Connection, feed: FeedPage[Entry], writes: Writes) -> int:
        """Apply ``writes`` and move the checkpoint past ``feed`` in ``connection``'s open transaction."""
        await writes(connection)
        await self.checkpoints.save(connection, self.checkpoint_name, feed[-1][0])
        return len(feed)

    async def apply_batch(self, connection: Connection) -> int:
        """In ``connection``'s open transaction: lock the checkpoint, apply the next batch of the feed and
        move the checkpoint past it; the number of events applied (0: caught up). It reads through the pool
        while it holds ``connection``: for a rebuild's final catch-up under the live checkpoint's lock, not
        for the followers of a running service (``catch_up_once``)."""
        await self.checkpoints.lock(connection, self.checkpoint_name)
        feed = await self.read(
            await self.checkpoints.position_on(connection, self.checkpoint_name), self.batch_size
        )
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
            feed = await self.read(start, self.batch_size)
            if not feed:
                return 0
            writes = await self.prepare(feed)
            try:
                async with self.checkpoints.turn(self.checkpoint_name, lock_wait) as connection:
                    if await self.checkpoints.position_on(connection, self.checkpoint_name) != start:
                        continue
                    applied = await self._write(connection, feed, writes)
            except CheckpointBusy:
                return 0
            if self.waited_for:  # committed: wake the requests waiting for it, here and elsewhere
                self.lead.saved(feed[-1][0])
            return applied

    async def catch_up(self, lock_wait: float | None = None) -> int:
        """Apply batches until the feed holds nothing after the checkpoint (for tools, tests and a process
        without a loop); the number of events applied here (another process may have applied some of
        them)."""
        applied = 0
        async with self._catching_up:
            while await self.behind():
                batch = await self.catch_up_once(lock_wait)
                if not batch:
                    break  # another process applied them while this one waited for the lock
                applied += batch
        return applied

    async def catch_up_pass(self, lock_wait: float | None = None) -> int:
        """A background loop's pass: apply batches until one is short of a full batch (it read everything
        the feed held after the checkpoint); the number of events applied here. Under load the feed grows
        while a batch is written; what came meanwhile waits for the loop's next wake-up (or a request's
        nudge) rather than a pass of a few events each, and no query asks whether more is there."""
        applied = 0
        async with self._catching_up:
            while True:
                batch = await self.catch_up_once(lock_wait)
                applied += batch
                if batch < self.batch_size:
                    break  # caught up as of its read, or another process applied them meanwhile
        return applied

    async def run(self, wake: Callable[[], Awaitable[object]] | None = None) -> None:
        """The background loop: while this process projects, a pass (catch up), then wait for ``wake``
        (default: a short sleep) or a request's nudge; while another process leads, wait to take over;
        forever."""
        wake = wake or poll()
        self._running = True
        try:
            while True:
                if not self.lead.projects:
                    await self._woken(self.lead.projecting.wait)
                    continue
                try:
                    await self.catch_up_pass()
                except Exception as exc:  # a database outage must not end the loop; the next wake retries
                    log.warning(
                        "feed_catch_up_failed",
                        checkpoint=self.checkpoint_name,
                        error=type(exc).__name__,
                        detail=str(exc),
                    )
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
        past the oldest running transaction; then until the checkpoint reaches the feed's last event
        visible now, asking for a pass of whichever process leads (this one's loop, or the leader's over
        NOTIFY), or, without a loop, catching up here."""
        horizon, target = await self.checkpoints.snapshot()
        deadline = time.monotonic() + wait
        while horizon < target and time.monotonic() < deadline:
            await asyncio.sleep(0.005)  # holding no connection meanwhile: a crowd of listings may wait here
            horizon = await self.checkpoints.horizon()
        # A rebuild's swap holds the checkpoint for as long as its copy takes: past the deadline, serve the
        # rows as they are rather than wait for it.
        budget = max(deadline - time.monotonic(), 0.05)
        if not self._running:
            await self.catch_up(lock_wait=budget)
            return
        checkpoint, head = await self.checkpoints.with_head(self.checkpoint_name)
        self.lead.heard(checkpoint)
        if checkpoint >= head:
            return
        self.lead.ask()
        deadline = time.monotonic() + budget
        while self.lead.position < head and (left := deadline - time.monotonic()) > 0:
            # woken by a save here or the leader's announcement; reading the row now and then covers an
            # announcement lost with a connection, or a leader of an earlier release that sends none
            if not await self.lead.news(min(left, CHECKPOINT_POLL_SECONDS)):
                self.lead.heard(await self.checkpoint())


class GameProjection(FeedFollower[FeedHeader]):
    """Keeps the game projection in ``tables`` caught up with the feed and serves its queries."""

    def __init__(
        self,
        pool: Pool,
        games: GameService,
        tables: Tables = LIVE,
        batch_size: int = BATCH_SIZE,
        acquire_timeout: float | None = None,
    ) -> None:
        super().__init__(pool, games.store.read_all_headers, tables.checkpoint, batch_size, acquire_timeout)
        self.games = games
        self.tables = tables
        self.rows = ProjectionRepository(pool, tables, acquire_timeout)

    # ----------------------------------------------------------------- feeding

    async def prepare(self, feed: FeedPage[FeedHeader]) -> Writes:
        """The listing, seat and result rows of the games the batch moved (folded through the pool), and
        the ratings of the rated games it finishes, in the order they finish."""
        moved = last_events(feed)
        opened = {event.stream_id for _, event in feed if event.version == 1}
        listing: list[tuple[Any, ...]] = []
        seats: list[tuple[Any, ...]] = []
        results: list[tuple[Any, ...]] = []
        finishing: list[tuple[int, LoadedGame]] = []  # (feed index of the game's last event, game)
        loader = self.games.loader
        for game_id, (end, version) in moved.items():
            try:
                # held here as of its last event in the batch (this process appended it): no read
                loaded = loader.held_as_of(feed[end][1]) or await loader.load(game_id)
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

        async def write(connection: Connection) -> None:
            await self.rows.write_games(connection, listing, seats, results)
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
        self, connection: Connection, loaded: LoadedGame, identities: list[str], batch: dict[Any, int]
    ) -> bool:
        """Whether two of the game's identities already have ``PAIR_GAMES_PER_DAY`` rated games of this game
        together on the UTC day it finished (counting the games of this batch, kept in ``batch``); if not,
        the game is counted for each of its pairs."""
        finished = loaded.info.updated_at.astimezone(UTC)
        day = datetime(finished.year, finished.month, finished.day, tzinfo=UTC)
        game = loaded.game.name
        pairs = [(game, a, b, day) for a, b in itertools.combinations(sorted(identities), 2)]
        for pair in pairs:
            earlier = await self.rows.pair_games(connection, *pair)
            if earlier + batch.get(pair, 0) >= PAIR_GAMES_PER_DAY:
                return True
        for pair in pairs:
            batch[pair] = batch.get(pair, 0) + 1
        return False

    async def _rate(self, connection: Connection, finished: list[LoadedGame]) -> None:
        """Fold these finished games, in the order their last events have in the feed, into the ratings
        (each game once: one already in the rated table is skipped)."""
        game_ids = [loaded.game_id for loaded in finished]
        done = await self.rows.rated_already(connection, game_ids)
        accounts: dict[str, dict[int, str]] = {}  # game -> seat -> the name of the account holding it
        for held in await self.rows.seat_accounts(connection, game_ids):
            accounts.setdefault(held.game_id, {})[held.seat] = held.name
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
                for stored in await self.rows.ratings_of(connection, game, missing):
                    current[game, stored.player] = Rating(
                        mu=stored.mu, sigma=stored.sigma, games=stored.games
                    )
            before = [current.get((game, who)) or initial_rating() for who in identities]
            after = rate(before, loaded.result().ranks)
            if after is None:
                log.warning("rating_skipped_game", game_id=loaded.game_id, game=game)
                continue
            current.update({(game, who): rating for who, rating in zip(identities, after, strict=True)})
            rated.append((loaded.game_id, game, identities))
        if rated:
            await self.rows.write_ratings(
                connection,
                rated,
                [(game, who, r.mu, r.sigma, r.ordinal, r.games) for (game, who), r in current.items()],
            )

    # ----------------------------------------------------------------- rebuilding

    async def reset(self) -> None:
        """Empty this projection's tables and move its checkpoint back to the start of the feed."""
        await self.rows.reset()
        self.lead.forget()

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
        async with self.rows.rebuild_lock() as mine:
            if not mine:
                raise errors.Conflict("rebuild_running", "another rebuild of the projections is running")
            shadow = await self.build_shadow(progress)
            await self._swap_in(shadow, progress)

    async def _swap_in(
        self, shadow: GameProjection, progress: Callable[[int, FeedPosition], None] | None
    ) -> None:
        """The final catch-up and the atomic copy of the shadow over the live tables."""
        async with self.rows.swap() as connection:  # live projectors wait for it
            while applied := await shadow.apply_batch(connection):
                if progress is not None:
                    progress(applied, await shadow.checkpoint())
            reached = await self.rows.copy_over(connection, shadow.tables)
        log.info("projections_rebuilt", tx=reached.tx, position=reached.position)

    # ----------------------------------------------------------------- queries

    async def _rows(
        self,
        shape: type[Listed],
        game: str | None,
        status: str | None,
        player: str | None,
        tournament: str | None,
        cursor: str | None,
        limit: int,
    ) -> list[Listed]:
        """Listing rows as ``shape``, newest first (with the player's seat when ``player`` is given), at most
        ``limit``.

        A player who is an account (names compared after NFKC and case-folding) is matched by the seats
        the account holds, never by a hot-seat seat that happens to carry the same name; any other name
        matches the hot-seat seats of that name (a hot-seat name is no identity)."""
        account_id = None if player is None else await self.rows.account_called(name_key(player))
        hot_seat = player if account_id is None else None
        return await self.rows.listed(
            shape, game, status, tournament, account_id, hot_seat, decode_cursor(cursor), limit
        )

    async def _public_results(self, page: Sequence[ListedGame]) -> dict[str, list[SeatResult]]:
        """The results of the page's finished games that anybody may read: a finished table of a duplicate
        round keeps its result to its seats until every table of the round has finished (B-12, Z-15, J-18)."""
        results: dict[str, list[SeatResult]] = {}
        finished = [row.game_id for row in page if row.status == FINISHED]
        if finished:
            for result in await self.rows.results(finished):
                results.setdefault(result.game_id, []).append(result)
        for row in page:
            if row.game_id in results and row.tournament:
                info = await self.games.store.stream_info(row.game_id)
                if info is not None and await self.games.loader.sealed(info):
                    del results[row.game_id]
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
        rows = await self._rows(ListedGame, game, status, player, tournament, cursor, limit + 1)
        page = rows[:limit]
        results = await self._public_results(page)
        return GamePage(
            games=[
                GameSummary(
                    game_id=row.game_id,
                    game=row.game,
                    status=row.status,
                    version=row.version,
                    players=row.players,
                    tournament=row.tournament,
                    created_at=row.created_at,
                    updated_at=row.updated_at,
                    seed_commitment=row.seed_commitment,
                    result=_listed_result(results[row.game_id], row.result_note)
                    if row.game_id in results
                    else None,
                )
                for row in page
            ],
            next_cursor=encode_cursor(page[-1].created_at, page[-1].game_id) if len(rows) > limit else None,
        )

    async def player_games(
        self, name: str, game: str | None, status: str | None, cursor: str | None, limit: int
    ) -> PlayerGamePage:
        """A page of the games ``name`` sits in, newest first, with their seat and (finished) score and rank."""
        _check_page(status, limit)
        decode_cursor(cursor)  # a bad cursor is refused before any work
        await self.read_your_writes()
        rows = await self._rows(SeatedGame, game, status, name, None, cursor, limit + 1)
        page = rows[:limit]
        results = await self._public_results(page)
        games = []
        for row in page:
            mine = next((r for r in results.get(row.game_id, []) if r.seat == row.seat), None)
            games.append(
                PlayerGame(
                    game_id=row.game_id,
                    game=row.game,
                    status=row.status,
                    version=row.version,
                    seat=row.seat,
                    players=row.players,
                    tournament=row.tournament,
                    created_at=row.created_at,
                    updated_at=row.updated_at,
                    seed_commitment=row.seed_commitment,
                    score=None if mine is None else mine.score,
                    rank=None if mine is None else mine.rank,
                    lower_is_better=mine is not None and mine.lower_is_better,
                    solved=None if mine is None else mine.solved,
                )
            )
        return PlayerGamePage(
            name=name,
            games=games,
            next_cursor=encode_cursor(page[-1].created_at, page[-1].game_id) if len(rows) > limit else None,
        )


def _listing_row(loaded: LoadedGame) -> tuple[Any, ...]:
    """The listing row of a folded game: its status is the domain's verdict on the fold, and once finished
    its result's note (who resigned, how a tie was decided: the game's own words) is kept with it."""
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
        loaded.result().note if loaded.finished else None,
    )


def _seat_rows(loaded: LoadedGame) -> list[tuple[Any, ...]]:
    """One per-player row per seat, from the creation metadata."""
    players: list[str] = list(loaded.info.metadata.get("players", []))
    bots: list[Any] = list(loaded.info.metadata.get("bots") or [])
    return [
        (loaded.game_id, seat, name, seat < len(bots) and bool(bots[seat]), loaded.info.created_at)
        for seat, name in enumerate(players)
    ]


def _listed_result(rows: list[SeatResult], note: str | None) -> Result:
    """A finished game's result from its result rows and its listing row's note, as ``GET /v1/games/{id}``
    gives it: the winners are the seats ranked first (B-10, Z-13, J-15; a resigned seat ranks after every
    seat still playing), none in a solitaire game not solved (Z-12); the note empty for a game listed
    finished before the listing kept notes (migration 0017) until a rebuild."""
    ordered = sorted(rows, key=lambda row: row.seat)
    lower = any(row.lower_is_better for row in ordered)
    return Result(
        scores=tuple(row.score for row in ordered),
        ranks=tuple(row.rank for row in ordered),
        winners=tuple(row.seat for row in ordered if row.rank == 1 and (not lower or row.solved)),
        note=note or "",
        lower_is_better=lower,
        solved=ordered[0].solved if lower else None,
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
