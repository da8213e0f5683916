"""examples/follow.py (standard library only) follows a game's live stream against the real server through a
proxy that cuts its first connection in the middle of a frame: it resumes with ``Last-Event-ID`` and tells
every event of the game once, in order, up to ``end``."""

from __future__ import annotations

import json
import random
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from service.runtime.settings import PROJECT_ROOT

pytestmark = pytest.mark.e2e

FRAME_END = re.compile(rb"\r?\n\r?\n")  # a blank line ends a server-sent event (Litestar writes CRLF)
CUT_AFTER_FRAMES = 3  # the snapshot and two events go through; the connection is cut inside the next one
PLAYED = 12  # commands played before the first seat resigns (which ends a two-player game)


class CuttingProxy:
    """A TCP proxy to the server that records each request head and cuts its first connection's answer
    ten bytes past the end of its ``CUT_AFTER_FRAMES``-th server-sent event frame."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.heads: list[bytes] = []
        self.connections: list[socket.socket] = []
        self.streaming = threading.Event()  # the first answer's first frame went through
        self.cut = threading.Event()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        """Serve each connection on a thread of its own until the listener closes."""
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.relay, args=(client, len(self.heads) == 0), daemon=True).start()

    def relay(self, client: socket.socket, first: bool) -> None:
        """Pass the request head on, then the answer back (cut, on the first connection)."""
        with client, socket.create_connection(self.upstream) as upstream:
            self.connections += [client, upstream]
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            self.heads.append(head)
            upstream.sendall(head)
            answer = b""
            while chunk := upstream.recv(4096):
                answer += chunk
                body_at = answer.index(b"\r\n\r\n") + 4 if b"\r\n\r\n" in answer else len(answer)
                ends = [found.end() for found in FRAME_END.finditer(answer, body_at)]
                if first and ends:
                    self.streaming.set()
                if first and len(ends) >= CUT_AFTER_FRAMES:
                    keep = ends[CUT_AFTER_FRAMES - 1] + 10 - (len(answer) - len(chunk))
                    client.sendall(chunk[: max(keep, 0)])
                    self.cut.set()
                    return
                client.sendall(chunk)

    def close(self) -> None:
        """Stop listening and drop every connection still open (so the server's streams end)."""
        self.listener.close()
        for connection in self.connections:
            connection.close()


@pytest.fixture
def proxy(server: str) -> Iterator[CuttingProxy]:
    """A cutting proxy in front of the server."""
    address = urlsplit(server)
    running = CuttingProxy((address.hostname or "127.0.0.1", address.port or 80))
    yield running
    running.close()


def play(server: str, game_id: str, tokens: list[str]) -> int:
    """Random legal commands, then the first seat resigns (ending a game of two); the final version."""
    chooser = random.Random(game_id)
    for played in range(PLAYED + 1):
        for token in tokens:
            auth = {"Authorization": f"Bearer {token}"}
            mine = httpx.get(f"{server}/v1/games/{game_id}", headers=auth, timeout=30).json()
            resign = [entry for entry in mine["legal"] if entry["type"] == "resign"]
            others = [entry for entry in mine["legal"] if entry["type"] != "resign"]
            if played == PLAYED and token == tokens[0]:
                body = resign[0]
            elif others:
                body = chooser.choice(others)
            else:
                continue
            posted = httpx.post(f"{server}/v1/games/{game_id}/commands", json=body, headers=auth, timeout=30)
            assert posted.status_code == 200, posted.text
            break
    final = httpx.get(f"{server}/v1/games/{game_id}", timeout=30).json()
    assert final["status"] == "finished", final
    version: int = final["version"]
    return version


def test_the_example_follower_resumes_a_cut_stream_and_misses_nothing(
    server: str, proxy: CuttingProxy
) -> None:
    created = httpx.post(
        f"{server}/v1/games",
        json={"game": "bazaar", "players": [{"name": "Ada"}, {"name": "Bo"}], "seed": "follow"},
        timeout=30,
    ).json()
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    command = [sys.executable, str(PROJECT_ROOT / "examples" / "follow.py"), game_id]
    follower = subprocess.Popen(
        [*command, "--url", f"http://127.0.0.1:{proxy.port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proxy.streaming.wait(60), "the follower never received its snapshot"
        final = play(server, game_id, tokens)
        out, err = follower.communicate(timeout=120)
    finally:
        follower.kill()
    assert follower.returncode == 0, err
    assert proxy.cut.is_set() and len(proxy.heads) >= 2, "the stream was never cut and resumed"
    told = [json.loads(line) for line in out.splitlines()]
    snapshots = [entry for entry in told if entry["event"] == "snapshot"]
    events = [entry for entry in told if entry["event"] == "message"]
    assert told[-1]["event"] == "end"
    # the resumed request names the last id received before the cut, and the new snapshot stands there
    resumed_from = told[told.index(snapshots[1]) - 1]["id"]
    assert f"last-event-id: {resumed_from}".encode() in proxy.heads[1].lower()
    assert snapshots[1]["id"] == resumed_from
    # every event after the first snapshot's version, once, in order, up to the final version
    start = int(snapshots[0]["id"])
    assert [int(entry["id"]) for entry in events] == list(range(start + 1, final + 1))
    assert all(entry["data"]["game"] == "bazaar" for entry in events)
