"""The append-only event store: its contract, the PostgreSQL implementation and the in-memory twin; beside it
the key stores holding the secrets kept outside the streams.

The contract (``protocol``: the hash chain, upcasting) and the change hub import at once; the stores load on
first use, so the offline verifier, which needs only the chain, never imports asyncpg (docs/audit.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from eventstore.changes import ChangeHub, ChangeWatch
from eventstore.protocol import (
    GENESIS_HASH,
    AppendResult,
    ChainCheck,
    ChainLink,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    FeedHeader,
    FeedPosition,
    IdempotencyMismatch,
    NewEvent,
    RecordedEvent,
    StoreError,
    StoreUnavailable,
    StreamExists,
    StreamInfo,
    StreamNotFound,
    Upcaster,
    Upcasters,
    chained,
    check_chain,
    event_hash,
    header_of,
    upcast,
)

if TYPE_CHECKING:
    from eventstore.keys import (
        GameKeys,
        InMemoryKeyStore,
        KeyStore,
        PostgresKeyStore,
        PostgresTournamentKeyStore,
        TournamentKeys,
        TournamentKeyStore,
    )
    from eventstore.memory import InMemoryEventStore
    from eventstore.postgres import PostgresEventStore, is_unavailable, pooled_connection

_LAZY = {
    **dict.fromkeys(
        [
            "GameKeys",
            "InMemoryKeyStore",
            "KeyStore",
            "PostgresKeyStore",
            "PostgresTournamentKeyStore",
            "TournamentKeys",
            "TournamentKeyStore",
        ],
        "eventstore.keys",
    ),
    "InMemoryEventStore": "eventstore.memory",
    **dict.fromkeys(["PostgresEventStore", "is_unavailable", "pooled_connection"], "eventstore.postgres"),
}


def __getattr__(name: str) -> Any:
    """A store's name, imported from its module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "GENESIS_HASH",
    "AppendResult",
    "ChainCheck",
    "ChainLink",
    "ChangeHub",
    "ChangeWatch",
    "CommandRecord",
    "ConcurrencyConflict",
    "EventStore",
    "FeedHeader",
    "FeedPosition",
    "GameKeys",
    "IdempotencyMismatch",
    "InMemoryEventStore",
    "InMemoryKeyStore",
    "KeyStore",
    "NewEvent",
    "PostgresEventStore",
    "PostgresKeyStore",
    "PostgresTournamentKeyStore",
    "RecordedEvent",
    "StoreError",
    "StoreUnavailable",
    "StreamExists",
    "StreamInfo",
    "StreamNotFound",
    "TournamentKeyStore",
    "TournamentKeys",
    "Upcaster",
    "Upcasters",
    "chained",
    "check_chain",
    "event_hash",
    "header_of",
    "is_unavailable",
    "pooled_connection",
    "upcast",
]
