"""One signing key for every host (docs/operations.md): the public key the service signs heads with is
recorded in the database on first start, and a host whose SIGNING_KEY is another refuses to serve, since
its signed heads and stream tickets (keyed by a secret derived from the key) would contradict the others'.
``rotate-key`` retires the recorded key and records the configured one."""

from __future__ import annotations

import asyncio

from service.integrity.repository import SigningKeyRefused, record_signing_key, rotate_signing_key
from service.runtime import multihost

__all__ = ["SigningKeyRefused", "check_signing_key", "record_signing_key", "rotate_signing_key"]


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
