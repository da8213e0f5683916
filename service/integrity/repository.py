"""The signing keys' table (docs/operations.md, "What every host must share"): the current key, recorded
once, and rotation that retires it."""

from __future__ import annotations

from datetime import datetime

import asyncpg

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
