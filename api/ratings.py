"""Ratings endpoints: a game's rating list and a player's ratings (OpenSkill Plackett-Luce)."""

from __future__ import annotations

from litestar import Controller, get
from litestar.datastructures import State
from litestar.params import FromPath

from service.models import PlayerProfile, RatingList
from service.ratings import RatingService


def ratings_of(state: State) -> RatingService:
    """The RatingService wired in by create_app."""
    service: RatingService = state.ratings
    return service


class RatingsController(Controller):
    """Ratings from finished rated games (tournament games are always rated)."""

    path = "/v1"
    tags = ["ratings"]

    @get("/ratings/{game:str}", operation_id="getRatings", summary="A game's ratings, best first")
    async def ratings(self, state: State, game: FromPath[str]) -> RatingList:
        """Every rated player of the game: ``mu``, ``sigma``, ``ordinal`` (mu - 3 sigma) and games played."""
        return await ratings_of(state).ratings(game)

    @get("/players/{name:str}", operation_id="getPlayer", summary="A player's ratings in every game")
    async def player(self, state: State, name: FromPath[str]) -> PlayerProfile:
        """The player's rating in each game they have played rated games of (404 if none)."""
        return await ratings_of(state).player(name)
