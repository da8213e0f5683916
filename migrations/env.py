"""Alembic environment: runs the migrations over asyncpg against DATABASE_URL (raw SQL, no ORM models)."""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit, urlunsplit

from alembic import context
from sqlalchemy import text
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
        grant_service_role(connection)


def grant_service_role(connection: Connection) -> None:
    """After upgrading, as the owner: give SERVICE_ROLE (the role the service connects as) exactly its
    rights (migrations/versions/0009_least_privilege.py), in the migrations' transaction."""
    role = os.environ.get("SERVICE_ROLE")
    if not role:
        return
    exists = connection.exec_driver_sql("SELECT to_regprocedure('grant_service_role(text)') IS NOT NULL")
    if exists.scalar():
        connection.execute(text("SELECT grant_service_role(:role)"), {"role": role})


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
