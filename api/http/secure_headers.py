"""The security headers of every answer (OWASP Secure Headers, docs/api.md "HTTP conventions"): no answer may
be sniffed as another type, and a page (HTML) runs only the service's own scripts and styles and is never
framed by another site."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

NOSNIFF = (b"x-content-type-options", b"nosniff")
# The pages load their scripts (modules) and styles from /static and talk only to this service; their
# data blocks (<script type="application/json">) are not scripts. No inline script or style runs.
PAGE_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI (/schema) starts from an inline script holding the document and styles its widgets inline.
DOCUMENTATION_POLICY = (
    b"default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    b"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCUMENTATION = "/schema"


def page_headers(path: str) -> list[tuple[bytes, bytes]]:
    """The headers an HTML answer at ``path`` carries besides ``nosniff``."""
    documentation = path == DOCUMENTATION or path.startswith(DOCUMENTATION + "/")
    policy = DOCUMENTATION_POLICY if documentation else PAGE_POLICY
    return [(b"content-security-policy", policy), (b"x-frame-options", b"DENY")]


def secure_headers(app: ASGIApp) -> ASGIApp:
    """Wrap the app so every answer carries ``X-Content-Type-Options: nosniff`` and every HTML answer a
    ``Content-Security-Policy`` and ``X-Frame-Options: DENY`` (error pages and unrouted paths included)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), NOSNIFF]
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html"):
                    headers.extend(page_headers(scope["path"]))
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_secured)

    return middleware
