"""openapi/openapi.json is generated from the code: regenerate with `make openapi` when this fails."""

from __future__ import annotations

import json
from typing import Any

from api.app import create_app
from api.contract.document import SCHEMAS, served_document, walk
from api.contract.responses import ERRORS_BY_OPERATION, EVERY_OPERATION
from api.http.formats import JSON, OFFERS
from api.openapi import DEFAULT_PATH, openapi_text
from service.runtime.settings import Settings


def test_committed_openapi_document_matches_the_code() -> None:
    generated = json.loads(openapi_text())
    committed = json.loads(DEFAULT_PATH.read_text())
    assert generated == committed, "openapi/openapi.json is stale: run `make openapi`"


def test_every_operation_has_an_operation_id() -> None:
    document = json.loads(DEFAULT_PATH.read_text())
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert operations
    assert all(op.get("operationId") for op in operations)
    for path in ("/v1/games", "/v1/games/{game_id}/commands", "/v1/catalog", "/health", "/ready"):
        assert path in document["paths"]


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every (method, path, operation) of a document, the live streams (``x-event-streams``) included."""
    return [
        (method.upper(), path, operation)
        for section in ("paths", "x-event-streams")
        for path, item in document[section].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def test_the_live_streams_stand_apart_from_the_operations() -> None:
    """Generators read an answer whole: an operation answering ``text/event-stream`` would never return, so
    the streams are described under ``x-event-streams`` (docs/api.md, "The OpenAPI document")."""
    document = json.loads(DEFAULT_PATH.read_text())
    answers = [
        content
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for response in operation.get("responses", {}).values()
        for content in response.get("content", {})
    ]
    assert "text/event-stream" not in answers
    streams = document["x-event-streams"]
    assert set(streams) == {"/v1/games/{game_id}/stream", "/v1/me/stream"}
    for item in streams.values():
        assert "text/event-stream" in item["get"]["responses"]["200"]["content"]


def test_every_operation_lists_exactly_its_own_error_statuses() -> None:
    """No operation falls back to the catch-all list: each is in api.contract.responses' table (a new operation must
    be added there with the statuses it can answer), and the table names no operation that is gone."""
    document = json.loads(DEFAULT_PATH.read_text())
    found = {operation["operationId"]: (method, path) for method, path, operation in operations(document)}
    missing = sorted(
        f"{method} {path} ({op})" for op, (method, path) in found.items() if op not in ERRORS_BY_OPERATION
    )
    assert not missing, f"add these operations to ERRORS_BY_OPERATION in api/contract/responses.py: {missing}"
    assert not sorted(set(ERRORS_BY_OPERATION) - set(found)), "ERRORS_BY_OPERATION names unknown operations"
    for method, path, operation in operations(document):
        errors = sorted(int(status) for status in operation["responses"] if not status.startswith("2"))
        expected = {*ERRORS_BY_OPERATION[operation["operationId"]], *EVERY_OPERATION}
        assert errors == sorted(expected), (method, path)
        for status in errors:
            content = operation["responses"][str(status)]["content"]
            assert list(content) == ["application/problem+json"], (method, path, status)
            assert content["application/problem+json"]["schema"] == {"$ref": SCHEMAS + "ProblemDetails"}


def test_every_union_of_objects_is_discriminated() -> None:
    """A oneOf/anyOf of object schemas names the property that tells them apart and maps each of its values
    to a schema that requires that property with that one value, so generators dispatch without guessing."""
    document = json.loads(DEFAULT_PATH.read_text())
    schemas: dict[str, Any] = document["components"]["schemas"]
    unions: list[dict[str, Any]] = []

    def visit(node: dict[str, Any]) -> None:
        for key in ("oneOf", "anyOf"):
            members = node.get(key)
            if isinstance(members, list) and members and all("$ref" in m for m in members):
                targets = [schemas[m["$ref"].removeprefix(SCHEMAS)] for m in members]
                if all(t.get("type") == "object" or "oneOf" in t for t in targets):
                    unions.append(node)

    walk(document, visit)
    assert len(unions) >= 10  # commands, events per game and of every game; details, views, events
    for node in unions:
        assert "anyOf" not in node, node
        discriminator = node.get("discriminator")
        assert discriminator and discriminator.get("mapping"), node
        prop = discriminator["propertyName"]
        assert sorted(discriminator["mapping"].values()) == sorted(m["$ref"] for m in node["oneOf"]), node
        for value, ref in discriminator["mapping"].items():
            target = schemas[ref.removeprefix(SCHEMAS)]
            assert prop in target.get("required", []), (ref, prop)
            assert target["properties"][prop].get("enum") == [value], (ref, prop, value)


def test_every_operation_offers_to_the_accept_check_what_it_documents() -> None:
    """The 406 check (api.http.formats) lets through only what a handler's ``opt[OFFERS]`` lists (JSON when it
    lists nothing, under /v1): every media type an operation documents for its success must be offered,
    or clients asking for it would be refused."""
    app = create_app(Settings.from_env())
    document = served_document(app)
    documented = {
        operation["operationId"]: {
            media
            for status, answer in operation["responses"].items()
            if status.startswith("2")
            for media in answer.get("content", {})
        }
        for _method, _path, operation in operations(document)
    }
    checked = 0
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            operation_id = handler.operation_id
            name = operation_id if isinstance(operation_id, str) else None
            if name not in documented or not route.path.startswith("/v1/"):
                continue
            offered = set(handler.opt.get(OFFERS, (JSON,)))
            assert documented[name] <= offered, (route.path, name, documented[name] - offered)
            checked += 1
    assert checked >= 30
