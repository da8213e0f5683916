"""The OpenAPI document as client generators need it: every game-dependent body typed per game, unique
generator-friendly schema names, no boolean schemas, bearer security, declared response headers.

Litestar documents handler signatures, where a game's view, commands, events and score cells are ``Any``
(one endpoint serves every game). Here the generated document is completed from the same msgspec structs
that encode and decode those bodies: each game's schemas under its own prefix (``BasariGameStarted``),
``GameDetail``, ``StateAt`` and ``EventOut`` as unions discriminated by ``game``, ``Command`` as a union
discriminated by ``type``.
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from litestar import Litestar
from litestar._openapi.plugin import OpenAPIPlugin

from domain.core import Game
from domain.resign import Adjudicate
from domain.tournament import ResultRow, StandingRow
from domain.tournament.rules import MAX_SEED_LENGTH
from service.games.schemas import EventPage, ScoreSheetOut

SCHEMAS = "#/components/schemas/"
BEARER = "bearerAuth"

# Operations by how they use the bearer token: required (a seat's, an account's or an organizer's), optional
# (a seat's own view, a creation that may seat the caller's account), or not at all. An optional one carries
# no ``security`` of its own and inherits the document's ``[{}, {"bearerAuth": []}]``: generators such as
# openapi-python-client treat any operation-level list as "token required", so a spectator's call would
# need a token; inherited, it takes a plain client, and an authenticated one still sends its token.
SEAT_TOKEN = {"postCommand", "createStreamTicket"}
ACCOUNT_TOKEN = {
    "getMe",
    "listMyGames",
    "streamMe",
    "rotateToken",
    "revokeToken",
    "joinGame",
    "leaveGame",
    "declineGame",
    "joinTournament",
    "declineTournament",
    "leaveTournament",
}
ORGANIZER_TOKEN = {
    "seatNextRound",
    "withdrawTournamentPlayer",
    "enterTournamentPlayer",
    "terminateTournament",
    "adjudicateTournamentGame",
}
TOKEN_REQUIRED = SEAT_TOKEN | ACCOUNT_TOKEN | ORGANIZER_TOKEN
TOKEN_OPTIONAL = {
    "getGame",
    "getLegal",
    "getEvents",
    "getStateAt",
    "streamGame",
    "createGame",
    "createTournament",
}
# Response headers each operation's success carries (every response carries X-Request-ID).
SUCCESS_HEADERS: dict[str, tuple[str, ...]] = {
    "getGame": ("ETag",),
    "postCommand": ("ETag",),
    "createGame": ("Location",),
    "createTournament": ("Location",),
}
HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {
        "description": 'The game\'s version as a strong entity tag, e.g. "12" (send it back in If-Match).',
        "schema": {"type": "string"},
    },
    "Location": {"description": "The path of what was created.", "schema": {"type": "string"}},
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}},
    "X-Request-ID": {
        "description": "The request's id (the client's own if it sent a printable one), as in the logs.",
        "schema": {"type": "string"},
    },
    "Vary": {"description": "Accept: the representation depends on it.", "schema": {"type": "string"}},
}
RETRY_STATUSES = ("429", "503")


def prefix_of(game: str) -> str:
    """The schema name prefix of a game: ``basari`` -> ``Basari``."""
    return game[:1].upper() + game[1:]


def walk(node: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    """Call ``visit`` on every JSON object of a document, depth first (children after the parent)."""
    if isinstance(node, dict):
        visit(node)
        for value in list(node.values()):
            walk(value, visit)
    elif isinstance(node, list):
        for value in node:
            walk(value, visit)


def rename_refs(node: Any, names: dict[str, str]) -> None:
    """Point every ``$ref`` to a renamed schema at its new name."""

    def visit(obj: dict[str, Any]) -> None:
        ref = obj.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS) and ref[len(SCHEMAS) :] in names:
            obj["$ref"] = SCHEMAS + names[ref[len(SCHEMAS) :]]

    walk(node, visit)


def without_tuples(node: Any) -> None:
    """Fixed-length arrays (``prefixItems`` then ``items: false``, a boolean schema many generators refuse)
    as plain arrays: ``items`` the element schema (or one of them), ``minItems`` = ``maxItems`` = length."""

    def visit(obj: dict[str, Any]) -> None:
        positions = obj.get("prefixItems")
        if not isinstance(positions, list):
            return
        del obj["prefixItems"]
        unique: list[Any] = []
        for schema in positions:
            if schema not in unique:
                unique.append(schema)
        obj["items"] = unique[0] if len(unique) == 1 else {"oneOf": unique}
        obj["minItems"] = obj["maxItems"] = len(positions)

    walk(node, visit)


def union(
    refs: Iterable[str], discriminator: str | None = None, mapping: dict[str, str] | None = None
) -> dict[str, Any]:
    """A ``oneOf`` of component references, discriminated by a property when given."""
    schema: dict[str, Any] = {"oneOf": [{"$ref": SCHEMAS + ref} for ref in refs]}
    if discriminator is not None:
        schema["discriminator"] = {"propertyName": discriminator}
        if mapping:
            schema["discriminator"]["mapping"] = {key: SCHEMAS + ref for key, ref in mapping.items()}
    return schema


def tags_of(union_type: Any) -> dict[str, str]:
    """The tag of each struct of a tagged union, by the struct's name."""
    members = typing.get_args(union_type) or (union_type,)
    return {member.__name__: member.__struct_config__.tag for member in members}


def shared_components(per_game: list[dict[str, Any]]) -> set[str]:
    """The components every game has alike (``Resign``, ``SeatResigned``, the clock's): one schema each, so a
    command such as ``{"type": "resign"}`` is one model whatever the game."""
    first, *others = per_game
    return {key for key, value in first.items() if all(other.get(key) == value for other in others)}


# Commands the service sends itself and refuses from clients (service/games/commands.py): no body of POST /commands
SERVICE_COMMANDS = {Adjudicate.__name__}


def game_schemas(games: dict[str, Game[Any]]) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Each game's command, event and view schemas, named ``<Game><Struct>`` (a component alike in every game
    keeps its own name); every command's component by its ``type`` (a tag names one command across games,
    so one union holds them all); each game's view's."""
    schemas: dict[str, Any] = {}
    command_by_tag: dict[str, str] = {}
    views: dict[str, str] = {}
    found = {
        name: msgspec.json.schema_components(
            [game.command_type, game.event_type, game.view_type], ref_template=SCHEMAS + "{name}"
        )
        for name, game in games.items()
    }
    shared = shared_components([components for _, components in found.values()])
    for name, game in games.items():
        prefix = prefix_of(name)
        (command, event, view), components = found[name]
        names = {key: key if key.startswith(prefix) or key in shared else prefix + key for key in components}
        group = {"command": command, "event": event, "view": view, **components}
        rename_refs(group, names)
        for key, value in components.items():
            if key not in SERVICE_COMMANDS:
                schemas[names[key]] = {**value, "title": names[key]}  # generators name their models by title
        command_tags = {
            struct: tag
            for struct, tag in tags_of(game.command_type).items()
            if struct not in SERVICE_COMMANDS
        }
        event_tags = tags_of(game.event_type)
        schemas[f"{prefix}Command"] = {
            **union(
                (names[struct] for struct in command_tags),
                "type",
                {tag: names[struct] for struct, tag in command_tags.items()},
            ),
            "description": f"A {game.title} command (body of POST /commands, entry of legal).",
        }
        schemas[f"{prefix}Event"] = {
            **union(
                (names[struct] for struct in event_tags),
                "type",
                {tag: names[struct] for struct, tag in event_tags.items()},
            ),
            "description": f"A {game.title} event (redacted for the caller while the game runs).",
        }
        view_name = view["$ref"][len(SCHEMAS) :]
        schemas[view_name]["description"] = f"The {game.title} view (``view`` of a game)."
        views[name] = view_name
        for struct, tag in command_tags.items():
            command_by_tag[tag] = names[struct]
    return schemas, command_by_tag, views


def per_game(
    schemas: dict[str, Any],
    name: str,
    games: dict[str, Game[Any]],
    what: str,
    typed: Callable[[str], dict[str, Any]],
) -> None:
    """Replace the generic schema ``name`` by one variant per game, ``<Game><name>`` (its ``game`` the game's
    name, the properties ``typed(game)`` returns typed), and ``name`` by their union discriminated by
    ``game``; ``what`` describes one, e.g. ``game as the caller may see it``."""
    generic = schemas[name]
    variants: dict[str, str] = {}
    for game_name, game in games.items():
        prefix = prefix_of(game_name)
        variant = copy.deepcopy(generic)
        variant["title"] = f"{prefix}{name}"
        variant["description"] = f"A {game.title} {what}."
        variant["properties"]["game"] = {"type": "string", "enum": [game_name]}
        variant["properties"].update(typed(game_name))
        schemas[f"{prefix}{name}"] = variant
        variants[game_name] = f"{prefix}{name}"
    schemas[name] = {
        **union(variants.values(), "game", variants),
        "description": f"A {what}: one schema per game, told apart by `game`.",
    }


def typed_details(schemas: dict[str, Any], games: dict[str, Game[Any]], views: dict[str, str]) -> None:
    """``GameDetail`` (view, legal entries and result), ``StateAt`` (view) and ``EventOut`` (data) as one
    schema per game, discriminated by ``game``; score sheet cells as strings, integers or nulls."""
    result = {"oneOf": [{"$ref": SCHEMAS + "Result"}, {"type": "null"}]}
    per_game(
        schemas,
        "GameDetail",
        games,
        "game as the caller may see it (view, who must act, the caller's legal commands)",
        lambda game: {
            "view": {"$ref": SCHEMAS + views[game]},
            "legal": {"type": "array", "items": {"$ref": f"{SCHEMAS}{prefix_of(game)}Command"}},
            "result": result,
        },
    )
    per_game(
        schemas,
        "StateAt",
        games,
        "game's view as the caller had it right after a version",
        lambda game: {"view": {"$ref": SCHEMAS + views[game]}},
    )
    per_game(
        schemas,
        "EventOut",
        games,
        "game's event as the caller may see it (``data`` redacted while the game runs)",
        lambda game: {"data": {"$ref": f"{SCHEMAS}{prefix_of(game)}Event"}},
    )
    cell = {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    for sheet in ("ScoreSheetOut", "ScoreSheet"):
        if sheet in schemas:
            schemas[sheet]["properties"]["rows"] = {
                "type": "array",
                "items": {"type": "array", "items": cell},
            }


def add_structs(schemas: dict[str, Any], types: list[Any]) -> list[dict[str, Any]]:
    """Schemas of structs Litestar does not see (handlers answering ``Response[Any]``), under their names."""
    found, components = msgspec.json.schema_components(types, ref_template=SCHEMAS + "{name}")
    for key, value in components.items():
        schemas.setdefault(key, value)
    return list(found)


def set_success(document: dict[str, Any], path: str, method: str, schema: dict[str, Any]) -> None:
    """The JSON schema of an operation's success answer."""
    operation = document["paths"][path][method]
    for status, response in operation["responses"].items():
        if status.startswith("2") and "application/json" in response.get("content", {}):
            response["content"]["application/json"]["schema"] = schema


PAGES = {"listProblemTypes", "getProblemType", "getRules"}


def text_pages(document: dict[str, Any]) -> None:
    """The reference pages answer Markdown, or HTML by negotiation."""
    text = {"schema": {"type": "string"}}
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") in PAGES:
                operation["responses"]["200"]["content"] = {"text/markdown": text, "text/html": text}


def declare_security_and_headers(document: dict[str, Any]) -> None:
    """Bearer security per operation (required, optional by inheritance, none) and the response headers each
    answer carries."""
    document["security"] = [{}, {BEARER: []}]
    document.setdefault("components", {})["securitySchemes"] = {
        BEARER: {
            "type": "http",
            "scheme": "bearer",
            "description": "A seat token (acts as that seat), an account token (acts for the account: its "
            "seats, and the tournaments it organizes) or a tournament's organizer token; none is a spectator.",
        }
    }
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation_id = operation.get("operationId", "")
            if operation_id in TOKEN_REQUIRED:
                operation["security"] = [{BEARER: []}]
            elif operation_id in TOKEN_OPTIONAL:
                operation.pop("security", None)  # the document's optional bearer (see TOKEN_OPTIONAL)
            else:
                operation["security"] = []
            for status, response in operation["responses"].items():
                headers = response.setdefault("headers", {})
                headers["X-Request-ID"] = HEADERS["X-Request-ID"]
                if status in RETRY_STATUSES:
                    headers["Retry-After"] = HEADERS["Retry-After"]
                if status.startswith("2"):
                    for name in SUCCESS_HEADERS.get(operation_id, ()):
                        headers[name] = HEADERS[name]


EVENT_STREAM = "text/event-stream"
STREAMS_NOTE = (
    " The live streams (GET /v1/games/{game_id}/stream, GET /v1/me/stream: server-sent events that never end"
    " by themselves, resumed with Last-Event-ID) are not operations of this document, since client generators"
    " read an answer whole and would wait forever; they are described under `x-event-streams` and in"
    ' docs/api.md ("Live streams"), and examples/follow.py follows one.'
)


def streams_aside(document: dict[str, Any]) -> None:
    """Move every operation answering ``text/event-stream`` from ``paths`` to ``x-event-streams`` (the
    same path items, which generators ignore), and say so in the document's description."""
    streams: dict[str, Any] = {}
    for path, item in list(document["paths"].items()):
        for method, operation in list(item.items()):
            if isinstance(operation, dict) and EVENT_STREAM in operation.get("responses", {}).get(
                "200", {}
            ).get("content", {}):
                streams.setdefault(path, {})[method] = item.pop(method)
        if not any(isinstance(operation, dict) and "responses" in operation for operation in item.values()):
            del document["paths"][path]
    document["x-event-streams"] = streams
    document["info"]["description"] += STREAMS_NOTE


# What the input guard (api/http/middleware.py) lets through, as JSON-schema patterns: text without C0 control
# characters or DEL (paths, queries, body strings and keys); the headers it reads in visible ASCII; If-Match a
# list of entity tags or ``*`` (api/routes/games.py). The guard refuses lone surrogates too, which no pattern says:
# a surrogate escape does not compile in many engines (Rust's regex, RE2), and a lone surrogate is no
# Unicode text, so no string a client can encode holds one (only a JSON escape such as "\\ud800" can).
TEXT = "^[^\\u0000-\\u001f\\u007f]*$"
# Any JSON value of a body (a game's options): its strings and keys text, as the input guard requires.
TEXT_JSON = "TextJson"
# Not recursive: a self-referencing schema breaks the client generators (TypeScript's TS2502), and no game's
# option is nested (a nested value is 422 ``invalid_options`` in a body, 400 ``bad_options_filter`` in the
# lobby's filter).
TEXT_JSON_SCHEMA = {
    "description": "A game option's value: null, true/false, a number, or text (no control character or lone "
    "surrogate, else 400 `control_character`).",
    "anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "number"},
        {"type": "string", "pattern": TEXT},
    ],
}
# Lengths of body strings the services check themselves (400 ``bad_seed``), by property name.
BODY_LENGTHS = {"seed": {"minLength": 1, "maxLength": MAX_SEED_LENGTH}}
HEADER_TEXT = "^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$"
ENTITY_TAG = '(W/)?"[\\x21\\x23-\\x7e]*"'
IF_MATCH = f"^(\\*|{ENTITY_TAG}( *, *{ENTITY_TAG})*)$"
HEADER_PATTERNS = {"If-Match": IF_MATCH}
# Query values the handlers check themselves: a listing's status filter; the lobby's options filter.
QUERY_SCHEMAS: dict[str, dict[str, Any]] = {"status": {"type": "string", "enum": ["active", "finished"]}}
OPTIONS_FILTER = {
    "type": "object",
    "propertyNames": {"pattern": TEXT},
    "additionalProperties": {"$ref": SCHEMAS + TEXT_JSON},
    "description": "Options the game's contain.",
}
# A listing's cursor is the ``next_cursor`` of the page before (URL-safe base64); one it did not give out is
# 400 ``bad_cursor``, which no pattern can say: a client (and the fuzzer) sends one it was given.
CURSOR = {
    "pattern": "^[A-Za-z0-9_=-]*$",
    "description": "The `next_cursor` of the previous page; empty or absent: the first page; any other value "
    "is 400 `bad_cursor`.",
}


def text_only(schema: dict[str, Any], pattern: str) -> None:
    """Give every string of ``schema`` (itself, or a member of its ``oneOf``) without a pattern ``pattern``,
    every object open to more keys keys of that pattern, and any value of such keys ``TEXT_JSON``."""
    for member in [schema, *schema.get("oneOf", [])]:
        if member.get("type") == "string" and "pattern" not in member and "enum" not in member:
            member["pattern"] = pattern
        if member.get("type") == "object" and member.get("additionalProperties", True) is not False:
            member.setdefault("propertyNames", {"pattern": pattern})
            if member.get("additionalProperties", True) in ({}, True):
                member["additionalProperties"] = {"$ref": SCHEMAS + TEXT_JSON}


def exact_parameters(document: dict[str, Any]) -> None:
    """Parameters as the server takes them: a value or nothing (``oneOf [X, null]`` is X: null cannot be
    sent), text without control characters, headers in visible ASCII (If-Match a list of entity tags)."""
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                members = schema.get("oneOf")
                if isinstance(members, list) and {"type": "null"} in members:
                    others = [member for member in members if member != {"type": "null"}]
                    if len(others) == 1:
                        del schema["oneOf"]
                        schema.update(others[0])
                if parameter["in"] == "query" and parameter["name"] in QUERY_SCHEMAS:
                    parameter["schema"] = QUERY_SCHEMAS[parameter["name"]]
                    continue
                if parameter["in"] == "query" and parameter["name"] == "options":
                    # a JSON object in the query (GET /v1/lobby): serialized as JSON, its keys text
                    del parameter["schema"]
                    parameter["content"] = {"application/json": {"schema": OPTIONS_FILTER}}
                    continue
                if parameter["in"] == "query" and parameter["name"] == "cursor":
                    schema["pattern"] = CURSOR["pattern"]
                    parameter["description"] = CURSOR["description"]
                elif parameter["in"] == "header":
                    text_only(schema, HEADER_PATTERNS.get(parameter["name"], HEADER_TEXT))
                else:
                    text_only(schema, TEXT)


def exact_bodies(document: dict[str, Any], body_types: list[Any]) -> None:
    """Request bodies as the server reads them: an object of a struct that refuses unknown fields says
    ``additionalProperties: false`` (as msgspec's own schema of it does), and every string and key of a body
    is text without control characters or lone surrogates (the input guard refuses them with 400); a seed
    has the length the services take (``BODY_LENGTHS``)."""
    schemas: dict[str, Any] = document["components"]["schemas"]
    schemas[TEXT_JSON] = TEXT_JSON_SCHEMA
    _, own = msgspec.json.schema_components(body_types, ref_template=SCHEMAS + "{name}")
    for name, schema in own.items():
        if schema.get("additionalProperties") is False and name in schemas:
            schemas[name]["additionalProperties"] = False
    reached: set[str] = set()

    def visit(node: dict[str, Any]) -> None:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS) and ref[len(SCHEMAS) :] not in reached:
            reached.add(ref[len(SCHEMAS) :])  # a schema used by several bodies (or by itself) once
            walk(schemas[ref[len(SCHEMAS) :]], visit)
        text_only(node, TEXT)
        properties = node.get("properties", {})
        for name in BODY_LENGTHS.keys() & properties.keys():
            for member in [properties[name], *properties[name].get("oneOf", [])]:
                if member.get("type") == "string":
                    member.update(BODY_LENGTHS[name])

    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                for content in operation["requestBody"]["content"].values():
                    walk(content["schema"], visit)


def shape_document(
    document: dict[str, Any], games: dict[str, Game[Any]], body_types: list[Any] | None = None
) -> None:
    """Complete Litestar's generated document (a dict, changed in place) as the module docstring says;
    ``body_types``: the types the handlers read their bodies as."""
    schemas: dict[str, Any] = document["components"]["schemas"]
    for stale in [key for key in schemas if "." in key]:  # older per-game names, if any
        del schemas[stale]
    added, command_by_tag, views = game_schemas(games)
    schemas.update(added)
    schemas["Command"] = {
        **union(sorted(set(command_by_tag.values())), "type", command_by_tag),
        "description": "A command of any game; every entry of `legal` is a ready body for POST /commands.",
    }
    standing, result, _page, _sheet = add_structs(schemas, [StandingRow, ResultRow, EventPage, ScoreSheetOut])
    typed_details(schemas, games, views)
    set_success(
        document,
        "/v1/games/{game_id}/legal",
        "get",
        {"type": "array", "items": {"$ref": SCHEMAS + "Command"}},
    )
    set_success(document, "/v1/games/{game_id}/events", "get", {"$ref": SCHEMAS + "EventPage"})
    set_success(document, "/v1/games/{game_id}/scoresheet", "get", {"$ref": SCHEMAS + "ScoreSheetOut"})
    set_success(
        document, "/v1/tournaments/{tournament_id}/standings", "get", {"type": "array", "items": standing}
    )
    set_success(
        document, "/v1/tournaments/{tournament_id}/results", "get", {"type": "array", "items": result}
    )
    body = document["paths"]["/v1/games/{game_id}/commands"]["post"]["requestBody"]
    body["content"]["application/json"]["schema"] = {"$ref": SCHEMAS + "Command"}
    without_tuples(document)
    text_pages(document)
    declare_security_and_headers(document)
    exact_parameters(document)
    exact_bodies(document, body_types or [])
    streams_aside(document)


def publish(app: Litestar, games: dict[str, Game[Any]]) -> dict[str, Any]:
    """Shape the app's document and make it the one served at /schema (and written by ``make openapi``).

    Litestar's OpenAPI plugin keeps the served document as a dict once built; it is built here and shaped,
    since the shaping is plain JSON-schema surgery that Litestar's spec objects have no place for.
    """
    plugin = app.plugins.get(OpenAPIPlugin)
    document = plugin.provide_openapi_schema()
    shape_document(document, games, body_types(app))
    return document


def body_types(app: Litestar) -> list[Any]:
    """The types the app's handlers read their JSON bodies as (their ``data``), each once."""
    found: list[Any] = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            data = getattr(handler, "parsed_fn_signature", None)
            parameter = data.parameters.get("data") if data is not None else None
            if (
                parameter is not None
                and parameter.annotation is not Any
                and parameter.annotation not in found
            ):
                found.append(parameter.annotation)
    return found


def served_document(app: Litestar) -> dict[str, Any]:
    """The document the app serves at /schema/openapi.json."""
    document: dict[str, Any] = app.plugins.get(OpenAPIPlugin).provide_openapi_schema()
    return document
