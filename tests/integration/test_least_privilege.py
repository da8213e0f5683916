"""Least privilege: the service's role owns nothing, is no superuser, and every write that could
rewrite a game is refused to it; what it may not change is write-once even for the tables' owner."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from eventstore import GameKeys, NewEvent, PostgresEventStore, PostgresKeyStore
from service.runtime.database import OWNER_ROLE, SERVICE_ROLE
from tests.support.databases import owner_url

pytestmark = pytest.mark.db

APPEND_ONLY = ("events", "commands", "game_keys", "tournament_keys")
NOT_ALLOWED, APPEND_ONLY_TRIGGER = "42501", "ES405"  # SQLSTATEs: insufficient privilege; a trigger refused


@pytest.fixture(scope="module")
async def owner(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the tables' owner (the role migrations run as)."""
    connection = await asyncpg.connect(owner_url(database_url))
    yield connection
    await connection.close()


async def a_game(pool: asyncpg.Pool) -> str:
    """A stream with two events, a command record, and game keys, written as the service writes them."""
    stream = f"lp-{uuid.uuid4()}"
    store = PostgresEventStore(pool)
    body = msgspec.json.encode({"n": 1})
    await store.create_stream(
        stream,
        "basari",
        [NewEvent(type="x", schema_version=1, data=body)],
        {"seed_commitment": "c"},
        "active",
    )
    await store.append(stream, 1, [NewEvent(type="x", schema_version=1, data=body)], cause=b'{"seat":0}')
    await PostgresKeyStore(pool).save(GameKeys(game_id=stream, seed="s" * 64, token_hashes=("h0", "h1")))
    return stream


async def test_the_service_role_is_no_superuser_and_owns_nothing(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as connection:
        role = await connection.fetchrow(
            "SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles"
            " WHERE rolname = current_user"
        )
        assert tuple(role) == (SERVICE_ROLE, False, False, False, False)
        owned = await connection.fetchval(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)"
        )
        assert owned == 0
        others = await connection.fetch(
            "SELECT DISTINCT pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
        )
        assert [r[0] for r in others] == [OWNER_ROLE]


async def test_no_append_only_table_can_be_updated_deleted_or_truncated_by_the_service(
    pool: asyncpg.Pool,
) -> None:
    async with pool.acquire() as connection:
        rows = await connection.fetch(
            "SELECT t.relname, p.privilege FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace,"
            " unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES']) AS p (privilege)"
            " WHERE n.nspname = 'public' AND t.relkind = 'r' AND t.relname = ANY ($1::text[])"
            " AND has_table_privilege(current_user, t.oid, p.privilege)",
            list(APPEND_ONLY),
        )
        assert rows == []
        assert not await connection.fetchval("SELECT has_table_privilege(current_user, 'streams', 'DELETE')")
        assert not await connection.fetchval(
            "SELECT has_table_privilege(current_user, 'streams', 'TRUNCATE')"
        )
        for column in ("chain_key", "metadata", "category", "stream_id", "created_at"):
            assert not await connection.fetchval(
                "SELECT has_column_privilege(current_user, 'streams', $1, 'UPDATE')", column
            ), column


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET data = '{\"n\": 2}' WHERE stream_id = $1",
        "UPDATE events SET cause = NULL WHERE stream_id = $1",
        "DELETE FROM events WHERE stream_id = $1 AND version = 2",
        "TRUNCATE events",
        "UPDATE commands SET response = 'x' WHERE stream_id = $1",
        "DELETE FROM commands WHERE stream_id = $1",
        "TRUNCATE commands",
        "UPDATE game_keys SET seed = 'guessable' WHERE game_id = $1",
        "UPDATE game_keys SET token_hashes = ARRAY['mine', 'mine'] WHERE game_id = $1",
        "DELETE FROM game_keys WHERE game_id = $1",
        "TRUNCATE game_keys",
        "UPDATE tournament_keys SET organizer_hash = 'mine' WHERE tournament_id = $1",
        "DELETE FROM streams WHERE stream_id = $1",
        "TRUNCATE streams",
        "UPDATE streams SET chain_key = 'x' WHERE stream_id = $1",
        'UPDATE streams SET metadata = \'{"seed_commitment": "forged"}\' WHERE stream_id = $1',
        "UPDATE streams SET version = 1 WHERE stream_id = $1 AND $1 IS NOT NULL",
        "ALTER TABLE events DISABLE TRIGGER events_no_update_delete",
        "ALTER TABLE events DISABLE TRIGGER ALL",
        "ALTER TABLE streams DISABLE TRIGGER streams_write_once",
        "DROP TRIGGER events_no_update_delete ON events",
        "SET session_replication_role = replica",
        "CREATE TABLE sneaky (x int)",
        "CREATE FUNCTION es_refuse_change2() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    ],
)
async def test_each_forbidden_write_by_the_service_role_is_refused(
    pool: asyncpg.Pool, statement: str
) -> None:
    stream = await a_game(pool)
    async with pool.acquire() as connection:
        args = [stream] if "$1" in statement else []
        with pytest.raises(asyncpg.PostgresError) as refusal:
            async with connection.transaction():
                await connection.execute(statement, *args)
        assert refusal.value.sqlstate in (NOT_ALLOWED, APPEND_ONLY_TRIGGER), refusal.value
        rows = await connection.fetch(
            "SELECT version, data::text, cause FROM events WHERE stream_id = $1 ORDER BY version", stream
        )
        assert [r[0] for r in rows] == [1, 2] and rows[1][2] == b'{"seat":0}'
        keys = await connection.fetchrow(
            "SELECT seed, token_hashes FROM game_keys WHERE game_id = $1", stream
        )
        assert (keys[0], keys[1]) == ("s" * 64, ["h0", "h1"])


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE game_keys SET seed = 'guessable' WHERE game_id = $1",
        "UPDATE game_keys SET token_hashes = ARRAY['mine', 'h1'] WHERE game_id = $1",
        "DELETE FROM game_keys WHERE game_id = $1",
        "UPDATE streams SET chain_key = 'x' WHERE stream_id = $1",
        'UPDATE streams SET metadata = \'{"seed_commitment": "forged"}\' WHERE stream_id = $1',
        "UPDATE streams SET version = 1 WHERE stream_id = $1",
        "UPDATE events SET data = '{\"n\": 2}' WHERE stream_id = $1",
    ],
)
async def test_write_once_rows_are_refused_even_to_the_owner(
    pool: asyncpg.Pool, owner: asyncpg.Connection, statement: str
) -> None:
    stream = await a_game(pool)
    with pytest.raises(asyncpg.PostgresError, match="refused") as refusal:
        await owner.execute(statement, stream)
    assert refusal.value.sqlstate == APPEND_ONLY_TRIGGER


async def test_a_seat_token_hash_may_be_filled_in_once(pool: asyncpg.Pool, owner: asyncpg.Connection) -> None:
    """A seat that joins later gets its hash once (the keys row keeps the others untouched)."""
    stream = await a_game(pool)
    await owner.execute(
        "UPDATE game_keys SET token_hashes = ARRAY['h0', 'h1', 'h2'] WHERE game_id = $1", stream
    )
    with pytest.raises(asyncpg.PostgresError, match="write-once"):
        await owner.execute(
            "UPDATE game_keys SET token_hashes = ARRAY['h0', 'h1'] WHERE game_id = $1", stream
        )
