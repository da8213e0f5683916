"""Lobby endpoints: waiting games, joining, leaving and declining seats, the caller's games, account pages."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.di import NamedDependency
from litestar.params import Body, FromPath, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException

from api.http.auth import bearer_token
from api.http.middleware import decode_json_body
from service.accounts.accounts import AccountService
from service.lobby.lobby import LobbyService
from service.lobby.schemas import JoinIn, LobbyGame, LobbyPage, MyGame, MyGamePage
from service.readmodels.ratings import RatingService
from service.readmodels.schemas import PlayerRating
from service.runtime import errors

ACCOUNT_PAGE_GAMES = 20


class AccountPage(msgspec.Struct, frozen=True, kw_only=True):
    """An account's page: its kind, its ratings in every game, and its latest games with, once finished,
    its score and rank."""

    name: str
    kind: str | None
    ratings: list[PlayerRating]
    games: list[MyGame]


def options_filter(options: str | None) -> str | None:
    """The lobby's ``options`` filter as given: 400 ``bad_options_filter`` unless it is JSON a body could be
    (``decode_json_body``: no lone surrogate, control character, NaN or deep nesting, which the database
    cannot compare)."""
    if options is not None:
        try:
            decode_json_body(options.encode("utf-8"))
        except ProblemDetailsException as refused:
            detail = f"options: {refused.detail}"
            raise errors.Malformed(
                "bad_options_filter", detail, fields=(("/query/options", detail),)
            ) from None
    return options


class LobbyController(Controller):
    """Meet: waiting games and their seats."""

    path = "/v1"
    tags = ["lobby"]

    @get("/lobby", operation_id="listLobby", summary="Games waiting for players, newest first")
    async def lobby(
        self,
        lobby_service: NamedDependency[LobbyService],
        game: Annotated[str | None, QueryParameter()] = None,
        options: Annotated[str | None, QueryParameter()] = None,
        rated: Annotated[bool | None, QueryParameter()] = None,
        cursor: Annotated[str | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> LobbyPage:
        """Filter by game, by ``options`` (a JSON object the game's options contain, e.g.
        ``{"double_purchase":true}``) and ``rated``; page with ``cursor``."""
        return await lobby_service.waiting(game, options_filter(options), rated, cursor, limit)

    @get("/lobby/{game_id:str}", operation_id="getLobbyGame", summary="A lobby game and its seats")
    async def lobby_game(
        self, lobby_service: NamedDependency[LobbyService], game_id: FromPath[str]
    ) -> LobbyGame:
        """Any status: ``waiting``, ``started`` (play it at ``/v1/games/{game_id}``) or ``cancelled``."""
        return await lobby_service.lobby_game(game_id)

    @post("/games/{game_id:str}/join", operation_id="joinGame", summary="Take a seat", status_code=200)
    async def join(
        self,
        request: Request[Any, Any, Any],
        lobby_service: NamedDependency[LobbyService],
        game_id: FromPath[str],
        data: Annotated[JoinIn | None, Body()] = None,
    ) -> LobbyGame:
        """Account token. Body (optional) ``{seat?, entropy?}``: without ``seat``, the seat reserved for the
        caller, else the first open one. The game's creator may send ``{bot: "random" | "greedy" |
        "strong", seat?}`` instead, to seat the server's bot of that level (its account) in an open seat.
        The game starts when its last seat is filled (``status: started``). 409 ``already_seated``,
        ``no_free_seat``, ``seat_taken``, ``game_started``, ``game_cancelled``; 403 ``seat_reserved``,
        ``not_creator``."""
        return await lobby_service.join(game_id, bearer_token(request), data or JoinIn())

    @post("/games/{game_id:str}/leave", operation_id="leaveGame", summary="Give a seat back", status_code=200)
    async def leave(
        self,
        request: Request[Any, Any, Any],
        lobby_service: NamedDependency[LobbyService],
        game_id: FromPath[str],
    ) -> LobbyGame:
        """Account token; before the start only. The seat becomes open; the creator leaving cancels the game."""
        return await lobby_service.leave(game_id, bearer_token(request))

    @post(
        "/games/{game_id:str}/decline",
        operation_id="declineGame",
        summary="Decline an invitation",
        status_code=200,
    )
    async def decline(
        self,
        request: Request[Any, Any, Any],
        lobby_service: NamedDependency[LobbyService],
        game_id: FromPath[str],
    ) -> LobbyGame:
        """The invited account's token; the game is cancelled (409 ``not_invited`` without an invitation)."""
        return await lobby_service.decline(game_id, bearer_token(request))

    @get("/me/games", operation_id="listMyGames", summary="The caller's games, newest first")
    async def my_games(
        self,
        request: Request[Any, Any, Any],
        lobby_service: NamedDependency[LobbyService],
        cursor: Annotated[str | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> MyGamePage:
        """Account token. Every game the account holds a seat of or is invited to: ``waiting``, ``active``,
        ``finished`` (with score and rank) or ``cancelled``."""
        return await lobby_service.my_games(bearer_token(request), cursor, limit)

    @get("/players/{name:str}", operation_id="getPlayer", summary="An account's page")
    async def player(
        self,
        lobby_service: NamedDependency[LobbyService],
        account_service: NamedDependency[AccountService],
        rating_service: NamedDependency[RatingService],
        name: FromPath[str],
    ) -> AccountPage:
        """The account's kind, its rating in every game it has rated games of, and its latest games (each
        with its seat and, once finished, score and rank). 404 for a name that is neither an account nor
        rated."""
        account = await account_service.by_name(name)
        try:
            ratings = (await rating_service.player(account.name if account else name)).ratings
        except errors.NotFound:
            if account is None:
                raise
            ratings = []
        if account is None:
            return AccountPage(name=name, kind=None, ratings=ratings, games=[])
        games = await lobby_service.games_of(account, None, ACCOUNT_PAGE_GAMES)
        return AccountPage(name=account.name, kind=account.kind, ratings=ratings, games=games.games)
