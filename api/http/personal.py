"""Answers whose body depends on who asks (docs/api.md "Caching"): a seat's view, an account's games. Every
such answer varies on ``Authorization`` and ``Cookie`` (besides ``Accept``), so no cache hands one caller's
answer to another; one read with credentials (a bearer token or the session cookie) is
``Cache-Control: private``, kept by the caller's own cache only."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.http.auth import session_token

# the operations whose answer depends on the caller (a spectator's is the same for every spectator)
PERSONAL_OPERATIONS = frozenset(
    {"getGame", "getLegal", "getEvents", "getStateAt", "streamGame", "getMe", "listMyGames", "streamMe"}
)
VARY = b"Accept, Authorization, Cookie"


def with_credentials(scope: Scope) -> bool:
    """Whether the request names a caller: an ``Authorization`` header or the session cookie."""
    has_authorization = any(name.lower() == b"authorization" for name, _ in scope.get("headers", ()))
    return has_authorization or session_token(scope) is not None


def personal_answers(app: ASGIApp) -> ASGIApp:
    """Wrap a route's app so the answers of PERSONAL_OPERATIONS carry ``Vary: Accept, Authorization,
    Cookie`` and, read with credentials, ``Cache-Control: private`` (before any directive of their own)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        handler = scope.get("route_handler")
        if (
            scope["type"] != ScopeType.HTTP
            or getattr(handler, "operation_id", None) not in PERSONAL_OPERATIONS
        ):
            await app(scope, receive, send)
            return
        private = with_credentials(scope)

        async def send_personal(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"vary"]
                headers.append((b"vary", VARY))
                if private:
                    cache = [v for k, v in headers if k.lower() == b"cache-control"]
                    headers = [(k, v) for k, v in headers if k.lower() != b"cache-control"]
                    headers.append((b"cache-control", b", ".join([b"private", *cache])))
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_personal)

    return middleware
