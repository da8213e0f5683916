"""What every repository shares: the jsonb codec on a pool's connections, optional WHERE conditions built
from fixed text with values as parameters, and rows mapped to msgspec records.

Repositories (each feature's ``repository.py``) and the event store are the only modules that run SQL; the
services above them work with records (docs/decisions/0008-sql-in-repositories.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeAlias, TypeVar

import asyncpg
import msgspec

from eventstore import pooled_connection

T = TypeVar("T")

Pool: TypeAlias = asyncpg.Pool  # what the composition root hands the repositories
Connection: TypeAlias = asyncpg.Connection  # a transaction's connection, as repositories hand it on
DatabaseError = asyncpg.PostgresError  # any error the server reported (loops that retry catch it)


def encode_json(value: Any) -> str:
    """A Python value (msgspec records included) as JSON text for a jsonb parameter."""
    return msgspec.json.encode(value).decode()


async def register_codecs(connection: asyncpg.Connection) -> None:
    """jsonb parameters take Python values and jsonb columns read back as them (the pool's ``init``), so no
    repository encodes or decodes JSON by hand."""
    await connection.set_type_codec(
        "jsonb", schema="pg_catalog", format="text", encoder=encode_json, decoder=msgspec.json.decode
    )


def record(type_: type[T], row: Mapping[str, Any]) -> T:
    """One row as a msgspec record, by column name (a column the record lacks is ignored)."""
    return msgspec.convert(dict(row.items()), type_)


def records(type_: type[T], rows: Iterable[Mapping[str, Any]]) -> list[T]:
    """Rows as msgspec records, by column name."""
    return [record(type_, row) for row in rows]


class Where:
    """A WHERE clause of conditions joined by AND, some of them optional; each value becomes a numbered
    parameter, so the SQL text is always fixed text (``where.add("g.game = {}", game)``)."""

    def __init__(self, *conditions: str, args: Iterable[Any] = ()) -> None:
        self.conditions = list(conditions)
        self.args = list(args)

    def parameter(self, value: Any) -> str:
        """``value`` as the next numbered parameter (``$n``)."""
        self.args.append(value)
        return f"${len(self.args)}"

    def add(self, condition: str, *values: Any) -> Where:
        """A condition whose ``{}`` placeholders take ``values`` as parameters, in order."""
        self.conditions.append(condition.format(*(self.parameter(value) for value in values)))
        return self

    def add_if(self, value: Any, condition: str) -> Where:
        """The condition on ``value`` (its one ``{}``) when a value was given (not None)."""
        return self if value is None else self.add(condition, value)

    @property
    def sql(self) -> str:
        """``WHERE …`` (empty when there is no condition)."""
        return "WHERE " + " AND ".join(self.conditions) if self.conditions else ""


class PostgresRepository:
    """What every PostgreSQL repository holds: the pool, and how long a request waits for one of its
    connections (past it, StoreUnavailable: a 503, as for every request)."""

    def __init__(self, pool: Pool, acquire_timeout: float | None = None) -> None:
        self.pool = pool
        self.acquire_timeout = acquire_timeout

    def connection(self) -> AbstractAsyncContextManager[Connection]:
        """A pooled connection within the acquire timeout; an unreachable database is StoreUnavailable."""
        return pooled_connection(self.pool, self.acquire_timeout)
