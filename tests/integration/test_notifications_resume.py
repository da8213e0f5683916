"""An account's notification stream (``GET /v1/me/stream``, service/readmodels/notifications.py) resumed with
``Last-Event-ID``: every id it gives is unique and greater than the one before, and a stream resumed after
any of them tells each notice after it exactly once: none again (``seated`` of a game already seated), none
lost (a ``game_finished`` that stems from a later event than the ``seated`` before it).

Against the real app and a real PostgreSQL: the games are played over HTTP, the stream is the app's own
Notifications followed directly (its messages, before they become SSE) on the app's own event loop, where
its pool lives."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar

import pytest
from litestar.testing import AsyncTestClient

from eventstore import FeedPosition
from service.accounts.accounts import Account
from service.readmodels.notifications import NoticeId, Notifications, resume_position
from service.runtime import errors
from tests.support.accounts import account, bearer, unlimited_client

pytestmark = pytest.mark.db

WAIT = 30.0
T = TypeVar("T")


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app on the test database, lifespan included."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


async def on_app(client: AsyncTestClient[Any], function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``function(*args)`` run on the app's event loop."""
    return await asyncio.wrap_future(client.blocking_portal.start_task_soon(function, *args))


async def last_event(notifications: Notifications, game_id: str, after: NoticeId) -> FeedPosition:
    """The feed position of the game's latest event, once the feed shows it."""
    store = notifications.games.store
    async with asyncio.timeout(WAIT):
        while True:
            version = (await store.stream_info(game_id)).version  # type: ignore[union-attr]
            position = after.at
            while page := await store.read_all(position, 1000):
                for at, event in page:
                    if event.stream_id == game_id and event.version == version:
                        return at
                position = page[-1][0]
            await asyncio.sleep(0.1)


async def told(
    notifications: Notifications, me: Account, after: str, through: FeedPosition
) -> list[tuple[str, str]]:
    """The (id, type) of each notice of the account's stream resumed after ``after``, until it has read the
    feed past ``through`` (a keep-alive's id says so)."""
    messages = notifications.follow(me, resume_position(after), 0.2, 0.1)
    notices: list[tuple[str, str]] = []
    async with aclosing(messages), asyncio.timeout(WAIT):
        snapshot = await anext(messages)
        assert (snapshot.kind, snapshot.id) == ("snapshot", after)
        async for message in messages:
            if message.kind == "notice":
                assert message.id is not None, message
                notices.append((message.id, message.body.type))
            elif message.id is not None:
                reached = resume_position(message.id)
                assert reached is not None
                if reached.at >= through:
                    return notices
    raise AssertionError("the stream ended")


def increasing(notices: list[tuple[str, str]], after: str) -> bool:
    """Whether the notices' ids are each greater than the one before (the first than ``after``)."""
    points = [resume_position(at) for at in [after, *(at for at, _ in notices)]]
    return all(a is not None and b is not None and a < b for a, b in itertools.pairwise(points))


async def move(client: AsyncTestClient[Any], game_id: str, tokens: list[str]) -> None:
    """One legal move by a seat a decision of which is due."""
    for token in tokens:
        game = (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
        legal = [entry for entry in game["legal"] if entry["type"] != "resign"]
        if legal:
            answer = await client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=bearer(token))
            assert answer.status_code == 200, answer.text
            return
    raise AssertionError("no seat has a decision due")


async def test_a_resumed_stream_tells_each_notice_after_its_id_exactly_once(
    client: AsyncTestClient[Any],
) -> None:
    notifications: Notifications = client.app.state.services.notifications
    (_, token), (other, other_token) = await account(client, "resume"), await account(client, "resume")
    me = await on_app(client, client.app.state.services.accounts.require, token)
    before = NoticeId(await on_app(client, notifications.now))
    body = {"game": "johari", "players": [{"account": "me"}, {"invite": other}]}
    created = await client.post("/v1/games", json=body, headers=bearer(token))
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    joined = await client.post(f"/v1/games/{game_id}/join", headers=bearer(other_token))
    assert joined.status_code == 200, joined.text

    opened = await on_app(client, last_event, notifications, game_id, before)
    started = await on_app(client, told, notifications, me, before.encode(), opened)
    assert [kind for _, kind in started][:1] == ["seated"] and increasing(started, before.encode()), started
    await move(client, game_id, [token, other_token])
    moved = await on_app(client, last_event, notifications, game_id, before)
    again = await on_app(client, told, notifications, me, started[0][0], moved)
    assert again == [], "seated is told once; what is due now is in the snapshot"

    resigned = await client.post(
        f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(other_token)
    )
    assert resigned.status_code == 200, resigned.text
    finished = await on_app(client, last_event, notifications, game_id, before)
    whole = await on_app(client, told, notifications, me, before.encode(), finished)
    assert [kind for _, kind in whole] == ["seated", "game_finished"], whole
    assert increasing(whole, before.encode()), whole
    for index, (at, _) in enumerate(whole):
        assert await on_app(client, told, notifications, me, at, finished) == whole[index + 1 :], at


def test_last_event_id_is_an_id_the_stream_gives_out() -> None:
    point = NoticeId(FeedPosition(tx=7, position=12), 1)
    assert resume_position(point.encode()) == point and point.encode() == "7-12.1"
    assert resume_position(" 7-12 ") == NoticeId(FeedPosition(tx=7, position=12))
    assert NoticeId(FeedPosition(tx=7, position=12), 2) < NoticeId(FeedPosition(tx=7, position=12))
    for bad in ("7-12.3", "7-12.", "7-", "-12", "7-12-1", "\u0667-12", "7-9223372036854775808", "nonsense"):
        with pytest.raises(errors.Malformed):
            resume_position(bad)
