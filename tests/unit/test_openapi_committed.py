"""openapi/openapi.json is generated from the code: regenerate with `make openapi` when this fails."""

from __future__ import annotations

import json

from api.openapi import DEFAULT_PATH, openapi_text


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
