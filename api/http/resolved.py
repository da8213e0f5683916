"""What Litestar works out again on every request although it cannot change once the app is built, worked
out once (docs/performance.md, "Where the time goes")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.handlers import BaseRouteHandler
from litestar.routes import ASGIRoute, HTTPRoute, WebSocketRoute


def route_handlers(app: Litestar) -> list[BaseRouteHandler]:
    """Every route handler of the app, as its routes hold them."""
    handlers: list[BaseRouteHandler] = []
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            handlers.extend(route.route_handlers)
        elif isinstance(route, ASGIRoute | WebSocketRoute):
            handlers.append(route.route_handler)
    return handlers


def resolve_exception_handlers_once(app: Litestar) -> None:
    """Each route handler's exception handlers, resolved once: Litestar's router asks every request's handler
    for them, and ``resolve_exception_handlers`` (documented as memoized) walks the handler's layers and
    merges their maps each time. The maps are only read (to find the handler of an exception). The handlers
    Litestar makes itself (those answering OPTIONS) have no attributes of their own and keep resolving."""
    for handler in route_handlers(app):
        if hasattr(handler, "__dict__"):
            setattr(handler, "resolve_exception_handlers", _constant(handler.resolve_exception_handlers()))  # noqa: B010


def _constant(value: Any) -> Callable[[], Any]:
    """A function of no arguments answering ``value``."""
    return lambda: value
