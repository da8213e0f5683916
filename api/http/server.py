"""uvicorn's HTTP/1.1 protocols with a deadline for a request's head: a client that sends part of a request
line or of the headers and then stalls (slowloris) is disconnected after ``REQUEST_HEAD_TIMEOUT_SECONDS``;
and with a bound on its size: a head larger than ``MAX_HEAD_BYTES`` is answered 431 and disconnected.

uvicorn times out idle keep-alive connections but not a request head that stops arriving, and it has no
setting for it; these subclasses add the one timer (request bodies are timed by ``api.http.middleware.input_guard``).
``python -m service serve`` runs uvicorn with one of them (service/runtime/serving.py says which and why).

Both also write a response's head together with the first part of its body (``HeldHead``): uvicorn writes
each ASGI message as it comes, so every answer cost two writes to the socket, two TCP segments the client
and the kernel each handled apart.
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEAD_TIMEOUT_SECONDS = float(os.environ.get("REQUEST_HEAD_TIMEOUT_SECONDS", "10"))
# The largest request head (request line and headers) a connection may send; a larger one is answered 431
# (RFC 6585) and the connection closed. httptools buffers a header until it ends, whatever its size, so
# without this bound four 30 MB headers cost the process hundreds of megabytes.
MAX_HEAD_BYTES = int(os.environ.get("MAX_HEAD_BYTES", "16384"))
HEAD_TOO_LARGE_BODY = (
    b'{"type":"/problems/head_too_large","title":"Request header fields too large","status":431,'
    b'"detail":"the request line and headers are larger than the server takes","code":"head_too_large"}'
)
# h11 accepts a bare LF as a line end: a head ends at the first empty line either way
_H11_HEAD_END = re.compile(rb"\n\r?\n")


class HeldHead:
    """A connection's transport whose writes of a response head (``HTTP/1.x ...``) wait for the next write,
    the first part of the body, and go out with it in one write; a head that nothing follows in the same
    turn of the event loop (a HEAD answer, a live stream's first event not yet there) goes out at the end of
    that turn. Writes keep their order; ``close`` and ``write_eof`` send what is held first."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        """Hold heads on their way to ``transport``."""
        self._transport = transport
        self._loop = loop
        self._held = b""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Write ``data`` after what is held; hold it when it is a response head."""
        if self._held:
            data, self._held = self._held + data, b""
        elif data[:7] == b"HTTP/1.":
            self._held = bytes(data)
            self._loop.call_soon(self._flush)
            return
        self._transport.write(data)

    def _flush(self) -> None:
        """Send a head that nothing followed."""
        if self._held:
            data, self._held = self._held, b""
            if not self._transport.is_closing():
                self._transport.write(data)

    def writelines(self, parts: Any) -> None:
        """Write the parts as one."""
        self.write(b"".join(parts))

    def write_eof(self) -> None:
        """Send what is held, then end the writing side."""
        self._flush()
        self._transport.write_eof()

    def close(self) -> None:
        """Send what is held, then close."""
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        """Close at once, dropping what is held (as the transport drops what it buffers)."""
        self._held = b""
        self._transport.abort()

    def is_closing(self) -> bool:
        """Whether the transport is closing."""
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        """The bytes not yet written: the transport's and the held head's."""
        return self._transport.get_write_buffer_size() + len(self._held)

    def __getattr__(self, name: str) -> Any:
        """Everything else (reading, flow control, extra info) is the transport's."""
        return getattr(self._transport, name)


def held_heads(transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> asyncio.Transport:
    """``transport`` as the protocol sees it: a ``HeldHead`` (what it does not do itself, the transport does)."""
    return cast(asyncio.Transport, HeldHead(transport, loop))


class HeadDeadline:
    """The timer: armed when a connection opens and when a request head begins, disarmed when the head is
    whole; when it fires, the connection is closed (nothing was routed, nothing to answer)."""

    head_timeout = HEAD_TIMEOUT_SECONDS
    _head_deadline: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def _arm(self) -> None:
        if self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        """The head did not arrive in time: drop the connection."""
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse_large_head(self) -> None:
        """The head is larger than MAX_HEAD_BYTES: answer 431 problem+json and close (nothing was routed)."""
        self._disarm()
        if self.transport.is_closing():
            return
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/problem+json\r\n"
            b"content-length: " + str(len(HEAD_TOO_LARGE_BODY)).encode("ascii") + b"\r\n"
            b"connection: close\r\n\r\n" + HEAD_TOO_LARGE_BODY
        )
        self.transport.close()


class HttpToolsWithHeadTimeout(HeadDeadline, HttpToolsProtocol):
    """Closes a connection whose request head has begun but not ended within HEAD_TIMEOUT_SECONDS, or that
    sends nothing at all for that long after connecting (httptools parser callbacks mark the head), and
    answers 431 to a head larger than MAX_HEAD_BYTES before the parser has buffered more than that."""

    max_head_bytes = MAX_HEAD_BYTES
    _in_head = True  # the bytes arriving belong to a request head (until on_headers_complete)
    _head_bytes = 0  # of the current head, received so far

    def connection_made(self, transport: Any) -> None:
        """A new connection: its first request head is due within the timeout; its heads go out with their
        bodies (``HeldHead``)."""
        super().connection_made(held_heads(transport, self.loop))
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Feed the parser at most what is left of the head's allowance while a head is arriving; a head
        still incomplete past it is refused (431). What follows a whole head (its body, the next request)
        is fed as it came."""
        while data and self._in_head:
            room = self.max_head_bytes - self._head_bytes
            if room <= 0:
                self._refuse_large_head()
                return
            part, data = data[:room], data[room:]
            self._head_bytes += len(part)
            super().data_received(part)
            if self.transport.is_closing():
                return
        if data:
            super().data_received(data)

    def on_message_begin(self) -> None:
        """The first byte of a request arrived: its head is due within the timeout."""
        self._arm()
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        """The head is whole."""
        self._disarm()
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The request is whole: what arrives next is the next request's head."""
        super().on_message_complete()
        self._in_head, self._head_bytes = True, 0

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended: no timer outlives it."""
        self._disarm()
        super().connection_lost(exc)


class H11WithHeadTimeout(HeadDeadline, H11Protocol):
    """The same deadline and head bound on uvicorn's pure-Python h11 protocol (HTTP_IMPLEMENTATION=h11)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """uvicorn's protocol, whose h11 connection lets this class judge a head's size (h11 would answer
        400 past its own bound, 16 KiB unless told)."""
        super().__init__(*args, **kwargs)
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES + 1)

    def connection_made(self, transport: Any) -> None:
        """A new connection: its first request head is due within the timeout; its heads go out with their
        bodies (``HeldHead``)."""
        super().connection_made(held_heads(transport, self.loop))
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Bytes arrived: time the head while it is incomplete, stop once it is whole; a head larger than
        MAX_HEAD_BYTES is refused (431)."""
        if self.conn.their_state is h11.IDLE:
            buffered = bytes(self.conn.trailing_data[0]) + data
            if len(buffered) > MAX_HEAD_BYTES:
                end = _H11_HEAD_END.search(buffered)
                if end is None or end.end() > MAX_HEAD_BYTES:
                    self._refuse_large_head()
                    return
        super().data_received(data)
        head_pending = self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0])
        if head_pending:
            self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended: no timer outlives it."""
        self._disarm()
        super().connection_lost(exc)
