"""The HTTP ceiling: a bare Litestar app whose one endpoint does the raw single-row INSERT, on the same pool."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
from litestar import Litestar, get, post
from litestar.datastructures import State
from litestar.params import JSONBody

from service.runtime.database import create_pool
from service.runtime.settings import Settings

RAW_TABLE = "bench_raw_events"
INSERT = (
    f"INSERT INTO {RAW_TABLE} (stream_id, version, type, schema_version, data, hash)"
    " VALUES ($1, nextval('bench_raw_seq')::integer, 'raw', 1, $2::json, $3)"
)


@post("/insert", operation_id="benchInsert", status_code=200)
async def insert(state: State, data: JSONBody[dict[str, Any]]) -> dict[str, Any]:
    """Insert the body as one row (autocommit: the INSERT and its commit) and answer like a command does."""
    await state.pool.execute(INSERT, f"http-{os.getpid()}", msgspec.json.encode(data).decode(), bytes(32))
    return {"version": 1, "events": []}


@get("/ready", operation_id="benchReady")
async def ready() -> dict[str, str]:
    """What start_server polls before it hands the server over."""
    return {"status": "ready"}


def create_bare_app() -> Litestar:
    """The bare app: the pool of service.runtime.database.create_pool with the server's own settings."""
    settings = Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        assert settings.database_url is not None
        app.state.pool = await create_pool(settings.database_url, settings)
        try:
            yield
        finally:
            await app.state.pool.close()

    return Litestar(route_handlers=[insert, ready], lifespan=[lifespan], debug=False)
