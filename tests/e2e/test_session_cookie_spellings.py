"""End to end, the session cookie is read one way (api/routes/games.py ``session_token``): a write the cookie
authenticates is CSRF-checked however the request spells its ``Cookie`` headers (spaces around ``=``,
several headers), because the CSRF check and the session reader parse them with the same parser. On the
real server: test clients may join repeated headers before the app sees them."""

from __future__ import annotations

import httpx
import pytest

from tests.support.accounts import account, bearer, refused

pytestmark = [pytest.mark.e2e, pytest.mark.db]


@pytest.mark.parametrize(
    "cookies",
    [
        ["session ={token}"],  # spaces around "="
        ["session= {token}"],
        ["session={token}", "theme=dark"],  # a second Cookie header
        ["theme=dark", "session={token}"],
        ["theme=dark; session={token}"],
    ],
)
async def test_a_write_the_session_cookie_authenticates_needs_the_csrf_token(
    server: str, cookies: list[str]
) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        _name, token = await account(http, "cookie")
        headers = [("cookie", value.format(token=token)) for value in cookies]
        refused(await http.delete("/v1/me/token", headers=headers), 403, "csrf_failed")
        assert (await http.get("/v1/me", headers=bearer(token))).status_code == 200  # not revoked
