"""The answers the OpenAPI document describes beyond each handler's 200: problem+json errors and the CSV,
NDJSON and Prometheus text bodies.

Litestar documents a handler's return type (and its own 400 as plain JSON); the error statuses of API.md
("Errors") are raised from the service layer and the other media types are chosen by ``Accept``, so both are
added here from one table, keyed by operation id, to keep the document true to what clients receive.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIResponse, Operation, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIType

from api.formats import CSV, NDJSON

PROBLEM_JSON = "application/problem+json"
PROBLEM_SCHEMA = "ProblemDetails"

# API.md "Errors": every /v1 operation may answer 400 (malformed request), 429 (rate limit) and 503
# (database unreachable); the table adds what each operation can meet besides.
EVERY_V1_OPERATION = (400, 429, 503)
SEAT_TOKEN = (401, 403, 404)  # a bad or foreign bearer token, an unknown game
SEAT_TOKEN_WAITING = (*SEAT_TOKEN, 409)  # ... and a game still waiting in the lobby (or cancelled there)
ACCOUNT_TOKEN = (401,)  # no token, or no account's current token
ERRORS_BY_OPERATION: dict[str, tuple[int, ...]] = {
    "getCatalog": (),
    "listGames": (),
    "createGame": (*ACCOUNT_TOKEN, 413, 422),
    "getGame": SEAT_TOKEN_WAITING,
    "getLegal": SEAT_TOKEN_WAITING,
    "getEvents": SEAT_TOKEN_WAITING,
    "getStateAt": SEAT_TOKEN_WAITING,
    "postCommand": (*SEAT_TOKEN, 409, 412, 413, 422),
    "getScoreSheet": (404, 409),
    "getAudit": (404, 409),
    "createTournament": (*ACCOUNT_TOKEN, 413, 422),
    "getTournament": (404, 409),
    "seatNextRound": (401, 403, 404, 409, 413, 422),
    "getTournamentStandings": (404, 409),
    "getTournamentResults": (404, 409),
    "getRatings": (404, 422),
    "getPlayer": (404,),
    "createAccount": (409, 413, 422),
    "getMe": ACCOUNT_TOKEN,
    "rotateToken": ACCOUNT_TOKEN,
    "revokeToken": ACCOUNT_TOKEN,
    "listLobby": (),
    "getLobbyGame": (404,),
    "joinGame": (*ACCOUNT_TOKEN, 403, 404, 409, 413, 422),
    "leaveGame": (*ACCOUNT_TOKEN, 404, 409),
    "declineGame": (*ACCOUNT_TOKEN, 404, 409),
    "listMyGames": ACCOUNT_TOKEN,
    "getTournamentRegistration": (404,),
    "joinTournament": (*ACCOUNT_TOKEN, 403, 404, 409),
    "declineTournament": (*ACCOUNT_TOKEN, 404, 409),
    "leaveTournament": (*ACCOUNT_TOKEN, 404, 409),
}
OTHER_MEDIA: dict[str, str] = {
    "getEvents": NDJSON,
    "getScoreSheet": CSV,
    "getTournamentStandings": CSV,
    "getTournamentResults": NDJSON,
}
STATUS_TITLES = {
    400: "Malformed request",
    401: "Token missing or not a bearer token",
    403: "Token not allowed here",
    404: "Unknown id",
    409: "Game finished, round still running, or a concurrent command won",
    412: "If-Match names another version",
    413: "Body too large",
    422: "A rule forbids it, or an Idempotency-Key was reused",
    429: "Rate-limited (see Retry-After)",
    503: "Database unreachable (see Retry-After)",
}


def problem_schema() -> dict[str, Any]:
    """RFC 9457 problem details with this service's ``code`` and, for rule refusals, ``rule``."""
    return {
        "type": "object",
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "code": {"type": "string"},
            "rule": {"type": "string"},
        },
        "description": "An error (RFC 9457): a stable ``code``, and ``rule`` (e.g. B-8) when a rule refused.",
    }


def operations(app: Litestar) -> list[tuple[str, Operation]]:
    """Every (path, operation) of the app's document."""
    found: list[tuple[str, Operation]] = []
    for path, item in app.openapi_schema.paths.items():  # type: ignore[union-attr]
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method)
            if operation is not None:
                found.append((path, operation))
    return found


def describe_responses(app: Litestar) -> None:
    """Add the problem+json error answers, the CSV/NDJSON alternatives and /metrics' text to the document."""
    document = app.openapi_schema
    assert document.components.schemas is not None
    schemas: dict[str, Any] = document.components.schemas
    schemas[PROBLEM_SCHEMA] = problem_schema()
    problem_ref = Reference(ref=f"#/components/schemas/{PROBLEM_SCHEMA}")
    for path, operation in operations(app):
        responses = operation.responses if operation.responses is not None else {}
        operation.responses = responses
        if path == "/metrics":
            responses["200"] = OpenAPIResponse(
                description="Prometheus text exposition",
                content={"text/plain": OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))},
            )
            continue
        if not path.startswith("/v1"):
            continue
        operation_id = operation.operation_id or ""
        # an operation the table does not know yet may answer any error of API.md
        errors = ERRORS_BY_OPERATION.get(operation_id, tuple(STATUS_TITLES))
        for status in sorted({*EVERY_V1_OPERATION, *errors}):
            responses[str(status)] = OpenAPIResponse(
                description=STATUS_TITLES[status],
                content={PROBLEM_JSON: OpenAPIMediaType(schema=problem_ref)},
            )
        media = OTHER_MEDIA.get(operation_id)
        ok = responses.get("200")
        if media is not None and isinstance(ok, OpenAPIResponse) and ok.content is not None:
            ok.content[media] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))
