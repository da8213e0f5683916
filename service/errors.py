"""Application errors: each carries its HTTP status, a stable ``code`` and, for rule refusals, the ruling."""

from __future__ import annotations


class ServiceError(Exception):
    """An error the API turns into a problem+json response."""

    status = 500
    title = "Internal error"

    def __init__(
        self, code: str, detail: str = "", rule: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail or code.replace("_", " ")
        self.rule = rule
        self.headers = headers or {}


class Malformed(ServiceError):
    """The request body or a parameter does not have the expected shape."""

    status, title = 400, "Malformed request"


class Unauthorized(ServiceError):
    """A token is required and none (or an unknown one) was given."""

    status, title = 401, "Not authenticated"


class Forbidden(ServiceError):
    """The token is valid but does not allow this."""

    status, title = 403, "Not allowed"


class NotFound(ServiceError):
    """No such game, tournament or version."""

    status, title = 404, "Not found"


class Conflict(ServiceError):
    """The game is finished, or a concurrent command won the race."""

    status, title = 409, "Conflict"


class PreconditionFailed(ServiceError):
    """``If-Match`` named a version the game is no longer at."""

    status, title = 412, "Precondition failed"


class RuleViolation(ServiceError):
    """A game rule forbids the command, or an idempotency key was reused with another body."""

    status, title = 422, "Unprocessable command"


class Unavailable(ServiceError):
    """The database cannot be reached right now."""

    status, title = 503, "Service unavailable"
