"""Half-sent requests are dropped: a request head that stops arriving loses its connection
(api/http/server.py), a body that stops arriving, or trickles past its deadline, gets 408
(api/http/middleware.py); a head larger than MAX_HEAD_BYTES gets 431 (api/http/server.py). Measured against the
server as ``python -m service serve`` runs it, with one-second timeouts, on each HTTP_IMPLEMENTATION
(service/runtime/serving.py)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import suppress

import httpx
import pytest

from service.runtime.serving import HTTP_IMPLEMENTATIONS
from tests.e2e.conftest import free_port
from tests.support.serving import serving

pytestmark = pytest.mark.e2e

PATIENCE = 30.0  # seconds a test waits for the server to act on a one-second timeout


@pytest.fixture(scope="module", params=sorted(HTTP_IMPLEMENTATIONS))
def served(database_url: str, request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """``python -m service serve`` with one-second head and body timeouts: its host and port."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "REQUEST_HEAD_TIMEOUT_SECONDS": "1",
        "REQUEST_BODY_TIMEOUT_SECONDS": "1",
        "HTTP_IMPLEMENTATION": request.param,
        "LOG_FORMAT": "json",
    }
    with serving(env, port, patience=60):
        yield "127.0.0.1", port


def answer_to(address: tuple[str, int], sent: bytes) -> tuple[bytes, float]:
    """Send ``sent`` and nothing more; what the server answers before it closes, and after how long."""
    started = time.monotonic()
    with socket.create_connection(address) as connection:
        connection.sendall(sent)
        connection.settimeout(PATIENCE)
        received = b""
        while True:
            chunk = connection.recv(4096)
            if not chunk:
                return received, time.monotonic() - started
            received += chunk


def test_a_half_sent_request_head_is_dropped(served: tuple[str, int]) -> None:
    received, waited = answer_to(served, b"GET /v1/catalog HTTP/1.1\r\nHost: x\r\nAccept: appl")
    assert received == b"" and waited < PATIENCE


def test_a_silent_connection_is_dropped(served: tuple[str, int]) -> None:
    received, waited = answer_to(served, b"")
    assert received == b"" and waited < PATIENCE


def test_a_half_sent_body_gets_408(served: tuple[str, int]) -> None:
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    received, waited = answer_to(served, head + b'{"game": "bas')
    assert received.startswith(b"HTTP/1.1 408"), received[:200]
    assert b"application/problem+json" in received and waited < PATIENCE


def test_a_trickled_body_gets_408_within_the_deadline(served: tuple[str, int]) -> None:
    """The body deadline counts from the request's start: a byte every 0.2 s (each chunk well inside the
    one-second timeout) gets 408 long before the 400 bytes it announced could have arrived (80 s)."""
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"
    )
    with socket.create_connection(served) as connection:
        connection.sendall(head)
        received = b""
        sent = 0
        while sent < 400:
            connection.settimeout(0.2)  # paces the trickle: the next byte unless the server answered
            try:
                chunk = connection.recv(4096)
            except TimeoutError:
                connection.sendall(b" ")
                sent += 1
                continue
            received += chunk
            if not chunk or b"\r\n\r\n" in received:
                break
    assert received.startswith(b"HTTP/1.1 408"), received[:200]
    assert sent < 400, "the whole body was sent before any answer"


def test_a_head_over_the_bound_gets_431(served: tuple[str, int]) -> None:
    """A request head larger than MAX_HEAD_BYTES (16 KiB) is answered 431 problem+json and its connection
    closed, as soon as the bound is passed: the rest of a 30 MB header is never read."""
    with socket.create_connection(served) as connection:
        connection.sendall(b"GET /v1/catalog HTTP/1.1\r\nHost: x\r\nX-Big: ")
        received = b""
        connection.settimeout(PATIENCE)
        with suppress(OSError):  # the server closes while the header is still being sent
            for _ in range(30 * 1024):
                connection.sendall(b"a" * 1024)
        with suppress(OSError):
            while chunk := connection.recv(4096):
                received += chunk
    assert received.startswith(b"HTTP/1.1 431"), received[:200]
    assert b"application/problem+json" in received and b'"code":"head_too_large"' in received


def test_a_head_under_the_bound_is_served_with_its_body(served: tuple[str, int]) -> None:
    """A 12 KiB head sent in the same packets as its body is no 431: only the head counts."""
    body = b'{"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}]}' + b" " * 40_000
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Pad: "
        + b"p" * 12_000
        + b"\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\nConnection: close\r\n\r\n"
    )
    received, _ = answer_to(served, head + body)
    assert received.startswith(b"HTTP/1.1 201"), received[:200]


def test_a_whole_request_is_still_answered(served: tuple[str, int]) -> None:
    response = httpx.get(f"http://{served[0]}:{served[1]}/v1/catalog", timeout=10)
    assert response.status_code == 200
