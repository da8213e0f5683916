"""The event store: streams, events and commands tables, append-only triggers, and es_append/es_create.

Every unique constraint and hot query is keyed by stream id, so the tables can later be distributed by it
(docs/decisions/0007-keyed-by-game.md); only the global feed's index (tx_id, position) spans streams, by
nature.

Errors raised by the functions carry custom SQLSTATEs that eventstore/postgres.py maps to the protocol:
ES404 stream not found, ES409 version conflict (DETAIL = the actual version), ES412 stream exists,
ES422 command id reused with another request, ES405 a change the append-only tables refuse (updating or
deleting events or commands, deleting streams, truncating any of them).

Revision ID: 0001_event_store
Revises:
"""

from alembic import op

revision = "0001_event_store"
down_revision = None
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE TABLE streams (
    stream_id   text COLLATE "C" PRIMARY KEY,
    category    text NOT NULL,
    version     integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    status      text NOT NULL DEFAULT 'active',
    metadata    jsonb NOT NULL DEFAULT '{}',
    head_hash   bytea NOT NULL DEFAULT '\x0000000000000000000000000000000000000000000000000000000000000000',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 70)  -- room for HOT updates: every append rewrites its stream's row
""",
    r"""
COMMENT ON TABLE streams IS 'One row per stream: its version and head hash, kept in the append transaction.'
""",
    r"""
-- list_streams: newest first, optionally by category and/or status; a btree scans backwards for DESC.
CREATE INDEX streams_created_idx ON streams (created_at, stream_id)
""",
    r"""
CREATE INDEX streams_category_created_idx ON streams (category, created_at, stream_id)
""",
    r"""
CREATE INDEX streams_category_status_created_idx ON streams (category, status, created_at, stream_id)
""",
    r"""
CREATE INDEX streams_status_created_idx ON streams (status, created_at, stream_id)
""",
    r"""
CREATE INDEX streams_metadata_idx ON streams USING gin (metadata jsonb_path_ops)
""",
    r"""
-- No foreign keys to streams: es_append writes events and commands only after updating their stream's
-- row, and stream rows are never deleted (trigger below); the check cost a third of an append's time.
CREATE TABLE events (
    stream_id       text COLLATE "C" NOT NULL,
    version         integer NOT NULL CHECK (version > 0),
    -- The feed's order is (tx_id, position); readers only see transactions older than every running
    -- one, so a transaction that commits late can never land behind a checkpoint already read.
    position        bigint GENERATED ALWAYS AS IDENTITY,
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    type            text NOT NULL,
    schema_version  integer NOT NULL,
    data            json NOT NULL,  -- json keeps the exact text that was hashed (jsonb would not)
    hash            bytea NOT NULL,
    command_id      text,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
)
""",
    r"""
COMMENT ON TABLE events IS 'Append-only: each row chains hash = sha256(previous hash || header || data).'
""",
    r"""
CREATE INDEX events_feed_idx ON events (tx_id, position)
""",
    r"""
CREATE TABLE commands (
    stream_id     text COLLATE "C" NOT NULL,
    command_id    text NOT NULL,
    request_hash  text NOT NULL,
    response      bytea NOT NULL,
    version       integer NOT NULL,  -- the stream's version after the command
    recorded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, command_id)
)
""",
    r"""
COMMENT ON TABLE commands IS 'Append-only: a command id with its first answer, written with its events.'
""",
    r"""
CREATE FUNCTION es_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'ES405',
        MESSAGE = format('%s on %s refused: the event store is append-only', TG_OP, TG_TABLE_NAME);
END
$$
""",
    r"""
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER commands_no_update_delete BEFORE UPDATE OR DELETE ON commands
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER commands_no_truncate BEFORE TRUNCATE ON commands
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    r"""
-- Stream rows change with every append but are never deleted: their events would be orphaned.
CREATE TRIGGER streams_no_delete BEFORE DELETE ON streams
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER streams_no_truncate BEFORE TRUNCATE ON streams
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    r"""
-- One round trip per append, in the caller's (implicit) transaction (eventstore/postgres.py sends the
-- common single-event case as one plain statement instead, and comes here when that wrote nothing):
-- 1. With a command id, claim it first. If it is taken (a retry, or a twin that committed while this one
--    waited on its key), nothing has been written: answer with the stored record, before any version
--    check, so a retry after success is answered and not refused. A failed append undoes the claim.
-- 2. The stream row's UPDATE ... WHERE version = expected is the version check and takes the row lock,
--    so writers of one stream queue there and versions stay gap-free.
-- 3. Each event's hash chains the previous one, from the head kept in the stream row.
CREATE FUNCTION es_append(
    p_stream text,
    p_expected integer,
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[],
    p_command_id text DEFAULT NULL,
    p_request_hash text DEFAULT NULL,
    p_response bytea DEFAULT NULL,
    p_status text DEFAULT NULL
) RETURNS TABLE (
    r_version integer,
    r_position bigint,
    r_recorded_at timestamptz,
    r_hash bytea,
    r_request_hash text,
    r_response bytea
) LANGUAGE plpgsql AS $$
DECLARE
    v_count integer := coalesce(cardinality(p_types), 0);
    v_version integer;
    v_head bytea;
    v_hashes bytea[] := '{}';
BEGIN
    IF p_command_id IS NOT NULL THEN
        INSERT INTO commands (stream_id, command_id, request_hash, response, version)
        VALUES (p_stream, p_command_id, p_request_hash, p_response, p_expected + v_count)
        ON CONFLICT (stream_id, command_id) DO NOTHING;
        IF NOT FOUND THEN
            SELECT c.request_hash, c.response INTO r_request_hash, r_response
              FROM commands c WHERE c.stream_id = p_stream AND c.command_id = p_command_id;
            IF r_request_hash IS DISTINCT FROM p_request_hash THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'ES422',
                    MESSAGE = format('command %s on stream %s was sent before with another request',
                                     p_command_id, p_stream);
            END IF;
            SELECT s.version INTO r_version FROM streams s WHERE s.stream_id = p_stream;
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;

    SELECT s.version, s.head_hash INTO v_version, v_head FROM streams s WHERE s.stream_id = p_stream;
    IF FOUND AND v_version = p_expected THEN
        -- The bytes of protocol.event_hash: previous || "<stream>\n<version>\n<type>\n<sv>\n" || data.
        FOR i IN 1 .. v_count LOOP
            v_head := sha256(v_head
                             || convert_to(p_stream || E'\n' || (p_expected + i) || E'\n' || p_types[i]
                                           || E'\n' || p_schema_versions[i] || E'\n', 'UTF8')
                             || p_data[i]);
            v_hashes[i] := v_head;
        END LOOP;
        -- The head read above is the one at version p_expected: it only changes with the version, which
        -- this UPDATE checks again under the row lock (a writer that waited sees the row it then gets).
        UPDATE streams s
           SET version = p_expected + v_count,
               head_hash = v_head,
               status = coalesce(p_status, s.status),
               updated_at = now()
         WHERE s.stream_id = p_stream AND s.version = p_expected;
        IF FOUND THEN
            RETURN QUERY
            WITH inserted AS (
                INSERT INTO events (stream_id, version, type, schema_version, data, hash, command_id)
                SELECT p_stream, p_expected + e.i::integer, e.t, e.sv, convert_from(e.d, 'UTF8')::json, e.h,
                       p_command_id
                  FROM unnest(p_types, p_schema_versions, p_data, v_hashes) WITH ORDINALITY
                       AS e (t, sv, d, h, i)
                RETURNING events.version, events.position, events.recorded_at, events.hash
            )
            SELECT ins.version, ins.position, ins.recorded_at, ins.hash, NULL::text, NULL::bytea
              FROM inserted ins ORDER BY ins.version;
            RETURN;
        END IF;
    END IF;

    -- Nothing was appended: say why (the exception also undoes the command claim).
    SELECT s.version INTO v_version FROM streams s WHERE s.stream_id = p_stream;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'ES404', MESSAGE = format('stream %s does not exist', p_stream);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'ES409',
        MESSAGE = format('stream %s is at version %s, expected %s', p_stream, v_version, p_expected),
        DETAIL = v_version::text;
END
$$
""",
    r"""
-- A new stream with its first events, in one transaction; ES412 if the id is taken (a concurrent
-- creator waits on the first one's uncommitted row and then finds it).
CREATE FUNCTION es_create(
    p_stream text,
    p_category text,
    p_metadata jsonb,
    p_status text,
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[]
) RETURNS TABLE (
    r_version integer,
    r_position bigint,
    r_recorded_at timestamptz,
    r_hash bytea,
    r_request_hash text,
    r_response bytea
) LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO streams (stream_id, category, status, metadata)
    VALUES (p_stream, p_category, p_status, coalesce(p_metadata, '{}'))
    ON CONFLICT (stream_id) DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'ES412', MESSAGE = format('stream %s already exists', p_stream);
    END IF;
    RETURN QUERY SELECT * FROM es_append(p_stream, 0, p_types, p_schema_versions, p_data);
END
$$
""",
)

DOWNGRADE = (
    "DROP FUNCTION IF EXISTS es_create(text, text, jsonb, text, text[], integer[], bytea[])",
    "DROP FUNCTION IF EXISTS es_append(text, integer, text[], integer[], bytea[], text, text, bytea, text)",
    "DROP TABLE IF EXISTS commands",
    "DROP TABLE IF EXISTS events",
    "DROP TABLE IF EXISTS streams",
    "DROP FUNCTION IF EXISTS es_refuse_change()",
)


def upgrade() -> None:
    """Create the store's tables, indexes, triggers and functions."""
    for statement in UPGRADE:  # one at a time: asyncpg runs each as a prepared statement
        op.execute(statement)


def downgrade() -> None:
    """Drop them again (the events go with them: only for throwaway databases)."""
    for statement in DOWNGRADE:
        op.execute(statement)
