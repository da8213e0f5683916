"""Migrations as several app hosts run them (docs/operations.md): started together on one empty database they
queue on one advisory lock and all succeed, and any URL the service connects with migrates too, a multi-host
one whose first host is down included, with which ``serve`` then gets ready; run as a one-off job, a host of
the previous release is unready (``/ready`` 503) once the schema is newer than its own."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.database import (
    BOOTSTRAP_SQL,
    OWNER_ROLE,
    SERVICE_ROLE,
    head_revision,
    migrate,
    with_user,
)
from service.runtime.settings import Settings
from tests.e2e.conftest import free_port
from tests.support.databases import TEST_PASSWORD
from tests.support.serving import service_command, serving

pytestmark = pytest.mark.db

DEAD_HOST = "127.0.0.1:1"  # nothing listens on port 1: connecting is refused at once


def on_database(url: str, database: str) -> str:
    """``url`` pointing at another database on the same server."""
    return urlunsplit(urlsplit(url)._replace(path="/" + database))


@asynccontextmanager
async def empty_database(server_url: str) -> AsyncIterator[tuple[str, str]]:
    """A new database with the owner and service roles and nothing migrated: (owner URL, service URL)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = on_database(server_url, name)
    secret = TEST_PASSWORD if urlsplit(server_url).password else None
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(BOOTSTRAP_SQL)
        if secret:
            for role in (OWNER_ROLE, SERVICE_ROLE):
                await admin.execute(f"ALTER ROLE {role} PASSWORD '{TEST_PASSWORD}'")
    finally:
        await admin.close()
    try:
        yield with_user(url, OWNER_ROLE, secret), with_user(url, SERVICE_ROLE, secret)
    finally:
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


def dead_host_first(url: str) -> str:
    """``url`` naming a host that refuses connections before its own: in the host list of the query for a
    socket directory (``?host=/dir``), else in the URL's host part (``user@dead:1,host:port``)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if "host" in query:
        query["host"] = [f"{DEAD_HOST},{query['host'][0]}"]
        return urlunsplit(parts._replace(query=urlencode(query, doseq=True, safe="/,:")))
    credentials, _, hosts = parts.netloc.rpartition("@")
    netloc = f"{credentials}@{DEAD_HOST},{hosts}" if credentials else f"{DEAD_HOST},{hosts}"
    return urlunsplit(parts._replace(netloc=netloc))


async def revision(url: str) -> str:
    """The revision the database is at."""
    connection = await asyncpg.connect(url)
    try:
        value: str = await connection.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await connection.close()
    return value


async def test_hosts_migrating_one_empty_database_together_all_succeed(server_url: str) -> None:
    async with empty_database(server_url) as (owner, service):
        hosts = [asyncio.to_thread(migrate, owner, service) for _ in range(4)]
        outcomes = await asyncio.gather(*hosts, return_exceptions=True)
        assert [outcome for outcome in outcomes if outcome is not None] == []
        assert await revision(service) == head_revision()


async def test_a_multi_host_url_whose_first_host_is_down_migrates(server_url: str) -> None:
    async with empty_database(server_url) as (owner, service):
        several = dead_host_first(owner)
        several += ("&" if "?" in several else "?") + "target_session_attrs=read-write"
        await asyncio.to_thread(migrate, several, dead_host_first(service))
        assert await revision(service) == head_revision()
        connection = await asyncpg.connect(service)  # the service role was granted its rights
        try:
            assert await connection.fetchval("SELECT count(*) FROM events") == 0
        finally:
            await connection.close()


def serve_until_ready(env: dict[str, str], port: int) -> None:
    """Run ``python -m service serve`` with ``env`` until ``/ready`` answers 200, then stop it."""
    with serving(env, port, patience=120):
        pass


async def test_serve_with_a_multi_host_url_whose_first_host_is_down_gets_ready(
    server_url: str, tmp_path: Path
) -> None:
    """``python -m service serve`` migrates, records its key and serves with such URLs (the owner's and the
    service's), and reports ready: every part of it connects as asyncpg does."""
    async with empty_database(server_url) as (owner, service):
        port = free_port()
        env = {
            **os.environ,
            "MIGRATION_DATABASE_URL": dead_host_first(owner),
            "DATABASE_URL": dead_host_first(service),
            "DATA_DIR": str(tmp_path),
            "PORT": str(port),
            "LOG_FORMAT": "json",
        }
        env.pop("SIGNING_KEY", None)
        await asyncio.to_thread(serve_until_ready, env, port)


async def test_the_migration_job_as_documented_and_a_host_behind_the_schema_unready(server_url: str) -> None:
    """docs/operations.md "Migrations: a one-off job": ``python -m service migrate`` with the owner's and the
    service's URLs migrates and grants; a host whose newest migration is older than the database's revision
    answers 503 with ``Retry-After`` on ``/ready`` (while ``/health`` stays 200) until it is replaced."""
    async with empty_database(server_url) as (owner, service):
        env = {**os.environ, "MIGRATION_DATABASE_URL": owner, "DATABASE_URL": service}
        job = await asyncio.to_thread(service_command, env, "migrate")
        assert job.returncode == 0, job.stderr
        assert await revision(service) == head_revision()
        settings = dataclasses.replace(Settings.from_env(), database_url=service)
        async with AsyncTestClient(app=create_app(settings)) as client:
            assert (await client.get("/ready")).status_code == 200
            connection = await asyncpg.connect(owner)
            try:
                await connection.execute("UPDATE alembic_version SET version_num = 'a_newer_release'")
                ready = await client.get("/ready")
                assert ready.status_code == 503 and int(ready.headers["retry-after"]) >= 1, ready.text
                assert "a_newer_release" in ready.json()["detail"]
                assert (await client.get("/health")).status_code == 200
                await connection.execute("UPDATE alembic_version SET version_num = $1", head_revision())
            finally:
                await connection.close()
            assert (await client.get("/ready")).status_code == 200
