"""A minimal HTTP/1.1 keep-alive client on asyncio streams, so the load generator costs the shared CPU little.

httpx spends several times the server's CPU per request; on a two-core machine the client would then be
what is measured. This client only writes a prepared request and reads a Content-Length response.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Post:
    """One request of the bench's HTTP load: a POST of a JSON ``body`` to ``path``, with a bearer ``token``
    ('' for none)."""

    path: str
    token: str
    body: bytes

    @property
    def headers(self) -> dict[str, str]:
        """The headers beyond the JSON body's."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


class Connection:
    """One keep-alive connection to the server at ``base`` (http://host:port)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect."""
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        """Disconnect."""
        if self._writer is not None:
            self._writer.close()
            await self._writer.wait_closed()
            self._reader = self._writer = None

    async def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """POST ``body`` as JSON; the status code and the response body."""
        return await self.send("POST", path, body, headers)

    async def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """GET ``path``; the status code and the response body."""
        return await self.send("GET", path, None, headers)

    async def send(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """One request (``body`` as JSON, None for none); the status code and the response body."""
        assert self._reader is not None and self._writer is not None
        content = [] if body is None else ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            *content,
            *(f"{name}: {value}" for name, value in (headers or {}).items()),
        ]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        length = 0
        chunked = False
        for line in header_lines:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if chunked:
            return status, await self._read_chunked()
        return status, await self._reader.readexactly(length)

    async def _read_chunked(self) -> bytes:
        """A chunked body (not expected from these endpoints, but read correctly if it comes)."""
        assert self._reader is not None
        out = bytearray()
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await self._reader.readexactly(size + 2)
            if size == 0:
                return bytes(out)
            out += chunk[:-2]
