"""The tournament pages for organizers and players: the index (``/tournaments``), a form to create one
(``/tournaments/new``) and a tournament's page (``/tournaments/{id}``): its registration while it registers
players, else its rounds, crosstable and results, with the organizer's actions for the signed-in organizer.

The pages are server-rendered like the others (api/web/pages.py); the actions are the API's own calls, sent by
``tournament.js`` and ``tournament_new.js`` with the browser's session cookie and the CSRF header. Nothing
secret is rendered: no seed, no token (an organizer token and ``{name}`` players' tokens are shown once, in
the creating browser, from the API's answer).
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Template

from api.http.auth import session_token
from api.routes.sessions import SETS_CSRF_COOKIE
from api.web.pages import builtins, titles
from service.games.service import GameService
from service.runtime import errors
from service.tournaments.tournaments import TournamentService

INDEX_LIMIT = 30


async def signed_in_name(service: TournamentService, request: Request[Any, Any, Any]) -> str | None:
    """The name of the account this browser is signed in as (None: nobody, or a token no longer valid)."""
    token = session_token(request.scope)
    accounts = service.accounts
    if token is None or accounts is None:
        return None
    account = await accounts.by_token(token)
    return None if account is None else account.name


class TournamentPagesController(Controller):
    """The tournaments index, the creation form and a tournament's page."""

    include_in_schema = False
    opt = {SETS_CSRF_COOKIE: True}  # the pages' scripts send the token back on every unsafe request

    @get("/tournaments", name="tournaments-page")
    async def index(
        self,
        game_service: NamedDependency[GameService],
        tournament_service: NamedDependency[TournamentService],
    ) -> Template:
        """Tournaments registering players, then the latest tournaments with their status."""
        service = tournament_service
        registering = builtins(await service.registering(INDEX_LIMIT))
        latest = [{"tournament_id": i, **builtins(view)} for i, view in await service.latest(INDEX_LIMIT)]
        return Template(
            template_name="tournaments.html.j2",
            context={"registering": registering, "latest": latest, "titles": titles(game_service)},
        )

    @get("/tournaments/new", name="new-tournament-page")
    async def new(self, game_service: NamedDependency[GameService]) -> Template:
        """The form that creates a tournament (POST /v1/tournaments from the page's script)."""
        catalog = [
            {"game": game.name, "title": game.title, "min": game.min_players, "max": game.max_players}
            for game in game_service.games.values()
        ]
        return Template(template_name="tournament_new.html.j2", context={"catalog": catalog})

    @get("/tournaments/{tournament_id:str}", name="tournament-page")
    async def tournament(
        self,
        request: Request[Any, Any, Any],
        game_service: NamedDependency[GameService],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Template:
        """A tournament: its registration while it registers players; else its rounds and tables (linked to
        their games), crosstable and results; the organizer's actions for its signed-in organizer."""
        service = tournament_service
        me = await signed_in_name(service, request)
        organizer = await service.is_organizer(tournament_id, session_token(request.scope))
        try:
            overview = builtins(await service.overview(tournament_id))
        except errors.Conflict as conflict:
            if conflict.code != "tournament_registering":
                raise
            registration = builtins(await service.registration(tournament_id))
            mine = next((e["status"] for e in registration["entries"] if e["name"] == me), None)
            return Template(
                template_name="tournament_registration.html.j2",
                context={
                    "tournament_id": tournament_id,
                    "r": registration,
                    "me": me,
                    "my_entry": mine,
                    "organizer": organizer,
                    "titles": titles(game_service),
                },
            )
        current = overview["schedule"][-1] if overview["schedule"] else None
        return Template(
            template_name="tournament.html.j2",
            context={
                "tournament_id": tournament_id,
                "t": overview,
                "crosstable": builtins(await service.crosstable(tournament_id)),
                "results": builtins(await service.results(tournament_id)),
                "titles": titles(game_service),
                "organizer": organizer,
                "of_accounts": await service.of_accounts(tournament_id),
                "active": [p for p in overview["players"] if p not in overview["withdrawn"]],
                "undecided": [
                    t for t in (current["tables"] if current else []) if t["game_id"] and not t["finished"]
                ],
                "over": overview["status"] in ("completed", "terminated"),
            },
        )
