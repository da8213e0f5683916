"""Hostile input answers a 4xx problem and writes nothing: NUL characters, invalid UTF-8, deep
nesting, odd digits in headers; and HTTP by the book (content negotiation, HEAD, If-Match, problems)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from api.app import create_app
from api.http.formats import EVENT_STREAM, OFFERS
from service.runtime.settings import Settings

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def game(client: AsyncTestClient[Any]) -> dict[str, Any]:
    """A running Basari game: its id and seat tokens."""
    response = await client.post(
        "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ann", "Bo", "Cy")]}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_problem(response: Any, status: int | None = None) -> dict[str, Any]:
    """A 4xx problem+json answer (this status when given)."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    if status is not None:
        assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json"), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == response.status_code and body["title"] and body["code"]
    for repr_mark in ("ParamType", "<class", "object at 0x", "{'", "['", "\\x"):  # no Python reprs
        assert repr_mark not in body["detail"], body["detail"]
    assert not PYTHON_QUOTE.search(body["detail"]), body["detail"]  # values are shown as JSON: "x"
    return body


# a single quote opening a quotation (after a space, bracket or the start), as Python's repr writes strings;
# an apostrophe follows a letter ("game's") and is fine
PYTHON_QUOTE = re.compile(r"(?:^|[\s(\[{:,=])'")


async def row_counts(pool: asyncpg.Pool) -> tuple[int, int]:
    """How many keys rows and streams the store holds."""
    async with pool.acquire() as connection:
        keys = await connection.fetchval("SELECT count(*) FROM game_keys")
        streams = await connection.fetchval("SELECT count(*) FROM streams")
    return keys, streams


@pytest.mark.parametrize("name", [rb"A\u0000n", rb"A\ud800n", rb"A\u001bn", b"A\xffn"])
async def test_a_nul_lone_surrogate_control_or_bad_byte_in_a_name_is_refused_and_writes_nothing(
    client: AsyncTestClient[Any], pool: asyncpg.Pool, name: bytes
) -> None:
    before = await row_counts(pool)
    body = b'{"game": "basari", "players": [{"name": "' + name + b'"}, {"name": "Bo"}, {"name": "Cy"}]}'
    response = await client.post("/v1/games", content=body, headers={"content-type": "application/json"})
    assert_problem(response, 400)
    assert await row_counts(pool) == before


@pytest.mark.parametrize("name", ["\u200bBo", "Bo\u2066", "\u3164", "B\u00adoo"])
async def test_a_name_with_an_invisible_character_is_refused_and_writes_nothing(
    client: AsyncTestClient[Any], pool: asyncpg.Pool, name: str
) -> None:
    """Names that would look like another (a zero-width space, a bidi isolate, a blank letter, a soft hyphen)."""
    before = await row_counts(pool)
    players = [{"name": "Ann"}, {"name": name}, {"name": "Bo"}]
    body = assert_problem(await client.post("/v1/games", json={"game": "basari", "players": players}), 422)
    assert body["code"] == "bad_player_name" and "U+" in body["detail"], body
    assert await row_counts(pool) == before


async def test_a_nul_in_a_seed_or_tournament_name_is_refused(client: AsyncTestClient[Any]) -> None:
    players = [{"name": n} for n in ("Ann", "Bo", "Cy")]
    response = await client.post("/v1/games", json={"game": "basari", "players": players, "seed": "a\u0000"})
    assert_problem(response, 400)
    response = await client.post(
        "/v1/tournaments", json={"name": "x\u0000", "game": "basari", "players": players, "rounds": 1}
    )
    assert_problem(response, 400)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/games/abc%00def",
        "/v1/games/%FF%FE",
        "/v1/games?player=a%00b",
        "/v1/games?game=%FF",
        "/v1/games?cursor=%00",
        "/v1/games?tournament=x%00",
        "/v1/players/a%00b/games",
        "/v1/players/a%00b",
        "/v1/ratings/a%00",
        "/v1/tournaments/a%00b",
        "/v1/games/abc%00def/events",
        "/v1/tournaments/%C3%28/standings",
    ],
)
async def test_nul_and_invalid_utf8_in_paths_and_queries_are_refused(
    client: AsyncTestClient[Any], path: str
) -> None:
    assert_problem(await client.get(path))


async def test_invalid_utf8_and_deep_nesting_in_bodies_are_refused(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    headers = {"content-type": "application/json"}
    assert_problem(await client.post("/v1/games", content=b'{"game": "\xff\xfe"}', headers=headers), 400)
    deep = b"[" * 1000 + b"]" * 1000
    assert_problem(await client.post("/v1/games", content=deep, headers=headers), 400)
    token = game["seats"][0]["token"]
    nested = b'{"type": "choose_action", "action": ' + deep + b"}"
    response = await client.post(
        f"/v1/games/{game['game_id']}/commands",
        content=nested,
        headers={**headers, "Authorization": f"Bearer {token}"},
    )
    assert_problem(response, 400)


async def version_of(client: AsyncTestClient[Any], game_id: str) -> int:
    """The game's current version."""
    version: int = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    return version


@pytest.mark.parametrize(
    ("value", "status"),
    [
        ('"\u00b2"', 400),  # a superscript two: not visible ASCII
        ('"1\u00b9"', 400),
        ("5", 400),  # not an entity tag
        ('"' + "9" * 5000 + '"', 412),  # well-formed tags naming no version never match
        ('"-1"', 412),
        ('""', 412),
        ('W/"{version}"', 412),  # weak tags never match (strong comparison, RFC 9110 13.1.1)
        ('"0{version}"', 412),  # opaque tags compare byte for byte: "03" is not "3"
        ('"a,b"', 412),  # a comma is a character of an entity tag (RFC 9110 8.8.3), not a separator there
        ('W/"x,y" ,  "a,,b"', 412),
        ('"1" "2"', 400),  # a list of tags is separated by commas
        ('"1",', 400),
    ],
)
async def test_if_match_values_that_name_no_version_write_nothing(
    client: AsyncTestClient[Any], game: dict[str, Any], value: str, status: int
) -> None:
    token = game["seats"][0]["token"]
    before = await version_of(client, game["game_id"])
    legal = (
        await client.get(f"/v1/games/{game['game_id']}/legal", headers={"Authorization": f"Bearer {token}"})
    ).json()
    response = await client.post(
        f"/v1/games/{game['game_id']}/commands",
        json=legal[0],
        headers={"Authorization": f"Bearer {token}", "If-Match": value.format(version=before).encode()},
    )
    assert_problem(response, status)
    assert await version_of(client, game["game_id"]) == before


@pytest.mark.parametrize(
    "value", ["*", '"{version}"', 'W/"1", "{version}"', '"1", "{version}"', '"1,2" ,"{version}"']
)
async def test_if_match_star_or_a_list_holding_the_version_matches(
    client: AsyncTestClient[Any], value: str
) -> None:
    created = await client.post("/v1/games", json={"game": "basari", "players": [{"name": n} for n in "ABC"]})
    game_id, token = created.json()["game_id"], created.json()["seats"][0]["token"]
    before = await version_of(client, game_id)
    legal = (
        await client.get(f"/v1/games/{game_id}/legal", headers={"Authorization": f"Bearer {token}"})
    ).json()
    response = await client.post(
        f"/v1/games/{game_id}/commands",
        json=legal[0],
        headers={"Authorization": f"Bearer {token}", "If-Match": value.format(version=before)},
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("value", ["\u00b2", "9" * 5000, "1\u00b9", "-3", "x"])
async def test_odd_digits_in_last_event_id_are_refused(
    client: AsyncTestClient[Any], game: dict[str, Any], value: str
) -> None:
    response = await client.get(
        f"/v1/games/{game['game_id']}/stream", headers={"Last-Event-ID": value.encode()}
    )
    assert_problem(response, 400)


async def test_a_text_plain_body_is_unsupported(client: AsyncTestClient[Any]) -> None:
    body = b'{"game": "basari", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}'
    response = await client.post("/v1/games", content=body, headers={"content-type": "text/plain"})
    assert_problem(response, 415)


async def page_csrf(client: AsyncTestClient[Any]) -> str:
    """The CSRF token a page sets (the csrftoken cookie), as the pages' scripts send it."""
    assert (await client.get("/")).status_code == 200
    token: str = client.cookies["csrftoken"]
    return token


async def test_a_body_of_a_type_the_operation_does_not_take_is_415_naming_the_one_it_takes(
    client: AsyncTestClient[Any],
) -> None:
    """A JSON operation and the sign-in form each refuse a body of another media type with 415 naming the
    type they take, before reading it as theirs (the form read a multipart or JSON body as an empty form:
    400 "missing field token"); the form posted as the pages post it still signs in."""
    multipart = await client.post("/v1/games", files={"game": (None, "basari")})
    assert "application/json" in assert_problem(multipart, 415)["detail"]
    csrf = {"X-CSRFToken": await page_csrf(client)}
    account = await client.post("/v1/accounts", json={"name": "form-poster"})
    token = account.json()["token"]
    others: list[dict[str, Any]] = [
        {"files": {"token": (None, token)}},
        {"json": {"token": token}},
        {"content": f"token={token}".encode(), "headers": {**csrf, "content-type": "text/plain"}},
    ]
    for kwargs in others:
        refused = await client.post("/session", **{"headers": csrf, **kwargs})
        body = assert_problem(refused, 415)
        assert body["code"] == "unsupported_media_type"
        assert "application/x-www-form-urlencoded" in body["detail"], body
        assert "session" not in refused.cookies
    signed_in = await client.post("/session", data={"token": token}, headers=csrf, follow_redirects=False)
    assert signed_in.status_code == 303, signed_in.text
    assert signed_in.cookies["session"] == token
    client.cookies.delete("session")  # the other tests of this module call the API as nobody


async def test_a_sign_in_token_with_a_control_character_is_400_and_signs_nothing_in(
    client: AsyncTestClient[Any],
) -> None:
    """Form fields are text as bodies are: a NUL (or other control character) in the sign-in token is a
    malformed request naming the field, not an unknown token (401), and sets no session."""
    csrf = {"X-CSRFToken": await page_csrf(client)}
    for token in ("abc\x00def", "\x00", "abc\x1bdef"):
        refused = await client.post("/session", data={"token": token}, headers=csrf)
        body = assert_problem(refused, 400)
        assert body["code"] == "control_character", body
        assert [error["pointer"] for error in body["errors"]] == ["/token"], body
        assert "session" not in refused.cookies and "session" not in client.cookies


# ------------------------------------------------------------------------------------ HTTP by the book


async def test_accept_q_values_choose_the_representation(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    sheet = f"/v1/games/{game['game_id']}/scoresheet"
    cases = {
        "text/csv;q=0, application/json": "application/json",
        "text/csv": "text/csv",
        "application/json;q=0.5, text/csv": "text/csv",
        "*/*, text/csv;q=0": "application/json",
        "text/*": "text/csv",
    }
    for accept, media in cases.items():
        response = await client.get(sheet, headers={"Accept": accept})
        assert response.status_code == 200, (accept, response.text)
        assert response.headers["content-type"].startswith(media), (accept, response.headers)
        assert "Accept" in response.headers.get("vary", ""), response.headers
    assert_problem(await client.get(sheet, headers={"Accept": "text/html"}), 406)
    assert_problem(await client.get(sheet, headers={"Accept": "text/csv;q=0"}), 406)
    assert_problem(await client.get("/v1/catalog", headers={"Accept": "text/csv"}), 406)


# What a GET route's path parameters are set to when every route is walked (others: a value naming nothing).
PATH_VALUES = {"name": "Ann", "kind": "not_found", "game": "basari", "file_path": "common.js"}
REQUEST_SECONDS = 60  # generous on a loaded machine; a HEAD that streamed would never answer


async def answer_within(request: Any) -> Any:
    """The answer to ``request`` (a client call), which fails after REQUEST_SECONDS instead of hanging: the
    test client runs a request to its end, blocking its caller's loop, so the call runs in a thread."""
    return await asyncio.wait_for(asyncio.to_thread(asyncio.run, request), REQUEST_SECONDS)


def get_routes(app: Any) -> list[tuple[str, Any]]:
    """Every GET route of the app (every helper's, the OpenAPI pages' and static files'), with its handler."""
    return [
        (route.path, handler)
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if "GET" in handler.http_methods
    ]


async def test_head_answers_every_get_route_with_its_status_and_headers_and_no_body(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    """RFC 9110 9.3.2, walked over every GET route: HEAD answers GET's status, content type and entity tag,
    without a body; on a live stream it answers at once and holds no stream slot (more HEADs than a client
    may hold streams all answer 200)."""
    account = await client.post("/v1/accounts", json={"name": "Head Walker"})
    assert account.status_code == 201, account.text
    walked = 0
    for template, handler in get_routes(client.app):
        path = re.sub(
            r"\{(\w+):\w+\}",
            lambda m: game["game_id"] if m.group(1) == "game_id" else PATH_VALUES.get(m.group(1), "nothing"),
            template,
        )
        headers = {"Authorization": f"Bearer {account.json()['token']}"} if path.startswith("/v1/me") else {}
        head = await answer_within(client.head(path, headers=headers))
        assert head.content == b"", path
        if EVENT_STREAM in handler.opt.get(OFFERS, ()):  # a GET would stream until the game ends
            assert head.status_code == 200, (path, head.status_code)
            assert head.headers["content-type"].startswith(EVENT_STREAM), path
            for _ in range(client.app.state.streams.per_client + 2):
                again = await answer_within(client.head(path, headers=headers))
                assert again.status_code == 200, (path, again.text)
        else:
            got = await client.get(path, headers=headers)
            assert head.status_code == got.status_code, (path, head.status_code, got.status_code)
            assert head.headers.get("content-type") == got.headers.get("content-type"), path
            assert head.headers.get("etag") == got.headers.get("etag"), path
        walked += 1
    assert walked >= 30  # the game API, accounts, lobby, tournaments, pages, probes, /schema, static files


async def test_refusals_show_the_offending_values_as_json(client: AsyncTestClient[Any]) -> None:
    """A detail names what it refuses the way the request wrote it (JSON), never as a Python repr."""
    players = [{"name": n} for n in ("Ann", "Bo", "Cy")]
    cases = [
        (
            client.post("/v1/games", json={"game": 'chess "x"', "players": players}),
            r'no game called "chess \"x\""',
        ),
        (client.get("/v1/ratings/chess"), 'no game called "chess"'),
        (client.get("/v1/games?status=paused"), '"active" or "finished"'),
        (client.post("/v1/accounts", json={"name": "Quote Test", "kind": "robot"}), '"human" or "bot"'),
        (
            client.post("/v1/games", json={"game": "basari", "players": [{"bot": "genius"}, *players[:2]]}),
            'not "genius"',
        ),
        (
            client.post(
                f"/v1/games/{'x'}/commands", json={"type": "x"}, headers={"Authorization": "Basic x"}
            ),
            None,
        ),
    ]
    for call, shown in cases:
        response = await call
        body = assert_problem(response)
        if shown is not None:
            assert shown in body["detail"], body["detail"]
    taken = await client.post("/v1/accounts", json={"name": "Quote Taker"})
    assert taken.status_code == 201, taken.text
    again = assert_problem(await client.post("/v1/accounts", json={"name": "quote taker"}), 409)
    assert '"quote taker"' in again["detail"], again["detail"]


async def test_a_command_or_option_of_the_wrong_shape_points_at_it_in_plain_words(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    """msgspec's refusal of a command or an option becomes the detail and an ``errors`` entry pointing at
    the field, with the refused value quoted as JSON (it wrote 'time_out' the Python way)."""
    token = game["seats"][0]["token"]
    response = await client.post(
        f"/v1/games/{game['game_id']}/commands",
        json={"type": "time_out"},
        headers={"Authorization": f"Bearer {token}"},
    )
    body = assert_problem(response, 400)
    assert body["code"] == "malformed_command" and body["errors"][0]["pointer"] == "/type", body
    assert '"time_out"' in body["detail"] and '"time_out"' in body["errors"][0]["message"], body
    players = [{"name": n} for n in ("Ann", "Bo")]
    response = await client.post(
        "/v1/games", json={"game": "johari", "players": players, "options": {"x": 1}}
    )
    body = assert_problem(response, 422)
    assert body["code"] == "invalid_options" and body["errors"][0]["message"], body


async def test_a_missing_token_gets_www_authenticate_bearer(
    client: AsyncTestClient[Any], game: dict[str, Any]
) -> None:
    response = await client.post(f"/v1/games/{game['game_id']}/commands", json={"type": "x"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer")
    response = await client.get(f"/v1/games/{game['game_id']}", headers={"Authorization": "Basic eDp5"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_problem_types_resolve_to_pages_and_titles_are_stable(client: AsyncTestClient[Any]) -> None:
    first = assert_problem(await client.get("/v1/games/nope"), 404)
    second = assert_problem(await client.get("/v1/tournaments/nope"), 404)
    third = assert_problem(await client.get("/v1/no/such/route"), 404)
    assert first["title"] == second["title"] == third["title"] and first["type"] == third["type"]
    page = await client.get(first["type"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/markdown")
    assert first["title"] in page.text
    as_html = await client.get(first["type"], headers={"Accept": "text/html"})
    assert as_html.headers["content-type"].startswith("text/html") and "<h1>" in as_html.text
    assert (await client.get("/problems")).status_code == 200
    assert_problem(await client.get("/problems/no_such_kind"), 404)


async def test_validation_failures_list_each_field(client: AsyncTestClient[Any]) -> None:
    response = await client.post("/v1/games", json={"game": "basari", "players": [{"name": 5}]})
    body = assert_problem(response, 400)
    assert [e["pointer"] for e in body["errors"]] == ["/players/0/name"], body
    assert body["errors"][0]["message"].startswith("Expected `str"), body
    body = assert_problem(await client.get("/v1/games?limit=0"), 400)
    assert body["errors"][0]["pointer"] == "/query/limit", body


async def test_the_catalog_rule_links_resolve(client: AsyncTestClient[Any]) -> None:
    catalog = (await client.get("/v1/catalog")).json()
    for entry in catalog["games"]:
        page = await client.get(entry["rules"])
        assert page.status_code == 200, (entry["rules"], page.text)
        assert page.headers["content-type"].startswith("text/markdown")
        assert {"basari": "B-1", "bazaar": "Z-1", "johari": "J-1"}[entry["game"]] in page.text
    assert_problem(await client.get("/rules/chess"), 404)


async def test_a_browser_reads_the_rules_as_a_page_of_the_site(client: AsyncTestClient[Any]) -> None:
    """The rule pages render as HTML (headings, lists) inside the site's layout for a browser, and every
    game page and the home page link them."""
    created = await client.post(
        "/v1/games", json={"game": "bazaar", "players": [{"name": "A"}, {"name": "B"}]}
    )
    game_id = created.json()["game_id"]
    for game in ("basari", "bazaar", "johari"):
        page = await client.get(f"/rules/{game}", headers={"Accept": "text/html"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "<pre>" not in page.text and "<h2>" in page.text and "<li>" in page.text, page.text[:500]
        assert 'href="/static/style.css"' in page.text and 'class="site-top"' in page.text
        assert "\n## " not in page.text and "\n- " not in page.text, "the Markdown is rendered, not shown"
        assert f'href="/rules/{game}"' in (await client.get("/")).text
    for path in (f"/games/{game_id}", f"/games/{game_id}/replay"):
        assert 'href="/rules/bazaar"' in (await client.get(path)).text, path


async def test_csv_cells_cannot_start_a_formula(client: AsyncTestClient[Any]) -> None:
    names = ["=1+1", "+Bo", "-Cy", "@Di"]
    created = await client.post(
        "/v1/games", json={"game": "basari", "players": [{"name": n} for n in names[:3]]}
    )
    assert created.status_code == 201, created.text
    sheet = await client.get(
        f"/v1/games/{created.json()['game_id']}/scoresheet", headers={"Accept": "text/csv"}
    )
    for line in sheet.text.splitlines():
        for cell in line.split(","):
            assert not cell.lstrip('"').startswith(("=", "+", "-", "@", "\t", "\r")), sheet.text


async def test_a_twice_encoded_nul_in_a_path_is_refused(client: AsyncTestClient[Any]) -> None:
    assert_problem(await client.get("/v1/games/%2500"), 400)
    assert_problem(await client.get("/v1/players/a%2500b/games"), 400)


async def test_a_missing_body_is_a_clear_problem(client: AsyncTestClient[Any]) -> None:
    """An empty body where the operation needs one says so at the body's pointer, not as a Python repr."""
    for path in ("/v1/accounts", "/v1/games", "/v1/tournaments"):
        for headers in ({}, {"Content-Type": "application/json"}):
            body = assert_problem(await client.post(path, content=b"", headers=headers), 400)
            assert body["errors"] == [{"pointer": "", "message": "this request needs a body"}], body


async def test_an_unknown_documentation_path_is_a_problem_like_any_unknown_path(
    client: AsyncTestClient[Any],
) -> None:
    """Under /schema too, a path nothing serves is a 404 problem (an HTML page only for a browser)."""
    for path in ("/schema/redoc", "/schema/elements", "/schema/no/such/page", "/schema/openapi.yaml"):
        body = assert_problem(await client.get(path), 404)
        assert body["code"] == "not_found", body
        page = await client.get(path, headers={"Accept": "text/html"})
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html"), page
    assert (await client.get("/schema")).status_code == 200
    assert (await client.get("/schema/swagger")).status_code == 200
    assert (await client.get("/schema/openapi.json")).status_code == 200


@pytest.mark.parametrize(
    "options",
    [
        '{"a": "\\ud8a9"}',  # a lone surrogate: not Unicode text, which a jsonb value must be
        '{"\\udc00": 1}',
        '{"a": "\\u0000"}',  # NUL: PostgreSQL text cannot hold it
        '{"a\\u0001": true}',
        '{"a": NaN}',  # not JSON, though Python's decoder reads it
        '{"a": [Infinity]}',
        '{"a": 1e999}',  # a number no float holds
        "[" * 1500 + "]" * 1500,  # deeper than Python's decoder follows
        '{"a": ' + "[" * 40 + "]" * 40 + "}",
    ],
)
async def test_a_lobby_options_filter_that_is_not_json_text_is_400(
    client: AsyncTestClient[Any], options: str
) -> None:
    """The lobby's ``options`` filter is a JSON object of printable text (as a JSON body is), else 400."""
    response = await client.get("/v1/lobby", params={"options": options})
    assert assert_problem(response, 400)["code"] == "bad_options_filter"


async def test_a_long_lobby_options_filter_is_read(client: AsyncTestClient[Any]) -> None:
    """The ``options`` filter is bounded by the request head (431 over ``MAX_HEAD_BYTES``), as every query
    value is, and by nothing shorter the document could not say."""
    options = {f"option_{i}": "x" * 20 for i in range(100)}
    response = await client.get("/v1/lobby", params={"options": json.dumps(options)})
    assert response.status_code == 200, response.text
    assert response.json()["games"] == []
