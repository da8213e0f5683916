"""The store's hot queries are served by their indexes on a large store: on 100,000 events (written at once as
a superuser, then analysed), EXPLAIN of the global feed, a stream's reads and the appends' checks shows index
scans, and no sort, sequential scan of a big table or parallel workers (each of those grows with the store)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import msgspec
import pytest

from eventstore import postgres
from tests.support.databases import fresh_database, superuser_url

pytestmark = pytest.mark.db

STREAMS = 5_000
EVENTS_PER_STREAM = 20  # 100,000 events in all
BIG_TABLES = {"events", "commands", "streams"}
# the scans that read by an index (a Bitmap Heap Scan reads the rows its Bitmap Index Scan found)
INDEXED = ("Index Scan", "Index Only Scan", "Bitmap Heap Scan")
SMALL_SORT = 1_000  # rows a statement may sort: its own batch's, a hundredth of the store

# 200 events a transaction, their ids old enough for every one to be visible to the feed (a new cluster is
# past transaction 700 before the tests begin).
FILL = f"""
INSERT INTO streams (stream_id, category, version)
SELECT 'g-' || s, 'bazaar', {EVENTS_PER_STREAM} FROM generate_series(1, {STREAMS}) AS s;
INSERT INTO events (stream_id, version, tx_id, type, schema_version, data, hash, command_id)
SELECT 'g-' || (n / {EVENTS_PER_STREAM} + 1), n % {EVENTS_PER_STREAM} + 1, (n / 200 + 3)::text::xid8, 'moved', 1,
       '{{}}', '\\x00', 'c-' || n
  FROM generate_series(0, {STREAMS * EVENTS_PER_STREAM - 1}) AS n;
INSERT INTO commands (stream_id, command_id, request_hash, response, version)
SELECT 'g-' || (n / {EVENTS_PER_STREAM} + 1), 'c-' || n, 'h', '\\x00', n % {EVENTS_PER_STREAM} + 1
  FROM generate_series(0, {STREAMS * EVENTS_PER_STREAM - 1}) AS n;
ANALYZE streams;
ANALYZE events;
ANALYZE commands;
"""


@pytest.fixture(scope="module")
async def big_store(server_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A superuser's connection to a fresh database holding 100,000 events of 5,000 streams."""
    async with fresh_database(server_url) as url:
        connection = await asyncpg.connect(superuser_url(url, server_url))
        try:
            await connection.execute(FILL)
            yield connection
        finally:
            await connection.close()


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of an EXPLAIN (FORMAT JSON) plan, depth first."""
    return [plan, *(node for child in plan.get("Plans", []) for node in nodes(child))]


async def plan_of(connection: asyncpg.Connection, query: str, *args: Any) -> list[dict[str, Any]]:
    """The nodes of the plan PostgreSQL chooses for ``query`` with these arguments (not executed)."""
    explained = await connection.fetchval(f"EXPLAIN (FORMAT JSON) {query}", *args)
    plan: dict[str, Any] = msgspec.json.decode(explained)[0]["Plan"]
    return nodes(plan)


def assert_indexed(plan: list[dict[str, Any]], *tables: str) -> None:
    """Each of ``tables`` is read by an index, no big table sequentially, no parallel workers, and no sort
    of more rows than a statement brings itself (a batch's: a sort of the store's rows grows with it)."""
    kinds = [node["Node Type"] for node in plan]
    sorts = [node["Plan Rows"] for node in plan if node["Node Type"].endswith("Sort")]
    assert all(rows <= SMALL_SORT for rows in sorts), (kinds, sorts)
    assert "Gather" not in kinds and "Gather Merge" not in kinds, kinds
    scanned = [(node["Node Type"], node.get("Relation Name")) for node in plan if "Relation Name" in node]
    assert not [scan for scan in scanned if scan[0] == "Seq Scan" and scan[1] in BIG_TABLES], scanned
    for table in tables:
        assert any(kind.startswith(INDEXED) and name == table for kind, name in scanned), (table, scanned)


async def test_the_global_feed_is_read_in_index_order(big_store: asyncpg.Connection) -> None:
    assert_indexed(await plan_of(big_store, postgres._READ_ALL, 0, 0, 1000), "events")
    assert_indexed(await plan_of(big_store, postgres._READ_ALL, 20_000, 60_000, 500), "events")
    rows = await big_store.fetch(postgres._READ_ALL, 102, 19_999, 3)  # and reads the page after that cursor
    assert [(row[0], row[3]) for row in rows] == [(102, 20_000), (103, 20_001), (103, 20_002)]


async def test_a_streams_reads_use_its_key(big_store: asyncpg.Connection) -> None:
    assert_indexed(await plan_of(big_store, postgres._READ_STREAM, "g-7", 10, 2**31 - 1, None), "events")
    assert_indexed(await plan_of(big_store, postgres._READ_BODIES, "g-7", 10), "events")
    assert_indexed(await plan_of(big_store, postgres._STREAM_INFO, "g-7"), "streams")
    assert_indexed(await plan_of(big_store, postgres._CHAIN_EVENTS, "g-7"), "events")


async def test_the_appends_checks_use_the_keys(big_store: asyncpg.Connection) -> None:
    one = ("g-7", 20, "moved", 1, b"{}", "c-new", "h", b"\x00", None, None)
    assert_indexed(await plan_of(big_store, postgres._APPEND_ONE, *one), "streams")
    many = ("g-7", 20, ["moved", "moved"], [1, 1], [b"{}", b"{}"], "c-new", "h", b"\x00", None, None)
    assert_indexed(await plan_of(big_store, postgres._APPEND_MANY, *many), "streams")
    assert_indexed(await plan_of(big_store, postgres._FIND_COMMAND, "g-7", "c-650"), "commands")
    entries = [
        {"stream_id": f"g-{n}", "expected": 20, "previous": "AA==", "key": "", "n": 1, "head": "AA=="}
        for n in (3, 5)
    ]
    batch = [
        {"stream_id": f"g-{n}", "i": 1, "type": "moved", "schema_version": 1, "data": "{}", "hash": "AA=="}
        for n in (3, 5)
    ]
    documents = (msgspec.json.encode(entries), msgspec.json.encode(batch))
    assert_indexed(await plan_of(big_store, postgres._APPEND_BATCH, *documents), "streams", "commands")
