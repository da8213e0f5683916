"""Every error as application/problem+json (RFC 9457): a ``type`` per kind of problem that resolves to a page
of the service (``GET /problems/{kind}``), one stable ``title`` per kind, a stable ``code``, ``rule`` for rule
refusals and a structured ``errors`` list (pointer and message) for validation failures.

Built on Litestar's ProblemDetailsPlugin: service errors, store outages and Litestar's own HTTP errors
(validation 400, 404 routes, 405, 413 body too large) are all mapped here.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)

from eventstore import StoreUnavailable
from service.runtime import errors
from service.runtime.logging import failure_fields

log = structlog.get_logger("api.http.problems")

PROBLEM_PATH = "/problems/"  # a relative URI reference (RFC 9457 3.1.1): it resolves on this service
RETRY_AFTER_SECONDS = "2"


class ProblemKind(msgspec.Struct, frozen=True, kw_only=True):
    """A kind of problem: its status, its one title, and what its page says (with what a client should do)."""

    kind: str
    status: int
    title: str
    description: str


KINDS: tuple[ProblemKind, ...] = (
    ProblemKind(
        kind="malformed_request",
        status=400,
        title="Malformed request",
        description="The body, a parameter or a header does not have the expected shape: not JSON, a "
        "misspelt or ill-typed field, a NUL or other control character, text that is not UTF-8, nesting "
        "deeper than any command needs, or a header value out of range. `errors` lists each field "
        "(`pointer`, `message`). Fix the request; sending it again unchanged gets the same answer.",
    ),
    ProblemKind(
        kind="not_authenticated",
        status=401,
        title="Not authenticated",
        description="This needs `Authorization: Bearer <token>` (a seat token or a tournament's organizer "
        "token), or the header is not a bearer token. The answer carries `WWW-Authenticate: Bearer`.",
    ),
    ProblemKind(
        kind="not_allowed",
        status=403,
        title="Not allowed",
        description="The bearer token is valid but does not act here: it is no seat of this game, or not "
        "the organizer of this tournament.",
    ),
    ProblemKind(
        kind="not_found",
        status=404,
        title="Not found",
        description="No such game, tournament, version, player or route. A wrong token never reveals more "
        "about a game than a spectator sees.",
    ),
    ProblemKind(
        kind="method_not_allowed",
        status=405,
        title="Method not allowed",
        description="The path exists but not with this method; `Allow` lists the methods it takes.",
    ),
    ProblemKind(
        kind="not_acceptable",
        status=406,
        title="Not acceptable",
        description="None of the representations this operation offers is acceptable by the request's "
        "`Accept` header (q=0 excludes a type). The operation's documentation lists what it offers: JSON, "
        "and for some CSV (`text/csv`) or newline-delimited JSON (`application/x-ndjson`).",
    ),
    ProblemKind(
        kind="request_timeout",
        status=408,
        title="Request timeout",
        description="The request's body did not arrive in time (the service waits "
        "`REQUEST_BODY_TIMEOUT_SECONDS`, 10 s by default). Send the request again, whole.",
    ),
    ProblemKind(
        kind="conflict",
        status=409,
        title="Conflict",
        description="The game is finished, a tournament round is still running or complete, the game is "
        "not finished yet (exports), or concurrent commands kept winning the race. Reload and decide again.",
    ),
    ProblemKind(
        kind="precondition_failed",
        status=412,
        title="Precondition failed",
        description='`If-Match` names no current version of the game (`If-Match: "<version>"`, or `*` for '
        "any; weak tags never match). Another command moved the game on: reload it and decide again.",
    ),
    ProblemKind(
        kind="body_too_large",
        status=413,
        title="Body too large",
        description="The request body is larger than the service accepts (64 KiB by default).",
    ),
    ProblemKind(
        kind="unsupported_media_type",
        status=415,
        title="Unsupported media type",
        description=(
            "The body is not of the type the operation takes: the API takes JSON (`Content-Type: "
            "application/json`), the sign-in form of the pages `application/x-www-form-urlencoded`."
        ),
    ),
    ProblemKind(
        kind="unprocessable",
        status=422,
        title="Unprocessable request",
        description="The request is well-formed but refused: a rule of the game forbids the command "
        "(`rule` cites the ruling, e.g. `B-8`, on the game's rule page at `/rules/{game}`), the game, "
        "options or players are not allowed, or an `Idempotency-Key` was reused with another body. A "
        "refused command appends nothing; `GET /v1/games/{id}/legal` lists what is allowed now.",
    ),
    ProblemKind(
        kind="rate_limited",
        status=429,
        title="Too many requests",
        description="This client (its account token, else its address) sent too many requests or holds too "
        "many live streams, or this account has as many games of server bots only running, or as many open "
        "invitations sent or received, as it may. "
        "Retry after the seconds given in `Retry-After`.",
    ),
    ProblemKind(
        kind="head_too_large",
        status=431,
        title="Request header fields too large",
        description="The request line and headers are larger than the service accepts (`MAX_HEAD_BYTES`, "
        "16 KiB by default); the server answers before reading further and closes the connection.",
    ),
    ProblemKind(
        kind="internal_error",
        status=500,
        title="Internal error",
        description="A fault of the service, logged with the request id (`X-Request-ID`). Please report it.",
    ),
    ProblemKind(
        kind="unavailable",
        status=503,
        title="Service unavailable",
        description="The database cannot be reached or is overloaded right now. Retry after the seconds "
        "given in `Retry-After`; a command answered with this may or may not have been applied, so retry "
        "it with the same `Idempotency-Key`.",
    ),
)
KIND_BY_STATUS: dict[int, ProblemKind] = {kind.status: kind for kind in KINDS}
KIND_BY_NAME: dict[str, ProblemKind] = {kind.kind: kind for kind in KINDS}
_CODES_BY_STATUS = {
    400: "malformed_request",
    401: "not_authenticated",
    403: "not_allowed",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    431: "head_too_large",
    500: "internal_error",
    503: "unavailable",
}


def kind_of(status: int) -> ProblemKind:
    """The kind of problem a status answers (any other 4xx is a malformed request, any other 5xx internal)."""
    known = KIND_BY_STATUS.get(status)
    if known is not None:
        return known
    return KIND_BY_STATUS[400 if status < 500 else 500]


class FieldError(msgspec.Struct, frozen=True, kw_only=True):
    """One invalid field: where (a JSON pointer into the body, or ``/query/<name>``, ``/header/<name>``,
    ``/path/<name>`` for parameters) and what is wrong."""

    pointer: str
    message: str


def problem(
    status: int,
    code: str,
    detail: str,
    rule: str | None = None,
    headers: dict[str, str] | None = None,
    field_errors: list[FieldError] | None = None,
) -> ProblemDetailsException:
    """A problem details exception with this service's fields; title and type come from the status's kind."""
    kind = kind_of(status)
    extra: dict[str, Any] = {"code": code}
    if rule is not None:
        extra["rule"] = rule
    if field_errors:
        extra["errors"] = msgspec.to_builtins(field_errors)
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": 'Bearer realm="bazaar-games"'}
    return ProblemDetailsException(
        status_code=status,
        type_=PROBLEM_PATH + kind.kind,
        title=kind.title,
        detail=detail,
        extra=extra,
        headers=headers,
    )


def from_service_error(exc: errors.ServiceError) -> ProblemDetailsException:
    """A service error as a problem."""
    field_errors = [FieldError(pointer=pointer, message=message) for pointer, message in exc.fields]
    return problem(exc.status, exc.code, exc.detail, exc.rule, exc.headers or None, field_errors or None)


def from_store_unavailable(_exc: StoreUnavailable) -> ProblemDetailsException:
    """The database is down: 503 with Retry-After (the detail never repeats driver messages)."""
    return problem(
        503,
        "database_unavailable",
        "the database cannot be reached; retry shortly",
        headers={"Retry-After": RETRY_AFTER_SECONDS},
    )


MISSING_BODY = "this request needs a body"  # an operation that takes a body got none


def field_error(message: str, source: str | None = None, key: str | None = None) -> FieldError:
    """One validation message as a field error: msgspec's trailing ``- at `$.x[0]` `` becomes the pointer."""
    pointer, message = errors.located(message)
    if source and source != "body" and key:
        pointer = f"/{source}/{key}"
    elif key and not pointer:
        pointer = errors.json_pointer("." + key)
    return FieldError(pointer=pointer, message=message)


def validation_errors(exc: ValidationException) -> list[FieldError]:
    """Litestar's validation details (a list of ``{message, key, source}``) as field errors."""
    found: list[FieldError] = []
    extra = exc.extra if isinstance(exc.extra, list) else [exc.extra] if exc.extra else []
    for item in extra:
        if isinstance(item, dict):
            source = item.get("source")
            source = getattr(source, "value", source)  # Litestar's ParamType enum
            if source == "body" and item.get("key") == "data" and item.get("message") == "'data'":
                found.append(FieldError(pointer="", message=MISSING_BODY))  # Litestar's KeyError, as is
                continue
            found.append(field_error(str(item.get("message", "")), source, item.get("key")))
        else:
            found.append(FieldError(pointer="", message=str(item)))
    return found


def from_http_exception(exc: HTTPException) -> ProblemDetailsException:
    """Litestar's own errors (validation, routing, body size) as problems, without Python reprs."""
    status = exc.status_code
    code = _CODES_BY_STATUS.get(status, "http_error")
    headers = exc.headers
    field_errors: list[FieldError] | None = None
    detail = str(exc.detail)
    if isinstance(exc, ValidationException):
        field_errors = validation_errors(exc)
        detail = (
            "; ".join(f"{e.pointer}: {e.message}" if e.pointer else e.message for e in field_errors)
            or "the request is not valid"
        )
    if status >= 500:
        detail = "internal error"
    if status == 429:
        # RateLimitMiddleware says when the window resets (RateLimit-Reset, seconds); RFC 9110 clients
        # look for Retry-After, so give them that too (at least one second).
        reset = (headers or {}).get("RateLimit-Reset", "1")
        headers = {**(headers or {}), "Retry-After": str(max(1, int(reset)))}
        detail = "too many requests from this client; retry after the given seconds"
    return problem(status, code, detail, headers=headers, field_errors=field_errors)


def from_unexpected(exc: Exception) -> ProblemDetailsException:
    """Any other exception (a fault of the service) as a 500 problem that says nothing of it; logged with
    the request id, its type and where it was raised (file, line, function of each frame), never its
    message, which could quote a secret."""
    log.error("internal_error", **failure_fields(exc))
    return problem(500, "internal_error", "internal error")


def problem_details_plugin() -> ProblemDetailsPlugin:
    """The plugin wiring every mapping above."""
    return ProblemDetailsPlugin(
        ProblemDetailsConfig(
            enable_for_all_http_exceptions=True,
            exception_to_problem_detail_map={
                errors.ServiceError: from_service_error,
                StoreUnavailable: from_store_unavailable,
                HTTPException: from_http_exception,
                Exception: from_unexpected,
            },
        )
    )
