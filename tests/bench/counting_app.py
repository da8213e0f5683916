"""The game server for the bench's spectators phase: api.app, with its event store counting the statements
it runs (every store read and append goes through PostgresEventStore._fetch), shown at GET /bench/statements."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, get

from api.app import create_app
from eventstore import PostgresEventStore

_counted = [0]
_fetch = PostgresEventStore._fetch


async def _counting_fetch(self: PostgresEventStore, query: str, *args: Any) -> list[Any]:
    """The store's statement, counted."""
    _counted[0] += 1
    return await _fetch(self, query, *args)


@get("/bench/statements", operation_id="benchStatements")
async def statements() -> dict[str, int]:
    """The statements the store of this process ran so far."""
    return {"statements": _counted[0]}


def create_counting_app() -> Litestar:
    """api.app.create_app's app whose store counts its statements."""
    PostgresEventStore._fetch = _counting_fetch  # type: ignore[method-assign]
    app = create_app()
    app.register(statements)
    return app
