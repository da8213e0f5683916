"""The event store's contract (eventstore/protocol.py), run against the in-memory twin and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from eventstore import (
    GENESIS_HASH,
    ChainLink,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    FeedPosition,
    IdempotencyMismatch,
    InMemoryEventStore,
    NewEvent,
    PostgresEventStore,
    StreamExists,
    StreamNotFound,
    Upcasters,
    event_hash,
    header_of,
)

StoreFactory = Callable[[Upcasters | None], EventStore]


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.db)])
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    """Builds a store of one implementation (both share one database per test session)."""
    if request.param == "memory":
        return lambda upcasters=None: InMemoryEventStore(upcasters)
    pool = request.getfixturevalue("pool")
    return lambda upcasters=None: PostgresEventStore(pool, upcasters)


@pytest.fixture
def store(make_store: StoreFactory) -> EventStore:
    """A store without upcasters."""
    return make_store(None)


def new_id(prefix: str = "s") -> str:
    """A stream id no other test uses (the database lives for the whole session)."""
    return f"{prefix}-{uuid.uuid4()}"


def event(n: int = 0, type_: str = "thing_happened", schema_version: int = 1, **body: Any) -> NewEvent:
    """An event whose body is ``{"n": n, **body}``."""
    return NewEvent(type=type_, schema_version=schema_version, data=msgspec.json.encode({"n": n, **body}))


def command(
    command_id: str = "c1", request_hash: str = "h1", response: bytes = b'{"ok":true}'
) -> CommandRecord:
    """A command record."""
    return CommandRecord(command_id=command_id, request_hash=request_hash, response=response)


async def feed_end(store: EventStore) -> FeedPosition | None:
    """The checkpoint after everything the feed shows now."""
    checkpoint = None
    while page := await store.read_all(checkpoint, limit=10_000):
        checkpoint = page[-1][0]
    return checkpoint


# Creating streams


async def test_create_stream_records_versions_one_to_n(store: EventStore) -> None:
    stream = new_id()
    result = await store.create_stream(
        stream, "basari", [event(1), event(2), event(3)], metadata={"seats": 3}
    )
    assert result.version == 3 and result.replayed is None
    assert [e.version for e in result.events] == [1, 2, 3]
    read = await store.read_stream(stream)
    assert read == result.events
    assert [msgspec.json.decode(e.data) for e in read] == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert all(e.stream_id == stream and e.type == "thing_happened" and e.schema_version == 1 for e in read)
    assert read[0].position < read[1].position < read[2].position
    info = await store.stream_info(stream)
    assert info is not None
    assert (info.category, info.version, info.status, info.metadata) == ("basari", 3, "active", {"seats": 3})
    assert info.created_at <= info.updated_at


async def test_create_stream_without_events(store: EventStore) -> None:
    stream = new_id()
    result = await store.create_stream(stream, "bazaar", [], status="open")
    assert (result.version, result.events) == (0, [])
    info = await store.stream_info(stream)
    assert info is not None and (info.version, info.status, info.metadata) == (0, "open", {})
    assert (await store.append(stream, 0, [event()])).version == 1


async def test_create_stream_on_a_taken_id_is_refused(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(1)])
    with pytest.raises(StreamExists):
        await store.create_stream(stream, "johari", [event(2)])
    assert len(await store.read_stream(stream)) == 1


async def test_concurrent_creators_of_one_id_one_wins(store: EventStore) -> None:
    stream = new_id()
    outcomes = await asyncio.gather(
        *(store.create_stream(stream, "basari", [event(i)]) for i in range(5)), return_exceptions=True
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert all(isinstance(o, StreamExists) for o in outcomes if isinstance(o, BaseException))
    assert len(await store.read_stream(stream)) == 1


async def test_unknown_stream_reads_empty(store: EventStore) -> None:
    stream = new_id()
    assert await store.read_stream(stream) == []
    assert await store.stream_info(stream) is None
    assert await store.find_command(stream, "c1") is None
    with pytest.raises(StreamNotFound):
        await store.verify_chain(stream)


async def test_event_bodies_must_be_json(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [])
    with pytest.raises(ValueError):
        await store.append(stream, 0, [NewEvent(type="x", schema_version=1, data=b"{not json")])
    with pytest.raises(ValueError):
        await store.create_stream(new_id(), "basari", [NewEvent(type="x", schema_version=1, data=b"\xff")])
    assert await store.read_stream(stream) == []


# Optimistic concurrency


async def test_append_to_a_missing_stream_is_refused(store: EventStore) -> None:
    with pytest.raises(StreamNotFound):
        await store.append(new_id(), 0, [event()])


async def test_stale_writer_gets_a_conflict_and_writes_nothing(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(1), event(2)])
    with pytest.raises(ConcurrencyConflict) as conflict:
        await store.append(stream, 1, [event(3)], command=command("late"), status="finished")
    assert (conflict.value.stream_id, conflict.value.expected, conflict.value.actual) == (stream, 1, 2)
    assert len(await store.read_stream(stream)) == 2
    assert await store.find_command(stream, "late") is None
    info = await store.stream_info(stream)
    assert info is not None and (info.version, info.status) == (2, "active")
    with pytest.raises(ConcurrencyConflict):
        await store.append(stream, 3, [event(3)])  # ahead of the stream is stale too


async def test_two_concurrent_writers_one_wins_the_loser_writes_nothing(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(0)])
    first, second = await asyncio.gather(
        store.append(stream, 1, [event(1, writer="a"), event(2, writer="a")]),
        store.append(stream, 1, [event(1, writer="b")]),
        return_exceptions=True,
    )
    outcomes = [first, second]
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], ConcurrencyConflict) and losers[0].actual == winners[0].version
    stored = await store.read_stream(stream, after=1)
    assert stored == winners[0].events
    assert len({msgspec.json.decode(e.data)["writer"] for e in stored}) == 1


async def test_writers_retrying_on_conflict_leave_versions_without_gaps(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [])
    writers, appends_each = 8, 5

    async def writer(name: int) -> int:
        conflicts = 0
        for i in range(appends_each):
            while True:
                info = await store.stream_info(stream)
                assert info is not None
                try:
                    await store.append(stream, info.version, [event(i, writer=name)])
                    break
                except ConcurrencyConflict:
                    conflicts += 1
        return conflicts

    await asyncio.gather(*(writer(w) for w in range(writers)))
    stored = await store.read_stream(stream)
    assert [e.version for e in stored] == list(range(1, writers * appends_each + 1))
    assert sorted(msgspec.json.decode(e.data)["writer"] for e in stored) == sorted(
        w for w in range(writers) for _ in range(appends_each)
    )
    assert (await store.verify_chain(stream)).ok


# Idempotent commands


# One event and several take different paths in the PostgreSQL store: both must keep the contract.
EVENT_COUNTS = pytest.mark.parametrize("count", [1, 3], ids=["one_event", "three_events"])


@EVENT_COUNTS
async def test_retried_command_returns_the_first_answer_and_appends_nothing(
    store: EventStore, count: int
) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(0)])
    record = command("cmd-1", "hash-1", b'{"moved": 1}')
    batch = [event(i) for i in range(count)]
    first = await store.append(stream, 1, batch, command=record)
    assert first.replayed is None and first.version == 1 + count
    assert all(e.command_id == "cmd-1" for e in first.events)
    # The retry still carries the expected version it was first sent with: it is answered, not refused.
    retry = await store.append(stream, 1, batch, command=record, status="finished")
    assert retry.replayed == record and retry.events == [] and retry.version == 1 + count
    # A client that refreshed the version before retrying is answered the same way.
    again = await store.append(stream, 1 + count, batch, command=record)
    assert again.replayed == record and again.events == [] and again.version == 1 + count
    assert len(await store.read_stream(stream)) == 1 + count
    assert await store.find_command(stream, "cmd-1") == record
    info = await store.stream_info(stream)
    assert info is not None and (info.status, info.version) == ("active", 1 + count)


@EVENT_COUNTS
async def test_reused_command_id_with_another_request_is_refused(store: EventStore, count: int) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [])
    await store.append(stream, 0, [event(1)], command=command("cmd-1", "hash-1"))
    batch = [event(i) for i in range(count)]
    with pytest.raises(IdempotencyMismatch):
        await store.append(stream, 0, batch, command=command("cmd-1", "hash-2"))
    with pytest.raises(IdempotencyMismatch):
        await store.append(stream, 1, batch, command=command("cmd-1", "hash-2"))
    assert len(await store.read_stream(stream)) == 1
    assert await store.find_command(stream, "cmd-1") == command("cmd-1", "hash-1")


@EVENT_COUNTS
async def test_concurrent_twins_of_one_command_one_appends_the_other_is_replayed(
    store: EventStore, count: int
) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(0)])
    record = command("twin", "hash-twin", b"first")
    batch = [event(i) for i in range(count)]
    results = await asyncio.gather(*(store.append(stream, 1, batch, command=record) for _ in range(4)))
    appended = [r for r in results if r.replayed is None]
    assert len(appended) == 1 and len(appended[0].events) == count
    assert all(
        r.replayed == record and r.events == [] and r.version == 1 + count for r in results if r.replayed
    )
    assert [e.version for e in await store.read_stream(stream)] == list(range(1, count + 2))


async def test_a_refused_append_stores_no_command(store: EventStore) -> None:
    stream = new_id()
    with pytest.raises(StreamNotFound):
        await store.append(stream, 0, [event()], command=command("lost"))
    await store.create_stream(stream, "basari", [event()])
    for batch in ([event()], [event(), event()], []):
        with pytest.raises(ConcurrencyConflict):
            await store.append(stream, 0, batch, command=command("lost"))
    assert await store.find_command(stream, "lost") is None
    # The id is still free for the command once it is sent at the right version.
    assert (await store.append(stream, 1, [event()], command=command("lost"))).replayed is None


async def test_command_ids_are_scoped_to_their_stream(store: EventStore) -> None:
    one, two = new_id(), new_id()
    await store.create_stream(one, "basari", [])
    await store.create_stream(two, "basari", [])
    assert (await store.append(one, 0, [event()], command=command("same", "h-one"))).replayed is None
    assert (await store.append(two, 0, [event()], command=command("same", "h-two"))).replayed is None
    assert await store.find_command(one, "same") == command("same", "h-one")
    assert await store.find_command(two, "same") == command("same", "h-two")


async def test_a_command_without_events_is_still_remembered(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event()])
    record = command("noop", "h", b"nothing to do")
    assert (await store.append(stream, 1, [], command=record)).version == 1
    again = await store.append(stream, 0, [], command=record)
    assert again.replayed == record and again.version == 1


# Stream metadata and listing


async def test_append_updates_status_and_version(store: EventStore) -> None:
    stream = new_id()
    created = await store.create_stream(stream, "basari", [event()])
    before = await store.stream_info(stream)
    await asyncio.sleep(0.002)
    result = await store.append(stream, created.version, [event(2)], status="finished")
    after = await store.stream_info(stream)
    assert before is not None and after is not None
    assert (after.version, after.status, after.created_at) == (result.version, "finished", before.created_at)
    assert after.updated_at > before.updated_at
    await store.append(stream, 2, [event(3)])
    info = await store.stream_info(stream)
    assert info is not None and info.status == "finished"


async def test_list_streams_newest_first_with_filters_and_cursor(store: EventStore) -> None:
    category = new_id("game")
    made = []
    for i in range(5):
        stream = new_id()
        metadata = {"tournament": "t1" if i % 2 == 0 else "t2", "players": [f"p{i}", "ann"], "round": i}
        await store.create_stream(stream, category, [event(i)], metadata=metadata)
        made.append(stream)
        await asyncio.sleep(0.002)
    await store.append(made[1], 1, [], status="finished")
    await store.append(made[3], 1, [], status="finished")

    listed = await store.list_streams(category=category)
    assert [s.stream_id for s in listed] == made[::-1]
    assert [(s.created_at, s.stream_id) for s in listed] == sorted(
        ((s.created_at, s.stream_id) for s in listed), reverse=True
    )
    assert [s.stream_id for s in await store.list_streams(category=category, status="finished")] == [
        made[3],
        made[1],
    ]
    assert [
        s.stream_id
        for s in await store.list_streams(category=category, metadata_contains={"tournament": "t1"})
    ] == [made[4], made[2], made[0]]
    assert [
        s.stream_id
        for s in await store.list_streams(category=category, metadata_contains={"players": ["p2"]})
    ] == [made[2]]
    assert [
        s.stream_id
        for s in await store.list_streams(
            category=category, status="active", metadata_contains={"tournament": "t1", "players": ["ann"]}
        )
    ] == [made[4], made[2], made[0]]
    assert await store.list_streams(category=category, metadata_contains={"round": "1"}) == []
    finished_anywhere = await store.list_streams(status="finished", limit=2)
    assert 0 < len(finished_anywhere) <= 2 and all(s.status == "finished" for s in finished_anywhere)
    assert [s.stream_id for s in await store.list_streams(limit=1)] == [made[4]]  # the newest of all

    pages, cursor = [], None
    while page := await store.list_streams(category=category, before=cursor, limit=2):
        pages.append([s.stream_id for s in page])
        cursor = (page[-1].created_at, page[-1].stream_id)
    assert pages == [made[4:2:-1], made[2:0:-1], made[:1]]


# Hash chain and versioned schemas


async def test_every_event_is_chained_to_the_previous_one(store: EventStore) -> None:
    stream = new_id()
    created = await store.create_stream(stream, "basari", [event(1), event(2, type_="other_thing")])
    appended = await store.append(stream, 2, [event(3, schema_version=2)], command=command())
    previous = GENESIS_HASH
    for e in [*created.events, *appended.events]:
        assert e.hash == event_hash(previous, stream, e.version, e.type, e.schema_version, e.data)
        previous = e.hash
    check = await store.verify_chain(stream)
    assert (check.ok, check.events, check.head, check.first_bad_version) == (True, 3, previous.hex(), None)


async def test_a_keyed_stream_mixes_its_chain_key_into_every_hash(store: EventStore) -> None:
    stream, key = new_id(), b"k" * 32
    created = await store.create_stream(stream, "basari", [event(1)], chain_key=key)
    one = await store.append(stream, 1, [event(2)])  # the single-event statement (group commit)
    many = await store.append(stream, 2, [event(3), event(4)], command=command())  # several events
    previous = GENESIS_HASH
    for e in [*created.events, *one.events, *many.events]:
        assert e.hash == event_hash(previous, stream, e.version, e.type, e.schema_version, e.data, key)
        assert e.hash != event_hash(previous, stream, e.version, e.type, e.schema_version, e.data)
        previous = e.hash
    check = await store.verify_chain(stream)
    assert (check.ok, check.head) == (True, previous.hex())
    info = await store.stream_info(stream)
    assert info is not None and info.head_hash == previous


async def test_a_wrong_chain_link_never_changes_the_hashes_stored(store: EventStore) -> None:
    # The writer's link only shares the hashing (group commit); the chain follows the stored head and key.
    streams, key = [new_id() for _ in range(9)], b"k" * 32
    heads = [
        (await store.create_stream(stream, "basari", [event(0)], chain_key=key)).events[0].hash
        for stream in streams
    ]
    links = [
        ChainLink(head=head, key=key)
        if i % 3 == 0
        else ChainLink(head=GENESIS_HASH, key=key)  # a stale head
        if i % 3 == 1
        else ChainLink(head=head)  # no key: the hash an unkeyed chain would have
        for i, head in enumerate(heads)
    ]
    results = await asyncio.gather(
        *(
            store.append(stream, 1, [event(1), event(2)], link=link)
            for stream, link in zip(streams, links, strict=True)
        )
    )
    for stream, head, result in zip(streams, heads, results, strict=True):
        previous = head
        for e in result.events:
            assert e.hash == event_hash(previous, stream, e.version, e.type, e.schema_version, e.data, key)
            previous = e.hash
        assert [e.hash for e in await store.read_stream(stream, after=1)] == [e.hash for e in result.events]
        info = await store.stream_info(stream)
        assert info is not None and info.head_hash == previous
        assert (await store.verify_chain(stream)).ok


async def test_the_cause_of_an_append_is_kept_on_its_first_event(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(1)])
    await store.append(stream, 1, [event(2), event(3)], cause=b'{"seat":0}')
    await store.append(stream, 3, [event(4)], cause=b'{"seat":1}', command=command())
    await store.append(stream, 4, [event(5)], cause=b'{"seat":2}')
    await asyncio.gather(
        *(store.append(stream, 5, [event(6)], cause=b"x") for _ in range(3)), return_exceptions=True
    )
    causes = [e.cause for e in await store.read_stream(stream)]
    assert causes == [None, b'{"seat":0}', None, b'{"seat":1}', b'{"seat":2}', b"x"]
    fed = [e.cause for _, e in await store.read_all(limit=100_000) if e.stream_id == stream]
    assert fed == causes


async def test_concurrent_appends_to_many_streams_keep_their_causes(store: EventStore) -> None:
    streams = [new_id() for _ in range(12)]
    links = [
        ChainLink(head=(await store.create_stream(stream, "basari", [event(0)])).events[0].hash)
        for stream in streams
    ]
    await asyncio.gather(
        *(
            store.append(stream, 1, [event(1), event(2)], cause=stream.encode(), link=link)
            for stream, link in zip(streams, links, strict=True)
        )
    )
    for stream in streams:
        assert [e.cause for e in await store.read_stream(stream)] == [None, stream.encode(), None]
        assert (await store.verify_chain(stream)).ok


async def test_empty_stream_chain_is_the_genesis(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [])
    check = await store.verify_chain(stream)
    assert (check.ok, check.events, check.head) == (True, 0, GENESIS_HASH.hex())


def _rename_title(body: dict[str, Any]) -> dict[str, Any]:
    """relic_found v1 -> v2: ``title`` was renamed ``name``."""
    body = dict(body)
    body["name"] = body.pop("title")
    return body


def _add_colour(body: dict[str, Any]) -> dict[str, Any]:
    """relic_found v2 -> v3: ``colour`` added, defaulting to grey."""
    return {**body, "colour": "grey"}


# A type of its own: the session's database holds other tests' events, and the feed upcasts them all.
UPCASTERS: Upcasters = {("relic_found", 1): _rename_title, ("relic_found", 2): _add_colour}


async def test_old_events_are_upcast_on_read_and_never_rewritten(make_store: StoreFactory) -> None:
    store = make_store(UPCASTERS)
    stream = new_id()
    start = await feed_end(store)
    v1 = NewEvent(type="relic_found", schema_version=1, data=b'{"title": "ruby", "n": 1}')
    v2 = NewEvent(type="relic_found", schema_version=2, data=b'{"name": "jade", "n": 2}')
    v3 = NewEvent(type="relic_found", schema_version=3, data=b'{"name":"gold","n":3,"colour":"red"}')
    unrelated = NewEvent(type="other_thing", schema_version=1, data=b'{"title": "kept"}')
    created = await store.create_stream(stream, "basari", [v1, v2, v3, unrelated])

    read = await store.read_stream(stream)
    assert read == created.events
    assert [(e.type, e.schema_version) for e in read] == [
        ("relic_found", 3),
        ("relic_found", 3),
        ("relic_found", 3),
        ("other_thing", 1),
    ]
    assert [msgspec.json.decode(e.data) for e in read] == [
        {"name": "ruby", "n": 1, "colour": "grey"},
        {"name": "jade", "n": 2, "colour": "grey"},
        {"name": "gold", "n": 3, "colour": "red"},
        {"title": "kept"},
    ]
    assert (
        read[2].data == v3.data and read[3].data == unrelated.data
    )  # current bodies come back byte for byte
    # The hash still covers the stored (old) bytes, and the chain still verifies.
    assert read[0].hash == event_hash(GENESIS_HASH, stream, 1, "relic_found", 1, v1.data)
    assert (await store.verify_chain(stream)).ok
    assert [e for _, e in await store.read_all(start) if e.stream_id == stream] == read
    # As stored: the old schema versions and the exact bytes the hashes chain (what an export carries).
    stored = await store.read_stream(stream, as_stored=True)
    assert [(e.schema_version, e.data) for e in stored] == [
        (v.schema_version, v.data) for v in (v1, v2, v3, unrelated)
    ]
    assert [e.hash for e in stored] == [e.hash for e in read]


# Reading


async def test_read_bodies_is_read_stream_as_one_array(make_store: StoreFactory) -> None:
    relic = NewEvent(type="relic_found", schema_version=1, data=b'{"title": "ruby", "n": 6}')
    for upcasters in (None, UPCASTERS):
        store = make_store(upcasters)
        stream = new_id()
        await store.create_stream(stream, "basari", [event(i) for i in range(1, 6)] + [relic])
        for after in (0, 2, 5):
            read = await store.read_stream(stream, after=after)
            bodies = await store.read_bodies(stream, after=after)
            assert bodies is not None
            assert bodies.array == b"[" + b",".join(e.data for e in read) + b"]"  # upcast, else byte for byte
            assert (bodies.version, bodies.head) == (read[-1].version, read[-1].hash)
        assert msgspec.json.decode(bodies.array)[-1]["name" if upcasters else "title"] == "ruby"
        assert await store.read_bodies(stream, after=6) is None
        assert await store.read_bodies(new_id()) is None


async def test_read_stream_windows(store: EventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(i) for i in range(1, 11)])

    async def versions(**window: Any) -> list[int]:
        return [e.version for e in await store.read_stream(stream, **window)]

    assert await versions() == list(range(1, 11))
    assert await versions(after=7) == [8, 9, 10]
    assert await versions(after=2, limit=3) == [3, 4, 5]
    assert await versions(until=4) == [1, 2, 3, 4]
    assert await versions(after=4, until=6) == [5, 6]
    assert await versions(after=6, until=4) == []
    assert await versions(after=10) == []
    assert await versions(limit=0) == []


async def test_feed_returns_each_event_once_in_order(store: EventStore) -> None:
    start = await feed_end(store)
    one, two = new_id(), new_id()
    await store.create_stream(one, "basari", [event(1), event(2)])
    await store.create_stream(two, "bazaar", [event(1)])
    await store.append(one, 2, [event(3)])
    feed = await store.read_all(start)
    ours = [(at, e) for at, e in feed if e.stream_id in (one, two)]
    assert [(e.stream_id, e.version) for _, e in ours] == [(one, 1), (one, 2), (two, 1), (one, 3)]
    assert [at for at, _ in ours] == sorted(at for at, _ in ours)
    assert all(at.position == e.position for at, e in ours)
    assert ours[-1][1] == (await store.read_stream(one))[-1]
    # Paging one event at a time gives the same sequence.
    paged, checkpoint = [], start
    while page := await store.read_all(checkpoint, limit=1):
        paged.extend(page)
        checkpoint = page[-1][0]
    assert [x for x in paged if x[1].stream_id in (one, two)] == ours
    assert await store.read_all(checkpoint) == []


async def test_feed_headers_are_the_feed_without_bodies(make_store: StoreFactory) -> None:
    """``read_all_headers`` gives ``read_all``'s events at the same positions, in the same order, from any
    checkpoint and a page at a time: each one's stream, version, position, type, hash and time."""
    store = make_store(UPCASTERS)  # upcasting changes bodies only: the headers are the same
    start = await feed_end(store)
    one, two = new_id(), new_id()
    relic = NewEvent(type="relic_found", schema_version=1, data=b'{"title": "ruby", "n": 6}')
    await store.create_stream(one, "basari", [event(1), relic])
    await store.create_stream(two, "bazaar", [event(1)])
    await store.append(one, 2, [event(3)], cause=b'{"command": "move"}')
    feed = await store.read_all(start)
    headers = await store.read_all_headers(start)
    assert len(feed) >= 4 and len(headers) == len(feed)
    assert headers == [(at, header_of(e)) for at, e in feed]
    ours = [h for _, h in headers if h.stream_id in (one, two)]
    assert [(h.stream_id, h.version, h.type) for h in ours] == [
        (one, 1, "thing_happened"),
        (one, 2, "relic_found"),
        (two, 1, "thing_happened"),
        (one, 3, "thing_happened"),
    ]
    stored = await store.read_stream(one)
    assert [(h.position, h.hash, h.recorded_at) for h in ours if h.stream_id == one] == [
        (e.position, e.hash, e.recorded_at) for e in stored
    ]
    paged, checkpoint = [], start
    while page := await store.read_all_headers(checkpoint, limit=2):
        paged.extend(page)
        checkpoint = page[-1][0]
    assert paged[: len(headers)] == headers
    assert await store.read_all_headers(checkpoint) == []
    assert await store.read_all_headers(feed[1][0], limit=2) == headers[2:4]


async def test_concurrent_writers_and_a_paging_reader_see_every_event_once(store: EventStore) -> None:
    start = await feed_end(store)
    streams = [new_id() for _ in range(6)]
    for stream in streams:
        await store.create_stream(stream, "basari", [])
    appends = 10
    expected = {(s, v) for s in streams for v in range(1, appends + 1)}
    seen: list[tuple[FeedPosition, str, int]] = []
    done = asyncio.Event()

    async def writer(stream: str) -> None:
        for version in range(appends):
            await store.append(stream, version, [event(version)])
            await asyncio.sleep(0)

    async def reader() -> None:
        checkpoint = start
        while True:
            finished = done.is_set()
            page = await store.read_all(checkpoint, limit=3)
            seen.extend((at, e.stream_id, e.version) for at, e in page if e.stream_id in streams)
            if page:
                checkpoint = page[-1][0]
            elif finished and len(seen) >= len(expected):
                # An empty page alone does not mean the end: the feed shows nothing past the oldest running
                # transaction, which may be anybody's (the servers' projectors share this database).
                return
            else:
                await asyncio.sleep(0.001)

    reading = asyncio.create_task(reader())
    await asyncio.gather(*(writer(s) for s in streams))
    done.set()
    await asyncio.wait_for(reading, timeout=30)
    assert len(seen) == len(expected) and {(s, v) for _, s, v in seen} == expected
    positions = [at for at, _, _ in seen]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    for stream in streams:  # each stream's events come in version order
        assert [v for _, s, v in seen if s == stream] == list(range(1, appends + 1))
