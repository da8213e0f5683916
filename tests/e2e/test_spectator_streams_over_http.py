"""End to end, spectators signed in: a browser whose session holds no seat of a game gets the spectators'
stream, which shows only what anyone may see. Nothing re-checks its session while it is open (a check
every ``STREAM_POLL_SECONDS`` per stream would make a crowd of signed-in spectators cost the database in
proportion to their number), and replacing or revoking the token leaves it open to the game's end."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from httpx_sse import aconnect_sse

from api.http.auth import SESSION_COOKIE
from tests.e2e.conftest import start_server
from tests.support.accounts import account, bearer
from tests.support.client_play import create_game, play_existing
from tests.support.sse import dispatched

pytestmark = [pytest.mark.e2e, pytest.mark.db]

POLL = (
    0.1  # the server's STREAM_POLL_SECONDS: a stream that re-checked its token would do so 10 times a second
)
WAIT = 60.0
SPECTATORS = 5
TOKEN_CHECK = "FROM accounts WHERE token_hash = $1"  # AccountService.by_token's statement


@pytest.fixture
def counting_server(database_url: str, tmp_path: Path) -> Iterator[str]:
    """A server (one worker) that counts its statements (tests/support/counting_app.py), re-checking the
    tokens of its streams every POLL seconds."""
    process, base = start_server(
        database_url,
        log_file=tmp_path / "server.log",
        settings={"STREAM_POLL_SECONDS": str(POLL)},
        app="tests.support.counting_app:create_counting_app",
    )
    yield base
    process.terminate()
    process.wait(10)


async def token_checks(http: httpx.AsyncClient) -> int:
    """The account-token lookups the server has run so far."""
    counted: dict[str, int] = (await http.get("/bench/statements")).json()
    return sum(count for query, count in counted.items() if TOKEN_CHECK in query)


async def test_signed_in_spectators_cost_no_token_checks_and_outlive_a_token_change(
    counting_server: str,
) -> None:
    async with httpx.AsyncClient(base_url=counting_server, timeout=WAIT) as http:
        _name, token = await account(http, "watcher")
        game = await create_game(http, "basari", 3, seed="signed-in-spectators")
        path = f"/v1/games/{game['game_id']}/stream"
        async with contextlib.AsyncExitStack() as opened:
            sources = [
                await opened.enter_async_context(
                    aconnect_sse(http, "GET", path, headers={"Cookie": f"{SESSION_COOKIE}={token}"})
                )
                for _ in range(SPECTATORS)
            ]
            streams = [dispatched(source) for source in sources]
            for stream in streams:
                snapshot = await asyncio.wait_for(anext(stream), WAIT)
                assert snapshot.event == "snapshot" and json.loads(snapshot.data)["you"] is None
                assert int(snapshot.id) == game["version"]  # the game as created: no move yet

            before = await token_checks(http)
            await asyncio.sleep(20 * POLL)  # streams that re-checked would have done so about 20 times each
            assert await token_checks(http) == before

            revoked = await http.delete("/v1/me/token", headers=bearer(token))
            assert revoked.status_code == 204, revoked.text
            tokens = [seat["token"] for seat in game["seats"]]
            final = await play_existing(http, game["game_id"], tokens, seed="signed-in-spectators")
            for stream in streams:  # still open: every event of the game, then its end
                received = [event async for event in stream]
                assert received[-1].event == "end"
                ids = [int(event.id) for event in received[:-1]]
                assert ids == list(range(game["version"] + 1, final["version"] + 1))
