"""HEAD wherever GET is (RFC 9110 9.3.2): the same status and headers as GET, never a body, and a live
stream is not kept open for it."""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

DISCONNECTED: ReceiveMessage = {"type": "http.disconnect"}
HEAD_AS_GET = "head_as_get"  # marks the scope of a HEAD routed as GET (the access log says HEAD)


def head_without_body(app: ASGIApp) -> ASGIApp:
    """Wrap Litestar's router so a HEAD request is routed as the GET of its path and answered with the
    status and headers only (every GET route, the OpenAPI pages and static files included, with no handler
    declaring HEAD; the OpenAPI document lists the GET operations, its description says so).

    The body GET would send is dropped. A streaming answer (a live stream) is ended as soon as its headers
    are out: from then on the app hears the client as gone, which stops the stream and releases its slot as
    a real disconnect does.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "HEAD":
            await app(scope, receive, send)
            return
        answered = False

        async def send_headers_only(message: Message) -> None:
            nonlocal answered
            if answered:
                return  # the body GET would have had
            await send(message)
            if message["type"] == "http.response.start":
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                answered = True

        async def receive_until_answered() -> ReceiveMessage:
            return DISCONNECTED if answered else await receive()

        as_get: Any = {**scope, "method": "GET", HEAD_AS_GET: True}
        await app(as_get, receive_until_answered, send_headers_only)

    return middleware
