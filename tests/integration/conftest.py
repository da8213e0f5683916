"""Fixtures of the integration tests that also run on the in-memory twins (the twin's variant runs in the
fast suite; docs/decisions/0008-sql-in-repositories.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from eventstore import InMemoryEventStore, InMemoryKeyStore, PostgresEventStore, PostgresKeyStore
from service.games.service import GameService
from tests.support.twins import Processes, processes_on


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.db)])
def services(request: pytest.FixtureRequest) -> Processes:
    """Game services on one store, the in-memory twin or PostgreSQL; each call one more process."""
    if request.param == "memory":
        store, keys = InMemoryEventStore(), InMemoryKeyStore()
        return processes_on(lambda: store, lambda: keys)
    pool = request.getfixturevalue("pool")
    return processes_on(lambda: PostgresEventStore(pool), lambda: PostgresKeyStore(pool))


@pytest.fixture
async def service(services: Processes) -> AsyncIterator[GameService]:
    """One process's game service on that store, its store listening."""
    process = services()
    await process.store.start()
    yield process
    await process.store.stop()
