"""End to end: ``/metrics`` counts a live stream as it counts every request (route template, status,
duration; docs/api.md), once its client has left."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest
from httpx_sse import aconnect_sse

from tests.support.client_play import create_game
from tests.support.sse import dispatched

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WAIT = 30.0
STREAM_ROUTE = "/v1/games/{game_id}/stream"


def measured(metrics: str, path: str, status: int = 200) -> tuple[float, float]:
    """The request count and the summed duration (seconds) of GET ``path`` answered ``status``."""
    labels = f'app_name="bazaar_games",method="GET",path="{path}",status_code="{status}"'
    found = {}
    for name in ("count", "sum"):
        line = re.search(
            rf"^litestar_request_duration_seconds_{name}\{{{re.escape(labels)}\}} (\S+)$", metrics, re.M
        )
        found[name] = float(line.group(1)) if line else 0.0
    return found["count"], found["sum"]


async def test_a_stream_is_counted_once_its_client_leaves(server: str) -> None:
    """A stream its client leaves counts once, by its route template, as 200 with a duration; a plain
    request still counts too."""
    async with httpx.AsyncClient(base_url=server, timeout=WAIT) as client:
        created = await create_game(client, "basari", 3, seed="stream-metrics-1")
        before = (await client.get("/metrics")).text
        async with aconnect_sse(client, "GET", f"/v1/games/{created['game_id']}/stream") as source:
            assert source.response.status_code == 200
            events = dispatched(source)
            assert (await anext(events)).event == "snapshot"
        assert (await client.get("/health")).status_code == 200
        # the server notices the client left, then counts the stream; a request is counted once its
        # answer has been sent, so /health may show up a moment after its client read the answer
        deadline = time.monotonic() + WAIT
        while True:
            after = (await client.get("/metrics")).text
            (count, seconds), (count0, seconds0) = (
                measured(after, STREAM_ROUTE),
                measured(before, STREAM_ROUTE),
            )
            streams, stream_seconds = count - count0, seconds - seconds0
            health = measured(after, "/health")[0] - measured(before, "/health")[0]
            if (streams >= 1 and health >= 1) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
    assert streams >= 1  # at least ours (a stream of an earlier test may end meanwhile)
    assert stream_seconds > 0
    assert health == 1
