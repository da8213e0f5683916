"""Every paginated listing takes an empty ``cursor=`` as no cursor (the first page), as a client that always
sends the previous page's ``next_cursor`` does on its first request; a non-empty cursor the service never
gave out stays a 400 ``bad_cursor`` problem."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.support.accounts import account, bearer, refused, unlimited_client

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app on the test database."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


async def test_an_empty_cursor_is_the_first_page_and_a_bad_one_is_refused(
    client: AsyncTestClient[Any],
) -> None:
    name, token = await account(client, "cursor")
    for _ in range(2):  # two waiting games of the account's: a first page of one has a next_cursor
        body = {"game": "basari", "players": [{"account": "me"}, {"open": True}, {"open": True}]}
        created = await client.post("/v1/games", json=body, headers=bearer(token))
        assert created.status_code == 201, created.text
    listings = [
        ("/v1/games", {}),
        (f"/v1/players/{name}/games", {}),
        ("/v1/ratings/basari", {}),
        ("/v1/lobby", {"game": "basari"}),
        ("/v1/me/games", bearer(token)),
    ]
    for path, headers in listings:
        first = await client.get(path, params={"limit": 1}, headers=headers)
        assert first.status_code == 200, (path, first.text)
        empty = await client.get(path, params={"limit": 1, "cursor": ""}, headers=headers)
        assert empty.status_code == 200, (path, empty.text)
        assert empty.json() == first.json(), path
        refused(await client.get(path, params={"cursor": "nonsense!"}, headers=headers), 400, "bad_cursor")
    mine = (await client.get("/v1/me/games", params={"limit": 1, "cursor": ""}, headers=bearer(token))).json()
    assert len(mine["games"]) == 1 and mine["next_cursor"], "the account's first page, with more after it"
