"""Request context: a request id for every request (``X-Request-ID``), bound into every log line, and an
access log line per request (method, path, status, duration; never headers, query values or bodies); the
optional per-client rate limit."""

from __future__ import annotations

import re
import time
import uuid
from contextlib import suppress
from typing import Any

import structlog
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.stores.memory import MemoryStore
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import from_http_exception
from eventstore import StoreError
from service.accounts import AccountService, VerifiedClients
from service.errors import ServiceError
from service.games import GameService
from service.tokens import hash_token

log = structlog.get_logger("api.access")


def request_context_middleware(app: ASGIApp) -> ASGIApp:
    """Wrap ``app`` so each HTTP request gets a request id and one access log line."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        incoming = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode("latin-1")
        request_id = (
            incoming if incoming and len(incoming) <= 64 and incoming.isprintable() else uuid.uuid4().hex
        )
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await app(scope, receive, send_with_id)
        finally:
            log.info(
                "request",
                method=scope.get("method"),
                path=scope.get("path"),
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 2),
            )
            structlog.contextvars.clear_contextvars()

    return middleware


# Probes and metrics stay reachable whatever a client does: orchestrators and scrapers must never be throttled.
RATE_LIMIT_EXEMPT = ["^/health$", "^/ready$", "^/metrics$"]


def client_address(request: Request[Any, Any, Any]) -> str:
    """A request's client address (what sign-ups are counted by)."""
    return "address:" + (request.client.host if request.client else "unknown")


def client_identity(request: Request[Any, Any, Any]) -> str:
    """Whom a request counts against (rate limit, live-stream cap): the account (or seat) its bearer token
    was verified as in this process, else its address. A token verified once follows its holder across
    addresses; a made-up token, never verified, counts by address, so inventing tokens buys no budget."""
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    clients: VerifiedClients | None = getattr(request.app.state, "clients", None)
    if clients is not None and scheme.lower() == "bearer" and token.strip():
        identity = clients.identity(hash_token(token.strip()))
        if identity is not None:
            return identity
    return client_address(request)


GAME_PATH = re.compile(r"^/v1/games/([^/]+)")


async def verify_bearer(request: Request[Any, Any, Any]) -> None:
    """Verify a request's bearer token before it is counted, so a real token counts by its account (or
    seat) from its first request: an account token by its indexed hash, a seat token against the game its
    path names. A token that verifies as nothing (made up, rotated, revoked) counts by address."""
    state = request.app.state
    clients: VerifiedClients | None = getattr(state, "clients", None)
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if clients is None or scheme.lower() != "bearer" or not token or clients.identity(hash_token(token)):
        return
    accounts: AccountService | None = getattr(state, "accounts", None)
    games: GameService | None = getattr(state, "games", None)
    with suppress(ServiceError, StoreError):
        if accounts is not None and await accounts.by_token(token) is not None:
            return
        game = GAME_PATH.match(request.url.path)
        if game is not None and games is not None:
            await games.seat_of(game.group(1), token)


class AnsweringRateLimitMiddleware(RateLimitMiddleware):
    """Litestar's rate limiter, answering its own 429 (problem+json with Retry-After).

    The stock middleware raises, and an exception from middleware is only turned into a response outside
    all middleware, so the access log and the metrics would record a 500 that never was.
    """

    _next_sweep = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count the request; past the limit, answer 429 here."""
        if time.monotonic() >= self._next_sweep:
            # The memory store forgets an expired count only when that client comes back; clients that
            # never return (or invent tokens) would otherwise pile up, so sweep once a window.
            self._next_sweep = time.monotonic() + 60
            store = self.config.get_store_from_app(scope["litestar_app"])
            if isinstance(store, MemoryStore):
                await store.delete_expired()
        request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope)
        await verify_bearer(request)
        try:
            await super().__call__(scope, receive, send)
        except TooManyRequestsException as refused:
            response = from_http_exception(refused).to_response(request)
            await response.to_asgi_response(app=None, request=request)(scope, receive, send)


def rate_limit(per_minute: int) -> DefineMiddleware:
    """At most ``per_minute`` requests per client per minute, then 429 with Retry-After. Counts live in
    process memory (Litestar's default store), so each worker counts on its own."""
    return RateLimitConfig(
        rate_limit=("minute", per_minute),
        exclude=RATE_LIMIT_EXEMPT,
        identifier_for_request=client_identity,
        middleware_class=AnsweringRateLimitMiddleware,
    ).middleware
