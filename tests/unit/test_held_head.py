"""A response head goes out with the first part of its body, in one write (api/http/server.py, ``HeldHead``);
nothing is lost, reordered or kept past the event loop's turn."""

from __future__ import annotations

import asyncio
from typing import Any

from api.http.server import HeldHead

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"


class RecordingTransport:
    """A transport that records each write and whether it was closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


async def test_a_head_and_its_body_go_out_in_one_write() -> None:
    transport = RecordingTransport()
    held = HeldHead(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    held.write(HEAD)
    assert transport.writes == []
    assert held.get_write_buffer_size() == len(HEAD)
    held.write(b"{}")
    held.write(b"more")
    assert transport.writes == [HEAD + b"{}", b"more"]
    await asyncio.sleep(0)  # the turn ends: nothing is written twice
    assert transport.writes == [HEAD + b"{}", b"more"]


async def test_a_head_alone_goes_out_when_the_loop_turns() -> None:
    transport = RecordingTransport()
    held = HeldHead(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    held.write(HEAD)  # a HEAD answer: no body follows
    await asyncio.sleep(0)
    assert transport.writes == [HEAD]


async def test_closing_sends_the_held_head_first() -> None:
    transport = RecordingTransport()
    held = HeldHead(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    held.write(HEAD)
    held.close()
    assert transport.writes == [HEAD]
    assert transport.closed and held.is_closing()
    await asyncio.sleep(0)
    assert transport.writes == [HEAD]


async def test_a_body_is_not_held_and_other_calls_reach_the_transport() -> None:
    transport = RecordingTransport()
    held = HeldHead(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    held.write(b"data: 1\n\n")  # a live stream's next event
    assert transport.writes == [b"data: 1\n\n"]
    assert held.get_extra_info("peername") == ("127.0.0.1", 1)
