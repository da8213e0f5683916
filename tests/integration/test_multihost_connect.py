"""A multi-host DATABASE_URL whose first host is silent (it accepts the connection and never answers, as a
host whose PostgreSQL hangs): asyncpg alone spends its one connect timeout there and fails, while the
service's connections (service/runtime/multihost.py) give each host its own share and reach the next host."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, quote, urlencode, urlsplit, urlunsplit

import asyncpg
import pytest

from service.runtime import multihost
from service.runtime.database import create_pool, listen_connector
from service.runtime.settings import Settings

pytestmark = pytest.mark.db

# The connect timeout of the tests that reach the server: the silent host spends half of it, and the server
# must answer within the other half, which a loaded machine may need more than a second for.
CONNECT_TIMEOUT_S = 5.0


@asynccontextmanager
async def silent_host() -> AsyncIterator[int]:
    """A TCP port on the loopback that accepts connections and never sends a byte; its port."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in held:
            writer.close()


def silent_host_first(url: str, silent_port: int) -> str:
    """``url`` naming the silent host first and its own server second (a socket directory given as the
    ``host`` parameter, as the embedded server's URL does, goes into the host list)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    credentials, at, host = parts.netloc.rpartition("@")
    if "host" in query:
        host = quote(query.pop("host")[0], safe="")
        if "port" in query:
            host += ":" + query.pop("port")[0]
    netloc = f"{credentials}{at}127.0.0.1:{silent_port},{host}"
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, doseq=True)))


def test_host_urls_give_each_host_the_rest_of_the_url() -> None:
    """One URL per host, credentials, database and parameters kept; a one-host URL as it is."""
    url = "postgresql://svc:p%40ss@db1:5432,db2:5433/games?target_session_attrs=read-write"
    assert multihost.host_urls(url) == [
        "postgresql://svc:p%40ss@db1:5432/games?target_session_attrs=read-write",
        "postgresql://svc:p%40ss@db2:5433/games?target_session_attrs=read-write",
    ]
    assert multihost.host_urls("postgresql://svc@db1:5432/games") == ["postgresql://svc@db1:5432/games"]


async def test_asyncpg_alone_spends_its_one_timeout_on_a_silent_first_host(database_url: str) -> None:
    """Why service/runtime/multihost.py exists: asyncpg 0.32 never tries the second host (if this starts to pass
    through, asyncpg gives hosts their own timeouts and the module can go)."""
    async with silent_host() as port:
        with pytest.raises(TimeoutError):
            await asyncpg.connect(silent_host_first(database_url, port), timeout=2)


async def test_a_connection_reaches_the_host_after_a_silent_one(database_url: str) -> None:
    """The same URL: the silent host gets half the timeout, the server answers within the other half."""
    async with silent_host() as port:
        connection = await multihost.connect(silent_host_first(database_url, port), timeout=CONNECT_TIMEOUT_S)
        try:
            assert await connection.fetchval("SELECT 1") == 1
        finally:
            await connection.close()


async def test_the_pool_and_the_listen_connection_reach_the_host_after_a_silent_one(
    database_url: str,
) -> None:
    """The service's pool and its LISTEN connection connect through the same rule."""
    settings = dataclasses.replace(
        Settings.from_env(), pool_min=1, pool_max=2, pool_acquire_timeout_ms=int(CONNECT_TIMEOUT_S * 1000)
    )
    async with silent_host() as port:
        url = silent_host_first(database_url, port)
        pool = await create_pool(url, settings)
        try:
            assert await pool.fetchval("SELECT 1") == 1
        finally:
            await pool.close()
        listening = await listen_connector(url, settings)()
        try:
            assert await listening.fetchval("SELECT 1") == 1
        finally:
            await listening.close()


async def test_no_host_answering_raises_the_last_hosts_failure() -> None:
    """Two silent hosts: the connection fails with the last host's timeout (a 503 for the request)."""
    async with silent_host() as first, silent_host() as second:
        with pytest.raises(TimeoutError):
            await multihost.connect(
                f"postgresql://nobody@127.0.0.1:{first},127.0.0.1:{second}/none", timeout=1
            )
