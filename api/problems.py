"""Every error as application/problem+json (RFC 9457) with a stable ``code`` and, for rule refusals, ``rule``.

Built on Litestar's ProblemDetailsPlugin: service errors, store outages and Litestar's own HTTP errors
(validation 400, 404 routes, 405, 413 body too large) are all mapped here.
"""

from __future__ import annotations

from typing import Any

from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)

from eventstore import StoreUnavailable
from service import errors

PROBLEM_BASE = "https://bazaar-games.example/problems/"
RETRY_AFTER_SECONDS = "2"

_CODES_BY_STATUS = {
    400: "malformed_request",
    401: "not_authenticated",
    403: "not_allowed",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


def problem(
    status: int,
    code: str,
    title: str,
    detail: str,
    rule: str | None = None,
    headers: dict[str, str] | None = None,
) -> ProblemDetailsException:
    """A problem details exception with this service's fields."""
    extra: dict[str, Any] = {"code": code}
    if rule is not None:
        extra["rule"] = rule
    return ProblemDetailsException(
        status_code=status,
        type_=PROBLEM_BASE + code,
        title=title,
        detail=detail,
        extra=extra,
        headers=headers,
    )


def from_service_error(exc: errors.ServiceError) -> ProblemDetailsException:
    """A service error as a problem."""
    return problem(exc.status, exc.code, exc.title, exc.detail, exc.rule, exc.headers or None)


def from_store_unavailable(_exc: StoreUnavailable) -> ProblemDetailsException:
    """The database is down: 503 with Retry-After (the detail never repeats driver messages)."""
    return problem(
        503,
        "database_unavailable",
        "Service unavailable",
        "the database cannot be reached; retry shortly",
        headers={"Retry-After": RETRY_AFTER_SECONDS},
    )


def from_http_exception(exc: HTTPException) -> ProblemDetailsException:
    """Litestar's own errors (validation, routing, body size) as problems."""
    status = exc.status_code
    code = _CODES_BY_STATUS.get(status, "http_error")
    detail = str(exc.detail)
    if isinstance(exc, ValidationException) and exc.extra:
        detail = f"{detail}: {exc.extra}"
    if status >= 500:
        detail = "internal error"
    headers = exc.headers
    if status == 429:
        # RateLimitMiddleware says when the window resets (RateLimit-Reset, seconds); RFC 9110 clients
        # look for Retry-After, so give them that too (at least one second).
        reset = (headers or {}).get("RateLimit-Reset", "1")
        headers = {**(headers or {}), "Retry-After": str(max(1, int(reset)))}
        detail = "too many requests from this client; retry after the given seconds"
    return problem(status, code, exc.detail if status < 500 else "Internal error", detail, headers=headers)


def problem_details_plugin() -> ProblemDetailsPlugin:
    """The plugin wiring every mapping above."""
    return ProblemDetailsPlugin(
        ProblemDetailsConfig(
            enable_for_all_http_exceptions=True,
            exception_to_problem_detail_map={
                errors.ServiceError: from_service_error,
                StoreUnavailable: from_store_unavailable,
                HTTPException: from_http_exception,
            },
        )
    )
