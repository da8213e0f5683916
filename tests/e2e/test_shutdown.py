"""A server stops when told to (SIGTERM, as a service manager sends it) even while it is watched: a live
stream never ends by itself, so the server waits SHUTDOWN_GRACE_SECONDS for open requests, then cuts them
(service/runtime/serving.py). Before that bound, a server with one open stream did not stop at all."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start_server

pytestmark = pytest.mark.e2e

PATIENCE = 30.0  # seconds the test waits for a server told to stop within one second of grace


def test_a_watched_server_stops_on_sigterm_within_its_grace(database_url: str) -> None:
    quiet = {"STREAM_KEEPALIVE_SECONDS": "600", "STREAM_POLL_SECONDS": "600"}  # the stream sends nothing
    process, base = start_server(database_url, settings={"SHUTDOWN_GRACE_SECONDS": "1", **quiet})
    try:
        created = httpx.post(
            base + "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]}
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=PATIENCE) as stream:
            stream.sendall(
                f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            assert stream.recv(4096).startswith(b"HTTP/1.1 200")  # the stream is open and stays open
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=PATIENCE)  # raises TimeoutExpired: the server did not stop
            stream.settimeout(PATIENCE)
            while stream.recv(4096):  # the server closed the stream's connection
                pass
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode is not None


def test_a_person_reads_where_the_server_serves_and_a_quiet_stop_on_ctrl_c(
    database_url: str, tmp_path: Path
) -> None:
    """What ``make run`` prints (service/runtime/serving.py): "Serving on http://HOST:PORT" once it listens, no
    alembic notes; Ctrl-C with a live stream open says it stops and cuts the stream, with no traceback."""
    log = tmp_path / "server.log"
    quiet = {"STREAM_KEEPALIVE_SECONDS": "600", "STREAM_POLL_SECONDS": "600", "LOG_FORMAT": "console"}
    process, base = start_server(
        database_url, log_file=log, settings={"SHUTDOWN_GRACE_SECONDS": "1", **quiet}
    )
    try:
        created = httpx.post(
            base + "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]}
        )
        assert created.status_code == 201, created.text
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=PATIENCE) as stream:
            path = f"/v1/games/{created.json()['game_id']}/stream"
            stream.sendall(
                f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            assert stream.recv(4096).startswith(b"HTTP/1.1 200")
            process.send_signal(signal.SIGINT)  # Ctrl-C
            process.wait(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    printed = log.read_text()
    assert f"Serving on {base} (Ctrl-C to stop)" in printed, printed
    assert "setup plugin" not in printed and "alembic" not in printed, printed
    assert "Traceback" not in printed and "CancelledError" not in printed, printed
    assert "Stopped: cut 1 open request(s)" in printed, printed
