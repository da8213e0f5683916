"""Request context: a request id for every request (``X-Request-ID``), bound into every log line, and an
access log line per request (method, path, status, duration; never headers, query values or bodies); the
guard that refuses hostile input before it reaches a handler (control characters, invalid UTF-8, deep
nesting, non-JSON bodies, slow bodies); the optional per-client rate limit."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Iterable
from contextlib import suppress
from typing import Any
from urllib.parse import unquote_to_bytes

import msgspec
import structlog
from litestar import Request
from litestar.enums import RequestEncodingType, ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.handlers import HTTPRouteHandler
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.params import BodyKwarg
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.stores.memory import MemoryStore
from litestar.types import ASGIApp, Empty, Message, Receive, ReceiveMessage, Scope, Send

from api.http.head import HEAD_AS_GET
from api.http.problems import FieldError, from_http_exception, problem
from api.http.strict_json import ANY_JSON, strict_decoder, wrong_type
from eventstore import StoreError
from service.accounts.accounts import VerifiedClients
from service.bootstrap import Services
from service.integrity.tokens import hash_token
from service.runtime.errors import ServiceError

log = structlog.get_logger("api.access")


# uuid4's fixed bits: the version (4) and the RFC 4122 variant, in a 128-bit integer
_UUID4_KEEP = ~(0xF000 << 64) & ~(0xC000 << 48)
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)


def new_request_id() -> str:
    """A random request id as ``uuid.uuid4().hex`` writes one (32 hex digits, version 4, RFC 4122 variant),
    from the ``random`` module: an id to find a request's log lines by, not a secret (a client may send its
    own), so it needs no system randomness (a third of the cost, timed alone)."""
    return f"{random.getrandbits(128) & _UUID4_KEEP | _UUID4_SET:032x}"


def incoming_request_id(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The request's ``X-Request-ID`` (its last, as a dict of the headers would hold it), else ''."""
    found = b""
    for name, value in headers:
        if name == b"x-request-id":
            found = value
    return found.decode("latin-1")


def request_context_middleware(app: ASGIApp) -> ASGIApp:
    """Wrap ``app`` so each HTTP request gets a request id and one access log line."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        incoming = incoming_request_id(scope.get("headers", []))
        request_id = (
            incoming if incoming and len(incoming) <= 64 and incoming.isprintable() else new_request_id()
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
                method="HEAD" if scope.get(HEAD_AS_GET) else scope.get("method"),
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
    """Whom a request counts against (rate limit, live-stream cap): the account its bearer token was
    verified as in this process, else its address. An account token verified once follows its holder across
    addresses; a seat token counts by the address it is used from, so the six seat tokens one hot-seat game
    hands its creator buy no more requests or streams than the creator's address has (and a game created
    with one is charged to that address); a made-up token, never verified, counts by address, so inventing
    tokens buys no budget."""
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    clients: VerifiedClients | None = getattr(request.app.state, "clients", None)
    if clients is not None and scheme.lower() == "bearer" and token.strip():
        identity = clients.identity(hash_token(token.strip()))
        if identity is not None:
            return identity
    return client_address(request)


async def verify_bearer(request: Request[Any, Any, Any]) -> None:
    """Verify a request's bearer token before it is counted, so an account token counts by its account from
    its first request (by its indexed hash). Any other token (a seat token; made up, rotated, revoked)
    counts by address."""
    state = request.app.state
    clients: VerifiedClients | None = getattr(state, "clients", None)
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if clients is None or scheme.lower() != "bearer" or not token or clients.identity(hash_token(token)):
        return
    services: Services | None = getattr(
        state, "services", None
    )  # built by the lifespan (service/bootstrap.py)
    with suppress(ServiceError, StoreError):
        if services is not None:
            await services.accounts.by_token(token)


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
            await answer_problem(scope, receive, send, from_http_exception(refused))


def rate_limit(per_minute: int) -> DefineMiddleware:
    """At most ``per_minute`` requests per client per minute, then 429 with Retry-After. Counts live in
    process memory (Litestar's default store), so each worker counts on its own."""
    return RateLimitConfig(
        rate_limit=("minute", per_minute),
        exclude=RATE_LIMIT_EXEMPT,
        identifier_for_request=client_identity,
        middleware_class=AnsweringRateLimitMiddleware,
    ).middleware


# ---------------------------------------------------------------------------------------------- input guard

# Text the service stores or compares must be printable: PostgreSQL text cannot hold NUL, a lone surrogate
# cannot be encoded as UTF-8, and other control characters have no place in names, ids or filters.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
# Headers the service interprets take visible ASCII only (RFC 9110 field values; no obs-text).
_VISIBLE_ASCII = re.compile(rb"^[\x20-\x7e\t]*$")
INTERPRETED_HEADERS = (
    b"authorization",
    b"if-match",
    b"last-event-id",
    b"idempotency-key",
    b"accept",
    b"content-type",
)
# A handler whose own validation names each refused character (``opt={CHECKS_OWN_TEXT: True}``, e.g. account
# names: 422 name_invisible_character) gets the body's strings unchecked; nesting and encoding are still.
CHECKS_OWN_TEXT = "checks_own_text"
MAX_JSON_DEPTH = 32  # the deepest command body is 4 levels; this bounds the work a body can cause
JSON_MEDIA = re.compile(r"^application/(?:[a-z0-9.+-]+\+)?json$")


def malformed(code: str, detail: str, pointer: str = "") -> ProblemDetailsException:
    """A 400 problem with one field error."""
    return problem(400, code, detail, field_errors=[FieldError(pointer=pointer, message=detail)])


def printable_text(raw: bytes, what: str) -> str:
    """Percent-decoded ``raw`` as text (400 unless it is UTF-8 without control characters)."""
    try:
        text = unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        raise malformed("bad_encoding", f"the {what} is not UTF-8", "/" + what) from None
    if _CONTROL.search(text):
        raise malformed("control_character", f"the {what} holds a control character", "/" + what)
    return text


def check_json(value: Any, pointer: str = "", depth: int = 0, text: bool = True) -> None:
    """Refuse (400) a decoded JSON body nested deeper than MAX_JSON_DEPTH or (with ``text``) holding a
    string, key or value, with a control character or a lone surrogate; the pointer names the first place."""
    if depth > MAX_JSON_DEPTH:
        raise malformed("too_deep", f"the body is nested deeper than {MAX_JSON_DEPTH} levels", pointer)
    if isinstance(value, str):
        if text and _CONTROL.search(value):
            raise malformed("control_character", "a string holds a control character", pointer)
    elif isinstance(value, dict):
        for key, item in value.items():
            escaped = key.replace("~", "~0").replace("/", "~1")
            if text and _CONTROL.search(key):
                raise malformed("control_character", "a key holds a control character", pointer)
            check_json(item, f"{pointer}/{escaped}", depth + 1, text)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_json(item, f"{pointer}/{index}", depth + 1, text)
    elif isinstance(value, msgspec.Struct):  # a body decoded into its schema: its fields by their JSON names
        check_json(msgspec.to_builtins(value, str_keys=True), pointer, depth, text)


def body_media_type(handler: HTTPRouteHandler) -> str | None:
    """The media type of the body ``handler`` takes (its ``data``): JSON unless it declares a form; None when
    it takes no body."""
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return None
    declared = data.kwarg_definition
    media = declared.media_type if isinstance(declared, BodyKwarg) else RequestEncodingType.JSON
    return media.value if isinstance(media, RequestEncodingType) else media


def refuse_unsupported_body(request: Request[Any, Any, Any], expected: str | None) -> None:
    """Before a handler reads its body: 415 when the request's ``Content-Type`` is not ``expected``, the type
    the handler takes (``body_media_type``; none given counts as that type). Litestar would read a form
    handler's body as a form whatever its type (a JSON or multipart body became an empty form: 400 for a
    missing field)."""
    content_type = request.headers.get("content-type")
    if expected is None or content_type is None:
        return
    media = content_type.partition(";")[0].strip().lower()
    if expected == RequestEncodingType.JSON.value:
        if not JSON_MEDIA.match(media):
            raise problem(
                415, "unsupported_media_type", "this operation takes Content-Type: application/json"
            )
    elif media != expected:
        raise problem(415, "unsupported_media_type", f"this form takes Content-Type: {expected}")


async def check_form_text(request: Request[Any, Any, Any]) -> None:
    """Before a form handler reads its form: 400 when a field's name or value holds a control character or
    a lone surrogate, as in a JSON body (a NUL in the sign-in token answered 401 as an unknown token); the
    pointer names the field."""
    for name, value in (await request.form()).multi_items():  # parsed once: the handler gets this form
        check_json({name: value})


def parse_json(body: bytes, decoder: msgspec.json.Decoder[Any] = ANY_JSON) -> Any:
    """A request body decoded by ``decoder`` (by default, any JSON): 400 unless it is UTF-8 JSON not nested
    too deep for the decoder, whose values are of the decoder's types (a number out of range is malformed
    JSON for any JSON, a value of the wrong type for a schema's)."""
    try:
        return decoder.decode(body)
    except msgspec.ValidationError as invalid:
        if decoder is not ANY_JSON:
            raise wrong_type(invalid) from None
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        pass
    raise malformed("malformed_json", "the body is not UTF-8 JSON (or is nested too deep)")


def decode_json_body(body: bytes, text: bool = True) -> Any:
    """A request body as JSON: 400 unless it is UTF-8 JSON without control characters, lone surrogates or
    deep nesting (its media type is checked before: ``refuse_unsupported_body``)."""
    value = parse_json(body)
    check_json(value, text=text)
    return value


class GuardedRequest(Request[Any, Any, Any]):
    """Litestar's request, whose JSON body is decoded once and checked before any handler sees it; Litestar's
    data extractor hands the handler the decoded value."""

    async def json(self) -> Any:
        """The JSON body decoded strictly into the handler's ``data`` type (api/http/strict_json.py), then
        checked as by ``decode_json_body``; decoded once per request. A value of the wrong JSON type is
        refused before a control character or deep nesting."""
        if self._json is Empty:
            state = self._connection_state
            if state.json is not Empty:
                self._json = state.json
            else:
                handler = self.route_handler
                value = parse_json(await self.body() or b"null", strict_decoder(handler))
                check_json(value, text=not handler.opt.get(CHECKS_OWN_TEXT, False))
                self._json = state.json = value
        return self._json


def check_scope(scope: Scope) -> None:
    """Refuse (400) a path or query with a control character or invalid UTF-8, and an interpreted header
    with anything but visible ASCII."""
    printable_text(scope.get("raw_path") or b"", "path")
    # Litestar percent-decodes path parameters once more (``%2500`` reaches a handler as NUL): check that too
    printable_text(scope["path"].encode("utf-8", "surrogateescape"), "path")
    query: bytes = scope.get("query_string", b"")
    if query:
        printable_text(query, "query")
    for name, value in scope.get("headers", ()):
        if name in INTERPRETED_HEADERS and not _VISIBLE_ASCII.match(value):
            header = name.decode("latin-1")
            raise malformed(
                "bad_header", f"the {header} header takes visible ASCII only", "/header/" + header
            )


async def answer_problem(scope: Scope, receive: Receive, send: Send, exc: ProblemDetailsException) -> None:
    """Answer ``exc`` from a middleware (an exception raised there would reach the client as a 500)."""
    request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope)
    response = exc.to_response(request)
    await response.to_asgi_response(app=None, request=request)(scope, receive, send)


class BodyDeadline:
    """A request's deadline for its whole body: one timer for the request, armed at the first wait for the
    body and disarmed once the body is whole (``asyncio.wait_for`` around each ``receive`` cost a task and a
    timer each time); once it has passed, a wait for the body ends in a 408 problem."""

    __slots__ = ("_deadline", "_expired", "_receive", "_timer", "_waiting", "body_done")

    def __init__(self, receive: Receive, deadline: float) -> None:
        """Time ``receive`` against ``deadline`` (the event loop's clock)."""
        self._receive = receive
        self._deadline = deadline
        self._timer: asyncio.TimerHandle | None = None
        self._waiting: asyncio.Task[Any] | None = None  # the task waiting for the body, while it waits
        self._expired = False
        self.body_done = False

    async def receive(self) -> ReceiveMessage:
        """The next message; after the body, receive() waits for the disconnect with no time limit."""
        if self.body_done:
            return await self._receive()
        if self._expired:
            raise too_late()
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(self._deadline, self._expire)
        self._waiting = task = asyncio.current_task()
        try:
            message = await self._receive()
        except asyncio.CancelledError:
            if self._expired and task is not None and task.uncancel() == 0:  # cancelled by the deadline only
                raise too_late() from None
            raise
        finally:
            self._waiting = None
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.disarm()
        return message

    def disarm(self) -> None:
        """The body is whole, or the request is over: no deadline any more."""
        self.body_done = True
        if self._timer is not None:
            self._timer.cancel()

    def _expire(self) -> None:
        """The deadline passed: end the wait for the body, if the request is waiting."""
        self._expired = True
        if self._waiting is not None:
            self._waiting.cancel()


def too_late() -> ProblemDetailsException:
    """The 408 of a request whose body did not arrive in time."""
    return problem(408, "request_timeout", "the request body did not arrive in time")


def input_guard(body_timeout: float) -> Any:
    """Middleware factory: refuse hostile paths, queries and headers (400) before the handler runs, and
    answer 408 when a request's whole body has not arrived ``body_timeout`` seconds after the request began
    (a half-sent or trickled request must not hold a connection and a handler forever)."""

    def wrap(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP:
                await app(scope, receive, send)
                return
            try:
                check_scope(scope)
            except ProblemDetailsException as refused:
                await answer_problem(scope, receive, send, refused)
                return
            # the deadline is the request's, not each chunk's: a body trickled a byte at a time must not
            # hold the connection and the handler any longer than one that stalls
            body = BodyDeadline(receive, asyncio.get_running_loop().time() + body_timeout)
            try:
                await app(scope, body.receive, send)
            finally:
                body.disarm()

        return middleware

    return wrap
