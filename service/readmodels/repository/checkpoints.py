"""The checkpoints of the feed followers (docs/decisions/0006-read-models.md) and the feed's snapshot
horizon."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import asyncpg

from eventstore import FeedPosition
from service.runtime.sql import Connection, Pool, PostgresRepository, record

__all__ = ["Connection", "Pool", "Writes"]  # the followers' connection types, with their batch's writes

# A batch's writes, run in the checkpoint's transaction on its connection (and on no other).
Writes = Callable[[Connection], Awaitable[None]]

CHECKPOINT = "SELECT tx, position FROM projection_checkpoints WHERE name = $1"
# The projectors of a checkpoint take turns on a transaction-scoped advisory lock named after it, not on
# its row (FOR UPDATE): a row lock takes a transaction id at once, and the feed shows nothing past the
# oldest running transaction, so a whole batch (reads and folds included) would hold the feed back for
# every reader; this way the batch takes its id only with its writes, at the end.
LOCK_CHECKPOINT = "SELECT pg_advisory_xact_lock(1886547818, hashtext($1))"  # 1886547818: b'proj'
SAVE_CHECKPOINT = (
    "UPDATE projection_checkpoints SET tx = $2, position = $3, updated_at = now() WHERE name = $1"
)
# xmax of a snapshot: every transaction that started before it has an id below it.
SNAPSHOT = (
    "SELECT pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint FROM pg_current_snapshot() s"
)
HORIZON = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
# The checkpoint and the last event of the feed visible now (the feed's order and horizon, as the event
# store reads it: backwards on its (tx_id, position) index), in one round trip.
CHECKPOINT_AND_HEAD = (
    "SELECT c.tx, c.position, h.tx, h.position FROM projection_checkpoints c LEFT JOIN LATERAL ("
    " SELECT tx_id::text::bigint AS tx, position FROM events"
    " WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY tx_id DESC, position DESC LIMIT 1"
    ") h ON true WHERE c.name = $1"
)


class CheckpointBusy(Exception):
    """Another transaction held a checkpoint's lock longer than the caller would wait."""


class Checkpoints(PostgresRepository):
    """The checkpoints of the feed followers (``projection_checkpoints``) and the feed's snapshot horizon."""

    async def position(self, name: str) -> FeedPosition:
        """Where the checkpoint ``name`` stands in the feed."""
        async with self.connection() as connection:
            return await self.position_on(connection, name)

    async def position_on(self, connection: asyncpg.Connection, name: str) -> FeedPosition:
        """The checkpoint ``name``, read on ``connection``."""
        return record(FeedPosition, await connection.fetchrow(CHECKPOINT, name))

    async def with_head(self, name: str) -> tuple[FeedPosition, FeedPosition]:
        """The checkpoint ``name`` and the feed's last visible event's position (the start when it is empty)."""
        async with self.connection() as connection:
            at_tx, at_position, head_tx, head_position = await connection.fetchrow(CHECKPOINT_AND_HEAD, name)
        head = FeedPosition() if head_tx is None else FeedPosition(tx=head_tx, position=head_position)
        return FeedPosition(tx=at_tx, position=at_position), head

    async def lock(self, connection: asyncpg.Connection, name: str) -> None:
        """Take the checkpoint's lock for ``connection``'s open transaction."""
        await connection.execute(LOCK_CHECKPOINT, name)

    async def save(self, connection: asyncpg.Connection, name: str, reached: FeedPosition) -> None:
        """Move the checkpoint to ``reached`` in ``connection``'s open transaction."""
        await connection.execute(SAVE_CHECKPOINT, name, reached.tx, reached.position)

    @asynccontextmanager
    async def turn(self, name: str, lock_wait: float | None = None) -> AsyncIterator[asyncpg.Connection]:
        """A transaction holding the checkpoint's lock; CheckpointBusy when ``lock_wait`` seconds were not
        enough to take it."""
        try:
            async with self.connection() as connection, connection.transaction():
                if lock_wait is not None:
                    await connection.execute(f"SET LOCAL lock_timeout = {max(int(lock_wait * 1000), 1)}")
                await self.lock(connection, name)
                yield connection
        except asyncpg.exceptions.LockNotAvailableError:
            raise CheckpointBusy(name) from None

    async def snapshot(self) -> tuple[int, int]:
        """The oldest running transaction's id and the id past every transaction started so far."""
        async with self.connection() as connection:
            horizon, target = await connection.fetchrow(SNAPSHOT)
        return horizon, target

    async def horizon(self) -> int:
        """The oldest running transaction's id: the feed shows nothing past it."""
        async with self.connection() as connection:
            horizon: int = await connection.fetchval(HORIZON)
        return horizon
