"""``OPTIONS`` answers with every method of its path in ``Allow`` (RFC 9110 9.3.7, 10.2.1).

Litestar builds a path's automatic OPTIONS handler with the first controller that registers the path; when a
second one adds a method to the same path (``GET /v1/games`` beside ``POST /v1/games``, ``POST`` beside
``DELETE /v1/me/token``), the route is rebuilt but the handler keeps the first one's methods. Here the
``Allow`` of an OPTIONS answer is written from the app's routes as they finally stand, with ``HEAD``
wherever ``GET`` is (api/http/head.py answers it).
"""

from __future__ import annotations

from litestar import Litestar
from litestar.enums import ScopeType
from litestar.routes import HTTPRoute
from litestar.types import ASGIApp, Message, Receive, Scope, Send


def allowed_methods(app: Litestar) -> dict[str, bytes]:
    """Each route path's ``Allow`` value: its methods, HEAD with GET, sorted."""
    allowed: dict[str, bytes] = {}
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            methods = set(route.methods) | ({"HEAD"} if "GET" in route.methods else set())
            allowed[route.path] = ", ".join(sorted(methods)).encode()
    return allowed


def options_allow_every_method(asgi: ASGIApp, app: Litestar) -> ASGIApp:
    """Wrap the app so an OPTIONS answer's ``Allow`` lists every method of the route that answered it."""
    allowed = allowed_methods(app)

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "OPTIONS":
            await asgi(scope, receive, send)
            return

        async def send_allow(message: Message) -> None:
            handler = scope.get("route_handler")
            if message["type"] == "http.response.start" and handler is not None:
                value = next((allowed[path] for path in handler.paths if path in allowed), None)
                if value is not None:
                    headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"allow"]
                    message = {**message, "headers": [*headers, (b"allow", value)]}
            await send(message)

        await asgi(scope, receive, send_allow)

    return middleware
