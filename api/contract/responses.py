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

from api.http.formats import CSV, NDJSON
from api.http.problems import KINDS, kind_of

PROBLEM_JSON = "application/problem+json"
PROBLEM_SCHEMA = "ProblemDetails"

# Any request may be answered 431 by the server itself, before routing: its head is over MAX_HEAD_BYTES
# (api/http/server.py).
EVERY_OPERATION = (431,)
# Every status each operation can answer besides its success, by operation id. 400: the input guard refuses
# a control character in any path or query; 406: Accept; 429: the rate limit (not for probes and metrics);
# 503: the database; 408/413/415: request bodies; 401/403: bearer tokens; 404: unknown ids.
V1 = (400, 406, 429, 503)
SEAT_TOKEN = (401, 403, 404)  # a bad or foreign bearer token, an unknown game
BODY = (408, 413, 415)
PAGE = (400, 406, 429)
SEAT_TOKEN_WAITING = (*SEAT_TOKEN, 409)  # ... and 409 for a game still waiting in the lobby (or cancelled)
ACCOUNT_TOKEN = (401,)  # no token, or no account's current token
ORGANIZER = (401, 403, 404)  # no token, no organizer's token (nor its account's), an unknown tournament
ERRORS_BY_OPERATION: dict[str, tuple[int, ...]] = {
    "getCatalog": PAGE,
    "listGames": V1,
    "createGame": (*V1, *BODY, *ACCOUNT_TOKEN, 422),
    "getGame": (*V1, *SEAT_TOKEN_WAITING),
    "getLegal": (*V1, *SEAT_TOKEN_WAITING),
    "getEvents": (*V1, *SEAT_TOKEN_WAITING),
    "getStateAt": (*V1, *SEAT_TOKEN_WAITING),
    "streamGame": (*V1, *SEAT_TOKEN_WAITING),
    "postCommand": (*V1, *SEAT_TOKEN, *BODY, 409, 412, 422),
    "getScoreSheet": (*V1, *SEAT_TOKEN_WAITING),  # a duplicate round's running table: its own seats only
    "getAudit": (*V1, *SEAT_TOKEN_WAITING),  # a duplicate round's running table: its own seats only
    "exportGame": (*V1, *SEAT_TOKEN_WAITING),  # a duplicate round's running table: its own seats only
    "createTournament": (*V1, *BODY, *ACCOUNT_TOKEN, 422),
    "getTournament": (*V1, 404, 409),
    "seatNextRound": (*V1, *ORGANIZER, 409, 422),
    "withdrawTournamentPlayer": (*V1, *ORGANIZER, *BODY, 409, 422),
    "enterTournamentPlayer": (*V1, *ORGANIZER, *BODY, 409, 422),
    "terminateTournament": (*V1, *ORGANIZER, 409),
    "adjudicateTournamentGame": (*V1, *ORGANIZER, *BODY, 409, 422),
    "getTournamentStandings": (*V1, 404, 409),
    "getTournamentResults": (*V1, 404, 409),
    "getTournamentCrosstable": (*V1, 404, 409),
    "getRatings": (*V1, 404),
    "getPlayer": (*V1, 404),
    "listPlayerGames": V1,
    "createAccount": (*V1, *BODY, 409, 422),
    "getMe": (*V1, *ACCOUNT_TOKEN),
    "rotateToken": (*V1, *ACCOUNT_TOKEN),
    "revokeToken": (*V1, *ACCOUNT_TOKEN),
    "listLobby": V1,
    "getLobbyGame": (*V1, 404),
    "joinGame": (*V1, *BODY, *ACCOUNT_TOKEN, 403, 404, 409, 422),
    "leaveGame": (*V1, *ACCOUNT_TOKEN, 404, 409),
    "declineGame": (*V1, *ACCOUNT_TOKEN, 404, 409),
    "listMyGames": (*V1, *ACCOUNT_TOKEN),
    "getTournamentRegistration": (*V1, 404),
    "joinTournament": (*V1, *ACCOUNT_TOKEN, 403, 404, 409),
    "declineTournament": (*V1, *ACCOUNT_TOKEN, 404, 409),
    "leaveTournament": (*V1, *ACCOUNT_TOKEN, 404, 409),
    "createStreamTicket": (*V1, *SEAT_TOKEN_WAITING),
    "streamMe": (*V1, *ACCOUNT_TOKEN),
    "getSigningKey": PAGE,
    "health": (400,),
    "ready": (400, 503),
    "MetricsGet": (400,),
    "listProblemTypes": PAGE,
    "getProblemType": (*PAGE, 404),
    "getRules": (*PAGE, 404),
}
# an operation the table does not know yet may answer any problem (tests/unit/test_openapi_committed.py
# requires every operation in the table, so this serves only until a new operation is added to it)
ANY_PROBLEM = tuple(kind.status for kind in KINDS if kind.status != 500)
OTHER_MEDIA: dict[str, str] = {
    "getEvents": NDJSON,
    "getScoreSheet": CSV,
    "getTournamentStandings": CSV,
    "getTournamentCrosstable": CSV,
    "getTournamentResults": NDJSON,
}


def problem_schema() -> dict[str, Any]:
    """RFC 9457 problem details with this service's ``code``, ``rule`` for rule refusals and ``errors``."""
    return {
        "type": "object",
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {
                "type": "string",
                "description": "The kind of problem, a URI reference to its page on this service "
                "(``/problems/<kind>``).",
            },
            "title": {"type": "string", "description": "The kind's title (the same for every occurrence)."},
            "status": {"type": "integer"},
            "detail": {"type": "string", "description": "What went wrong this time, for people."},
            "code": {"type": "string", "description": "A stable machine-readable code."},
            "rule": {"type": "string", "description": "The ruling that refused a command, e.g. B-8."},
            "errors": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/FieldError"},
                "description": "Each invalid field of a malformed request.",
            },
        },
        "title": "ProblemDetails",
        "description": "An error (RFC 9457): a stable ``code``, and ``rule`` (e.g. B-8) when a rule refused.",
    }


def field_error_schema() -> dict[str, Any]:
    """One invalid field of a problem's ``errors``."""
    return {
        "type": "object",
        "required": ["pointer", "message"],
        "properties": {
            "pointer": {
                "type": "string",
                "description": "A JSON pointer into the body, or /query/<name>, /header/<name>, /path/<name>.",
            },
            "message": {"type": "string"},
        },
        "title": "FieldError",
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
    schemas["FieldError"] = field_error_schema()
    problem_ref = Reference(ref=f"#/components/schemas/{PROBLEM_SCHEMA}")
    for path, operation in operations(app):
        responses = operation.responses if operation.responses is not None else {}
        operation.responses = responses
        for answered in [key for key in responses if not key.startswith("2")]:
            del responses[answered]  # Litestar's own 400 (plain JSON) is answered as a problem here
        operation_id = operation.operation_id or ""
        for status in sorted({*ERRORS_BY_OPERATION.get(operation_id, ANY_PROBLEM), *EVERY_OPERATION}):
            responses[str(status)] = OpenAPIResponse(
                description=kind_of(status).title,
                content={PROBLEM_JSON: OpenAPIMediaType(schema=problem_ref)},
            )
        if path == "/metrics":
            responses["200"] = OpenAPIResponse(
                description="Prometheus text exposition",
                content={"text/plain": OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))},
            )
        media = OTHER_MEDIA.get(operation_id)
        ok = responses.get("200")
        if media is not None and isinstance(ok, OpenAPIResponse) and ok.content is not None:
            ok.content[media] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))
