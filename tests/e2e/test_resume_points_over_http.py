"""``GET /v1/me/stream`` resumed with a ``Last-Event-ID`` no stream gave out (a point past the feed's end, such
as an id of another server's) is 400 ``bad_last_event_id`` at once (docs/api.md, "An account's
notifications"), not a 200 stream that tells the account nothing; an id it did give out resumes."""

from __future__ import annotations

import uuid

import httpx
import pytest

pytestmark = pytest.mark.e2e


async def test_a_resume_point_past_the_feed_is_400_and_one_given_out_resumes(http: httpx.AsyncClient) -> None:
    created = await http.post("/v1/accounts", json={"name": f"resumer-{uuid.uuid4().hex[:8]}", "kind": "bot"})
    assert created.status_code == 201, created.text
    auth = {"Authorization": f"Bearer {created.json()['token']}"}
    async with http.stream("GET", "/v1/me/stream", headers=auth, timeout=30) as first:
        assert first.status_code == 200
        lines = first.aiter_lines()
        given = next_id = ""
        async for line in lines:
            if line.startswith("id:"):
                given = line.removeprefix("id:").strip()
                break
    assert given, "the snapshot carries an id"
    tx, _, rest = given.partition("-")
    for made_up in (f"{int(tx) + 10**9}-{rest}", "9223372036854775806-1.1"):
        headers = {**auth, "Last-Event-ID": made_up}
        async with http.stream("GET", "/v1/me/stream", headers=headers, timeout=30) as answer:
            body = await answer.aread() if answer.status_code != 200 else b""
            assert answer.status_code == 400, made_up
            assert b"bad_last_event_id" in body
    async with http.stream(
        "GET", "/v1/me/stream", headers={**auth, "Last-Event-ID": given}, timeout=30
    ) as again:
        assert again.status_code == 200
        async for line in again.aiter_lines():
            if line.startswith("id:"):
                next_id = line.removeprefix("id:").strip()
                break
    assert next_id == given  # the resumed snapshot stands where the stream left off
