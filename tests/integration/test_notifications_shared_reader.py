"""The account streams of one process share one reader of the feed (service/readmodels/account_feed.py): however many
accounts follow, each page of the feed is read once and its seats looked up in one query, and each stream
is told only its own games' notices while other games move. They share one look at the invitations too
(service/readmodels/account_invitations.py): one read of all their accounts' invitations an interval, each
stream told only its own.

On a database of its own, against the real PostgreSQL store: games started through the lobby and played
through the game service; the streams are Notifications.follow read directly (their messages before they
become SSE). The store the streams read through counts what it is asked to read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.registry import all_games
from eventstore import FeedPosition, PostgresEventStore, PostgresKeyStore, StoreUnavailable
from service.accounts.accounts import Account, AccountService
from service.accounts.repository import PostgresAccounts
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.lobby.lobby import LobbyService
from service.lobby.repository import PostgresLobby
from service.lobby.schemas import JoinIn
from service.readmodels.account_feed import AccountFeed
from service.readmodels.notifications import Message, Notifications, resume_position
from service.readmodels.repository.notifications import HeldSeat, SeatInvitation, TournamentInvitation
from service.tournaments.registrations import Registrations
from service.tournaments.repository import PostgresRegistrations
from service.tournaments.schemas import CreateTournamentIn
from tests.support.databases import own_pool
from tests.support.stream_rows import count_stream_rows

pytestmark = pytest.mark.db

WAIT = 30.0
KEEPALIVE = 0.2  # seconds of quiet before a keep-alive: each tells the feed position a stream reached


class CountingStore:
    """The store, counting the feed positions each ``read_all_headers`` answers (the feed as the account
    streams read it; everything else passes through)."""

    def __init__(self, store: PostgresEventStore) -> None:
        """Count ``store``'s feed reads."""
        self.store = store
        self.pages: list[list[FeedPosition]] = []
        self.failure: Exception | None = None  # raised by every read while set

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def read_all_headers(
        self, after: FeedPosition | None = None, limit: int = 1000
    ) -> list[tuple[FeedPosition, Any]]:
        if self.failure is not None:
            raise self.failure
        page = await self.store.read_all_headers(after, limit)
        self.pages.append([at for at, _ in page])
        return page


class Stream:
    """One account's stream, read by a task into ``messages`` as they come."""

    def __init__(self, notifications: Notifications, account: Account) -> None:
        """Follow ``account``'s stream from now."""
        self.account = account
        self.messages: list[Message] = []
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read(notifications.follow(account, None, KEEPALIVE, 0.1)))

    async def _read(self, messages: Any) -> None:
        async with aclosing(messages):
            async for message in messages:
                self.messages.append(message)
                self.arrived.set()

    def reached(self) -> FeedPosition | None:
        """The feed position of the latest id it was given (None before any)."""
        ids = [m.id for m in self.messages if m.id is not None]
        point = resume_position(ids[-1]) if ids else None
        return None if point is None else point.at

    def notices(self) -> list[tuple[str | None, str, int | None]]:
        """The (game, type, version) of each game notice told."""
        return [(m.body.game_id, m.body.type, m.body.version) for m in self.messages if m.kind == "notice"]

    async def until(self, done: Any) -> None:
        """Wait (up to WAIT seconds) until ``done(self)`` holds."""
        async with asyncio.timeout(WAIT):
            while not done(self):
                self.arrived.clear()
                await self.arrived.wait()


@pytest.fixture(scope="module")
async def pool(server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database of its own."""
    async with own_pool(server_url, max_size=8) as created:
        yield created


async def two_player_game(lobby: LobbyService, host_token: str, guest_token: str) -> str:
    """A Johari game for the two accounts, started."""
    body = {"game": "johari", "players": [{"account": "me"}, {"open": True}]}
    created = await lobby.create(msgspec.convert(body, CreateGame), host_token)
    await lobby.join(created.game_id, guest_token, JoinIn())
    return created.game_id


async def move(games: GameService, game_id: str) -> None:
    """One legal move (not a resignation) by a seat a decision of which is due."""
    loaded = await games.loader.load(game_id)
    for pending in loaded.game.pending(loaded.state):
        legal = [
            c
            for c in games.queries.detail(loaded, pending.seat).legal
            if msgspec.to_builtins(c)["type"] != "resign"
        ]
        if legal:
            await games.commands.execute(game_id, pending.seat, msgspec.to_builtins(legal[0]))
            return
    raise AssertionError("no seat has a decision due")


async def last_position(store: PostgresEventStore, after: FeedPosition) -> FeedPosition:
    """The position of the feed's latest event after ``after``."""
    position = after
    while page := await store.read_all(position, 1000):
        position = page[-1][0]
    return position


async def scenario(pool: asyncpg.Pool, prefix: str, moves: int) -> dict[str, Any]:
    """Six accounts following: two seated in game A, two in game B, two in none; ``moves`` moves of each
    game while every stream is open, until each stream's keep-alive says it read past the last of them.
    What each stream was told, and what the streams' store was asked for during the moves."""
    accounts = AccountService(PostgresAccounts(pool))
    store = PostgresEventStore(pool)
    counted = CountingStore(store)
    keys = PostgresKeyStore(pool)
    play = GameService(store, keys, all_games(), accounts=accounts)
    follow = GameService(counted, keys, all_games(), accounts=accounts)
    notifications = Notifications(pool, follow)
    lobby = LobbyService(PostgresLobby(pool), play, accounts)
    made = [await accounts.create(f"{prefix}-{n}") for n in range(6)]
    game_a = await two_player_game(lobby, made[0][1], made[1][1])
    game_b = await two_player_game(lobby, made[2][1], made[3][1])
    async with AsyncExitStack() as stack:
        streams = [Stream(notifications, account) for account, _ in made]
        for stream in streams:
            stack.callback(stream.task.cancel)
        start = await notifications.now()
        for stream in streams:  # a keep-alive: the stream reads with the shared reader from here on
            await stream.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
        counted.pages.clear()
        seats_queries = 0
        reader = notifications.reader
        assert reader is not None and len(reader.followers) == len(streams)
        seats_of = reader.seats_of

        async def counted_seats_of(game_ids: list[str]) -> list[HeldSeat]:
            nonlocal seats_queries
            seats_queries += 1
            return await seats_of(game_ids)

        reader.seats_of = counted_seats_of  # type: ignore[method-assign]
        seats_asked: list[str] = []  # the games whose seats the reader asked the database for
        held_seats = reader.rows.held_seats

        async def counted_held_seats(game_ids: list[str]) -> list[HeldSeat]:
            seats_asked.extend(game_ids)
            return await held_seats(game_ids)

        reader.rows.held_seats = counted_held_seats  # type: ignore[method-assign]
        for _ in range(moves):
            await move(play, game_a)
            await move(play, game_b)
        end = await last_position(store, start)
        for stream in streams:
            await stream.until(lambda s: (s.reached() or FeedPosition()) >= end)
        pages = [page for page in counted.pages if page]
        due_now = {}  # game -> (its version, the seats a decision of which is due)
        for game_id in (game_a, game_b):
            loaded = await play.loader.load(game_id)
            due_now[game_id] = (
                loaded.version,
                {pending.seat for pending in loaded.game.pending(loaded.state)},
            )
        result = {
            "notices": [stream.notices() for stream in streams],
            "pages": pages,
            "seats_queries": seats_queries,
            "seats_asked": seats_asked,
            "games": (game_a, game_b),
            "due_now": due_now,
            "reader": reader,
        }
        for stream in streams:
            stream.task.cancel()
        await asyncio.gather(*(stream.task for stream in streams), return_exceptions=True)
    assert notifications.reader is None, "the reader is forgotten once no stream follows"
    assert reader.task is not None
    # The cancelled reader may be awaiting a query; it finishes once that returns.
    await asyncio.wait([reader.task], timeout=10)
    assert reader.task.done(), "the cancelled reader task finishes"
    return result


async def test_six_streams_read_each_page_of_the_feed_once_and_look_up_its_seats_once(
    pool: asyncpg.Pool,
) -> None:
    told = await scenario(pool, "shared", moves=4)
    pages: list[list[FeedPosition]] = told["pages"]
    read = [at for page in pages for at in page]
    assert len(read) >= 8, "every move's events were read"
    assert len(read) == len(set(read)), "no feed entry was read twice, whatever the streams following"
    assert told["seats_queries"] == len(pages), "one seats query a page"
    assert sorted(told["seats_asked"]) == sorted(told["games"]), "each game's seats asked once, pages apart"


async def test_the_reader_takes_a_game_this_process_moved_from_its_cache(pool: asyncpg.Pool) -> None:
    """A game whose cached state is the stored one as of its last event in a page (this process made that
    move) is taken from the cache, reading nothing; one whose page ends elsewhere is loaded from the store."""
    accounts = AccountService(PostgresAccounts(pool))
    store = PostgresEventStore(pool)
    games = GameService(store, PostgresKeyStore(pool), all_games(), accounts=accounts)
    lobby = LobbyService(PostgresLobby(pool), games, accounts)
    made = [await accounts.create(f"cached-{n}") for n in range(2)]
    game_id = await two_player_game(lobby, made[0][1], made[1][1])
    notifications = Notifications(pool, games)
    start = await notifications.now()
    await move(games, game_id)
    await move(games, game_id)
    page = await store.read_all_headers(start, 1000)
    events = [event for _, event in page if event.stream_id == game_id]
    reader = AccountFeed(games, notifications.rows, start, poll_seconds=0.1)
    rows_read = count_stream_rows(store)
    cached = await reader.load(game_id, events[-1])
    assert rows_read == [], "the cached state, as of the page's last event: no read"
    assert cached.version == events[-1].version
    behind = await reader.load(game_id, events[0])  # the game moved on after that event: load it
    assert rows_read == [game_id]
    assert (behind.version, behind.state) == (cached.version, cached.state)


async def test_a_stream_is_told_only_its_own_games_while_others_move(pool: asyncpg.Pool) -> None:
    told = await scenario(pool, "own", moves=4)
    notices: list[list[tuple[str | None, str, int | None]]] = told["notices"]
    for game_id, streams in zip(told["games"], ((0, 1), (2, 3)), strict=True):
        version, due = told["due_now"][game_id]
        for seat, stream in enumerate(streams):
            assert {game for game, _, _ in notices[stream]} <= {game_id}, notices[stream]
            assert {kind for _, kind, _ in notices[stream]} <= {"your_turn"}, notices[stream]
            if seat in due:  # what is due now was told at the game's version, last
                assert notices[stream][-1] == (game_id, "your_turn", version), (notices[stream], due)
        assert notices[streams[0]] or notices[streams[1]], "each move leaves a decision due"
    assert notices[4] == notices[5] == [], "an account seated nowhere is told nothing"


async def test_a_stream_too_slow_for_its_queue_reads_alone_and_is_told_the_same(pool: asyncpg.Pool) -> None:
    accounts = AccountService(PostgresAccounts(pool))
    store = PostgresEventStore(pool)
    games = GameService(store, PostgresKeyStore(pool), all_games(), accounts=accounts)
    notifications = Notifications(pool, games)
    notifications.queue_limit = 1  # a second page for the account before the stream takes the first: detached
    (host, host_token), (_, guest_token) = [await accounts.create(f"slow-{n}") for n in range(2)]
    game_id = await two_player_game(
        LobbyService(PostgresLobby(pool), games, accounts), host_token, guest_token
    )
    fast = Stream(notifications, host)
    try:
        await fast.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
        slow = notifications.follow(host, None, KEEPALIVE, 0.1)
        async with aclosing(slow), asyncio.timeout(WAIT):
            start = await notifications.now()
            assert (await anext(slow)).kind == "snapshot"
            while (await anext(slow)).kind != "keepalive":
                pass  # it follows with the shared reader now, and is not read while the game moves
            reader = notifications.reader
            assert reader is not None and len(reader.followers) == 2
            for _ in range(4):  # each move its own page, read before the next: the slow stream is offered 4
                await move(games, game_id)
                moved = await last_position(store, start)
                await fast.until(lambda s, moved=moved: (s.reached() or FeedPosition()) >= moved)
            for _ in range(20):  # on until a decision of the host's is due: the slow stream has that to tell
                loaded = await games.loader.load(game_id)
                if any(pending.seat == 0 for pending in loaded.game.pending(loaded.state)):
                    break
                await move(games, game_id)
            end = await last_position(store, start)
            await fast.until(lambda s: (s.reached() or FeedPosition()) >= end)
            assert len(reader.followers) == 1, "the slow stream's queue overflowed: it was detached"
            looker = notifications.looker
            assert looker is not None and len(looker.watchers) == 2, "its invitations are looked at still"
            told: list[tuple[str | None, str]] = []
            reached = FeedPosition()
            while reached < end:
                message = await anext(slow)
                if message.kind == "notice":
                    told.append((message.id, message.body.type))
                point = resume_position(message.id) if message.id is not None else None
                reached = point.at if point is not None else reached
            assert len(reader.followers) == 2, "caught up on its own, it joined the reader again"
        # reading alone, it read the moves in one page: like any stream reading late, it is told what is due
        # now (at the game's version), not each your_turn of the moves between
        expected = [m for m in fast.messages if m.kind == "notice"]
        assert expected and expected[-1].body.version == loaded.version, fast.messages
        assert told == [(expected[-1].id, "your_turn")], (told, fast.messages)
    finally:
        fast.task.cancel()
        await asyncio.gather(fast.task, return_exceptions=True)


async def test_a_failed_feed_read_ends_every_stream_and_the_next_stream_starts_a_new_reader(
    pool: asyncpg.Pool,
) -> None:
    accounts = AccountService(PostgresAccounts(pool))
    store = CountingStore(PostgresEventStore(pool))
    notifications = Notifications(
        pool, GameService(store, PostgresKeyStore(pool), all_games(), accounts=accounts)
    )
    streams = [Stream(notifications, (await accounts.create(f"failing-{n}"))[0]) for n in range(2)]
    for stream in streams:
        await stream.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
    failed = notifications.reader
    store.failure = StoreUnavailable("the database is away")
    async with asyncio.timeout(WAIT):  # the reader polls every 0.1 s: its next read fails
        outcomes = await asyncio.gather(*(stream.task for stream in streams), return_exceptions=True)
    assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes), outcomes
    assert failed is not None and failed.task is not None and failed.task.done()
    store.failure = None
    again = Stream(notifications, streams[0].account)
    try:
        await again.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
        assert notifications.reader is not None and notifications.reader is not failed
        assert notifications.reader.running
    finally:
        again.task.cancel()
        await asyncio.gather(again.task, return_exceptions=True)


class CountingInvitations:
    """The invitation reads of ``notifications``' repository, counted: the accounts of each batched look,
    and the single-account reads (a snapshot's); ``failure``, while set, is raised by every batched look."""

    def __init__(self, notifications: Notifications) -> None:
        """Count the reads of ``notifications.rows`` from now on."""
        rows = notifications.rows
        self.looks: list[list[str]] = []
        self.single = 0
        self.looked = asyncio.Event()
        self.failure: Exception | None = None
        invitations_of, invitations = rows.invitations_of, rows.invitations

        async def counted_invitations_of(
            account_ids: list[str],
        ) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
            if self.failure is not None:
                raise self.failure
            found = await invitations_of(account_ids)
            self.looks.append(sorted(account_ids))
            self.looked.set()
            return found

        async def counted_invitations(
            account_id: str,
        ) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
            self.single += 1
            return await invitations(account_id)

        rows.invitations_of = counted_invitations_of  # type: ignore[method-assign]
        rows.invitations = counted_invitations  # type: ignore[method-assign]

    async def until_looks(self, count: int) -> None:
        """Wait (up to WAIT seconds) until ``count`` looks were counted."""
        async with asyncio.timeout(WAIT):
            while len(self.looks) < count:
                self.looked.clear()
                await self.looked.wait()


def invitations_told(stream: Stream) -> list[tuple[str, str | None]]:
    """The (type, game or tournament) of each invitation notice told to ``stream``."""
    return [
        (m.body.type, m.body.game_id or m.body.tournament)
        for m in stream.messages
        if m.kind == "notice" and m.body.type in ("invited", "tournament_invited")
    ]


async def test_six_streams_look_at_their_invitations_in_one_read_an_interval(pool: asyncpg.Pool) -> None:
    accounts = AccountService(PostgresAccounts(pool))
    games = GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    notifications = Notifications(pool, games)
    notifications.invitations_every = 0.2
    made = [await accounts.create(f"invited-{n}") for n in range(6)]
    (host, host_token), ids = made[0], sorted(account.account_id for account, _ in made)
    async with AsyncExitStack() as stack:
        streams = [Stream(notifications, account) for account, _ in made]
        for stream in streams:
            stack.callback(stream.task.cancel)
        for stream in streams:
            await stream.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
        counted = CountingInvitations(notifications)
        counting_since = asyncio.get_running_loop().time()
        body = {"game": "johari", "players": [{"account": "me"}, {"invite": made[4][0].name}]}
        game = await LobbyService(PostgresLobby(pool), games, accounts).create(
            msgspec.convert(body, CreateGame), host_token
        )
        cup = {
            "name": "cup",
            "game": "johari",
            "rounds": 1,
            "players": [{"account": "me"}, {"invite": made[5][0].name}],
        }
        await Registrations(accounts, PostgresRegistrations(pool)).open(
            "shared-invitations-cup",
            msgspec.convert(cup, CreateTournamentIn),
            "hash",
            host,
            True,
            [made[5][0]],
            [],
        )
        await streams[4].until(lambda s: invitations_told(s) == [("invited", game.game_id)])
        await streams[5].until(
            lambda s: invitations_told(s) == [("tournament_invited", "shared-invitations-cup")]
        )
        # more looks see the invitations: each is told once all the same
        await counted.until_looks(len(counted.looks) + 2)
        looks, elapsed = list(counted.looks), asyncio.get_running_loop().time() - counting_since
        looker = notifications.looker
        assert looker is not None
        for stream in streams:
            stream.task.cancel()
        await asyncio.gather(*(stream.task for stream in streams), return_exceptions=True)
    assert counted.single == 0, "no stream read its invitations on its own"
    assert looks and all(accounts_read == ids for accounts_read in looks), "each look read every account's"
    assert len(looks) <= elapsed / notifications.invitations_every + 1, (
        "one look an interval, not one a stream"
    )
    assert invitations_told(streams[4]) == [("invited", game.game_id)]
    assert invitations_told(streams[5]) == [("tournament_invited", "shared-invitations-cup")]
    assert all(invitations_told(stream) == [] for stream in streams[:4]), "each stream is told its own only"
    assert notifications.looker is None, "the looker is forgotten once no stream follows"
    assert looker.task is not None
    await asyncio.wait([looker.task], timeout=10)  # cancelled, it may be awaiting a query
    assert looker.task.done(), "the cancelled looker finishes"


async def test_a_failed_look_at_invitations_ends_every_stream_and_the_next_stream_starts_a_new_looker(
    pool: asyncpg.Pool,
) -> None:
    accounts = AccountService(PostgresAccounts(pool))
    notifications = Notifications(
        pool, GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games(), accounts=accounts)
    )
    notifications.invitations_every = 0.1
    counted = CountingInvitations(notifications)
    streams = [Stream(notifications, (await accounts.create(f"unlooked-{n}"))[0]) for n in range(2)]
    for stream in streams:
        await stream.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
    failed = notifications.looker
    counted.failure = StoreUnavailable("the database is away")
    async with asyncio.timeout(WAIT):  # the next look fails
        outcomes = await asyncio.gather(*(stream.task for stream in streams), return_exceptions=True)
    assert all(outcome is counted.failure for outcome in outcomes), outcomes
    assert failed is not None and failed.task is not None and failed.task.done()
    counted.failure = None
    again = Stream(notifications, streams[0].account)
    try:
        await again.until(lambda s: any(m.kind == "keepalive" for m in s.messages))
        await counted.until_looks(len(counted.looks) + 1)
        assert notifications.looker is not None and notifications.looker is not failed
        assert notifications.looker.running
    finally:
        again.task.cancel()
        await asyncio.gather(again.task, return_exceptions=True)
