"""Application errors: each carries its HTTP status, a stable ``code`` and, for rule refusals, the ruling."""

from __future__ import annotations

import ast
import json
import re

_MSGSPEC_PATH = re.compile(r"\s*-\s*at\s*`\$([^`]*)`\s*$")  # msgspec's "... - at `$.players[0].name`"
_INDEX = re.compile(r"\[(\d+)\]")
_PYTHON_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")  # msgspec quotes a refused string value as Python does


def json_pointer(msgspec_path: str) -> str:
    """msgspec's ``$.players[0].name`` as the JSON pointer ``/players/0/name`` (RFC 6901)."""
    parts: list[str] = []
    for piece in _INDEX.sub(r".\1", msgspec_path).split("."):
        if piece:
            parts.append(piece.replace("~", "~0").replace("/", "~1"))
    return "/" + "/".join(parts) if parts else ""


def located(message: str) -> tuple[str, str]:
    """A msgspec validation message as (JSON pointer, message): its trailing `` - at `$.x[0]` `` becomes
    the pointer, and a value it quotes the Python way ('x') is quoted as JSON ("x")."""
    found = _MSGSPEC_PATH.search(message)
    pointer = json_pointer(found.group(1)) if found else ""
    if found:
        message = message[: found.start()]
    return pointer, _PYTHON_STRING.sub(_as_json, message).strip() or "invalid value"


def _as_json(quoted: re.Match[str]) -> str:
    """A Python string literal as a JSON string; anything else that merely looks like one, as it is."""
    try:
        value = ast.literal_eval(quoted.group(0))
    except (ValueError, SyntaxError):  # e.g. a client's field name '\x' quoted inside msgspec's backticks
        return quoted.group(0)
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else quoted.group(0)


class ServiceError(Exception):
    """An error the API turns into a problem+json response; ``fields``: (JSON pointer, message) of each
    invalid field of the request, for the problem's ``errors`` list."""

    status = 500
    title = "Internal error"

    def __init__(
        self,
        code: str,
        detail: str = "",
        rule: str | None = None,
        headers: dict[str, str] | None = None,
        fields: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail or code.replace("_", " ")
        self.rule = rule
        self.headers = headers or {}
        self.fields = fields

    @classmethod
    def invalid(cls, code: str, what: str, exc: Exception) -> ServiceError:
        """This error for a request part that failed msgspec's validation: the detail says what and where
        in plain words (no Python quoting), and ``fields`` points at it."""
        pointer, message = located(str(exc))
        return cls(
            code,
            f"{what}: {pointer}: {message}" if pointer else f"{what}: {message}",
            fields=((pointer, message),),
        )


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


class TooMany(ServiceError):
    """The caller holds as many of something (running bot-only games, open invitations) as a limit allows."""

    status, title = 429, "Too many requests"


class Unavailable(ServiceError):
    """The database cannot be reached right now."""

    status, title = 503, "Service unavailable"
