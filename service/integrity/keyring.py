"""One signing key for every host (docs/operations.md): the public key the service signs heads with is
recorded in the database on first start, and a host whose SIGNING_KEY is another refuses to serve, since
its signed heads and stream tickets (keyed by a secret derived from the key) would contradict the others'.
``rotate-key`` retires the recorded key and records the configured one."""

from __future__ import annotations

import asyncio
from datetime import datetime

import asyncpg

from service.runtime import multihost

__all__ = ["SigningKeyRefused", "check_signing_key", "record_signing_key", "rotate_signing_key"]

_RECORD = "INSERT INTO signing_keys (public_key) VALUES ($1) ON CONFLICT DO NOTHING"
_CURRENT = "SELECT public_key, recorded_at FROM signing_keys WHERE retired_at IS NULL"
_RETIRE = "UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL AND public_key <> $1"
_MAKE_CURRENT = (
    "INSERT INTO signing_keys (public_key) VALUES ($1)"
    " ON CONFLICT (public_key) DO UPDATE SET retired_at = NULL, recorded_at = now()"
)


class SigningKeyRefused(SystemExit):
    """The configured signing key is not the one recorded in the database (the process exits with why)."""


async def record_signing_key(connection: asyncpg.Connection, public_key: str) -> None:
    """Record ``public_key`` if the database has no current key; SigningKeyRefused if it has another."""
    await connection.execute(_RECORD, public_key)
    current = await connection.fetchrow(_CURRENT)  # a statement of its own: sees a key another host recorded
    if current is None or current["public_key"] != public_key:
        recorded, since = (None, None) if current is None else (current["public_key"], current["recorded_at"])
        raise SigningKeyRefused(refusal(public_key, recorded, since))


def refusal(configured: str, recorded: str | None, since: datetime | None) -> str:
    """Why a host refuses to serve with its key (public keys only: nothing secret)."""
    return (
        f"SIGNING_KEY's public key {configured[:16]}... is not the one this database records"
        f" ({'none' if recorded is None else recorded[:16] + '...'}, since {since}): every host must sign with"
        " the same key (set SIGNING_KEY to it); to change the key run `python -m service rotate-key` with the"
        " new one (docs/operations.md)"
    )


async def rotate_signing_key(connection: asyncpg.Connection, public_key: str) -> str | None:
    """Make ``public_key`` the recorded key, retiring the current one; the retired key (None if none)."""
    async with connection.transaction():
        current = await connection.fetchrow(_CURRENT + " FOR UPDATE")
        await connection.execute(_RETIRE, public_key)
        await connection.execute(_MAKE_CURRENT, public_key)
    if current is None or current["public_key"] == public_key:
        return None
    retired: str = current["public_key"]
    return retired


def check_signing_key(database_url: str, public_key: str) -> None:
    """At start-up: record the key on first start, refuse another one (SigningKeyRefused)."""

    async def check() -> None:
        connection = await multihost.connect(database_url, timeout=multihost.START_UP_CONNECT_SECONDS)
        try:
            await record_signing_key(connection, public_key)
        finally:
            await connection.close()

    asyncio.run(check())


def rotate_command(database_url: str, public_key: str) -> None:
    """``python -m service rotate-key``: record ``public_key`` as the current key and say what changed."""

    async def rotate() -> str | None:
        connection = await multihost.connect(database_url, timeout=multihost.START_UP_CONNECT_SECONDS)
        try:
            return await rotate_signing_key(connection, public_key)
        finally:
            await connection.close()

    retired = asyncio.run(rotate())
    print(f"signing key {public_key} recorded" + (f"; {retired} retired" if retired else ""))
