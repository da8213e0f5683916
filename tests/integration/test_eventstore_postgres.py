"""What only PostgreSQL shows: triggers, stored hashes, tampering, the feed under a late commit, outages."""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from eventstore import (
    GENESIS_HASH,
    AppendResult,
    ChainLink,
    CommandRecord,
    ConcurrencyConflict,
    FeedPosition,
    NewEvent,
    PostgresEventStore,
    StoreUnavailable,
    StreamNotFound,
    event_hash,
    is_unavailable,
)

pytestmark = pytest.mark.db


@pytest.fixture
def store(pool: asyncpg.Pool) -> PostgresEventStore:
    """The PostgreSQL store on the session's database, as the service's role."""
    return PostgresEventStore(pool)


def new_id() -> str:
    """A stream id no other test uses."""
    return f"pg-{uuid.uuid4()}"


def event(n: int, type_: str = "thing_happened") -> NewEvent:
    """An event with body ``{"n": n}``."""
    return NewEvent(type=type_, schema_version=1, data=msgspec.json.encode({"n": n}))


async def created(store: PostgresEventStore, stream: str, events: list[NewEvent]) -> ChainLink:
    """Create ``stream`` (unkeyed) with ``events``: the link an append after them follows."""
    result = await store.create_stream(stream, "basari", events)
    return ChainLink(head=result.events[-1].hash if result.events else GENESIS_HASH)


async def feed_end(store: PostgresEventStore) -> FeedPosition | None:
    """The checkpoint after everything the feed shows now."""
    checkpoint = None
    while page := await store.read_all(checkpoint, limit=10_000):
        checkpoint = page[-1][0]
    return checkpoint


# Append-only


@pytest.mark.parametrize(
    ("table", "statement"),
    [
        (table, statement)
        for table in ("events", "commands")
        for statement in (
            "UPDATE {table} SET stream_id = stream_id WHERE stream_id = $1",
            "DELETE FROM {table} WHERE stream_id = $1",
            "TRUNCATE {table}",
        )
    ]
    # Stream rows are updated by every append, but never deleted: their events would be orphaned.
    + [("streams", "DELETE FROM {table} WHERE stream_id = $1"), ("streams", "TRUNCATE {table}")],
    ids=lambda value: value.split()[0].lower() if " " in value else value,
)
async def test_stored_rows_cannot_be_changed(
    superuser_pool: asyncpg.Pool, store: PostgresEventStore, table: str, statement: str
) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [])
    await store.append(
        stream, 0, [event(1)], command=CommandRecord(command_id="c", request_hash="h", response=b"r")
    )
    sql = statement.format(table=table)
    args = [stream] if "$1" in sql else []
    with pytest.raises(asyncpg.PostgresError, match="append-only") as refused:
        await superuser_pool.execute(sql, *args)
    assert refused.value.sqlstate == "ES405"
    assert await superuser_pool.fetchval(f"SELECT count(*) FROM {table} WHERE stream_id = $1", stream) == 1


# Hashes computed by the database (es_append and the plain append statements)


async def test_database_hashes_agree_with_event_hash(
    superuser_pool: asyncpg.Pool, store: PostgresEventStore
) -> None:
    stream = new_id()
    body = '{"name": "Zoë", "emoji": "\U0001f48e", "spaces":  [1, 2]}'.encode()
    await store.create_stream(stream, "basari", [NewEvent(type="ünïcode", schema_version=7, data=body)])
    await store.append(stream, 1, [event(2), event(3, "other")])  # the several-event statement
    await store.append(stream, 3, [event(4)])  # the single-event statement
    rows = await superuser_pool.fetch(
        "SELECT version, type, schema_version, data::text, hash FROM events"
        " WHERE stream_id = $1 ORDER BY version",
        stream,
    )
    assert rows[0]["data"].encode() == body  # the json column keeps the exact text
    previous = GENESIS_HASH
    for row in rows:
        previous = event_hash(
            previous, stream, row["version"], row["type"], row["schema_version"], row["data"].encode()
        )
        assert row["hash"] == previous
    head = await superuser_pool.fetchval("SELECT head_hash FROM streams WHERE stream_id = $1", stream)
    assert head == previous


# Tamper evidence


async def _tamper(superuser_pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """Run ``sql`` behind the store's back: as superuser, with the append-only triggers switched off."""
    async with superuser_pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL session_replication_role = replica")
        await connection.execute(sql, *args)


async def test_a_changed_body_is_found_with_its_version(
    superuser_pool: asyncpg.Pool, store: PostgresEventStore
) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(i) for i in range(1, 6)])
    assert (await store.verify_chain(stream)).ok
    await _tamper(
        superuser_pool,
        """UPDATE events SET data = '{"n": 300}' WHERE stream_id = $1 AND version = 3""",
        stream,
    )
    check = await store.verify_chain(stream)
    assert (check.ok, check.first_bad_version, check.events) == (False, 3, 5)
    assert "3" in check.detail


async def test_a_changed_header_is_found(superuser_pool: asyncpg.Pool, store: PostgresEventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(i) for i in range(1, 4)])
    await _tamper(
        superuser_pool, "UPDATE events SET type = 'forged' WHERE stream_id = $1 AND version = 2", stream
    )
    check = await store.verify_chain(stream)
    assert (check.ok, check.first_bad_version) == (False, 2)


async def test_a_deleted_event_is_found(superuser_pool: asyncpg.Pool, store: PostgresEventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(i) for i in range(1, 5)])
    # The other way round the trigger: disable it, delete, enable it again, all in one transaction.
    async with superuser_pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_no_update_delete")
        await connection.execute("DELETE FROM events WHERE stream_id = $1 AND version = 2", stream)
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_no_update_delete")
    check = await store.verify_chain(stream)
    assert (check.ok, check.first_bad_version) == (False, 2)
    with pytest.raises(asyncpg.PostgresError, match="append-only"):  # the trigger is back
        await superuser_pool.execute("DELETE FROM events WHERE stream_id = $1", stream)


async def test_a_dropped_tail_is_found(superuser_pool: asyncpg.Pool, store: PostgresEventStore) -> None:
    stream = new_id()
    await store.create_stream(stream, "basari", [event(i) for i in range(1, 4)])
    await _tamper(superuser_pool, "DELETE FROM events WHERE stream_id = $1 AND version = 3", stream)
    check = await store.verify_chain(stream)
    assert (check.ok, check.first_bad_version, check.events) == (False, 3, 2)


# Versioned schemas: the stored row stays as written


async def test_upcasting_never_rewrites_the_stored_row(superuser_pool: asyncpg.Pool) -> None:
    stream = new_id()
    old = b'{"title": "ruby"}'
    plain = PostgresEventStore(superuser_pool)
    await plain.create_stream(stream, "basari", [NewEvent(type="relic_found", schema_version=1, data=old)])

    def rename(body: dict[str, object]) -> dict[str, object]:
        return {"name": body["title"]}

    upcasting = PostgresEventStore(superuser_pool, {("relic_found", 1): rename})
    [read] = await upcasting.read_stream(stream)
    assert (read.schema_version, msgspec.json.decode(read.data)) == (2, {"name": "ruby"})
    row = await superuser_pool.fetchrow(
        "SELECT schema_version, data::text FROM events WHERE stream_id = $1", stream
    )
    assert (row["schema_version"], row["data"].encode()) == (1, old)
    [raw] = await plain.read_stream(stream)
    assert (raw.schema_version, raw.data) == (1, old)
    assert (await upcasting.verify_chain(stream)).ok


# Group commit: concurrent appends of one process go to the database together


async def test_concurrent_appends_each_get_their_own_answer(store: PostgresEventStore) -> None:
    contested, alone = [new_id() for _ in range(6)], [new_id() for _ in range(6)]
    links = {stream: await created(store, stream, [event(0)]) for stream in contested + alone}
    appends = (
        [(stream, 1, [event(1)], None) for stream in contested]
        + [(stream, 1, [event(10), event(11)], None) for stream in contested]
        + [(stream, 1, [event(1), event(2)], "finished" if i % 2 else None) for i, stream in enumerate(alone)]
        + [(alone[0], 0, [event(99)], None), (new_id(), 0, [event(1)], None)]  # stale; no such stream
    )
    outcomes = await asyncio.gather(
        *(
            store.append(stream, expected, events, status=status, link=links.get(stream, ChainLink(head=b"")))
            for stream, expected, events, status in appends
        ),
        return_exceptions=True,
    )
    by_stream: dict[str, list[tuple[list[NewEvent], object]]] = {}
    for (stream, _, events, _), outcome in zip(appends, outcomes, strict=True):
        by_stream.setdefault(stream, []).append((events, outcome))
    assert isinstance(outcomes[-2], ConcurrencyConflict) and outcomes[-2].actual == 3
    assert isinstance(outcomes[-1], StreamNotFound)
    for stream in contested + alone:
        tries = by_stream[stream][:2] if stream in contested else by_stream[stream][:1]
        won = [(events, outcome) for events, outcome in tries if isinstance(outcome, AppendResult)]
        lost = [outcome for _, outcome in tries if not isinstance(outcome, AppendResult)]
        assert len(won) == 1 and all(isinstance(outcome, ConcurrencyConflict) for outcome in lost)
        events, result = won[0]
        assert isinstance(result, AppendResult)
        stored = await store.read_stream(stream)
        assert [e.data for e in stored] == [event(0).data] + [e.data for e in events]
        assert result.version == len(stored) and result.events == stored[1:]
        assert (await store.verify_chain(stream)).ok
    statuses = {stream: (await store.stream_info(stream)) for stream in alone}
    assert [info.status if info else None for info in statuses.values()] == ["active", "finished"] * 3
    # Appended in one transaction: the feed shows the appends to several streams under one id.
    feed = await store.read_all(limit=10_000)
    transactions = {at.tx for at, e in feed if e.stream_id in alone and e.version == 2}
    assert len(transactions) < len(alone)


async def test_a_bad_append_among_concurrent_ones_fails_alone(store: PostgresEventStore) -> None:
    streams = [new_id() for _ in range(5)]
    links = [await created(store, stream, []) for stream in streams]
    bad = NewEvent(type="broken", schema_version=1, data=b"{not json")
    outcomes = await asyncio.gather(
        *(
            store.append(stream, 0, [bad] if i == 2 else [event(i)], link=link)
            for i, (stream, link) in enumerate(zip(streams, links, strict=True))
        ),
        return_exceptions=True,
    )
    assert isinstance(outcomes[2], ValueError)
    for i, stream in enumerate(streams):
        stored = await store.read_stream(stream)
        assert [e.data for e in stored] == ([] if i == 2 else [event(i).data])


async def test_concurrent_appends_store_every_body_byte_for_byte(store: PostgresEventStore) -> None:
    """A group commit sends bodies inside a JSON document; each is stored, and hashed, exactly as given:
    spacing, key order, duplicate keys, escapes, non-ASCII text, a top-level string or number."""
    bodies = [
        b'{ "b" :  1,\n "a": [1, 2.50], "b": 2 }',
        '{"text": "caf\u00e9 \\u00e9 \\" \\\\ \\n \\u0000", "emoji": "\U0001f3b2"}'.encode(),
        b'"a top-level string with \\u00e9 and \\" escapes"',
        b"12.50",
        b"[]",
    ]
    streams = [new_id() for _ in bodies]
    links = [await created(store, stream, [event(0)]) for stream in streams]
    outcomes = await asyncio.gather(
        *(
            store.append(stream, 1, [NewEvent(type="raw", schema_version=1, data=body), event(1)], link=link)
            for stream, body, link in zip(streams, bodies, links, strict=True)
        )
    )
    for stream, body, outcome in zip(streams, bodies, outcomes, strict=True):
        stored = await store.read_stream(stream)
        assert [e.data for e in stored] == [event(0).data, body, event(1).data]
        assert outcome.events == stored[1:]
        assert (await store.verify_chain(stream)).ok
    feed = await store.read_all(limit=10_000)
    transactions = {at.tx for at, e in feed if e.stream_id in streams and e.version == 2}
    assert len(transactions) < len(streams)  # they went in batches, not alone


async def test_concurrent_commands_with_ids_are_committed_together_and_each_counts_once(
    store: PostgresEventStore,
) -> None:
    streams = [new_id() for _ in range(6)]
    links = [await created(store, stream, [event(0)]) for stream in streams]
    records = [
        CommandRecord(command_id=f"cmd-{i}", request_hash=f"h-{i}", response=b"first") for i in range(6)
    ]
    batches = [[event(1), event(2)] if i % 2 else [event(1)] for i in range(6)]
    # Each command twice at once: a client's retry racing its first try.
    outcomes = await asyncio.gather(
        *(
            store.append(stream, 1, batch, command=record, link=link)
            for stream, batch, record, link in zip(streams, batches, records, links, strict=True)
            for _ in range(2)
        )
    )
    for i, (stream, batch, record) in enumerate(zip(streams, batches, records, strict=True)):
        pair = outcomes[2 * i : 2 * i + 2]
        appended = [result for result in pair if result.replayed is None]
        assert len(appended) == 1 and [e.data for e in appended[0].events] == [e.data for e in batch]
        assert [result.replayed for result in pair if result.replayed] == [record]
        stored = await store.read_stream(stream)
        assert [e.command_id for e in stored] == [None] + [record.command_id] * len(batch)
        assert await store.find_command(stream, record.command_id) == record
        assert (await store.verify_chain(stream)).ok
    feed = await store.read_all(limit=10_000)
    transactions = {at.tx for at, e in feed if e.stream_id in streams and e.version == 2}
    assert len(transactions) < len(streams)  # several commands in one transaction


async def test_a_retried_command_at_the_current_version_leaves_its_batch_to_commit(
    store: PostgresEventStore,
) -> None:
    streams = [new_id() for _ in range(6)]
    links = [await created(store, stream, [event(0)]) for stream in streams]
    retried = CommandRecord(command_id="noop", request_hash="h", response=b"nothing to do")
    await store.append(streams[0], 1, [], command=retried)  # stored, and the stream still at version 1
    records = [retried] + [
        CommandRecord(command_id=f"new-{i}", request_hash="h", response=b"") for i in range(5)
    ]
    outcomes = await asyncio.gather(
        *(
            store.append(stream, 1, [event(1)], command=record, link=link)
            for stream, record, link in zip(streams, records, links, strict=True)
        )
    )
    assert outcomes[0].replayed == retried and outcomes[0].events == []
    assert [len(await store.read_stream(stream)) for stream in streams] == [1] + [2] * 5
    assert all(outcome.replayed is None for outcome in outcomes[1:])
    feed = await store.read_all(limit=10_000)
    transactions = {at.tx for at, e in feed if e.stream_id in streams[1:] and e.version == 2}
    assert len(transactions) < len(streams) - 1  # the retry did not send the others one by one


async def test_two_processes_batches_on_the_same_streams_each_stream_one_winner(
    superuser_pool: asyncpg.Pool,
) -> None:
    # Two stores stand for two processes: their batches lock the same rows, in the same (stream id) order.
    first, second = PostgresEventStore(superuser_pool), PostgresEventStore(superuser_pool)
    streams = [new_id() for _ in range(10)]
    genesis = ChainLink(head=GENESIS_HASH)
    for stream in streams:
        await first.create_stream(stream, "basari", [])
    outcomes = await asyncio.wait_for(
        asyncio.gather(
            *(first.append(stream, 0, [event(1)], link=genesis) for stream in streams),
            *(second.append(stream, 0, [event(2), event(3)], link=genesis) for stream in reversed(streams)),
            return_exceptions=True,
        ),
        timeout=30,
    )
    firsts, seconds = outcomes[: len(streams)], outcomes[len(streams) :][::-1]
    for stream, one, other in zip(streams, firsts, seconds, strict=True):
        assert sorted(type(o).__name__ for o in (one, other)) == ["AppendResult", "ConcurrencyConflict"]
        stored = await first.read_stream(stream)
        assert len(stored) == (1 if isinstance(one, AppendResult) else 2)
        assert (await first.verify_chain(stream)).ok


# The feed under a slow transaction


async def test_feed_never_skips_an_event_that_commits_late(
    superuser_pool: asyncpg.Pool, store: PostgresEventStore
) -> None:
    start = await feed_end(store)
    slow, fast = new_id(), [new_id() for _ in range(4)]
    for stream in [slow, *fast]:
        await store.create_stream(stream, "basari", [])
    ours = {slow, *fast}
    slow_inserted, fast_committed, slow_committed = asyncio.Event(), asyncio.Event(), asyncio.Event()
    seen: list[tuple[FeedPosition, str, int]] = []

    async def slow_writer() -> None:
        # Takes its transaction id (and the lower positions) first, commits last.
        async with superuser_pool.acquire() as connection, connection.transaction():
            await connection.fetch(
                "SELECT * FROM es_append($1, 0, $2, $3, $4)",
                slow,
                ["slow"] * 3,
                [1] * 3,
                [msgspec.json.encode({"n": i}) for i in range(3)],
            )
            slow_inserted.set()
            await fast_committed.wait()
            await asyncio.sleep(0.2)
            # Committed fast events are not in the feed yet: they would land behind the slow ones.
            assert not [e for _, e in await store.read_all(start) if e.stream_id in ours]
            assert not [h for _, h in await store.read_all_headers(start) if h.stream_id in ours]
        slow_committed.set()

    async def fast_writers() -> None:
        await slow_inserted.wait()
        for stream in fast:
            await store.append(stream, 0, [event(1), event(2)])
        fast_committed.set()

    async def reader() -> None:
        checkpoint = start
        while len(seen) < 3 + 2 * len(fast):
            page = await store.read_all(checkpoint, limit=2)
            seen.extend((at, e.stream_id, e.version) for at, e in page if e.stream_id in ours)
            if page:
                checkpoint = page[-1][0]
            else:
                await asyncio.sleep(0.005)

    await asyncio.wait_for(asyncio.gather(slow_writer(), fast_writers(), reader()), timeout=30)
    assert [(s, v) for _, s, v in seen[:3]] == [(slow, 1), (slow, 2), (slow, 3)]
    assert sorted((s, v) for _, s, v in seen[3:]) == sorted((s, v) for s in fast for v in (1, 2))
    positions = [at for at, _, _ in seen]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    # Position alone is not the commit order: the slow events have the lower positions yet committed last.
    slow_positions = [at.position for at, s, _ in seen if s == slow]
    fast_positions = [at.position for at, s, _ in seen if s != slow]
    assert max(slow_positions) < min(fast_positions)


# Queries stay on their indexes


@pytest.mark.parametrize(
    ("query", "index"),
    [
        (
            "SELECT * FROM events WHERE stream_id = 'x' AND version > 0 AND version <= 10 ORDER BY version",
            "events_pkey",
        ),
        (
            "SELECT * FROM events WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())"
            " AND (tx_id, position) > ('5'::xid8, 7) ORDER BY tx_id, position LIMIT 100",
            "events_feed_idx",
        ),
        ("SELECT * FROM commands WHERE stream_id = 'x' AND command_id = 'c'", "commands_pkey"),
        (
            # rare values here and below: after the e2e tests nearly every stream is an active Basari game,
            # and for a common value the planner rightly prefers reading streams_created_idx and filtering
            "SELECT * FROM streams WHERE category = 'rare' AND (created_at, stream_id) < (now(), 'x')"
            " ORDER BY created_at DESC, stream_id DESC LIMIT 50",
            "streams_category_created_idx",
        ),
        (
            "SELECT * FROM streams WHERE category = 'rare' AND status = 'rare'"
            " ORDER BY created_at DESC, stream_id DESC LIMIT 50",
            "streams_category_status_created_idx streams_status_created_idx",
        ),
        (
            "SELECT * FROM streams WHERE status = 'rare' ORDER BY created_at DESC, stream_id DESC LIMIT 50",
            "streams_status_created_idx",
        ),
        ("SELECT * FROM streams ORDER BY created_at DESC, stream_id DESC LIMIT 50", "streams_created_idx"),
        ("""SELECT * FROM streams WHERE metadata @> '{"tournament": "t"}'""", "streams_metadata_idx"),
    ],
    ids=[
        "read_stream",
        "read_all",
        "find_command",
        "list_category",
        "list_status",
        "list_status_only",
        "list_all",
        "list_metadata",
    ],
)
async def test_hot_queries_have_an_index(superuser_pool: asyncpg.Pool, query: str, index: str) -> None:
    """Each query can run on one index alone: every condition an index condition, the order the index's.

    The tables are small here, so the planner is told to avoid anything else rather than asked to cost it.
    """
    gin = index == "streams_metadata_idx"  # a GIN index is read through a bitmap
    acceptable = index.split()
    async with superuser_pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL enable_seqscan = off")
        await connection.execute("SET LOCAL enable_sort = off")
        await connection.execute(f"SET LOCAL enable_bitmapscan = {'on' if gin else 'off'}")
        plan = "\n".join(row[0] for row in await connection.fetch(f"EXPLAIN {query}"))
    assert any(name in plan for name in acceptable), plan
    assert "Sort" not in plan, plan
    if len(acceptable) == 1:
        assert "Filter:" not in plan, plan


async def test_unique_constraints_lead_with_the_stream_id(superuser_pool: asyncpg.Pool) -> None:
    """Distributable by stream id later (docs/decisions/0007-keyed-by-game.md): every unique index starts
    with it."""
    rows = await superuser_pool.fetch(
        """
        SELECT c.relname AS index, a.attname AS first_column
          FROM pg_index i
          JOIN pg_class c ON c.oid = i.indexrelid
          JOIN pg_class t ON t.oid = i.indrelid
          JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
         WHERE i.indisunique AND t.relname IN ('streams', 'events', 'commands')
        """
    )
    assert {row["index"] for row in rows} == {"streams_pkey", "events_pkey", "commands_pkey"}
    assert {row["first_column"] for row in rows} == {"stream_id"}


# Outages


def _closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
async def unreachable_pool() -> AsyncIterator[asyncpg.Pool]:
    """A superuser_pool on a server that is not there (it connects lazily, so creating it succeeds)."""
    created = await asyncpg.create_pool(f"postgresql://nobody@127.0.0.1:{_closed_port()}/none", min_size=0)
    yield created
    await created.close()


async def test_an_unreachable_database_is_store_unavailable(unreachable_pool: asyncpg.Pool) -> None:
    store = PostgresEventStore(unreachable_pool)
    stream = new_id()
    with pytest.raises(StoreUnavailable):
        await store.append(stream, 0, [event(1)])
    with pytest.raises(StoreUnavailable):
        await store.create_stream(stream, "basari", [])
    with pytest.raises(StoreUnavailable):
        await store.read_stream(stream)
    with pytest.raises(StoreUnavailable):
        await store.read_all()
    with pytest.raises(StoreUnavailable):
        await store.verify_chain(stream)


async def test_a_pool_with_no_free_connection_is_store_unavailable(database_url: str) -> None:
    small = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    try:
        store = PostgresEventStore(small, acquire_timeout=0.05)
        async with small.acquire():
            with pytest.raises(StoreUnavailable):
                await store.stream_info(new_id())
        assert await store.stream_info(new_id()) is None  # and it recovers
    finally:
        await small.close()


async def test_a_closed_pool_is_store_unavailable(database_url: str) -> None:
    closed = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    await closed.close()
    with pytest.raises(StoreUnavailable):
        await PostgresEventStore(closed).read_stream(new_id())


async def test_concurrent_appends_on_a_closed_pool_are_each_store_unavailable(database_url: str) -> None:
    closed = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    await closed.close()
    store = PostgresEventStore(closed)
    outcomes = await asyncio.gather(
        *(store.append(new_id(), 0, [event(1)]) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes)


async def test_connections_the_server_dropped_are_unavailable_then_replaced(
    superuser_pool: asyncpg.Pool, database_url: str
) -> None:
    name = f"victim-{uuid.uuid4().hex[:8]}"
    own = await asyncpg.create_pool(
        database_url, min_size=2, max_size=2, server_settings={"application_name": name}
    )
    try:
        store = PostgresEventStore(own)
        await store.read_stream(new_id())
        terminated = await superuser_pool.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", name
        )
        assert terminated == 2
        # Each dropped connection is either noticed and replaced, or reported unavailable once and then
        # replaced: at most one StoreUnavailable per pooled connection, nothing else, then service again.
        failures = 0
        for _ in range(3):
            try:
                assert await store.read_stream(new_id()) == []
            except StoreUnavailable:
                failures += 1
        assert failures <= 2
        assert await store.read_stream(new_id()) == []
    finally:
        await own.close()


async def test_a_closed_connection_is_unavailable(superuser_pool: asyncpg.Pool, database_url: str) -> None:
    victim = await asyncpg.connect(database_url)
    try:
        # Wait for the backend to exit, then for the client to see its socket close (no fixed sleep: on a
        # loaded machine the query could otherwise reach the dying backend and meet its FATAL instead).
        await superuser_pool.execute("SELECT pg_terminate_backend($1, 10000)", victim.get_server_pid())
        deadline = asyncio.get_running_loop().time() + 10
        while not victim.is_closed() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        with pytest.raises(asyncpg.InterfaceError) as failure:
            await victim.fetch("SELECT 1")
        assert is_unavailable(failure.value)
    finally:
        victim.terminate()


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "refused"),
        ConnectionResetError(),
        TimeoutError(),
        OSError("network unreachable"),
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
        asyncpg.exceptions.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.exceptions.InterfaceError("connection is closed"),
        asyncpg.exceptions.InterfaceError("superuser_pool is closing"),
        asyncpg.exceptions.InternalClientError(
            "cannot switch to state 12; another operation (2) is in progress"
        ),
    ],
)
def test_connection_failures_count_as_unavailable(error: BaseException) -> None:
    assert is_unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.QueryCanceledError("canceling statement due to statement timeout"),
        asyncpg.exceptions.UniqueViolationError("duplicate key"),
        asyncpg.exceptions.InterfaceError("cannot perform operation: another operation is in progress"),
        ValueError("x"),
    ],
)
def test_other_failures_are_not_unavailability(error: BaseException) -> None:
    assert not is_unavailable(error)
