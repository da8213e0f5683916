"""uvicorn's HTTP/1.1 protocols with a deadline for a request's head: a client that sends part of a request
line or of the headers and then stalls (slowloris) is disconnected after ``REQUEST_HEAD_TIMEOUT_SECONDS``.

uvicorn times out idle keep-alive connections but not a request head that stops arriving, and it has no
setting for it; these subclasses add the one timer (request bodies are timed by ``api.middleware.input_guard``).
``python -m service serve`` runs uvicorn with one of them (service/serving.py says which and why).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEAD_TIMEOUT_SECONDS = float(os.environ.get("REQUEST_HEAD_TIMEOUT_SECONDS", "10"))


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


class HttpToolsWithHeadTimeout(HeadDeadline, HttpToolsProtocol):
    """Closes a connection whose request head has begun but not ended within HEAD_TIMEOUT_SECONDS, or that
    sends nothing at all for that long after connecting (httptools parser callbacks mark the head)."""

    def connection_made(self, transport: Any) -> None:
        """A new connection: its first request head is due within the timeout."""
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        """The first byte of a request arrived: its head is due within the timeout."""
        self._arm()
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        """The head is whole."""
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended: no timer outlives it."""
        self._disarm()
        super().connection_lost(exc)


class H11WithHeadTimeout(HeadDeadline, H11Protocol):
    """The same deadline on uvicorn's pure-Python h11 protocol (HTTP_IMPLEMENTATION=h11)."""

    def connection_made(self, transport: Any) -> None:
        """A new connection: its first request head is due within the timeout."""
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Bytes arrived: time the head while it is incomplete, stop once it is whole."""
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
