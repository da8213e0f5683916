"""The live stream of a game (API.md ``GET /v1/games/{id}/stream``): Server-Sent Events, a cap on concurrent
streams per client.

The cap is per process: each process protects its own memory and connections, and a process that dies
takes its count with it. With WORKERS=n a client may hold up to n times the cap in all (a shared count
would cost a database round trip per stream and go stale when a process dies).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEventMessage, Stream

from api.http.auth import bearer_token, reader_seat
from api.http.formats import EVENT_STREAM, OFFERS
from api.http.middleware import client_address, client_identity
from api.http.problems import problem
from service.accounts.accounts import AccountService
from service.games.loading import LoadedGame
from service.games.reads import GameReads
from service.games.schemas import StreamTicket
from service.games.service import GameService
from service.integrity.tokens import STREAM_TICKET_SECONDS, StreamTickets, hash_token, ticket_seat
from service.readmodels.live import LiveGames, LiveMessage, follow_game_batches, named_version, resume_after
from service.runtime import errors

STREAM_RETRY_AFTER_SECONDS = "5"
# what Litestar's ServerSentEvent response sets: no cache or proxy may hold the stream back
SSE_HEADERS = {"Cache-Control": "no-cache", "Connection": "keep-alive", "X-Accel-Buffering": "no"}


class StreamSlot:
    """One open stream counted against its client and its address; ``release`` is idempotent."""

    __slots__ = ("_keys", "_limiter")

    def __init__(self, limiter: StreamLimiter, keys: tuple[str, ...]) -> None:
        """A slot of the counts ``keys`` in ``limiter``."""
        self._limiter: StreamLimiter | None = limiter
        self._keys = keys

    def release(self) -> None:
        """Give the slot back (once)."""
        limiter, self._limiter = self._limiter, None
        if limiter is not None:
            for key in self._keys:
                limiter._release(key)


class StreamLimiter:
    """Counts the open streams of each client and of each address in this process and refuses one past
    ``per_client`` streams of the client or ``per_address`` of the address: accounts signed up from one
    address are as many clients, but share its cap."""

    def __init__(
        self, per_client: int, keepalive_seconds: float, poll_seconds: float, per_address: int | None = None
    ) -> None:
        """The caps (``per_address`` None: no cap of its own beyond ``per_client``), and the keep-alive and
        poll intervals of the streams it admits (from Settings)."""
        self.per_client = per_client
        self.per_address = per_address
        self.keepalive_seconds = keepalive_seconds
        self.poll_seconds = poll_seconds
        self._open: dict[str, int] = {}

    def acquire(self, client: str, address: str | None = None) -> StreamSlot:
        """A slot for ``client`` from ``address``, or 429 (with Retry-After) when the client has
        ``per_client`` streams open here, or the address ``per_address``."""
        caps = [(client, self.per_client, "client")]
        if address is not None and self.per_address is not None:
            caps.append(("per-address " + address, self.per_address, "address"))
        for key, cap, whose in caps:
            if self._open.get(key, 0) >= cap:
                raise problem(
                    429,
                    "too_many_streams",
                    f"at most {cap} live streams per {whose} at once; close one or retry later",
                    headers={"Retry-After": STREAM_RETRY_AFTER_SECONDS},
                )
        for key, _, _ in caps:
            self._open[key] = self._open.get(key, 0) + 1
        return StreamSlot(self, tuple(key for key, _, _ in caps))

    def _release(self, key: str) -> None:
        """One stream counted under ``key`` closed."""
        count = self._open.get(key, 0) - 1
        if count > 0:
            self._open[key] = count
        else:
            self._open.pop(key, None)


def sse_message(message: LiveMessage) -> ServerSentEventMessage:
    """A live message as an SSE message: ``snapshot`` and ``end`` are named events, game events the
    default ``message`` event with ``id:`` = version, keep-alives a comment line."""
    if message.kind == "keepalive":
        return ServerSentEventMessage(data=None, comment="keep-alive")
    event = None if message.kind == "event" else message.kind
    return ServerSentEventMessage(data=message.json, event=event, id=message.id)


def sse_bytes(message: LiveMessage) -> bytes:
    """A live message as the bytes of its SSE message."""
    return sse_message(message).encode()


async def sse_chunks(
    batches: AsyncGenerator[list[LiveMessage], None], slot: StreamSlot
) -> AsyncIterator[bytes]:
    """A game's live messages as SSE, one chunk per batch (each message encoded once for all the streams
    that send it); the client's slot is released however the stream ends."""
    try:
        async for batch in batches:
            if len(batch) == 1:
                yield batch[0].wire(sse_bytes)
            else:
                yield b"".join([message.wire(sse_bytes) for message in batch])
    finally:
        slot.release()
        await batches.aclose()


async def while_valid(
    messages: AsyncGenerator[Any, None], still_valid: Callable[[], Awaitable[bool]], every_seconds: float
) -> AsyncGenerator[Any, None]:
    """``messages`` until they end or, asked at least every ``every_seconds`` (quiet or busy stream alike),
    ``still_valid`` answers False: a stream opened with an account token ends once the token is rotated or
    revoked."""
    pending: asyncio.Future[Any] | None = None
    checked = time.monotonic()
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(messages))
            wait = max(0.0, checked + every_seconds - time.monotonic())
            done, _ = await asyncio.wait({pending}, timeout=wait)
            if done:
                try:
                    message = pending.result()
                except StopAsyncIteration:
                    return
                finally:
                    pending = None
                yield message
            if time.monotonic() - checked >= every_seconds:
                if not await still_valid():
                    return
                checked = time.monotonic()
    finally:
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending
        await messages.aclose()


def while_current(
    messages: AsyncGenerator[Any, None], accounts: AccountService, token: str, every_seconds: float
) -> AsyncGenerator[Any, None]:
    """``messages`` until ``token`` is no longer its account's current token (rotated or revoked)."""

    async def still_current() -> bool:
        return await accounts.by_token(token) is not None

    return while_valid(messages, still_current, every_seconds)


def while_bound(
    messages: AsyncGenerator[Any, None],
    accounts: AccountService,
    game_id: str,
    seat: int,
    bound: str,
    every_seconds: float,
) -> AsyncGenerator[Any, None]:
    """``messages`` until the account holding ``seat`` no longer has the token (hash ``bound``) that
    obtained the stream's ticket (rotated or revoked)."""

    async def still_bound() -> bool:
        return await accounts.seat_token_hash(game_id, seat) == bound

    return while_valid(messages, still_bound, every_seconds)


def released_after(slot: StreamSlot) -> BackgroundTask:
    """The slot given back as soon as the answer is over, however it ended: a stream whose answer ends before
    its generator first runs (a HEAD, a client gone at once) never runs the generator's ``finally``."""

    async def release() -> None:  # a coroutine: a plain function would be run in a thread
        slot.release()

    return BackgroundTask(release)


async def sse_stream(
    messages: AsyncGenerator[Any, None],
    slot: StreamSlot,
    encode: Callable[[Any], ServerSentEventMessage] = sse_message,
) -> AsyncIterator[Any]:
    """The SSE messages of a live stream (``encode``d; default: a game's); the client's slot is released
    however the stream ends."""
    try:
        async for message in messages:
            yield encode(message)
    finally:
        slot.release()
        await messages.aclose()


class GameStreamController(Controller):
    """The live stream of a game."""

    path = "/v1"
    tags = ["games"]

    @get(
        "/games/{game_id:str}/stream",
        operation_id="streamGame",
        summary="Follow a game live (Server-Sent Events)",
        media_type="text/event-stream",
        opt={OFFERS: (EVENT_STREAM,)},
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        state: State,
        game_service: NamedDependency[GameService],
        game_reads: NamedDependency[GameReads],
        live_games: NamedDependency[LiveGames],
        game_id: FromPath[str],
        last_event_id: Annotated[str | None, HeaderParameter(name="Last-Event-ID", max_length=20)] = None,
        ticket: Annotated[str | None, QueryParameter(max_length=200)] = None,
    ) -> Response[Any]:
        """First a ``snapshot`` event (the caller's game, as ``GET /v1/games/{id}``), then one event per new
        game event, ``id:`` = its version, redacted for the caller exactly as ``/events``; an ``end`` event
        once the game is over, then the stream closes. ``Last-Event-ID`` resumes after that version (the
        snapshot's ``id`` is then that version). A comment line keeps a quiet stream alive. A client
        (bearer token, else IP) may hold a limited number of streams at once per server process: 429.

        ``?ticket=`` (from ``POST /stream-ticket``) opens the ticket's seat for a browser, whose
        ``EventSource`` cannot send Authorization; 401 ``bad_stream_ticket`` if it is forged or expired.
        Reconnecting with ``Last-Event-ID`` at the final version of a finished game answers 204 No
        Content: the SSE standard's way to tell a browser to stop reconnecting after ``end``. A seat's stream
        opened with an account token (or a signed-in browser's session) closes within
        ``STREAM_POLL_SECONDS`` once that token is replaced or revoked; a spectator's stream shows what
        anyone may see and stays open."""
        service = (
            game_reads.live
        )  # the read replica's when there is one (fenced by LSN, service/games/reads.py)
        loaded = await stream_start(game_reads, game_id, last_event_id)
        seat = await reader_seat(service, game_id, request)
        bound: str | None = None  # a ticket of an account's seat: the account token hash that obtained it
        if ticket is not None:
            seat, bound = await seat_of_ticket(game_service, state.stream_tickets, game_id, ticket)
        loaded.check_readable(seat)
        after = resume_after(last_event_id, loaded)
        if after is not None and loaded.finished and after >= loaded.version:
            return Response(content=None, status_code=204)
        limiter: StreamLimiter = state.streams
        slot = limiter.acquire(client_identity(request), client_address(request))
        batches = follow_game_batches(
            live_games, loaded, seat, after, limiter.keepalive_seconds, limiter.poll_seconds
        )
        token, accounts = bearer_token(request), game_service.accounts
        # only a seat's stream depends on its token; a spectator's (e.g. a signed-in browser watching a game
        # it has no seat in) shows what anyone may see, and re-checking its session every poll would make
        # a crowd of spectators cost the database one statement each per STREAM_POLL_SECONDS
        if seat is not None and bound is not None and accounts is not None:
            batches = while_bound(batches, accounts, game_id, seat, bound, limiter.poll_seconds)
        elif (
            seat is not None
            and token is not None
            and accounts is not None
            and await accounts.by_token(token) is not None
        ):
            batches = while_current(batches, accounts, token, limiter.poll_seconds)
        content = sse_chunks(batches, slot)
        # A stream whose response never starts is never iterated, so its finally never runs: the slot
        # then comes back when the generator is collected.
        weakref.finalize(content, slot.release)
        # already SSE bytes: a plain stream, not Litestar's ServerSentEvent, which would wrap and re-encode
        # every message of every stream
        return Stream(content, media_type=EVENT_STREAM, headers=SSE_HEADERS, background=released_after(slot))

    @post(
        "/games/{game_id:str}/stream-ticket",
        operation_id="createStreamTicket",
        summary="A short-lived ticket that opens the caller's seat stream from a browser",
        status_code=201,
    )
    async def issue_stream_ticket(
        self,
        request: Request[Any, Any, Any],
        state: State,
        game_service: NamedDependency[GameService],
        game_id: FromPath[str],
    ) -> StreamTicket:
        """For ``GET /stream?ticket=...``: opens the caller's seat stream for 60 s after issue (a browser's
        ``EventSource`` cannot send Authorization, and a seat token never belongs in a URL). Needs the seat's
        ``Authorization: Bearer`` token; the ticket opens only that seat of only this game."""
        token = bearer_token(request)
        if token is None:
            raise errors.Unauthorized(
                "token_required", "a stream ticket needs 'Authorization: Bearer <seat token>'"
            )
        seat = await game_service.loader.seat_of(game_id, token)
        assert seat is not None
        keys = await game_service.loader.game_keys(game_id)
        tickets: StreamTickets = state.stream_tickets
        # bound to the caller's token: a seat token's hash is the seat's stored one; an account's ticket stops
        # opening (and its stream closes) once the account token is replaced or revoked
        issued = tickets.issue(game_id, seat, keys.seed, hash_token(token), time.time())
        return StreamTicket(ticket=issued, seat=seat, expires_in=STREAM_TICKET_SECONDS)


async def stream_start(reads: GameReads, game_id: str, last_event_id: str | None) -> LoadedGame:
    """The game a stream starts from: as the live reader's database has it, or as the primary has it when
    the client resumes after a version that database has not replayed yet (it may have seen it through
    another host); a version no database holds is refused by ``resume_after``."""

    async def load(service: GameService) -> tuple[LoadedGame, None]:
        return await service.loader.load(game_id), None

    try:
        loaded, _ = await reads.read(game_id, named_version(last_event_id) or 0, load)
    except errors.Conflict as exc:
        if exc.code != "version_not_reached":
            raise
        loaded = await reads.primary.loader.load(game_id)
    return loaded


async def seat_of_ticket(
    service: GameService, tickets: StreamTickets, game_id: str, ticket: str
) -> tuple[int, str | None]:
    """The seat a stream ticket opens and, for a seat an account holds, the hash of the account token the
    ticket was issued to (401 ``bad_stream_ticket`` for a forged, foreign or expired one, or one whose
    account token was replaced or revoked since)."""
    keys = await service.loader.game_keys(game_id)
    hashes = list(keys.token_hashes)
    claimed, bound = ticket_seat(ticket), None
    if claimed is not None and claimed < len(hashes) and not hashes[claimed] and service.accounts is not None:
        bound = await service.accounts.seat_token_hash(game_id, claimed)  # None: revoked, or no account
        hashes[claimed] = bound or ""
    seat = tickets.seat_of(game_id, ticket, keys.seed, hashes, time.time())
    if seat is None or (not keys.token_hashes[seat] and bound is None):
        raise errors.Unauthorized(
            "bad_stream_ticket", "the stream ticket is invalid or expired; get a new one"
        )
    return seat, bound
