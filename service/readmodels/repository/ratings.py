"""The ratings rows the live game projection keeps, as the rating endpoints read them
(service/readmodels/ratings.py)."""

from __future__ import annotations

import asyncpg

from service.readmodels.repository.games import StoredRating
from service.runtime.sql import PostgresRepository, records


def established(alias: str, games: int, opponents: int) -> str:
    """The SQL condition that the ratings row ``alias`` is listed: ``games`` rated games against
    ``opponents`` distinct opponents."""
    return (
        f"{alias}.games >= {games} AND (SELECT count(DISTINCT other) FROM rated_games g,"
        f" unnest(g.players) AS other WHERE g.game = {alias}.game AND {alias}.player = ANY(g.players)"
        f" AND other <> {alias}.player) >= {opponents}"
    )


class RatingRepository(PostgresRepository):
    """The ratings rows the live game projection keeps, as the rating endpoints read them; a row is listed
    once it has ``min_games`` rated games against ``min_opponents`` distinct opponents."""

    def __init__(
        self, pool: asyncpg.Pool, min_games: int, min_opponents: int, acquire_timeout: float | None = None
    ) -> None:
        super().__init__(pool, acquire_timeout)
        self.min_games = min_games
        self.min_opponents = min_opponents

    def established(self, alias: str) -> str:
        """The SQL condition that the ratings row ``alias`` is listed."""
        return established(alias, self.min_games, self.min_opponents)

    async def listed(
        self, game: str, after: tuple[float, str] | None, limit: int
    ) -> tuple[list[StoredRating], int]:
        """At most ``limit`` listed ratings of ``game``, best ordinal first, after the row ``after``
        (ordinal, player); and how many games of ``game`` were rated."""
        async with self.connection() as connection:
            if after is None:
                rows = await connection.fetch(
                    "SELECT player, mu, sigma, ordinal, games FROM ratings r WHERE game = $1"
                    f" AND {self.established('r')} ORDER BY ordinal DESC, player LIMIT $2",
                    game,
                    limit,
                )
            else:
                rows = await connection.fetch(
                    "SELECT player, mu, sigma, ordinal, games FROM ratings r WHERE game = $1"
                    f" AND {self.established('r')} AND (ordinal < $2 OR (ordinal = $2 AND player > $3))"
                    " ORDER BY ordinal DESC, player LIMIT $4",
                    game,
                    *after,
                    limit,
                )
            rated: int = await connection.fetchval("SELECT count(*) FROM rated_games WHERE game = $1", game)
        return records(StoredRating, rows), rated

    async def of_player(self, name: str, key: str) -> tuple[str, list[StoredRating]]:
        """The name of the account whose name key is ``key`` (else ``name``) and its rating in each game, by
        game, with its rank among the listed ratings of that game."""
        async with self.connection() as connection:
            account = await connection.fetchval("SELECT name FROM accounts WHERE name_key = $1", key)
            name = account or name
            rows = await connection.fetch(
                "SELECT r.game, r.player, r.mu, r.sigma, r.ordinal, r.games,"
                " 1 + (SELECT count(*) FROM ratings b WHERE b.game = r.game AND (b.ordinal > r.ordinal"
                f" OR (b.ordinal = r.ordinal AND b.player < r.player)) AND {self.established('b')}) AS rank"
                " FROM ratings r WHERE r.player = $1 ORDER BY r.game",
                name,
            )
        return name, records(StoredRating, rows)
