"""Alembic environment: runs the migrations over asyncpg against DATABASE_URL (raw SQL, no ORM models).

The connection is asyncpg's own, made from DATABASE_URL exactly as the service's pool makes it, so every URL
the service accepts migrates too (several hosts, each with its own share of the connect timeout as in the
service's pool, ``target_session_attrs``, a socket directory in ``host=``):
SQLAlchemy only wraps it and never parses the URL. Migrations of one database queue on one advisory lock, so
hosts that start together migrate one after the other, and the later ones find the schema at head
(docs/operations.md)."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from service.runtime import multihost

config = context.config


# Held for the migrations' transaction: a second migrator waits here, then reads the version the first one
# committed (READ COMMITTED: each statement sees the newest commits), instead of creating the same tables.
MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('bazaar-games/migrations', 0))"


def run_with(connection: Connection) -> None:
    """Run the migrations in one transaction on ``connection``, one migrator of the database at a time."""
    context.configure(connection=connection, target_metadata=None, transaction_per_migration=False)
    with context.begin_transaction():
        connection.exec_driver_sql(MIGRATION_LOCK)
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
    engine = create_async_engine(
        "postgresql+asyncpg://",
        async_creator=lambda: multihost.connect(url, timeout=multihost.START_UP_CONNECT_SECONDS),
        poolclass=NullPool,
    )
    async with engine.connect() as connection:
        await connection.run_sync(run_with)
        await connection.commit()
    await engine.dispose()


asyncio.run(run_online())
