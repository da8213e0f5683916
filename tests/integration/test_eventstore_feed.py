"""Live readers of the store (docs/decisions/0006-read-models.md): subscriptions to the global feed and
per-stream watches, run against the in-memory twin and PostgreSQL; cross-process wake-ups and lost
notifications on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import asyncpg
import pytest

from eventstore import (
    EventStore,
    FeedPosition,
    InMemoryEventStore,
    PostgresEventStore,
    RecordedEvent,
)
from eventstore.pgnotify import EVERYTHING, payloads
from tests.integration.test_eventstore_contract import event, feed_end, new_id

# Long enough that an event arriving within a test's wait was delivered by a wake-up, not by polling.
NEVER_POLL = 600.0
WAIT = 10.0  # how long a test waits for something that should come at once before it fails


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.db)])
def unstarted_store(request: pytest.FixtureRequest) -> EventStore:
    """A store of one implementation (PostgreSQL: on the session's pool)."""
    if request.param == "memory":
        return InMemoryEventStore()
    return PostgresEventStore(request.getfixturevalue("pool"))


@pytest.fixture
async def store(unstarted_store: EventStore) -> AsyncIterator[EventStore]:
    """The store, started (PostgreSQL: listening)."""
    await unstarted_store.start()
    yield unstarted_store
    await unstarted_store.stop()


async def take(
    feed: AsyncIterator[tuple[FeedPosition, RecordedEvent]], count: int
) -> list[tuple[FeedPosition, RecordedEvent]]:
    """The next ``count`` items of a subscription (fails if they do not come within WAIT seconds)."""
    taken: list[tuple[FeedPosition, RecordedEvent]] = []
    async with asyncio.timeout(WAIT):
        while len(taken) < count:
            taken.append(await anext(feed))
    return taken


async def test_subscribe_catches_up_then_follows_new_appends(store: EventStore) -> None:
    start = await feed_end(store)
    stream = new_id()
    await store.create_stream(stream, "feed", [event(1), event(2)])
    async with contextlib.aclosing(store.subscribe(start, page_size=1, poll_seconds=NEVER_POLL)) as feed:
        caught_up = await take(feed, 2)
        assert [(e.stream_id, e.version) for _, e in caught_up] == [(stream, 1), (stream, 2)]
        follower = asyncio.ensure_future(take(feed, 2))
        await asyncio.sleep(0.05)  # the subscriber is now waiting for a change
        assert not follower.done()
        await store.append(stream, 2, [event(3)])
        other = new_id()
        await store.create_stream(other, "feed", [event(4)])
        followed = await follower
    assert [(e.stream_id, e.version) for _, e in followed] == [(stream, 3), (other, 1)]
    positions = [p for p, _ in caught_up + followed]
    assert positions == sorted(positions) and len(set(positions)) == 4


async def test_subscribe_resumes_after_a_position(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "feed", [event(1), event(2), event(3)])
    everything = await store.read_all(None, limit=100_000)
    second = next(p for p, e in everything if e.stream_id == stream and e.version == 2)
    async with contextlib.aclosing(store.subscribe(second, poll_seconds=NEVER_POLL)) as feed:
        ((position, resumed),) = await take(feed, 1)
    assert (resumed.stream_id, resumed.version) == (stream, 3) and position > second


async def test_a_watch_wakes_for_its_stream_only(store: EventStore) -> None:
    watched, other = new_id(), new_id()
    await store.create_stream(watched, "feed", [event(1)])
    await store.create_stream(other, "feed", [event(1)])
    with store.watch(watched) as changes, store.watch(None) as anything:
        await store.append(other, 1, [event(2)])
        assert await anything.wait(WAIT)
        assert not await changes.wait(0.05)  # another stream's append is not this stream's change
        await store.append(watched, 1, [event(2)])
        # signalled before the wait began: a change between a read and the next wait is never missed
        assert await changes.wait(WAIT)
        assert not await changes.wait(0)  # consumed


async def test_concurrent_writers_and_a_resuming_subscriber_see_every_event_once_in_feed_order(
    store: EventStore,
) -> None:
    """Eight writers append to twenty streams while a subscriber follows; it is cancelled twice mid-way and
    resumes from the last position it took: every event once, in the feed's order, none missing."""
    start = await feed_end(store)
    streams = [new_id("w") for _ in range(20)]
    for stream in streams:
        await store.create_stream(stream, "feed", [event(0)])
    appends_per_writer = 15
    rng = random.Random(5)
    written = len(streams)

    async def writer(number: int) -> None:
        nonlocal written
        mine = streams[number::8]
        versions = dict.fromkeys(mine, 1)
        for n in range(appends_per_writer):
            stream = rng.choice(mine)
            batch = [event(n, writer=number)] * rng.choice((1, 1, 2, 3))
            result = await store.append(stream, versions[stream], batch)
            versions[stream] = result.version
            written += len(batch)
            await asyncio.sleep(0)

    seen: list[tuple[FeedPosition, RecordedEvent]] = []
    checkpoint = start

    async def subscriber(stop_after: int | None) -> None:
        nonlocal checkpoint
        async with contextlib.aclosing(
            store.subscribe(checkpoint, page_size=7, poll_seconds=NEVER_POLL)
        ) as feed:
            async for position, recorded in feed:
                seen.append((position, recorded))
                checkpoint = position
                if stop_after is not None and len(seen) >= stop_after:
                    return

    writers = asyncio.gather(*(writer(n) for n in range(8)))
    await asyncio.wait_for(subscriber(stop_after=10), WAIT)  # leaves mid-way
    following = asyncio.ensure_future(subscriber(stop_after=None))
    await asyncio.sleep(0.05)
    following.cancel()  # cancelled while it waits or reads
    with contextlib.suppress(asyncio.CancelledError):
        await following
    await writers
    expected = [item async for item in _feed_after(store, start)]
    if len(seen) < len(expected):  # the rest, from the last position taken
        await asyncio.wait_for(subscriber(stop_after=len(expected)), WAIT)
    assert [(p, e.stream_id, e.version) for p, e in seen] == [
        (p, e.stream_id, e.version) for p, e in expected
    ]
    assert len(expected) == written


async def _feed_after(
    store: EventStore, after: FeedPosition | None
) -> AsyncIterator[tuple[FeedPosition, RecordedEvent]]:
    """Everything the feed holds after ``after`` now, page by page."""
    while page := await store.read_all(after, limit=1000):
        for item in page:
            yield item
        after = page[-1][0]


# PostgreSQL: other processes, lost notifications


@pytest.fixture
async def other_process(database_url: str) -> AsyncIterator[PostgresEventStore]:
    """A second store on its own pool, as another API process would have, started (it NOTIFYs)."""
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=4)
    assert pool is not None
    store = PostgresEventStore(pool)
    await store.start()
    yield store
    await store.stop()
    await pool.close()


@pytest.fixture
async def this_process(database_url: str) -> AsyncIterator[PostgresEventStore]:
    """A store on its own pool, started (it LISTENs)."""
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=4)
    assert pool is not None
    store = PostgresEventStore(pool)
    await store.start()
    yield store
    await store.stop()
    await pool.close()


@pytest.mark.db
async def test_another_process_append_wakes_watchers_and_subscribers(
    this_process: PostgresEventStore, other_process: PostgresEventStore
) -> None:
    stream = new_id()
    start = await feed_end(this_process)
    async with contextlib.aclosing(this_process.subscribe(start, poll_seconds=NEVER_POLL)) as feed:
        following = asyncio.ensure_future(take(feed, 2))
        await other_process.create_stream(stream, "feed", [event(1)])
        with this_process.watch(stream) as changes:
            await other_process.append(stream, 1, [event(2)])
            assert await changes.wait(WAIT)
        followed = await following
    assert [(e.stream_id, e.version) for _, e in followed] == [(stream, 1), (stream, 2)]


@pytest.mark.db
async def test_a_killed_listener_reconnects_and_loses_no_event(
    this_process: PostgresEventStore, other_process: PostgresEventStore, pool: asyncpg.Pool
) -> None:
    """The LISTEN connection is terminated while appends happen elsewhere: the subscriber still gets
    every event (the reconnection wakes it, and it re-reads from its position), and later NOTIFYs arrive."""
    stream = new_id()
    start = await feed_end(this_process)
    async with contextlib.aclosing(this_process.subscribe(start, poll_seconds=NEVER_POLL)) as feed:
        await other_process.create_stream(stream, "feed", [event(1)])
        assert [e.version for _, e in await take(feed, 1)] == [1]
        waiting = asyncio.ensure_future(take(feed, 3))
        first_pid = this_process.relay.pid
        assert first_pid is not None
        await pool.execute("SELECT pg_terminate_backend($1)", first_pid)
        # written while nobody in this process listens: these NOTIFYs are lost to it
        await other_process.append(stream, 1, [event(2)])
        await other_process.append(stream, 2, [event(3)])
        async with asyncio.timeout(WAIT):
            while this_process.relay.pid in (None, first_pid):
                await asyncio.sleep(0.02)
        await other_process.append(stream, 3, [event(4)])
        followed = await waiting
    assert [e.version for _, e in followed] == [2, 3, 4]


@pytest.mark.db
async def test_without_notifications_subscribers_still_get_everything_by_polling(
    database_url: str, other_process: PostgresEventStore
) -> None:
    """A store that never LISTENs (not started) hears nothing from other processes, yet loses nothing."""
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    assert pool is not None
    deaf = PostgresEventStore(pool)
    try:
        stream = new_id()
        start = await feed_end(deaf)
        async with contextlib.aclosing(deaf.subscribe(start, poll_seconds=0.05)) as feed:
            following = asyncio.ensure_future(take(feed, 3))
            await other_process.create_stream(stream, "feed", [event(1), event(2)])
            await other_process.append(stream, 2, [event(3)])
            followed = await following
        assert [(e.stream_id, e.version) for _, e in followed] == [(stream, 1), (stream, 2), (stream, 3)]
    finally:
        await pool.close()


def test_notify_payloads_name_every_stream_within_the_size_limit() -> None:
    streams = {new_id() for _ in range(600)}
    sent = payloads(streams)
    assert len(sent) > 1 and all(len(payload.encode()) < 8000 for payload in sent)
    assert {s for payload in sent for s in payload.split("\n")} == streams
    assert payloads({"a", "b\nc"}) == [EVERYTHING]  # a name the format cannot carry wakes everybody
