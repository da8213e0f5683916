"""The boardgame.io peer: npm's boardgame.io, bgio-postgres and socket.io-client at the versions package.json
and package-lock.json pin, installed by ``npm ci`` into .bench/peers (git-ignored) on first use; the bench's
Basari (basari.js) served by server.js and played by load.js."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parents[2]
CACHE = PROJECT_ROOT / ".bench" / "peers"


def install() -> Path:
    """The pinned packages' node_modules, installed with ``npm ci`` when the lock file changed."""
    lock = (HERE / "package-lock.json").read_bytes()
    stamp = CACHE / ".installed-lock"
    if not (stamp.exists() and stamp.read_bytes() == lock):
        CACHE.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(HERE / name, CACHE / name)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CACHE, check=True, timeout=600
        )
        stamp.write_bytes(lock)
    return CACHE / "node_modules"


def database_env(database_url: str) -> dict[str, str]:
    """libpq-style variables (PGHOST, ...) for ``database_url`` (a socket directory in ?host= too)."""
    parts = urlsplit(database_url)
    query = parse_qs(parts.query)
    return {
        "PGDATABASE": parts.path.lstrip("/"),
        "PGUSER": parts.username or "postgres",
        "PGPASSWORD": parts.password or "",
        "PGHOST": query.get("host", [parts.hostname or "127.0.0.1"])[0],
        "PGPORT": str(parts.port or 5432),
    }


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def node_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment node runs the peer's scripts in: the cached packages on NODE_PATH."""
    return {**os.environ, "NODE_PATH": str(install()), **extra}


def start_server(database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    """server.js on a free port of 127.0.0.1 against ``database_url``; the process and its base URL."""
    port = free_port()
    process = subprocess.Popen(
        ["node", str(HERE / "server.js")],
        env=node_env({"PORT": str(port), **database_env(database_url)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            assert process.poll() is None, "boardgame.io server exited during start-up"
            time.sleep(0.2)
    process.kill()
    raise AssertionError("boardgame.io server did not listen within 60 s")


def start_load(
    base: str,
    games: int,
    seconds: float,
    stages: int = 3,
    patience_ms: int = 10_000,
    pairs: int = 0,
    old_moves: int = 0,
    young_moves: int = 20,
) -> subprocess.Popen[bytes]:
    """load.js: ``games`` concurrent games for ``seconds``; with ``pairs``, the latency-growth run instead (old
    matches of ``stages`` stages played to ``old_moves`` moves, then ``pairs`` pairs per client of a move on
    an old match and one on a young one, moves 1 to ``young_moves``: load.js's header). It prints its JSON
    result when done."""
    env = {
        "BASE": base,
        "GAMES": str(games),
        "SECONDS": str(seconds),
        "STAGES": str(stages),
        "PATIENCE_MS": str(patience_ms),
        "PAIRS": str(pairs),
        "OLD_MOVES": str(old_moves),
        "YOUNG_MOVES": str(young_moves),
    }
    return subprocess.Popen(["node", str(HERE / "load.js")], env=node_env(env), stdout=subprocess.PIPE)


def finish_load(load: subprocess.Popen[bytes], timeout: float = 900) -> dict[str, Any]:
    """Wait for load.js (``timeout`` seconds at most) and read its result."""
    out, _ = load.communicate(timeout=timeout)
    assert load.returncode == 0, f"load.js failed ({load.returncode})"
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result
