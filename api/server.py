"""uvicorn's HTTP/1.1 protocol with a deadline for a request's head: a client that sends part of a request
line or of the headers and then stalls (slowloris) is disconnected after ``REQUEST_HEAD_TIMEOUT_SECONDS``.

uvicorn times out idle keep-alive connections but not a request head that stops arriving, and it has no
setting for it; this subclass adds the one timer (request bodies are timed by ``api.middleware.input_guard``).
``python -m service serve`` runs uvicorn with it (``--http api.server:H11WithHeadTimeout``).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_SECONDS = float(os.environ.get("REQUEST_HEAD_TIMEOUT_SECONDS", "10"))


class H11WithHeadTimeout(H11Protocol):
    """Closes a connection whose request head has begun but not ended within HEAD_TIMEOUT_SECONDS, or that
    sends nothing at all for that long after connecting."""

    head_timeout = HEAD_TIMEOUT_SECONDS
    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        """A new connection: its first request head is due within the timeout."""
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Bytes arrived: time the head while it is incomplete, stop once it is whole."""
        super().data_received(data)
        head_pending = self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0])
        if head_pending:
            if self._head_deadline is None:
                self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended: no timer outlives it."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_deadline = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        """The head did not arrive in time: drop the connection (nothing was routed, nothing to answer)."""
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()
