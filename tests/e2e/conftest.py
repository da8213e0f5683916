"""The real server: uvicorn in a subprocess on a free port against the test database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from service.runtime.settings import PROJECT_ROOT
from tests.support.databases import fresh_database


def free_port() -> int:
    """A TCP port on the loopback nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(
    database_url: str,
    workers: int = 1,
    log_file: Path | None = None,
    settings: dict[str, str] | None = None,
    app: str = "api.app:create_app",
) -> tuple[subprocess.Popen[bytes], str]:
    """Serve the app factory ``app`` as ``python -m service serve`` does (service/runtime/serving.py) and wait until
    /ready answers 200 (logs to ``log_file``); ``settings`` are extra environment variables
    (service/runtime/settings.py), e.g. a small rate limit or HTTP_IMPLEMENTATION."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "info",
        **(settings or {}),
    }
    log = open(log_file, "wb") if log_file else subprocess.DEVNULL  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.serving", app, str(port), str(workers)],
        cwd=PROJECT_ROOT,
        env=env,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    wait_ready(process, base)
    return process, base


def wait_ready(process: subprocess.Popen[bytes], base: str) -> None:
    """Wait until the server ``process`` at ``base`` answers /ready with 200 (killed after 90 s)."""
    deadline = time.monotonic() + 90  # generous: two workers on a loaded two-core CI machine start slowly
    while time.monotonic() < deadline:
        assert process.poll() is None, "server exited during start-up"
        try:
            if httpx.get(base + "/ready", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise AssertionError("server did not become ready within 90 s")


# The shared servers run as `make run` serves (uvicorn with httptools on uvloop, service/runtime/serving.py) and send
# a keep-alive on a stream quiet for this long, so every stream test goes through quiet periods longer than
# a keep-alive on the loop the service ships with.
SERVED_AS_SHIPPED = {"HTTP_IMPLEMENTATION": "httptools", "STREAM_KEEPALIVE_SECONDS": "0.3"}


@pytest.fixture(scope="session")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session's server writes its JSON log lines."""
    return tmp_path_factory.mktemp("server") / "server.log"


@pytest.fixture(scope="session")
def server(database_url: str, server_log: Path) -> Iterator[str]:
    """The base URL of a running server (one worker)."""
    process, base = start_server(database_url, log_file=server_log, settings=SERVED_AS_SHIPPED)
    yield base
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="session")
def server_two_workers(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a server running two worker processes on one port (``WORKERS=2``)."""
    process, base = start_server(
        database_url,
        workers=2,
        log_file=tmp_path_factory.mktemp("server2") / "server.log",
        settings=SERVED_AS_SHIPPED,
    )
    yield base
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="session")
async def own_server(
    server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[str, str]]:
    """A server (base URL) on a database (URL) of its own, for tests that create many games (fuzzing), so
    what the shared test database holds stays as the other tests expect."""
    async with fresh_database(server_url) as url:
        process, base = start_server(url, log_file=tmp_path_factory.mktemp("own") / "server.log")
        yield base, url
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database of the test module's own (fresh, migrated, dropped after the module): only that module's
    players act in its games, and fixed names (accounts, players) are new there."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def module_server(own_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a server (one worker) on the module's own database."""
    process, base = start_server(own_database, log_file=tmp_path_factory.mktemp("module") / "server.log")
    yield base
    process.terminate()
    process.wait(10)


# the database marker by hand: the servers are looked up by name, so their database fixtures are not in the
# test's fixture closure (tests/conftest.py marks the tests whose closure reaches server_url)
@pytest.fixture(
    params=[pytest.param(1, marks=pytest.mark.db), pytest.param(2, marks=pytest.mark.db)],
    ids=["workers1", "workers2"],
)
def any_server(request: pytest.FixtureRequest) -> str:
    """Each test using it runs against the one-worker server and the two-worker server."""
    name = "server" if request.param == 1 else "server_two_workers"
    base: str = request.getfixturevalue(name)
    return base


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for the running server."""
    async with httpx.AsyncClient(base_url=server, timeout=30) as client:
        yield client
