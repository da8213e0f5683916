"""The workers' SQL (docs/decisions/0008-sql-in-repositories.md): the deadline index ``clock_deadlines``
(migration 0010) the clock scheduler reads, and the session advisory locks the claims on background
decisions are (service/workers/claims.py)."""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from eventstore import StoreUnavailable, pooled_connection
from service.runtime.sql import records

_TAKE = "SELECT pg_try_advisory_lock(hashtextextended($1, 0))"
_LET_GO = "SELECT pg_advisory_unlock(hashtextextended($1, 0))"
_VERSION = "SELECT version FROM streams WHERE stream_id = $1"


class Due(msgspec.Struct, frozen=True):
    """A pending decision whose deadline has passed: the game, the seat, and the version it was set at."""

    game_id: str
    seat: int
    version: int
    deadline: datetime


class Deadlines:
    """The ``clock_deadlines`` rows: each timed game's deadlines as its latest clock event gives them."""

    def __init__(self, pool: asyncpg.Pool, acquire_timeout: float | None = None) -> None:
        self.pool = pool
        self.acquire_timeout = acquire_timeout

    async def replace(
        self, connection: asyncpg.Connection, game_ids: list[str], rows: list[tuple[str, int, datetime, int]]
    ) -> None:
        """In ``connection``'s open transaction: the rows of those games become ``rows`` (game, seat,
        deadline, version)."""
        if game_ids:
            await connection.execute("DELETE FROM clock_deadlines WHERE game_id = ANY($1::text[])", game_ids)
        if rows:
            await connection.executemany(
                "INSERT INTO clock_deadlines (game_id, seat, deadline, version) VALUES ($1, $2, $3, $4)",
                rows,
            )

    async def due(self, now: datetime, limit: int) -> list[Due]:
        """At most ``limit`` deadlines passed at ``now``, earliest first."""
        async with pooled_connection(self.pool, self.acquire_timeout) as connection:
            rows = await connection.fetch(
                "SELECT game_id, seat, version, deadline FROM clock_deadlines WHERE deadline <= $1"
                " ORDER BY deadline LIMIT $2",
                now,
                limit,
            )
        return records(Due, rows)

    async def earliest(self) -> datetime | None:
        """The earliest deadline of all (None: no timed decision is pending)."""
        async with pooled_connection(self.pool, self.acquire_timeout) as connection:
            earliest: datetime | None = await connection.fetchval("SELECT min(deadline) FROM clock_deadlines")
        return earliest


class ClaimLocks:
    """Session advisory locks named by text, on one connection of ``pool`` kept for them until given back."""

    def __init__(self, pool: Any, acquire_timeout: float | None = None) -> None:
        self.pool = pool
        self.acquire_timeout = acquire_timeout
        self._connection: Any = None

    async def open(self) -> None:
        """Take the locks' connection from the pool if there is none (StoreUnavailable past the acquire
        timeout)."""
        if self._connection is None:
            try:
                self._connection = await self.pool.acquire(timeout=self.acquire_timeout)
            except TimeoutError as exc:
                raise StoreUnavailable("no connection for claims") from exc

    async def take(self, name: str) -> bool:
        """Whether the lock ``name`` was free and is now held here (also when held here already)."""
        taken: bool = await self._connection.fetchval(_TAKE, name)
        return taken

    async def let_go(self, name: str) -> None:
        """Let the lock ``name`` go."""
        await self._connection.fetchval(_LET_GO, name)

    async def version(self, stream_id: str) -> int | None:
        """The stored version of a stream (None: no such stream)."""
        version: int | None = await self._connection.fetchval(_VERSION, stream_id)
        return version

    async def give_back(self) -> None:
        """Let every lock go and return the connection to the pool (terminated if the locks cannot be let
        go: they go with it)."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            await connection.execute("SELECT pg_advisory_unlock_all()")
        except Exception:
            connection.terminate()
        with suppress(Exception):  # a terminated connection: the pool replaces it
            await self.pool.release(connection)

    async def drop(self) -> None:
        """Close the connection after a failure: the server then drops its locks; it is never given back to
        the pool open, where its locks would go on with another user."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        connection.terminate()
        with suppress(Exception):  # a terminated connection: the pool replaces it
            await self.pool.release(connection)
