"""Claims on background decisions: a bot's move or a seat's timeout is computed by one process across all
hosts, the one that claimed it first (docs/operations.md).

A claim is a PostgreSQL session advisory lock keyed by the work, the game and the version the decision is
due at, taken with ``pg_try_advisory_lock`` on one connection this process keeps for its claims, and only
while the stored version is still that version (a process that read the game before another one's move
does not claim what was already decided). Holding an old claim is harmless (a version is decided once), so
a claim stays until this process claims the game's next decision, or until it has claimed nothing for
``IDLE_SECONDS``: then it lets every claim go and gives the connection back to the pool (a pool closes only
once its connections are back). The server drops a process's claims when its connection ends, so a crashed
host's decisions are taken up at once by the next process that looks. The store's version check on the
append stays the final guard: a claim let go during a longer decision costs at most one decision computed
twice, never a second move.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any

from eventstore import EventStore, PostgresEventStore
from eventstore.postgres import as_unavailable
from service.workers.repository import ClaimLocks

__all__ = ["Claims", "claims_of"]

IDLE_SECONDS = 3.0  # longer than a bot's decision (BOT_THINK_SECONDS, 1 s by default) and a timeout's append


class Claims:
    """This process's claims on one database, over one connection of the store's pool kept for them."""

    def __init__(self, pool: Any, acquire_timeout: float | None = None) -> None:
        """``pool`` None: a store in memory, one process: every claim is granted."""
        self.locks = None if pool is None else ClaimLocks(pool, acquire_timeout)
        self._lock = asyncio.Lock()  # one query at a time on the claims' connection
        self._held: dict[tuple[str, str], str] = {}  # (work, game) -> the lock name claimed
        self._last_take = 0.0
        self._idle: asyncio.Task[None] | None = None  # lets go once nothing was claimed for IDLE_SECONDS

    async def take(self, work: str, game_id: str, version: int) -> bool:
        """Claim ``work`` (e.g. "bot", "clock") on ``game_id`` at ``version``: True if this process decides it
        (also when it had claimed it already), False if another process has, or the game has moved on."""
        if self.locks is None:
            return True
        name = f"{work}:{game_id}:v{version}"
        async with self._lock:
            self._last_take = time.monotonic()
            if self._held.get((work, game_id)) == name:
                return True
            try:
                await self._connected(self.locks)
                held = self._held.pop((work, game_id), None)  # an older version's claim: let go
                if held is not None:
                    await self.locks.let_go(held)
                if not await self.locks.take(name):
                    return False
                if await self.locks.version(game_id) != version:
                    await self.locks.let_go(name)
                    return False
            except Exception as exc:
                await self._drop_connection()
                unavailable = as_unavailable(exc)
                if unavailable is not None:
                    raise unavailable from exc
                raise
            self._held[(work, game_id)] = name
            return True

    async def _connected(self, locks: ClaimLocks) -> None:
        """The claims' connection taken from the pool when there is none, and its idle watch started."""
        await locks.open()
        if self._idle is None:
            self._idle = asyncio.create_task(self._let_go_when_idle())

    async def _let_go_when_idle(self) -> None:
        """Once nothing was claimed for IDLE_SECONDS: let every claim go and give the connection back."""
        try:
            while (left := self._last_take + IDLE_SECONDS - time.monotonic()) > 0:
                await asyncio.sleep(left)
            async with self._lock:
                await self._give_back()
        finally:
            self._idle = None

    async def close(self) -> None:
        """Let every claim go and give the connection back now (the process stops)."""
        async with self._lock:
            await self._give_back()
        if self._idle is not None:  # nothing left for it to give back
            self._idle.cancel()

    async def _give_back(self) -> None:
        """Let every claim go and return the connection to the pool (terminated if the locks cannot be let
        go: they go with it)."""
        self._held = {}
        if self.locks is not None:
            await self.locks.give_back()

    async def _drop_connection(self) -> None:
        """Close the claims' connection after a failure: the server then drops its locks; it is never given
        back to the pool open, where its locks would go on with another user."""
        self._held.clear()
        if self.locks is not None:
            await self.locks.drop()


_CLAIMS: weakref.WeakKeyDictionary[EventStore, Claims] = weakref.WeakKeyDictionary()


def claims_of(store: EventStore) -> Claims:
    """The claims of the process that ``store`` serves (one set per store: per process in the service)."""
    claims = _CLAIMS.get(store)
    if claims is None:
        on = store if isinstance(store, PostgresEventStore) else None
        claims = Claims(None) if on is None else Claims(on.pool, on.acquire_timeout)
        _CLAIMS[store] = claims
    return claims
