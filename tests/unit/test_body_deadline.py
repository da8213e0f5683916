"""A request's body deadline (api/http/middleware.py, ``BodyDeadline``): one timer for the whole body, a 408
problem once it has passed, nothing once the body is whole, and a cancellation from elsewhere left alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from litestar.plugins.problem_details import ProblemDetailsException

from api.http.middleware import BodyDeadline


def messages(*parts: dict[str, Any]) -> Any:
    """A receive that hands out ``parts`` in order, then waits forever (a client that stopped sending)."""
    queue = list(parts)

    async def receive() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return receive


def chunk(body: bytes, more: bool) -> dict[str, Any]:
    """An ``http.request`` message."""
    return {"type": "http.request", "body": body, "more_body": more}


def in_seconds(seconds: float) -> float:
    """The event loop's clock ``seconds`` from now."""
    return asyncio.get_running_loop().time() + seconds


async def test_a_body_that_stops_arriving_gets_408_at_the_deadline() -> None:
    body = BodyDeadline(messages(chunk(b"{", True)), in_seconds(0.05))
    assert (await body.receive())["body"] == b"{"
    with pytest.raises(ProblemDetailsException) as refused:
        await asyncio.wait_for(body.receive(), 5)
    assert refused.value.status_code == 408


async def test_a_deadline_passed_between_two_waits_refuses_the_next_one() -> None:
    body = BodyDeadline(messages(chunk(b"{", True), chunk(b"}", False)), in_seconds(0.05))
    await body.receive()
    await asyncio.sleep(0.1)  # the handler busy past the deadline, not waiting for the body
    with pytest.raises(ProblemDetailsException) as refused:
        await asyncio.wait_for(body.receive(), 5)
    assert refused.value.status_code == 408


async def test_a_whole_body_disarms_the_deadline() -> None:
    body = BodyDeadline(messages(chunk(b"{}", False), {"type": "http.disconnect"}), in_seconds(0.05))
    assert (await body.receive())["body"] == b"{}"
    await asyncio.sleep(0.1)
    after = await asyncio.wait_for(body.receive(), 5)  # after the body: no deadline
    assert after["type"] == "http.disconnect"


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    body = BodyDeadline(messages(), in_seconds(60))
    waiting = asyncio.create_task(body.receive())
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
