"""Test databases: a fresh, migrated database on a PostgreSQL server, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from service.runtime.database import BOOTSTRAP_SQL, OWNER_ROLE, SERVICE_ROLE, migrate, with_user
from service.runtime.sql import register_codecs


def _with_database(url: str, database: str) -> str:
    """``url`` pointing at another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + database))


TEST_PASSWORD = "bazaar-test-only"


def superuser_url(url: str, server_url: str) -> str:
    """``url``'s database as the server's superuser (what an operator could do: tampering tests)."""
    return _with_database(server_url, urlsplit(url).path.lstrip("/"))


@asynccontextmanager
async def superuser_pool_on(url: str, server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A small pool on ``url``'s database as the server's superuser."""
    created = await asyncpg.create_pool(
        superuser_url(url, server_url), min_size=1, max_size=4, init=register_codecs
    )
    assert created is not None
    try:
        yield created
    finally:
        await created.close()


def owner_url(url: str) -> str:
    """``url``'s database as the owner of its tables (the role migrations run as)."""
    parts = urlsplit(url)
    return with_user(url, OWNER_ROLE, parts.password)


@asynccontextmanager
async def fresh_database(server_url: str) -> AsyncIterator[str]:
    """A new database on that server with the owner and service roles, migrated to head as the owner,
    dropped on exit; the URL given connects as the service role, as the service does."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = _with_database(server_url, name)
    password = urlsplit(server_url).password  # a server that wants passwords: the roles get one for the tests
    admin = await asyncpg.connect(url)
    try:
        try:
            await admin.execute(BOOTSTRAP_SQL)
        except (asyncpg.UniqueViolationError, asyncpg.DuplicateObjectError):
            # another test process (make test runs several) created the server-wide roles at the same moment
            await admin.execute(BOOTSTRAP_SQL)
        if password:
            for role in (OWNER_ROLE, SERVICE_ROLE):
                await admin.execute(f"ALTER ROLE {role} PASSWORD '{TEST_PASSWORD}'")
    finally:
        await admin.close()
    secret = TEST_PASSWORD if password else None
    service = with_user(url, SERVICE_ROLE, secret)
    migrate(with_user(url, OWNER_ROLE, secret), service)
    try:
        yield service
    finally:
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@asynccontextmanager
async def own_pool(server_url: str, max_size: int = 10) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a fresh database of its own (as the service role), for tests that count what happens in a
    database: the session's running servers act on every game of the shared one."""
    async with fresh_database(server_url) as url:
        created = await asyncpg.create_pool(url, min_size=1, max_size=max_size, init=register_codecs)
        assert created is not None
        try:
            yield created
        finally:
            await created.close()
