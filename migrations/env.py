"""Alembic environment: runs the migrations over asyncpg against DATABASE_URL (raw SQL, no ORM models)."""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit, urlunsplit

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

config = context.config


def sqlalchemy_url(url: str) -> str:
    """The asyncpg dialect URL for a plain postgresql:// URL."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="postgresql+asyncpg"))


def run_with(connection: Connection) -> None:
    """Run the migrations in one transaction on ``connection``."""
    context.configure(connection=connection, target_metadata=None, transaction_per_migration=False)
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    """Connect and migrate."""
    url = os.environ.get("DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("DATABASE_URL is not set")
    engine = create_async_engine(sqlalchemy_url(url))
    async with engine.connect() as connection:
        await connection.run_sync(run_with)
        await connection.commit()
    await engine.dispose()


asyncio.run(run_online())
