"""Who a request acts as: the bearer token (the Authorization header, else a signed-in browser's session
cookie), and the seat a read of a game acts as."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from litestar import Request
from litestar._parsers import parse_cookie_string
from litestar.connection import ASGIConnection
from litestar.types import Scope

from service.games.loading import LoadedGame
from service.games.service import GameService
from service.runtime import errors

T = TypeVar("T")

SESSION_COOKIE = "session"  # a signed-in browser's account token (api/routes/sessions.py)


def session_token(scope: Scope) -> str | None:
    """The account token of a signed-in browser's session cookie, else None: every ``Cookie`` header of the
    request read as one list (RFC 6265 5.4; HTTP/2 may split it, RFC 9113 8.2.3) by Litestar's parser. The
    one reading of the cookie: the session and the CSRF check (api/routes/sessions.py) must agree on it."""
    values = [
        value.decode("latin-1") for name, value in scope.get("headers", ()) if name.lower() == b"cookie"
    ]
    # Litestar's own parser (what Request.cookies uses), given every header instead of the first only
    cookies = parse_cookie_string("; ".join(values)) if values else {}
    return cookies.get(SESSION_COOKIE) or None


def bearer_token(request: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The bearer token of the request: the Authorization header's (401 if it is not Bearer), else the
    account token of a signed-in browser's session cookie, else None."""
    header = request.headers.get("authorization")
    if header is None:
        return session_token(request.scope)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise errors.Unauthorized("bad_authorization", 'use an "Authorization: Bearer <seat token>" header')
    return token.strip()


async def reader_seat(service: GameService, game_id: str, request: Request[Any, Any, Any]) -> int | None:
    """The seat a read acts as: the Authorization token's (403 if it is no seat of the game), else the
    signed-in browser's account seat, else None. A session cookie is ambient (sent with every request of
    the browser), so an account without a seat in this game reads as a spectator instead of a 403."""
    if request.headers.get("authorization") is not None:
        return await service.loader.seat_of(game_id, bearer_token(request))
    session = session_token(request.scope)
    if session is None:
        return None
    try:
        return await service.loader.seat_of(game_id, session)
    except errors.Forbidden:
        return None


async def readable_game(
    service: GameService, game_id: str, request: Request[Any, Any, Any]
) -> tuple[LoadedGame, int | None]:
    """The game and the seat a read acts as; 403 ``duplicate_round_running`` for anyone but the table's own
    seats while its duplicate round plays (service/games/loading.py ``LoadedGame.check_readable``)."""
    loaded = await service.loader.load(game_id)
    seat = await reader_seat(service, game_id, request)
    loaded.check_readable(seat)
    return loaded, seat


async def read_as_reader(
    service: GameService,
    game_id: str,
    request: Request[Any, Any, Any],
    read: Callable[[int | None], Awaitable[tuple[LoadedGame, T]]],
) -> tuple[LoadedGame, T]:
    """``read`` for the seat a read acts as (``reader_seat``; 404 first for an unknown game, from the cached
    keys: no round trip), refused as ``readable_game`` refuses while the table's duplicate round plays."""
    await service.loader.game_keys(game_id)
    seat = await reader_seat(service, game_id, request)
    loaded, answer = await read(seat)
    loaded.check_readable(seat)
    return loaded, answer
