"""Operations endpoints: liveness, readiness (database reachable and schema at head), and the public key
that signs game heads."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Response, get
from litestar.datastructures import State

from service.integrity.signing import Signer, SigningKeyInfo
from service.runtime.database import current_revision


class Health(msgspec.Struct, frozen=True, kw_only=True):
    """Liveness or readiness, with the reason when not ready."""

    status: str
    detail: str = ""


class SystemController(Controller):
    """Liveness and readiness probes."""

    tags = ["operations"]

    @get("/health", operation_id="health", summary="The process is alive")
    async def health(self) -> Health:
        """Always ok while the process serves requests."""
        return Health(status="ok")

    @get("/ready", operation_id="ready", summary="The database is reachable and its schema at head")
    async def ready(self, state: State) -> Response[Health]:
        """503 with Retry-After when the database is down or not migrated to the newest revision."""
        pool: Any = state.get("pool")
        if pool is None:
            return Response(Health(status="ok", detail="in-memory store"))
        try:
            revision = await current_revision(pool, state.get("acquire_timeout"))
        except Exception:  # any failure to reach the database means not ready
            return Response(
                Health(status="unavailable", detail="database unreachable"),
                status_code=503,
                headers={"Retry-After": "2"},
            )
        if revision != state.head_revision:
            return Response(
                Health(status="unavailable", detail=f"schema at {revision}, expected {state.head_revision}"),
                status_code=503,
                headers={"Retry-After": "5"},
            )
        return Response(Health(status="ok"))

    @get(
        "/v1/signing-key",
        operation_id="getSigningKey",
        summary="The public key that signs every head shown (receipts)",
        tags=["audit"],
    )
    async def signing_key(self, state: State) -> SigningKeyInfo:
        """The service's Ed25519 public key (docs/audit.md "Receipts"): keep it with the signed heads."""
        signer: Signer = state.signer
        return signer.info

    @get("/.well-known/bazaar-signing-key", include_in_schema=False)
    async def well_known_signing_key(self, state: State) -> SigningKeyInfo:
        """The same key at a well-known address."""
        signer: Signer = state.signer
        return signer.info
