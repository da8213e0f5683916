"""The game server of the spectators bench and of the tests that count a server's statements: api.app,
counting every statement its process sends the database (on any asyncpg connection: the store's, the
projections', the key store's, the LISTEN one), by statement, shown at GET /bench/statements."""

from __future__ import annotations

import collections
from typing import Any

import asyncpg
from litestar import Litestar, get

from api.app import create_app

_counted: collections.Counter[str] = collections.Counter()
_connection_init = asyncpg.Connection.__init__


def _count(record: Any) -> None:
    """One statement sent (an asyncpg LoggedQuery), keyed by its text on one line."""
    _counted[" ".join(record.query.split())] += 1


def _counting_init(self: asyncpg.Connection, *args: Any, **kwargs: Any) -> None:
    """A connection that counts the statements it runs (asyncpg's query logger: every execute, fetch and
    transaction statement)."""
    _connection_init(self, *args, **kwargs)
    self.add_query_logger(_count)


@get("/bench/statements", operation_id="benchStatements")
async def statements() -> dict[str, int]:
    """The statements the process sent so far, by statement."""
    return dict(_counted)


def create_counting_app() -> Litestar:
    """api.app.create_app's app whose connections count their statements."""
    asyncpg.Connection.__init__ = _counting_init
    app = create_app()
    app.register(statements)
    return app
