"""End to end: a commit-reveal lobby game's secret seed half reaches no live stream (seats' or spectator's,
followed to the end) and no server log line, and is revealed only by the finished game's audit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from httpx_sse import aconnect_sse

from domain.core import commitment
from service.integrity.seeds import mixed_seed
from tests.support.accounts import account, bearer
from tests.support.client_play import play_existing

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def follow(base: str, game_id: str, token: str | None) -> str:
    """Everything a stream sends, snapshot to ``end``, as text (a seat's stream with its token)."""
    headers = bearer(token) if token else {}
    texts = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=60) as client,
        aconnect_sse(client, "GET", f"/v1/games/{game_id}/stream", headers=headers) as source,
    ):
        assert source.response.status_code == 200
        async for event in source.aiter_sse():
            texts.append(f"{event.event}\n{event.id}\n{event.data}")
            if event.event == "end":
                return "\n".join(texts)
    raise AssertionError("the stream closed without an end event")


async def test_the_server_half_reaches_no_stream_and_no_log(
    server: str, http: httpx.AsyncClient, server_log: Path
) -> None:
    _host, host_token = await account(http, "host")
    _guest, guest_token = await account(http, "guest")
    body = {"game": "bazaar", "players": [{"account": "me"}, {"open": True}], "rated": True, "entropy": "a"}
    created = (await http.post("/v1/games", json=body, headers=bearer(host_token))).json()
    game_id = created["game_id"]
    joined = await http.post(f"/v1/games/{game_id}/join", json={"entropy": "b"}, headers=bearer(guest_token))
    assert joined.json()["status"] == "started", joined.text
    streams = [
        asyncio.create_task(follow(server, game_id, token)) for token in (None, host_token, guest_token)
    ]
    await play_existing(http, game_id, [host_token, guest_token], seed="secrecy")
    sent = await asyncio.wait_for(asyncio.gather(*streams), timeout=120)
    revealed = (await http.get(f"/v1/games/{game_id}/audit")).json()["seed"]
    secret = revealed["server_seed"]
    assert commitment(secret) == created["seed_commitment"]
    assert revealed["seed"] == mixed_seed(secret, ["a", "b"])
    for text in sent:
        assert secret not in text
    assert secret not in server_log.read_text(), "the server's seed half reached the log"
