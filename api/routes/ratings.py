"""Ratings endpoints: a game's rating list and a player's ratings (OpenSkill Plackett-Luce), read from the
ratings projection (service/readmodels/ratings.py)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from service.readmodels.ratings import RatingService
from service.readmodels.schemas import RatingList


class RatingsController(Controller):
    """Ratings from finished rated games (tournament games are always rated)."""

    path = "/v1"
    tags = ["ratings"]

    @get("/ratings/{game:str}", operation_id="getRatings", summary="A game's ratings, best first")
    async def ratings(
        self,
        rating_service: NamedDependency[RatingService],
        game: FromPath[str],
        cursor: Annotated[str | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> RatingList:
        """A page of the game's rated players, best ordinal first: ``rank``, ``mu``, ``sigma``, ``ordinal``
        (mu - 3 sigma) and rated games played; page with ``cursor`` and ``limit``; 404 for an unknown game.
        Ratings are a projection of the finished rated games, up to date with every game finished before
        the request."""
        return await rating_service.ratings(game, cursor, limit)
