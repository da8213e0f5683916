"""End to end, browser sessions: signing in sets an HttpOnly, SameSite, Secure-over-HTTPS session
cookie; state-changing requests that the cookie would authenticate need the page's CSRF token; API clients
(Authorization, no cookie) are unchanged; signing out clears the cookie."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.client_play import create_game

pytestmark = [pytest.mark.e2e, pytest.mark.db]


def set_cookie(response: httpx.Response, name: str) -> str:
    """The Set-Cookie header of ``response`` for cookie ``name`` ('' when there is none)."""
    found = [h for h in response.headers.get_list("set-cookie") if h.startswith(f"{name}=")]
    assert len(found) <= 1, found
    return found[0] if found else ""


async def account(http: httpx.AsyncClient, name: str) -> str:
    """A new account's token (over the API, without cookies)."""
    made = await http.post("/v1/accounts", json={"name": f"{name} {uuid.uuid4().hex[:6]}"})
    assert made.status_code == 201, made.text
    token: str = made.json()["token"]
    return token


async def test_sign_in_sets_an_httponly_session_and_csrf_guards_what_it_authenticates(server: str) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=30) as api:  # an API client: never keeps cookies
        hanna, max_ = await account(api, "Hanna"), await account(api, "Max")
        hot_seat = await create_game(api, "basari", 3)
    async with httpx.AsyncClient(base_url=server, timeout=30) as browser:
        home = await browser.get("/")
        csrf_header = set_cookie(home, "csrftoken")
        assert csrf_header and "httponly" not in csrf_header.lower(), "the page's scripts read the CSRF token"
        csrf = browser.cookies["csrftoken"]

        refused = await browser.post("/session", data={"token": hanna})
        assert refused.status_code == 403 and refused.json()["code"] == "csrf_failed"
        assert not set_cookie(refused, "session") and "session" not in browser.cookies
        wrong = await browser.post("/session", data={"token": "not-a-token", "_csrf_token": csrf})
        assert wrong.status_code == 401 and "session" not in browser.cookies

        signed_in = await browser.post("/session", data={"token": hanna, "_csrf_token": csrf})
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/"
        cookie = set_cookie(signed_in, "session").lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
        assert "secure" not in cookie, "plain HTTP: a Secure cookie would never come back"
        me = await browser.get("/v1/me")
        assert me.status_code == 200 and me.json()["name"].startswith("Hanna")

        table = {"game": "johari", "players": [{"account": "me"}, {"open": True}]}
        forged = await browser.post("/v1/games", json=table)  # what another site's script could attempt
        assert forged.status_code == 403 and forged.json()["code"] == "csrf_failed"
        assert (await browser.get("/v1/me/games")).json()["games"] == [], "the refused request made nothing"
        opened = await browser.post("/v1/games", json=table, headers={"X-CSRFToken": csrf})
        assert opened.status_code == 201, opened.text

        # Authorization wins over the cookie, and needs no CSRF token: nothing ambient about it
        as_max = {"Authorization": f"Bearer {max_}"}
        assert (await browser.get("/v1/me", headers=as_max)).json()["name"].startswith("Max")
        joined = await browser.post(f"/v1/games/{opened.json()['game_id']}/join", json={}, headers=as_max)
        assert joined.status_code == 200, joined.text
        # a game the account holds no seat of reads as a spectator's, not a 403
        watched = await browser.get(f"/v1/games/{hot_seat['game_id']}")
        assert watched.status_code == 200 and watched.json()["you"] is None and watched.json()["legal"] == []
        mine = await browser.get(f"/v1/games/{opened.json()['game_id']}")
        assert mine.json()["you"] == 0, "the account's own seat"

        signed_out = await browser.post("/session/end", data={"_csrf_token": csrf})
        assert signed_out.status_code == 303
        cleared = set_cookie(signed_out, "session").lower()
        assert cleared.startswith("session=") and "max-age=0" in cleared
        assert "session" not in browser.cookies
        assert (await browser.get("/v1/me")).status_code == 401


async def sign_in_over_https(base: str) -> httpx.Response:
    """A new account signed in to ``base`` by a browser behind a TLS proxy on 127.0.0.1 (X-Forwarded-Proto)."""
    https = {"X-Forwarded-Proto": "https"}
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        token = await account(http, "Sarah")
        home = await http.get("/", headers=https)
        csrf = http.cookies.get("csrftoken") or ""
        assert home.status_code == 200 and csrf
        signed_in = await http.post("/session", data={"token": token, "_csrf_token": csrf}, headers=https)
        assert signed_in.status_code == 303
        return signed_in


async def test_a_proxy_not_named_in_forwarded_allow_ips_is_not_believed(database_url: str) -> None:
    process, base = start_server(database_url, settings={"FORWARDED_ALLOW_IPS": "192.0.2.1"})
    try:
        assert "; secure" not in set_cookie(await sign_in_over_https(base), "session").lower()
    finally:
        process.terminate()
        process.wait(30)


async def test_the_session_cookie_is_secure_over_https_and_api_clients_need_no_csrf(server: str) -> None:
    assert "; secure" in set_cookie(await sign_in_over_https(server), "session").lower()
    async with httpx.AsyncClient(base_url=server, timeout=30) as api:  # no cookies: as before sessions
        created = await api.post(
            "/v1/games", json={"game": "bazaar", "players": [{"name": "A"}, {"name": "B"}]}
        )
        assert created.status_code == 201, created.text
        assert not created.headers.get_list("set-cookie"), "the API sets no cookies"


async def test_only_the_pages_set_the_csrf_cookie(server: str) -> None:
    """The csrftoken cookie is for the pages' scripts: the pages set it; probes, metrics, the API
    documentation, static files, reference pages and the API set no cookie."""
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        game_id = (await create_game(http, "johari", 2))["game_id"]
        for page in ("/", f"/games/{game_id}", f"/games/{game_id}/replay", "/players/nobody-in-particular"):
            http.cookies.clear()
            answer = await http.get(page)
            assert answer.status_code == 200, (page, answer.status_code)
            assert set_cookie(answer, "csrftoken"), page
        others = [
            "/health",
            "/ready",
            "/metrics",
            "/schema",
            "/schema/openapi.json",
            "/static/common.js",
            "/rules/johari",
            "/problems",
            "/problems/not_found",
            "/.well-known/bazaar-signing-key",
            "/v1/catalog",
            f"/v1/games/{game_id}",
        ]
        for path in others:
            http.cookies.clear()
            answer = await http.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            assert not answer.headers.get_list("set-cookie"), (path, answer.headers.get_list("set-cookie"))
