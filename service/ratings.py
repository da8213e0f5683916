"""Ratings: OpenSkill (Plackett-Luce) over every finished rated game, recomputed from the store on demand.

Rated games are those created with ``rated: true`` and every tournament game. They are replayed in the
order they were last written (finish order), so every process computes the same numbers from the same
streams; nothing is cached across requests, so ratings never drift from the event store.
"""

from __future__ import annotations

from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating

from eventstore import StreamInfo
from service import errors
from service.games import FINISHED, GameService
from service.models import PlayerProfile, PlayerRating, RatingList

PAGE = 200


class RatingService:
    """Computes each game's ratings from its finished rated games."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.model = PlackettLuce()

    async def _rated_games(self, game: str) -> list[StreamInfo]:
        """Every finished rated game of ``game``, in finish order."""
        rows: list[StreamInfo] = []
        before: tuple[datetime, str] | None = None
        while True:
            page = await self.games.store.list_streams(
                category=game, status=FINISHED, metadata_contains={"rated": True}, before=before, limit=PAGE
            )
            rows.extend(page)
            if len(page) < PAGE:
                break
            before = (page[-1].created_at, page[-1].stream_id)
        return sorted(rows, key=lambda row: (row.updated_at, row.stream_id))

    async def ratings(self, game: str) -> RatingList:
        """Every rated player of ``game``, best ordinal first (422 for an unknown game)."""
        self.games.game_named(game)
        ratings: dict[str, PlackettLuceRating] = {}
        played: dict[str, int] = {}
        rated = await self._rated_games(game)
        for row in rated:
            loaded = await self.games.load(row.stream_id)
            result = loaded.game.result(loaded.state)
            names: list[str] = list(row.metadata.get("players", []))
            teams = [[ratings.get(name) or self.model.rating(name=name)] for name in names]
            updated = self.model.rate(teams, ranks=[float(rank) for rank in result.ranks])
            for name, team in zip(names, updated, strict=True):
                ratings[name] = team[0]
                played[name] = played.get(name, 0) + 1
        ordered = sorted(ratings.items(), key=lambda item: (-item[1].ordinal(), item[0]))
        return RatingList(
            game=game,
            games=len(rated),
            players=[
                PlayerRating(
                    rank=index + 1,
                    name=name,
                    game=game,
                    mu=round(rating.mu, 6),
                    sigma=round(rating.sigma, 6),
                    ordinal=round(rating.ordinal(), 6),
                    games=played[name],
                )
                for index, (name, rating) in enumerate(ordered)
            ],
        )

    async def player(self, name: str) -> PlayerProfile:
        """The player's rating in every game (404 if they have played no rated game)."""
        found: list[PlayerRating] = []
        for game in self.games.games:
            listing = await self.ratings(game)
            found.extend(row for row in listing.players if row.name == name)
        if not found:
            raise errors.NotFound("player_not_found", f"no rated games of a player called {name!r}")
        return PlayerProfile(name=name, ratings=found)
