"""Reading Server-Sent Events as a browser's EventSource does."""

from __future__ import annotations

from collections.abc import AsyncIterator

from httpx_sse import EventSource, ServerSentEvent


async def dispatched(source: EventSource) -> AsyncIterator[ServerSentEvent]:
    """The events of ``source`` that the SSE standard dispatches: httpx_sse also hands over every
    comment-only block (a keep-alive) as an empty ``message`` carrying the last id once one was seen,
    which a browser never dispatches (an event with an empty data buffer is dropped)."""
    async for event in source.aiter_sse():
        if event.data:
            yield event
