"""Live streams are capped per client and per address (STREAMS_PER_CLIENT, STREAMS_PER_ADDRESS): the seat
tokens of a hot-seat game count as the address they are used from, and accounts signed up from one address
share its cap. A server of its own with small caps (2 per client, 3 per address); other addresses are told
apart by X-Forwarded-For, which the server believes from 127.0.0.1 (FORWARDED_ALLOW_IPS)."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.conftest import start_server

pytestmark = [pytest.mark.e2e, pytest.mark.db]

PER_CLIENT, PER_ADDRESS = 2, 3


@pytest.fixture(scope="module")
def capped_server(database_url: str) -> Iterator[str]:
    """A server with small stream caps."""
    process, base = start_server(
        database_url,
        settings={"STREAMS_PER_CLIENT": str(PER_CLIENT), "STREAMS_PER_ADDRESS": str(PER_ADDRESS)},
    )
    yield base
    process.terminate()
    process.wait(10)


async def opened(
    http: httpx.AsyncClient, streams: contextlib.AsyncExitStack, path: str, **headers: str
) -> int:
    """Open a stream of ``path`` and keep it open in ``streams`` when it is granted; its status."""
    response = await streams.enter_async_context(http.stream("GET", path, headers=headers))
    if response.status_code == 429:
        assert json.loads(await response.aread())["code"] == "too_many_streams"
        assert int(response.headers["retry-after"]) > 0
    return response.status_code


async def test_seat_tokens_share_their_address_cap(capped_server: str) -> None:
    """Six seat tokens of one game are one client: the third stream among them is refused."""
    async with httpx.AsyncClient(base_url=capped_server, timeout=30) as http:
        here = {"X-Forwarded-For": "198.51.100.1"}
        body = {"game": "bazaar", "players": [{"name": f"p{n}"} for n in range(6)]}
        created = (await http.post("/v1/games", json=body, headers=here)).json()
        path = f"/v1/games/{created['game_id']}/stream"
        async with contextlib.AsyncExitStack() as streams:
            statuses = [
                await opened(http, streams, path, authorization=f"Bearer {seat['token']}", **here)
                for seat in created["seats"]
            ]
        assert statuses == [200] * PER_CLIENT + [429] * (6 - PER_CLIENT)


async def test_accounts_of_one_address_share_its_cap(capped_server: str) -> None:
    """Each account may hold PER_CLIENT streams, but all of one address together PER_ADDRESS; an account at
    another address is unaffected."""
    async with httpx.AsyncClient(base_url=capped_server, timeout=30) as http:
        here, there = {"X-Forwarded-For": "198.51.100.2"}, {"X-Forwarded-For": "198.51.100.3"}
        tokens = []
        for _ in range(3):
            signed_up = await http.post(
                "/v1/accounts", json={"name": f"w-{uuid.uuid4().hex[:8]}"}, headers=here
            )
            tokens.append(signed_up.json()["token"])
        async with contextlib.AsyncExitStack() as streams:
            first = [
                await opened(http, streams, "/v1/me/stream", authorization=f"Bearer {tokens[0]}", **here)
            ]
            first += [
                await opened(http, streams, "/v1/me/stream", authorization=f"Bearer {tokens[0]}", **here)
            ]
            assert first == [200, 200]
            second = [
                await opened(http, streams, "/v1/me/stream", authorization=f"Bearer {tokens[1]}", **here)
                for _ in range(2)
            ]
            assert second == [200, 429]  # the address holds PER_ADDRESS streams now
            elsewhere = await opened(
                http, streams, "/v1/me/stream", authorization=f"Bearer {tokens[2]}", **there
            )
            assert elsewhere == 200
