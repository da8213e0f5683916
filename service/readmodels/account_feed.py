"""One reader of the global feed for every account stream of a process (``GET /v1/me/stream``,
service/readmodels/notifications.py), as a game's spectators share one reader (service/readmodels/live.py).

The reader reads each page of the feed once, finds which accounts hold seats in the page's games (one
query for the games it has not seen before: a game's seats are fixed once it has events), loads each game a
following account holds a seat in once (none when this process's cached state is the stored one as of the
game's last event in the page, as after its own append), and hands each follower only the part of
the page that concerns its account (its games' entries, its seats, the games loaded). A follower whose
account holds no seat in a page is handed nothing: it learns the feed position reached from the reader's
``position`` when it needs one (its keep-alive's resume id), so a move costs such a stream no work at all.

Fanning out never waits for a stream: each follower has a bounded queue. A follower whose queue overflows
is detached and catches up on its own from the store (notifications.py reads the feed itself then), as
does one that starts or resumes behind the reader, before it joins again. The store's watch only wakes the
reader, which always re-reads from its own position (a lost wake-up costs latency, never a page).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from eventstore import FeedHeader, FeedPosition
from service.games.loading import LoadedGame
from service.games.service import GameService
from service.readmodels.repository.notifications import HeldSeat, NotificationRepository
from service.runtime import errors
from service.runtime.streams import keep, stored_as_of

PAGE_SIZE = 500
SEATS_CACHE = 10_000  # games whose account seats the reader keeps, least recently seen out first
QUEUE_LIMIT = 64  # pages concerning an account that its stream may have waiting; past it, it reads alone
UNLOADABLE = (errors.NotFound, msgspec.DecodeError, msgspec.ValidationError)  # a game skipped, not an error

log = structlog.get_logger("service.readmodels.account_feed")


@dataclass(frozen=True)
class AccountPage:
    """The part of one page of the feed that concerns one account: the page's entries of the games it holds
    a seat in (in feed order), its seat in each, each game as loaded after the page was read, and the
    feed position the page ends at."""

    entries: list[tuple[FeedPosition, Any]]
    seats: dict[str, int]
    loaded: dict[str, LoadedGame]
    end: FeedPosition


class Follower:
    """One account stream's place at the reader: the pages that concern its account, not yet taken.

    ``start`` is the reader's position when it joined: what comes through the queue is after it; what lies
    between the stream's own position and ``start`` the stream reads itself.
    """

    __slots__ = ("account_id", "error", "lagged", "limit", "queue", "start", "waiter")

    def __init__(self, account_id: str, start: FeedPosition, limit: int) -> None:
        """A follower for ``account_id`` joining at feed position ``start``."""
        self.account_id = account_id
        self.start = start
        self.limit = limit
        self.queue: deque[AccountPage] = deque()
        self.waiter: asyncio.Future[None] | None = None  # its stream waits on this while it has nothing
        self.lagged = False  # its queue overflowed (or it joined mid-page): detached, it reads alone
        self.error: BaseException | None = None  # the reader failed with this

    def offer(self, page: AccountPage) -> bool:
        """Queue ``page``; False (and the queue dropped) if that would pass the limit."""
        if len(self.queue) >= self.limit:
            self.detach()
            return False
        self.queue.append(page)
        self.wake()
        return True

    def detach(self) -> None:
        """Drop the queue: the stream reads the feed on its own from its position."""
        self.queue.clear()
        self.lagged = True
        self.wake()

    def wake(self) -> None:
        """Wake its stream if it waits (one that does not looks at its queue before it waits again)."""
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the reader to hand it something (or to fail)."""
        self.waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait({self.waiter}, timeout=seconds)
        finally:
            self.waiter = None


class AccountFeed:
    """The one feed reader of a process's account streams: reads each page once and hands each follower
    the part concerning its account; stops when its last follower leaves."""

    def __init__(
        self,
        games: GameService,
        rows: NotificationRepository,
        position: FeedPosition,
        poll_seconds: float,
        queue_limit: int = QUEUE_LIMIT,
    ) -> None:
        """A reader of the feed after ``position``, looking seats up in ``rows``; ``queue_limit``: the pages a
        follower may have waiting."""
        self.games = games
        self.rows = rows
        self.position = position
        self.poll_seconds = poll_seconds
        self.queue_limit = queue_limit
        self.followers: set[Follower] = set()
        self.task: asyncio.Task[None] | None = None
        self._seats: OrderedDict[str, list[HeldSeat]] = OrderedDict()  # game -> the seats accounts hold there

    @property
    def running(self) -> bool:
        """Whether its reader runs (it stops on a store error, or when left alone)."""
        return self.task is not None and not self.task.done()

    def join(self, account_id: str) -> Follower:
        """A new follower for ``account_id``; starts the reader if it is not running."""
        follower = Follower(account_id, self.position, self.queue_limit)
        self.followers.add(follower)
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name="account-feed")
        return follower

    def leave(self, follower: Follower) -> None:
        """Forget ``follower``; the reader stops once nobody is left."""
        self.followers.discard(follower)
        if not self.followers and self.task is not None:
            self.task.cancel()

    async def seats_of(self, game_ids: list[str]) -> list[HeldSeat]:
        """Every seat held by an account in ``game_ids``: a seat's account never changes once its game has
        events, so reading them after the page is read is as good as at any later time, and the seats of a
        game read once are kept (``SEATS_CACHE`` games, least recently seen out first). One query for the
        games of a page not seen yet, whoever follows; none for a page of games seen before."""
        known = self._seats
        unseen = [game_id for game_id in game_ids if game_id not in known]
        if unseen:
            read: dict[str, list[HeldSeat]] = {game_id: [] for game_id in unseen}
            for held in await self.rows.held_seats(unseen):
                read[held.game_id].append(held)
            for game_id, held_in_game in read.items():
                keep(known, game_id, held_in_game, SEATS_CACHE)
        seats: list[HeldSeat] = []
        for game_id in game_ids:
            kept = known.get(game_id)
            if kept is None:  # fell out of the cache while the page was read (a page of many games)
                return await self.rows.held_seats(game_ids)
            known.move_to_end(game_id)
            seats.extend(kept)
        return seats

    async def load(self, game_id: str, last: FeedHeader) -> LoadedGame:
        """The game as loaded after the page was read, whose last event of the game is ``last``: the state
        this process cached if it is the stored one as of ``last`` (the page ends there for the game, so its
        notices are told at it), else a load from the store (its stream row, and the events the cache lacks)."""
        cached = self.games.loader.cached(game_id)
        if cached is not None and stored_as_of(cached, last):
            return cached
        return await self.games.loader.load(game_id)

    async def _run(self) -> None:
        """Read and fan out until nobody follows; on a failure every follower ends with it."""
        store = self.games.store
        try:
            with store.watch() as changes:
                while self.followers:
                    page = await store.read_all_headers(self.position, PAGE_SIZE)
                    if page:
                        await self._fan_out(page)
                    if len(page) < PAGE_SIZE:
                        await changes.wait(self.poll_seconds)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # e.g. StoreUnavailable: every stream ends with it (clients resume)
            log.warning("account_feed_failed", error=type(exc).__name__)
            for follower in self.followers:
                follower.error = exc
                follower.wake()

    async def _fan_out(self, page: list[tuple[FeedPosition, Any]]) -> None:
        """Hand each follower the part of ``page`` concerning its account, then move past the page."""
        game_ids = list(dict.fromkeys(event.stream_id for _, event in page))
        following = {follower.account_id for follower in self.followers}
        seats: dict[str, dict[str, int]] = {}  # account -> game -> its seat there
        for held in await self.seats_of(game_ids):
            seats.setdefault(held.account_id, {})[held.game_id] = held.seat
        last = {event.stream_id: event for _, event in page}  # each game's last event in the page
        loaded: dict[str, LoadedGame] = {}
        for game_id in dict.fromkeys(g for a in following & seats.keys() for g in seats[a]):
            try:
                loaded[game_id] = await self.load(game_id, last[game_id])
            except UNLOADABLE:
                continue
        end = page[-1][0]
        for follower in list(self.followers):
            mine = seats.get(follower.account_id)
            if not mine:
                continue  # it learns ``end`` from the reader's position when it needs it
            if follower.account_id not in following:  # joined while this page was read: its games not loaded
                self.followers.discard(follower)
                follower.detach()
                continue
            entries = [(at, event) for at, event in page if event.stream_id in mine]
            part = AccountPage(entries, mine, {g: loaded[g] for g in mine if g in loaded}, end)
            if not follower.offer(part):
                self.followers.discard(follower)
        self.position = end
