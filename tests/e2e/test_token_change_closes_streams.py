"""End to end: replacing or revoking an account token (``POST``/``DELETE /v1/me/token``) closes the streams that
token opened, ``GET /v1/me/stream`` and a game's stream alike, on one server process and on two (the change
may reach another process than the one serving the stream); the old token then opens nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
from httpx_sse import ServerSentEvent, aconnect_sse

from tests.support.accounts import account, bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 60.0  # generous: the server re-checks the token every STREAM_POLL_SECONDS (5 s), on a loaded machine


def requests_to(base: str) -> httpx.AsyncClient:
    """A client whose every request opens its own connection: while a test waits for a stream to close (up to
    STREAM_POLL_SECONDS) a kept-alive connection may reach the server's keep-alive timeout, and a request sent
    on it as the server closes it fails with a read error that has nothing to do with the service."""
    return httpx.AsyncClient(base_url=base, timeout=WAIT, limits=httpx.Limits(max_keepalive_connections=0))


@contextlib.asynccontextmanager
async def opened(base: str, path: str, token: str) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
    """The stream at ``path`` opened with ``token`` on its own connection, as an iterator of its events."""
    async with (
        httpx.AsyncClient(base_url=base, timeout=WAIT) as client,
        aconnect_sse(client, "GET", path, headers=bearer(token)) as source,
    ):
        assert source.response.status_code == 200, await source.response.aread()
        yield source.aiter_sse()


async def until_closed(events: AsyncIterator[ServerSentEvent]) -> list[str]:
    """The names of the events still sent until the server closes the stream."""
    return [event.event async for event in events]


async def change_token(http: httpx.AsyncClient, token: str, change: str) -> None:
    """Replace (``rotate``) or revoke (``revoke``) the account token."""
    if change == "rotate":
        answer = await http.post("/v1/me/token", headers=bearer(token))
        assert answer.status_code in (200, 201), answer.text
    else:
        answer = await http.delete("/v1/me/token", headers=bearer(token))
        assert answer.status_code == 204, answer.text


@pytest.mark.parametrize("change", ["rotate", "revoke"])
async def test_a_token_change_closes_the_account_stream(any_server: str, change: str) -> None:
    async with requests_to(any_server) as http:
        _name, token = await account(http, "closing")
        async with opened(any_server, "/v1/me/stream", token) as events:
            first = await asyncio.wait_for(anext(events), WAIT)
            assert first.event == "snapshot"
            await change_token(http, token, change)
            rest = await asyncio.wait_for(until_closed(events), WAIT)
        assert "snapshot" not in rest
        again = await http.get("/v1/me/stream", headers=bearer(token))
        assert again.status_code == 401 and again.json()["code"] == "unknown_token"


@pytest.mark.parametrize("change", ["rotate", "revoke"])
async def test_a_token_change_closes_the_game_streams_it_opened(server: str, change: str) -> None:
    """The account's seat stream closes; the same game's stream opened with a hot-seat's seat token stays."""
    async with requests_to(server) as http:
        _name, token = await account(http, "closing")
        created = await http.post(
            "/v1/games",
            json={"game": "bazaar", "players": [{"name": "hot"}, {"account": "me"}]},
            headers=bearer(token),
        )
        assert created.status_code == 201, created.text
        game = created.json()
        game_id = game["game_id"]
        seat_token = next(seat["token"] for seat in game["seats"] if seat.get("token"))
        path = f"/v1/games/{game_id}/stream"
        async with opened(server, path, token) as mine, opened(server, path, seat_token) as theirs:
            assert (await asyncio.wait_for(anext(mine), WAIT)).event == "snapshot"
            assert (await asyncio.wait_for(anext(theirs), WAIT)).event == "snapshot"
            await change_token(http, token, change)
            await asyncio.wait_for(until_closed(mine), WAIT)
            # the seat token's stream outlives it: a move of the hot seat still reaches it
            view = (await http.get(f"/v1/games/{game_id}", headers=bearer(seat_token))).json()
            legal = [e for e in view["legal"] if e["type"] != "resign"]
            assert legal, view  # the hot seat (seat 0) opens a two-player Bazaar
            moved = await http.post(
                f"/v1/games/{game_id}/commands", json=legal[0], headers=bearer(seat_token)
            )
            assert moved.status_code == 200, moved.text
            assert (await asyncio.wait_for(anext(theirs), WAIT)).event in ("message", "end")
        again = await http.get(path, headers=bearer(token))
        assert again.status_code == 403


@pytest.mark.parametrize("change", ["rotate", "revoke"])
async def test_a_token_change_closes_the_stream_a_ticket_of_that_token_opened(
    server: str, change: str
) -> None:
    """A browser's stream opened with a stream ticket (no Authorization: EventSource cannot send one) that
    the account token obtained closes like the token's own stream; the ticket opens nothing afterwards."""
    async with requests_to(server) as http:
        _name, token = await account(http, "ticket")
        created = await http.post(
            "/v1/games",
            json={"game": "bazaar", "players": [{"name": "hot"}, {"account": "me"}]},
            headers=bearer(token),
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        issued = await http.post(f"/v1/games/{game_id}/stream-ticket", headers=bearer(token))
        assert issued.status_code == 201, issued.text
        path = f"/v1/games/{game_id}/stream?ticket={issued.json()['ticket']}"
        async with (
            httpx.AsyncClient(base_url=server, timeout=WAIT) as browser,
            aconnect_sse(browser, "GET", path) as source,
        ):
            assert source.response.status_code == 200, await source.response.aread()
            events = source.aiter_sse()
            snapshot = await asyncio.wait_for(anext(events), WAIT)
            assert snapshot.event == "snapshot" and snapshot.json()["you"] == 1
            await change_token(http, token, change)
            await asyncio.wait_for(until_closed(events), WAIT)
        again = await http.get(path)
        assert again.status_code == 401 and again.json()["code"] == "bad_stream_ticket"
