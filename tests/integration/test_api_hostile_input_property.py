"""No 500 from input, as a property: Hypothesis throws generated strings (NUL, surrogates,
control characters, superscript and huge digit strings), raw bytes and deep nesting at every parameter
(path, query, header) of every operation of the OpenAPI document, at the headers the service reads and at
every request body, against the app on a real PostgreSQL. Each answer is a success or a 4xx problem+json;
never a 5xx."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import AsyncTestClient

from api.app import create_app
from api.contract.document import served_document
from service.runtime.settings import Settings

pytestmark = pytest.mark.db

APP_DOCUMENT = served_document(create_app(Settings.from_env()))
OPERATIONS = sorted(
    (path, method, operation)
    for path, item in APP_DOCUMENT["paths"].items()
    for method, operation in item.items()
    if method in ("get", "post", "delete")
    # the live stream of a running game never ends: covered by the hostile header tests of the stream
    and operation.get("operationId") not in ("streamGame", "streamMe")
)
READ_HEADERS = ("Authorization", "If-Match", "Last-Event-ID", "Idempotency-Key", "Accept", "Content-Type")

nasty_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec=None, categories=("Cc", "Cs", "Nd", "No", "Zs")), max_size=20),
    st.sampled_from(
        ["\x00", "a\x00b", "\ud800", "\u00b2", "1\u00b9", "9" * 5000, "-1", "", "*", 'W/"1"', "%00"]
    ),
    st.integers().map(str),
)
nasty_bytes = st.binary(max_size=40)
nasty_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), nasty_text),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(nasty_text, inner, max_size=3),
    max_leaves=10,
)


def encoded(value: str | bytes) -> str:
    """A value percent-encoded for a path or query (bytes as they are, text as UTF-8 with surrogates)."""
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return quote_from_bytes(raw, safe="")


def header_value(value: str | bytes) -> bytes:
    """A header value as bytes, without the line breaks no HTTP parser would pass on."""
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return raw.replace(b"\r", b"").replace(b"\n", b"")


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app on the test database."""
    app_settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(app_settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def defaults(client: AsyncTestClient[Any]) -> dict[str, str]:
    """Valid values for every path parameter: a real game, tournament and player."""
    game = (
        await client.post(
            "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ann", "Bo", "Cy")]}
        )
    ).json()
    tournament = (
        await client.post(
            "/v1/tournaments",
            json={"name": "t", "game": "basari", "players": [{"name": n} for n in "ABC"], "rounds": 1},
        )
    ).json()
    return {
        "game_id": game["game_id"],
        "tournament_id": tournament["tournament_id"],
        "name": "Ann",
        "game": "basari",
        "kind": "not_found",
        "token": game["seats"][0]["token"],
    }


def assert_answer(response: Any, what: str) -> None:
    """A success, or a 4xx problem+json: never a 5xx."""
    assert response.status_code < 500, (what, response.status_code, response.text[:300])
    if response.status_code >= 400 and response.status_code != 405:
        assert response.headers["content-type"].startswith("application/problem+json"), (
            what,
            response.text[:300],
        )


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
async def test_no_input_answers_a_5xx(
    client: AsyncTestClient[Any], defaults: dict[str, str], data: st.DataObject
) -> None:
    path, method, operation = data.draw(st.sampled_from(OPERATIONS), label="operation")
    parameters = operation.get("parameters", [])
    targets = [f"{p['in']}:{p['name']}" for p in parameters] + [f"header:{h}" for h in READ_HEADERS]
    if "requestBody" in operation:
        targets.append("body")
    target = data.draw(st.sampled_from(targets), label="target")
    value: str | bytes = data.draw(st.one_of(nasty_text, nasty_bytes), label="value")
    url = path
    for parameter in parameters:
        if parameter["in"] == "path":
            name = parameter["name"]
            filled = value if target == f"path:{name}" else defaults.get(name, "x")
            url = url.replace("{" + name + "}", encoded(filled))
    query = [
        f"{p['name']}={encoded(value)}"
        for p in parameters
        if p["in"] == "query" and target == f"query:{p['name']}"
    ]
    if query:
        url += "?" + "&".join(query)
    headers: dict[str, bytes] = {"Authorization": f"Bearer {defaults['token']}".encode()}
    if target.startswith("header:"):
        headers[target.split(":", 1)[1]] = header_value(value)
    content = b"{}"
    if target == "body":
        shape = data.draw(st.sampled_from(["json", "bytes", "deep"]), label="body")
        if shape == "json":
            content = json.dumps(data.draw(nasty_json, label="json"), ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            )
        elif shape == "bytes":
            content = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
        else:
            depth = data.draw(st.integers(min_value=30, max_value=3000), label="depth")
            content = b"[" * depth + b"]" * depth
    if method == "get":
        response = await client.get(url, headers=headers)
    elif method == "delete":
        response = await client.delete(url, headers=headers)
    else:
        headers.setdefault("Content-Type", b"application/json")
        response = await client.post(url, content=content, headers=headers)
    assert_answer(response, f"{method.upper()} {url} {target}")
