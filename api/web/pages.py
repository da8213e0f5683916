"""The web pages: home, game, replay and player pages, server-rendered with Jinja2 (the tournament pages:
api/web/tournament_pages.py), plus the static assets (plain JavaScript modules, CSS, the pinned Swagger UI) that
ship in this package.

The pages are one more client of the service layer: lists, score sheets, audits and standings are rendered
here; a game's board is drawn in the browser from the same view JSON the API serves (it is redrawn on every
live event, so one renderer, in JavaScript, serves the first paint and the updates). Nothing is loaded from
outside the service.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
from litestar import Controller, Request, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import FromPath
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Template
from litestar.router import Router
from litestar.static_files import create_static_files_router
from litestar.template.config import TemplateConfig

from api.http.auth import readable_game
from api.routes.sessions import SETS_CSRF_COOKIE
from domain.data import load_component_data
from service.games.service import GameService
from service.readmodels.projections import GameProjection
from service.readmodels.ratings import RatingService
from service.runtime import errors

PAGES_DIR = Path(__file__).parent
SWAGGER_UI = (
    "/static/vendor/swagger-ui-5.32.0"  # swagger-ui-dist 5.32.0 from the npm registry, vendored as is
)
LIST_LIMIT = 20


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    """Jinja2 templates from api/web/templates (autoescaped)."""
    return TemplateConfig(directory=PAGES_DIR / "templates", engine=JinjaTemplateEngine)


def static_files() -> Router:
    """api/web/static under /static: the pages' scripts and styles and the vendored Swagger UI (cached a day)."""
    return create_static_files_router(path="/static", directories=[PAGES_DIR / "static"], name="static")


@get("/{path:str}", include_in_schema=False, sync_to_thread=False)
def documentation_not_found(path: FromPath[str]) -> None:
    """A path under /schema that no documentation page serves: a 404 problem like any unknown path
    (Litestar's own answer here is a bare HTML page, whatever the client accepts)."""
    raise NotFoundException()


def documentation_router() -> Router:
    """The router of /schema: the interactive documentation and the document are added to it by Litestar."""
    return Router("/schema", route_handlers=[documentation_not_found], include_in_schema=False)


class OfflineSwaggerUI(SwaggerRenderPlugin):
    """Swagger UI at /schema from the pinned files in api/web/static, with no favicon or validator from the
    network (Litestar's plugins default to a CDN; Swagger UI 5 because the document is OpenAPI 3.1)."""

    def __init__(self) -> None:
        """Serve at /schema (and /schema/swagger) from the vendored assets."""
        super().__init__(
            js_url=f"{SWAGGER_UI}/swagger-ui-bundle.js",
            css_url=f"{SWAGGER_UI}/swagger-ui.css",
            standalone_preset_js_url=f"{SWAGGER_UI}/swagger-ui-standalone-preset.js",
            path=["/", "/swagger"],
            favicon="<link rel='icon' href='data:,'>",
        )

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        """The Swagger UI page with the document inline and the online validator turned off."""
        page = super().render(request, openapi_schema)
        return page.replace(
            b"dom_id: '#swagger-container',", b"dom_id: '#swagger-container', validatorUrl: null,"
        )


def components_json(game: str) -> str:
    """The game's published component data (cards, nobles, tracks) as JSON for the board script; all of
    it is public (the rule pages list every component; which card lies where is what stays secret)."""
    return json.dumps(load_component_data(game), separators=(",", ":"))


def builtins(value: Any) -> Any:
    """A msgspec struct (or list of them) as plain data for a template."""
    return msgspec.to_builtins(value)


class PagesController(Controller):
    """HTML pages for people; the API under /v1 serves programs."""

    include_in_schema = False
    opt = {SETS_CSRF_COOKIE: True}  # the pages' scripts send the token back on every unsafe request

    @get("/", name="home")
    async def home(
        self, game_service: NamedDependency[GameService], game_projection: NamedDependency[GameProjection]
    ) -> Template:
        """Home: games being played, recent results, a new game, sign-in."""
        active = builtins(
            (await game_projection.list_games(None, "active", None, None, None, LIST_LIMIT)).games
        )
        finished = builtins(
            (await game_projection.list_games(None, "finished", None, None, None, LIST_LIMIT)).games
        )
        catalog = [
            {"game": game.name, "title": game.title, "min": game.min_players, "max": game.max_players}
            for game in game_service.games.values()
        ]
        return Template(
            template_name="home.html.j2",
            context={
                "active": active,
                "finished": finished,
                "catalog": catalog,
                "titles": titles(game_service),
            },
        )

    @get("/games/{game_id:str}", name="game-page")
    async def game(
        self,
        request: Request[Any, Any, Any],
        game_service: NamedDependency[GameService],
        game_id: FromPath[str],
    ) -> Template:
        """A game's board, live; the signed-in seat sees its secrets and decisions."""
        await readable_game(game_service, game_id, request)
        return await self._game_template(game_service, game_id, "game.html.j2")

    @get("/games/{game_id:str}/replay", name="replay-page")
    async def replay(
        self,
        request: Request[Any, Any, Any],
        game_service: NamedDependency[GameService],
        game_id: FromPath[str],
    ) -> Template:
        """Step through a game version by version, with its score sheet and the audit's verdict."""
        await readable_game(game_service, game_id, request)
        sheet = builtins(await game_service.queries.scoresheet(game_id))
        audit = builtins(await game_service.exporter.audit(game_id))
        return await self._game_template(game_service, game_id, "replay.html.j2", sheet=sheet, audit=audit)

    async def _game_template(
        self, game_service: GameService, game_id: str, template: str, **extra: Any
    ) -> Template:
        """A game page's template with what every game page shows: the game, its seats and components."""
        loaded = await game_service.loader.load(game_id)
        detail = builtins(game_service.queries.detail(loaded, None))
        return Template(
            template_name=template,
            context={
                "game_id": game_id,
                "game": loaded.game.name,
                "title": loaded.game.title,
                "seats": detail["seats"],
                "version": loaded.version,
                "finished": loaded.finished,
                "components": components_json(loaded.game.name),
                **extra,
            },
        )

    @get("/players/{name:str}", name="player-page")
    async def player(
        self,
        game_service: NamedDependency[GameService],
        game_projection: NamedDependency[GameProjection],
        rating_service: NamedDependency[RatingService],
        name: FromPath[str],
    ) -> Template:
        """A player: their games (newest first) and their rating in each game."""
        games = builtins((await game_projection.player_games(name, None, None, None, 50)).games)
        try:
            ratings = builtins((await rating_service.player(name)).ratings)
        except errors.NotFound:
            ratings = []
        return Template(
            template_name="player.html.j2",
            context={"name": name, "games": games, "ratings": ratings, "titles": titles(game_service)},
        )


def titles(game_service: GameService) -> dict[str, str]:
    """Each game's title by its name, for lists."""
    return {name: game.title for name, game in game_service.games.items()}
