"""The secret halves kept outside the event streams: a game's seed and seat-token hashes, a tournament's
organizer and player token hashes, and the seeds committed to before a game (or tournament) has a stream
(``commit``: service/integrity/seeds.py).

The seed must stay hidden until the game ends (it would reveal every future shuffle and roll), so it
never enters an event; the audit reveals it once the game is finished. Tokens are kept only as hashes.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Protocol

import asyncpg
import msgspec

from eventstore.postgres import pooled_connection


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


def commitment_of(secret: str) -> str:
    """The public commitment to a secret: SHA-256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


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
                commitment_of(secret),
            )
        return commitment_of(secret)

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
                subject_id=subject_id, secret=secret, commitment=commitment_of(secret)
            )
        return commitment_of(secret)

    async def committed(self, subject_id: str) -> SeedCommit | None:
        """Read a committed secret."""
        return self._commits.get(subject_id)


class TournamentKeys(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's organizer token hash and its players' token hashes (by name; late entries last)."""

    tournament_id: str
    organizer_hash: str
    player_names: tuple[str, ...]
    player_hashes: tuple[str, ...]

    def hash_of(self, name: str) -> str:
        """The token hash of the player called ``name`` (empty if none was stored: no token acts for them)."""
        if name not in self.player_names:
            return ""
        return self.player_hashes[self.player_names.index(name)]


class TournamentKeyStore(Protocol):
    """Where tournament keys live."""

    async def save(self, keys: TournamentKeys) -> None:
        """Store a new tournament's keys."""
        ...

    async def get(self, tournament_id: str) -> TournamentKeys | None:
        """A tournament's keys, late entries included, or None."""
        ...

    async def add_player(self, tournament_id: str, name: str, token_hash: str) -> None:
        """Store a late entry's token hash."""
        ...


class PostgresTournamentKeyStore:
    """Tournament keys in the ``tournament_keys`` table (keyed by tournament id). The table is append-only:
    a late entry's token hash is a row of its own, keyed ``<tournament id>/entry/<name>``."""

    def __init__(self, pool: asyncpg.Pool, acquire_timeout: float | None = None) -> None:
        """Use ``pool``, waiting at most ``acquire_timeout`` seconds for a connection (then 503)."""
        self._pool = pool
        self._acquire_timeout = acquire_timeout

    async def save(self, keys: TournamentKeys) -> None:
        """Insert the keys of a new tournament."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            await connection.execute(
                "INSERT INTO tournament_keys (tournament_id, organizer_hash, player_names, player_hashes)"
                " VALUES ($1, $2, $3, $4)",
                keys.tournament_id,
                keys.organizer_hash,
                list(keys.player_names),
                list(keys.player_hashes),
            )

    async def get(self, tournament_id: str) -> TournamentKeys | None:
        """Read a tournament's keys."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            row = await connection.fetchrow(
                "SELECT organizer_hash, player_names, player_hashes FROM tournament_keys"
                " WHERE tournament_id = $1",
                tournament_id,
            )
            if row is None:
                return None
            entries = await connection.fetch(
                "SELECT player_names, player_hashes FROM tournament_keys"
                " WHERE starts_with(tournament_id, $1 || '/entry/') ORDER BY created_at, tournament_id",
                tournament_id,
            )
        return TournamentKeys(
            tournament_id=tournament_id,
            organizer_hash=row["organizer_hash"],
            player_names=tuple(row["player_names"]) + tuple(n for e in entries for n in e["player_names"]),
            player_hashes=tuple(row["player_hashes"]) + tuple(h for e in entries for h in e["player_hashes"]),
        )

    async def add_player(self, tournament_id: str, name: str, token_hash: str) -> None:
        """Insert a late entry's row (with the tournament's organizer hash, which the table requires)."""
        async with (
            pooled_connection(self._pool, self._acquire_timeout) as connection,
        ):
            await connection.execute(
                "INSERT INTO tournament_keys (tournament_id, organizer_hash, player_names, player_hashes)"
                " SELECT $1 || '/entry/' || $2, organizer_hash, ARRAY[$2::text], ARRAY[$3::text] FROM tournament_keys"
                " WHERE tournament_id = $1",
                tournament_id,
                name,
                token_hash,
            )
