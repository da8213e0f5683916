"""Every host signs with one key (docs/operations.md): the first start records its public key in the
database, a host started with another key refuses to serve with a clear error (naming public keys only),
and ``python -m service rotate-key`` makes the configured key the recorded one, keeping the old one listed
as retired."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import asyncpg
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.integrity.keyring import SigningKeyRefused, check_signing_key
from service.integrity.signing import Signer
from tests.support.databases import fresh_database
from tests.support.serving import service_command

pytestmark = pytest.mark.db


def new_key() -> tuple[str, str]:
    """A new Ed25519 private key as PEM text, and its public key (hex)."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem.decode(), Signer(key).public_key


def command(
    database_url: str, signing_key: str, data_dir: Path, *arguments: str
) -> subprocess.CompletedProcess[str]:
    """``python -m service ARGUMENTS`` against ``database_url`` with this SIGNING_KEY, as a host runs it."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SIGNING_KEY": signing_key,
        "DATA_DIR": str(data_dir),
        "HOST": "127.0.0.1",
        "PORT": "1",  # never reached: a refused host stops before it listens
    }
    env.pop("MIGRATION_DATABASE_URL", None)
    return service_command(env, *arguments)


async def current_keys(database_url: str) -> list[tuple[str, bool]]:
    """The recorded keys, oldest first, each with whether it is retired."""
    connection = await asyncpg.connect(database_url)
    try:
        rows = await connection.fetch(
            "SELECT public_key, retired_at IS NOT NULL FROM signing_keys ORDER BY recorded_at"
        )
    finally:
        await connection.close()
    return [(row[0], row[1]) for row in rows]


async def test_the_first_key_is_recorded_and_another_is_refused(server_url: str) -> None:
    (_, first), (_, other) = new_key(), new_key()
    async with fresh_database(server_url) as url:
        await asyncio.to_thread(check_signing_key, url, first)
        await asyncio.to_thread(
            check_signing_key, url, first
        )  # the same host again, or another with the same key
        with pytest.raises(SigningKeyRefused) as refused:
            await asyncio.to_thread(check_signing_key, url, other)
        assert other[:16] in str(refused.value) and first[:16] in str(refused.value)
        assert await current_keys(url) == [(first, False)]


async def test_serve_refuses_another_key_until_it_is_rotated_in(server_url: str, tmp_path: Path) -> None:
    (_, first), (pem, other) = new_key(), new_key()
    async with fresh_database(server_url) as url:
        await asyncio.to_thread(
            check_signing_key, url, first
        )  # the hosts already serving sign with ``first``
        served = command(url, pem, tmp_path, "serve")
        assert served.returncode != 0
        assert "is not the one this database records" in served.stderr, served.stderr
        assert "PRIVATE KEY" not in served.stderr + served.stdout  # only public keys are named
        rotated = command(url, pem, tmp_path, "rotate-key")
        assert rotated.returncode == 0, rotated.stderr
        assert await current_keys(url) == [(first, True), (other, False)]
        await asyncio.to_thread(check_signing_key, url, other)
        with pytest.raises(SigningKeyRefused):
            await asyncio.to_thread(check_signing_key, url, first)
