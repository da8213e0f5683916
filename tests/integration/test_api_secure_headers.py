"""The security headers (docs/api.md "HTTP conventions"): ``X-Content-Type-Options: nosniff`` on every
answer; on every page a Content-Security-Policy that runs only the service's own scripts and styles, and
no framing by another site. The pages hold no inline script or style the policy would block."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings

pytestmark = pytest.mark.db

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def game_id(client: AsyncTestClient[Any]) -> str:
    """A running Basari game."""
    response = await client.post(
        "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ann", "Bo", "Cy")]}
    )
    assert response.status_code == 201, response.text
    created: str = response.json()["game_id"]
    return created


async def test_every_answer_is_nosniff(client: AsyncTestClient[Any], game_id: str) -> None:
    answers = [
        await client.get(f"/v1/games/{game_id}"),
        await client.get("/v1/games/no-such-game"),  # a problem
        await client.get("/no/such/path"),  # unrouted
        await client.get("/static/style.css"),
        await client.head(f"/v1/games/{game_id}"),
        await client.post("/v1/games", json={"game": "nope"}),
    ]
    for answer in answers:
        assert answer.headers.get("x-content-type-options") == "nosniff", (answer.url, answer.headers)


@pytest.mark.parametrize("path", ["/", "/games/{game_id}", "/games/{game_id}/replay", "/no/such/page"])
async def test_pages_carry_a_content_security_policy_and_refuse_framing(
    client: AsyncTestClient[Any], game_id: str, path: str
) -> None:
    page = await client.get(path.format(game_id=game_id), headers=HTML)
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    # what the policy allows is all the page needs: scripts from /static, data blocks, no inline code
    for attributes, body in re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S):
        if 'type="application/json"' in attributes:
            continue
        assert re.search(r'src="/static/[^"]+"', attributes) and not body.strip(), attributes
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", page.text)
    for link in re.findall(r'<link[^>]*href="([^"]+)"', page.text):
        assert link.startswith("/static/") or link == "data:,", link


async def test_the_api_documentation_page_is_framed_by_nobody(client: AsyncTestClient[Any]) -> None:
    """Swagger UI starts from an inline script: its page's policy allows that, and still no framing."""
    page = await client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
