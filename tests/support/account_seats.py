"""Games whose seats accounts hold, started as the lobby starts them: the seats are given before the game's
opening events are appended."""

from __future__ import annotations

import asyncpg

from eventstore import GameKeys, PostgresKeyStore


class SeatingKeyStore(PostgresKeyStore):
    """Saves a new game's keys and, first, gives its seats to these accounts (by seat)."""

    def __init__(self, pool: asyncpg.Pool, account_ids: list[str]) -> None:
        super().__init__(pool)
        self.pool = pool
        self.account_ids = account_ids

    async def save(self, keys: GameKeys) -> None:
        """Seat the accounts, then save the keys."""
        await self.pool.executemany(
            "INSERT INTO game_seats (game_id, seat, kind, account_id, joined_at)"
            " VALUES ($1, $2, 'account', $3, now())",
            [(keys.game_id, seat, account) for seat, account in enumerate(self.account_ids)],
        )
        await super().save(keys)
