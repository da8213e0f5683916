"""Least privilege: ``grant_service_role(role)`` gives the service's role exactly what it needs
(docs/decisions/0003-least-privilege.md).

Run by the tables' owner after every upgrade (migrations/env.py calls it when SERVICE_ROLE is set; a DBA
can call it by hand). It first revokes everything the role (and PUBLIC) had on every table of the public
schema, then grants by table:
- the append-only tables (events, commands, game_keys, tournament_keys): SELECT and INSERT only, so the
  service can never update, delete or truncate a stored event, command, seed or token hash;
- streams: SELECT, INSERT, and UPDATE of the columns an append moves (version, head hash, status, time);
  its identity, chain key and seed commitment are write-once (triggers of 0008_audit);
- alembic_version: SELECT (``/ready`` compares it with the code's head);
- every other table (read models, accounts, lobby, ...): SELECT, INSERT, UPDATE, DELETE and TRUNCATE
  (projections are rebuilt from the feed; they prove nothing by themselves).
New tables of later migrations fall in the last group unless added to the append-only list here.
Owning nothing, the role cannot ALTER a table (so cannot disable its triggers), and not being a superuser
it cannot SET session_replication_role.

Revision ID: 0009_least_privilege
Revises: 0008_audit
"""

from alembic import op

revision = "0009_least_privilege"
down_revision = "0008_audit"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE FUNCTION grant_service_role(p_role text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r record;
    append_only text[] := ARRAY['events', 'commands', 'game_keys', 'tournament_keys'];
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', p_role);
    FOR r IN SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') LOOP
        EXECUTE format('REVOKE ALL ON public.%I FROM %I, PUBLIC', r.relname, p_role);
        IF r.relname = ANY (append_only) THEN
            EXECUTE format('GRANT SELECT, INSERT ON public.%I TO %I', r.relname, p_role);
        ELSIF r.relname = 'streams' THEN
            EXECUTE format('GRANT SELECT, INSERT, UPDATE (version, head_hash, status, updated_at)'
                           ' ON public.%I TO %I', r.relname, p_role);
        ELSIF r.relname = 'alembic_version' OR r.relkind IN ('v', 'm') THEN
            EXECUTE format('GRANT SELECT ON public.%I TO %I', r.relname, p_role);
        ELSE
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON public.%I TO %I',
                           r.relname, p_role);
        END IF;
    END LOOP;
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %I', p_role);
END
$$
""",
)


def upgrade() -> None:
    """Create grant_service_role."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop it (the grants it gave stay)."""
    op.execute("DROP FUNCTION grant_service_role(text)")
