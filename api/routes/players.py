"""Players endpoints: a player's games (per-player history), served from the game projection."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from service.readmodels.projections import GameProjection
from service.readmodels.schemas import PlayerGamePage


class PlayersController(Controller):
    """A player's history across every game."""

    path = "/v1"
    tags = ["players"]

    @get(
        "/players/{name:str}/games", operation_id="listPlayerGames", summary="A player's games, newest first"
    )
    async def games(
        self,
        game_projection: NamedDependency[GameProjection],
        name: FromPath[str],
        game: Annotated[str | None, QueryParameter()] = None,
        status: Annotated[str | None, QueryParameter()] = None,
        cursor: Annotated[str | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> PlayerGamePage:
        """Every game the player sits in (filter by game and status active/finished), with their seat and,
        once the game is finished, their score and rank; page with ``cursor`` (empty for an unknown name). An
        account's name finds the account's seats only; any other name the hot-seat seats of that name."""
        return await game_projection.player_games(name, game, status, cursor, limit)
