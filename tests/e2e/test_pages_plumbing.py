"""End to end, browser plumbing: pages served, stream tickets, 204 after the end, CORS off by
default and on for the configured origins, the API docs rendered from assets shipped with the service."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from httpx_sse import aconnect_sse

from tests.e2e.conftest import start_server
from tests.support.client_play import create_game, play_existing, play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def first_sse(http: httpx.AsyncClient, url: str, **kwargs: object) -> tuple[str, str]:
    """The first SSE event (name, data) of ``url``."""
    async with aconnect_sse(http, "GET", url, **kwargs) as source:  # type: ignore[arg-type]
        assert source.response.status_code == 200, await source.response.aread()
        async for event in source.aiter_sse():
            return event.event, event.data
    raise AssertionError("the stream sent nothing")


async def test_a_stream_ticket_opens_the_seats_stream_and_nothing_else(http: httpx.AsyncClient) -> None:
    game = await create_game(http, "basari", 3)
    other = await create_game(http, "basari", 3)
    game_id, token = game["game_id"], game["seats"][1]["token"]
    url = f"/v1/games/{game_id}/stream-ticket"
    refused = await http.post(url)
    assert refused.status_code == 401 and refused.json()["code"] == "token_required"
    assert (await http.post(url, headers={"Authorization": "Bearer nonsense"})).status_code == 403
    issued = await http.post(url, headers={"Authorization": f"Bearer {token}"})
    assert issued.status_code == 201, issued.text
    body = issued.json()
    assert body["seat"] == 1 and body["expires_in"] == 60 and token not in body["ticket"]
    name, data = await first_sse(http, f"/v1/games/{game_id}/stream", params={"ticket": body["ticket"]})
    snapshot = httpx.Response(200, content=data).json()
    assert name == "snapshot" and snapshot["you"] == 1 and snapshot["legal"], (
        "the ticket's seat, with its decisions"
    )
    elsewhere = await http.get(f"/v1/games/{other['game_id']}/stream", params={"ticket": body["ticket"]})
    assert elsewhere.status_code == 401 and elsewhere.json()["code"] == "bad_stream_ticket"
    forged = body["ticket"][:-1] + ("0" if body["ticket"][-1] != "0" else "1")
    assert (await http.get(f"/v1/games/{game_id}/stream", params={"ticket": forged})).status_code == 401


async def test_reconnecting_after_the_end_of_a_finished_game_gets_204(http: httpx.AsyncClient) -> None:
    played = await play_to_end(http, "basari", 3, seed="pages-204")
    final = played.final["version"]
    stream = f"/v1/games/{played.game_id}/stream"
    name, _ = await first_sse(http, stream)
    assert name == "snapshot", "a first connection still gets the game, then its end"
    again = await http.get(stream, headers={"Last-Event-ID": str(final)})
    assert again.status_code == 204 and again.content == b""
    earlier = await first_sse(http, stream, headers={"Last-Event-ID": str(final - 1)})
    assert earlier[0] == "snapshot", "a client that missed the last event still gets it"


async def test_pages_are_served(http: httpx.AsyncClient) -> None:
    played = await play_to_end(http, "bazaar", 2, seed="pages-served", prefer=("buy", "roll", "end_turn"))
    for path in ("/", f"/games/{played.game_id}", f"/games/{played.game_id}/replay", "/players/player-0"):
        page = await http.get(path)
        assert page.status_code == 200, (path, page.text[:300])
        assert page.headers["content-type"].startswith("text/html")
        assert "<h1>" in page.text
    replay = (await http.get(f"/games/{played.game_id}/replay")).text
    assert "Verified" in replay, "the audit's verdict"
    missing = await http.get("/games/no-such-game")
    assert missing.status_code == 404


async def test_the_api_docs_load_nothing_from_outside(http: httpx.AsyncClient) -> None:
    docs = await http.get("/schema")
    assert docs.status_code == 200
    sources = re.findall(r"""(?:src|href)=["']([^"']+)""", docs.text)
    assert sources and all(s.startswith("/static/") or s.startswith("data:") for s in sources), sources
    for source in sources:
        if source.startswith("/static/"):
            assert (await http.get(source)).status_code == 200, source
    assert "validatorUrl: null" in docs.text


@pytest.fixture(scope="module")
def cors_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that lets pages of http://app.example call it."""
    process, base = start_server(
        database_url,
        log_file=tmp_path_factory.mktemp("cors") / "server.log",
        settings={"CORS_ORIGINS": "http://app.example, http://other.example"},
    )
    yield base
    process.terminate()
    process.wait(10)


def preflight(base: str, origin: str, method: str = "POST", path: str = "/v1/games") -> httpx.Response:
    """A browser's CORS preflight for a ``method`` request (a command POST by default) from ``origin``."""
    return httpx.options(
        base + path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


def test_cors_is_off_by_default(server: str) -> None:
    answer = httpx.get(server + "/v1/catalog", headers={"Origin": "http://app.example"})
    assert "access-control-allow-origin" not in answer.headers
    assert "access-control-allow-origin" not in preflight(server, "http://app.example").headers


def test_cors_allows_the_configured_origins_only(cors_server: str) -> None:
    allowed = preflight(cors_server, "http://app.example")
    assert allowed.status_code in (200, 204)
    assert allowed.headers["access-control-allow-origin"] == "http://app.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    revoke = preflight(cors_server, "http://app.example", "DELETE", "/v1/me/token")  # revoking one's token
    assert revoke.status_code in (200, 204) and "DELETE" in revoke.headers["access-control-allow-methods"]
    simple = httpx.get(cors_server + "/v1/catalog", headers={"Origin": "http://other.example"})
    assert simple.headers["access-control-allow-origin"] == "http://other.example"
    stranger = httpx.get(cors_server + "/v1/catalog", headers={"Origin": "http://evil.example"})
    assert stranger.headers.get("access-control-allow-origin") is None


async def test_the_tournament_page_shows_rounds_tables_standings_and_results(http: httpx.AsyncClient) -> None:
    names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"]
    created = (
        await http.post(
            "/v1/tournaments",
            json={"name": "Page cup", "game": "basari", "players": [{"name": n} for n in names], "rounds": 1},
        )
    ).json()
    tid = created["tournament_id"]
    tokens = {p["name"]: p["token"] for p in created["players"]}
    seated = await http.post(
        f"/v1/tournaments/{tid}/rounds", headers={"Authorization": f"Bearer {created['organizer_token']}"}
    )
    assert seated.status_code == 201, seated.text
    tables = seated.json()["tables"]
    first = tables[0]
    await play_existing(http, first["game_id"], [tokens[s["name"]] for s in first["seats"]], seed="page-cup")
    page = await http.get(f"/tournaments/{tid}")
    assert page.status_code == 200
    text = page.text
    assert "Page cup" in text and "Round 1" in text
    for table in tables:
        assert f'href="/games/{table["game_id"]}"' in text, "each table links to its game"
    assert f'href="/games/{first["game_id"]}/replay"' in text, "a finished table's result links to its replay"
    standings = text[text.index('id="standings"') :]
    assert all(name in standings for name in names)
    player = await http.get(f"/players/{first['seats'][0]['name']}")
    assert player.status_code == 200 and f"/games/{first['game_id']}" in player.text


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"


async def test_a_browser_gets_an_html_error_page_and_api_clients_problem_json(
    http: httpx.AsyncClient,
) -> None:
    for path in ("/no-such-page", "/games/no-such-game", "/games/no-such-game/replay", "/tournaments/nope"):
        page = await http.get(path, headers={"Accept": BROWSER_ACCEPT})
        assert page.status_code == 404, (path, page.text[:300])
        assert page.headers["content-type"].startswith("text/html"), path
        assert "<h1>Not found" in page.text and 'href="/"' in page.text, "the site's page, with a way home"
        for client_accept in ("*/*", "application/json", ""):  # curl, API clients, none at all
            problem = await http.get(path, headers={"Accept": client_accept})
            assert problem.status_code == 404
            assert problem.headers["content-type"] == "application/problem+json", (path, client_accept)
            assert problem.json()["code"]
    # the API stays problem+json even for a browser
    api = await http.get("/v1/games/no-such-game", headers={"Accept": BROWSER_ACCEPT})
    assert api.status_code == 404 and api.headers["content-type"] == "application/problem+json"
    # other statuses too: a wrong method on a page
    wrong = await http.post("/", headers={"Accept": BROWSER_ACCEPT})
    assert wrong.status_code == 405 and wrong.headers["content-type"].startswith("text/html")
    assert "Method not allowed" in wrong.text and wrong.headers["allow"]
