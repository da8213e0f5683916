"""The secret half of a game kept outside its event stream: the seed and the hashes of the seat tokens, and
the seeds committed to before a game (or tournament) has a stream (``commit``; service/seeds.py).

The seed must stay hidden until the game ends (it would reveal every future shuffle and roll), so it
never enters an event; the audit reveals it once the game is finished.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

import asyncpg
import msgspec

from domain.core import commitment
from eventstore import pooled_connection


class GameKeys(msgspec.Struct, frozen=True, kw_only=True):
    """A game's seed and the SHA-256 hashes of its seat tokens (index = seat)."""

    game_id: str
    seed: str
    token_hashes: tuple[str, ...]


class SeedCommit(msgspec.Struct, frozen=True, kw_only=True):
    """A secret committed to at creation and its public commitment, SHA-256(secret) in hex."""

    subject_id: str
    secret: str
    commitment: str


class KeyStore(Protocol):
    """Where game keys live."""

    async def save(self, keys: GameKeys) -> None:
        """Store a new game's keys."""
        ...

    async def get(self, game_id: str) -> GameKeys | None:
        """A game's keys, or None."""
        ...

    async def commit(self, subject_id: str, secret: str) -> str:
        """Keep a game's (tournament's) secret seed half, write-once; its public commitment."""
        ...

    async def committed(self, subject_id: str) -> SeedCommit | None:
        """The secret committed to for a game (tournament), or None."""
        ...


class PostgresKeyStore:
    """Game keys in the ``game_keys`` table (keyed by game id)."""

    def __init__(self, pool: asyncpg.Pool, acquire_timeout: float | None = None) -> None:
        """Use ``pool``, waiting at most ``acquire_timeout`` seconds for a connection (then 503)."""
        self._pool = pool
        self._acquire_timeout = acquire_timeout

    async def save(self, keys: GameKeys) -> None:
        """Insert the keys of a new game."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            await connection.execute(
                "INSERT INTO game_keys (game_id, seed, token_hashes) VALUES ($1, $2, $3)",
                keys.game_id,
                keys.seed,
                list(keys.token_hashes),
            )

    async def get(self, game_id: str) -> GameKeys | None:
        """Read a game's keys."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            row = await connection.fetchrow(
                "SELECT seed, token_hashes FROM game_keys WHERE game_id = $1", game_id
            )
        if row is None:
            return None
        return GameKeys(game_id=game_id, seed=row["seed"], token_hashes=tuple(row["token_hashes"]))

    async def commit(self, subject_id: str, secret: str) -> str:
        """Insert the secret of a new game or tournament into ``seed_commits`` (write-once)."""
        async with pooled_connection(self._pool, self._acquire_timeout) as connection:
            await connection.execute(
                "INSERT INTO seed_commits (subject_id, secret, commitment) VALUES ($1, $2, $3)",
                subject_id,
                secret,
                commitment(secret),
            )
        return commitment(secret)

    async def committed(self, subject_id: str) -> SeedCommit | None:
        """Read a committed secret."""
        async with pooled_connection(self._pool, self._acquire_timeout) as connection:
            row = await connection.fetchrow(
                "SELECT secret, commitment FROM seed_commits WHERE subject_id = $1", subject_id
            )
        if row is None:
            return None
        return SeedCommit(subject_id=subject_id, secret=row["secret"], commitment=row["commitment"])


class InMemoryKeyStore:
    """The in-memory twin of PostgresKeyStore, for fast service tests."""

    def __init__(self) -> None:
        self._keys: dict[str, GameKeys] = {}
        self._commits: dict[str, SeedCommit] = {}
        self._lock = asyncio.Lock()

    async def save(self, keys: GameKeys) -> None:
        """Insert the keys of a new game."""
        async with self._lock:
            if keys.game_id in self._keys:
                raise ValueError(f"keys for {keys.game_id} exist")
            self._keys[keys.game_id] = keys

    async def get(self, game_id: str) -> GameKeys | None:
        """Read a game's keys."""
        return self._keys.get(game_id)

    async def commit(self, subject_id: str, secret: str) -> str:
        """Keep a committed secret (write-once)."""
        async with self._lock:
            if subject_id in self._commits:
                raise ValueError(f"a seed is committed for {subject_id}")
            self._commits[subject_id] = SeedCommit(
                subject_id=subject_id, secret=secret, commitment=commitment(secret)
            )
        return commitment(secret)

    async def committed(self, subject_id: str) -> SeedCommit | None:
        """Read a committed secret."""
        return self._commits.get(subject_id)
