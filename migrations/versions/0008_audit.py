"""The audit's store: each append's cause (the command) kept on its first event, a keyed hash chain, and
write-once rows.

- ``events.cause``: opaque bytes the caller gives with an append (the service: the seat and the command),
  written on the append's first event in the same statement, so a command and the events it produced
  commit together; the append-only triggers of events protect it.
- ``streams.chain_key``: opaque bytes mixed into every hash of the stream's chain,
  ``hash = sha256(chain_key || previous || header || data)``; empty for streams created before this
  revision, whose hashes are therefore unchanged. Set at creation, never changed.
- Write-once: a stream's id, category, creation time, chain key and ``metadata.seed_commitment`` never
  change and its version never goes back; a game's seed and a seat's token hash, once set, never change;
  game and tournament keys are never deleted or truncated.

es_append and es_create are replaced by versions that take the cause and the chain key.

Revision ID: 0008_audit
Revises: 0007_accounts
"""

from alembic import op

revision = "0008_audit"
down_revision = "0007_accounts"
branch_labels = None
depends_on = None

UPGRADE = (
    "ALTER TABLE streams ADD COLUMN chain_key bytea NOT NULL DEFAULT ''::bytea",
    "ALTER TABLE events ADD COLUMN cause bytea",
    "COMMENT ON COLUMN events.cause IS 'What caused the append (opaque), on its first event only.'",
    "COMMENT ON COLUMN streams.chain_key IS"
    " 'Mixed into every hash: hash = sha256(chain_key || previous || header || data).'",
    r"""
CREATE FUNCTION es_refuse_rewrite_stream() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.stream_id IS DISTINCT FROM OLD.stream_id
       OR NEW.category IS DISTINCT FROM OLD.category
       OR NEW.created_at IS DISTINCT FROM OLD.created_at
       OR NEW.chain_key IS DISTINCT FROM OLD.chain_key
       OR (NEW.metadata -> 'seed_commitment') IS DISTINCT FROM (OLD.metadata -> 'seed_commitment')
       OR NEW.version < OLD.version THEN
        RAISE EXCEPTION USING
            ERRCODE = 'ES405',
            MESSAGE = format('rewriting stream %s refused: its identity, chain key and seed commitment are'
                             ' write-once and its version never goes back', OLD.stream_id);
    END IF;
    RETURN NEW;
END
$$
""",
    r"""
CREATE TRIGGER streams_write_once BEFORE UPDATE ON streams
    FOR EACH ROW EXECUTE FUNCTION es_refuse_rewrite_stream()
""",
    r"""
CREATE FUNCTION refuse_rewrite_game_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A seat's token hash may be filled in once (a seat joined later), never changed.
    IF NEW.game_id IS DISTINCT FROM OLD.game_id
       OR NEW.seed IS DISTINCT FROM OLD.seed
       OR cardinality(NEW.token_hashes) < cardinality(OLD.token_hashes)
       OR EXISTS (SELECT 1 FROM unnest(OLD.token_hashes, NEW.token_hashes) AS t (old, new)
                   WHERE coalesce(t.old, '') <> '' AND t.new IS DISTINCT FROM t.old) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'ES405',
            MESSAGE = format('rewriting the keys of game %s refused: seeds and token hashes are write-once',
                             OLD.game_id);
    END IF;
    RETURN NEW;
END
$$
""",
    r"""
CREATE TRIGGER game_keys_write_once BEFORE UPDATE ON game_keys
    FOR EACH ROW EXECUTE FUNCTION refuse_rewrite_game_keys()
""",
    r"""
CREATE TRIGGER game_keys_no_delete BEFORE DELETE ON game_keys
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER game_keys_no_truncate BEFORE TRUNCATE ON game_keys
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER tournament_keys_no_update_delete BEFORE UPDATE OR DELETE ON tournament_keys
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER tournament_keys_no_truncate BEFORE TRUNCATE ON tournament_keys
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    "DROP FUNCTION es_create(text, text, jsonb, text, text[], integer[], bytea[])",
    "DROP FUNCTION es_append(text, integer, text[], integer[], bytea[], text, text, bytea, text)",
    r"""
-- As in 0001_event_store, with the chain key mixed into every hash and the cause kept on the first event.
CREATE FUNCTION es_append(
    p_stream text,
    p_expected integer,
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[],
    p_command_id text DEFAULT NULL,
    p_request_hash text DEFAULT NULL,
    p_response bytea DEFAULT NULL,
    p_status text DEFAULT NULL,
    p_cause bytea DEFAULT NULL
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
    v_key bytea;
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

    SELECT s.version, s.head_hash, s.chain_key INTO v_version, v_head, v_key
      FROM streams s WHERE s.stream_id = p_stream;
    IF FOUND AND v_version = p_expected THEN
        -- The bytes of protocol.event_hash: key || previous || "<stream>\n<version>\n<type>\n<sv>\n" || data.
        FOR i IN 1 .. v_count LOOP
            v_head := sha256(v_key || v_head
                             || convert_to(p_stream || E'\n' || (p_expected + i) || E'\n' || p_types[i]
                                           || E'\n' || p_schema_versions[i] || E'\n', 'UTF8')
                             || p_data[i]);
            v_hashes[i] := v_head;
        END LOOP;
        UPDATE streams s
           SET version = p_expected + v_count,
               head_hash = v_head,
               status = coalesce(p_status, s.status),
               updated_at = now()
         WHERE s.stream_id = p_stream AND s.version = p_expected;
        IF FOUND THEN
            RETURN QUERY
            WITH inserted AS (
                INSERT INTO events (stream_id, version, type, schema_version, data, hash, command_id, cause)
                SELECT p_stream, p_expected + e.i::integer, e.t, e.sv, convert_from(e.d, 'UTF8')::json, e.h,
                       p_command_id, CASE WHEN e.i = 1 THEN p_cause END
                  FROM unnest(p_types, p_schema_versions, p_data, v_hashes) WITH ORDINALITY
                       AS e (t, sv, d, h, i)
                RETURNING events.version, events.position, events.recorded_at, events.hash
            )
            SELECT ins.version, ins.position, ins.recorded_at, ins.hash, NULL::text, NULL::bytea
              FROM inserted ins ORDER BY ins.version;
            RETURN;
        END IF;
    END IF;

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
CREATE FUNCTION es_create(
    p_stream text,
    p_category text,
    p_metadata jsonb,
    p_status text,
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[],
    p_chain_key bytea DEFAULT ''::bytea,
    p_cause bytea DEFAULT NULL
) RETURNS TABLE (
    r_version integer,
    r_position bigint,
    r_recorded_at timestamptz,
    r_hash bytea,
    r_request_hash text,
    r_response bytea
) LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO streams (stream_id, category, status, metadata, chain_key)
    VALUES (p_stream, p_category, p_status, coalesce(p_metadata, '{}'), coalesce(p_chain_key, ''::bytea))
    ON CONFLICT (stream_id) DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'ES412', MESSAGE = format('stream %s already exists', p_stream);
    END IF;
    RETURN QUERY SELECT * FROM es_append(p_stream, 0, p_types, p_schema_versions, p_data,
                                         p_cause => p_cause);
END
$$
""",
)


def upgrade() -> None:
    """Add the cause and the chain key, the write-once triggers, and the new es_append/es_create."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Not supported: the keyed hashes and the causes cannot be dropped without losing what they prove."""
    raise NotImplementedError("0008_audit cannot be downgraded")
