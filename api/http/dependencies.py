"""The services a handler may ask for by parameter name (Litestar dependency injection, as litestar-fullstack
does): ``create_app`` registers ``DEPENDENCIES`` on the app, and a handler that declares, say,
``game_service: GameService`` receives the process's one GameService (built by service/bootstrap.py in the
lifespan). Providers take only the app state, so they add nothing to the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar.datastructures import State
from litestar.di import Provide

from service.bootstrap import Services


def services_of(state: State) -> Services:
    """The services the lifespan built (service/bootstrap.py)."""
    services: Services = state.services
    return services


def _provider(field: str) -> Callable[[State], Any]:
    """A provider of one of the services (its type is the one the handler's parameter declares)."""

    def provide(state: State) -> Any:
        return getattr(services_of(state), field)

    return provide


# parameter name -> the field of Services it receives
DEPENDENCIES = {
    name: Provide(_provider(field), sync_to_thread=False)
    for name, field in {
        "game_service": "games",
        "account_service": "accounts",
        "lobby_service": "lobby",
        "tournament_service": "tournaments",
        "game_projection": "projection",
        "rating_service": "ratings",
        "notifications": "notifications",
        "live_games": "live",
        "game_reads": "reads",
    }.items()
}
