"""Helpers of the account, lobby and account-tournament tests: the app without a sign-up limit, new
accounts, bearer headers and refusals."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings


@asynccontextmanager
async def unlimited_client(
    database_url: str, signups_per_hour: int = 0, signing_key: str | None = None
) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to ``database_url`` with this sign-up limit (0: off, as tests sign up many accounts)
    and this signing key (PEM; None: the configured one)."""
    settings = dataclasses.replace(
        Settings.from_env(), database_url=database_url, account_signups_per_hour=signups_per_hour
    )
    if signing_key is not None:
        settings = dataclasses.replace(settings, signing_key=signing_key)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a token."""
    return {"Authorization": f"Bearer {token}"}


async def account(client: Any, prefix: str = "p") -> tuple[str, str]:
    """A new account with a unique name: (name, token)."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    response = await client.post("/v1/accounts", json={"name": name})
    assert response.status_code == 201, response.text
    return name, response.json()["token"]


def refused(response: Any, status: int, code: str) -> None:
    """A problem+json refusal with this status and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == code, response.json()
