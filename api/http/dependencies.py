"""The services a handler may ask for by parameter name (Litestar dependency injection, as litestar-fullstack
does): ``create_app`` registers ``service_dependencies(state)`` on the app, and a handler that declares, say,
``game_service: GameService`` receives the process's one GameService (built by service/bootstrap.py in the
lifespan). Providers take no parameters (they hold the app's state), so they add nothing to the OpenAPI
document, and Litestar neither extracts nor validates anything for them on a request (docs/performance.md,
"Where the time goes")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar.datastructures import State
from litestar.di import Provide

from service.bootstrap import Services

# parameter name -> the field of Services it receives
SERVICE_FIELDS = {
    "game_service": "games",
    "account_service": "accounts",
    "lobby_service": "lobby",
    "tournament_service": "tournaments",
    "game_projection": "projection",
    "rating_service": "ratings",
    "notifications": "notifications",
    "live_games": "live",
    "game_reads": "reads",
}


def services_of(state: State) -> Services:
    """The services the lifespan built (service/bootstrap.py)."""
    services: Services = state.services
    return services


def _provider(state: State, field: str) -> Callable[[], Any]:
    """A provider of one of the services of the app whose state is ``state`` (its type is the one the
    handler's parameter declares)."""

    def provide() -> Any:
        return getattr(services_of(state), field)

    return provide


def service_dependencies(state: State) -> dict[str, Provide]:
    """The providers of the services, by parameter name, for the app whose state is ``state``."""
    return {
        name: Provide(_provider(state, field), sync_to_thread=False) for name, field in SERVICE_FIELDS.items()
    }
