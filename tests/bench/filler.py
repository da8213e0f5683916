"""Fill the store with history fast, as the store itself would have written it.

Filler streams (category ``bench-filler``, which no game claims, so listings ignore them) get events whose
hash chain is computed here with eventstore.protocol.event_hash and whose stream rows carry the matching
version and head hash, so verify_chain passes on them. The rows go in with COPY, in chunks: one
transaction per chunk, as if many writers had committed them. Only INSERTs happen, which the append-only
triggers allow.
"""

from __future__ import annotations

import asyncpg

from eventstore.protocol import event_hash

FILLER_CATEGORY = "bench-filler"
EVENTS_PER_STREAM = 100
_ZERO = bytes(32)


async def fill(pool: asyncpg.Pool, events: int, chunk_streams: int = 500) -> int:
    """Store about ``events`` filler events in streams of EVENTS_PER_STREAM; how many were stored."""
    streams = max(1, events // EVENTS_PER_STREAM)
    stored = 0
    for first in range(0, streams, chunk_streams):
        stream_rows = []
        event_rows = []
        for n in range(first, min(streams, first + chunk_streams)):
            stream_id = f"filler-{n:07d}"
            head = _ZERO
            for version in range(1, EVENTS_PER_STREAM + 1):
                data = b'{"type":"filler","n":%d}' % version
                head = event_hash(head, stream_id, version, "filler", 1, data)
                event_rows.append((stream_id, version, "filler", 1, data.decode(), head))
            stream_rows.append((stream_id, FILLER_CATEGORY, EVENTS_PER_STREAM, "active", head))
        async with pool.acquire() as connection, connection.transaction():
            await connection.copy_records_to_table(
                "streams",
                records=stream_rows,
                columns=["stream_id", "category", "version", "status", "head_hash"],
            )
            await connection.copy_records_to_table(
                "events",
                records=event_rows,
                columns=["stream_id", "version", "type", "schema_version", "data", "hash"],
            )
        stored += len(event_rows)
    return stored
