"""Who holds a seat and which seed a lobby game gets are write-once facts once the game leaves the lobby.

The service's role may write ``lobby_games`` and ``game_seats`` (joining and leaving change them while a
game waits), so without these triggers the operator holding that role could hand a running rated seat to
another account (``UPDATE game_seats SET account_id``) or choose the seed of a waiting rated game
(``UPDATE lobby_games SET seed``) unnoticed. Triggers the role cannot disable (it owns nothing) refuse:

- on ``lobby_games``: any change of what was asked at creation (game, options, rated, seed, creator, seat
  count, clock, creation time), any status change but ``waiting`` -> ``starting`` | ``cancelled`` and
  ``starting`` -> ``started`` (with its ``started_at``), and every DELETE and TRUNCATE;
- on ``game_seats``: every UPDATE and DELETE of a seat whose game is not ``waiting`` in the lobby (a game
  being started, started, cancelled, or never in the lobby: tournament games), an UPDATE that moves a row
  to another game or seat, and every TRUNCATE.

The stream's creation metadata (write-once already) keeps the accounts seated at the start, and the
online audit compares ``game_seats`` with it (docs/audit.md), so a change made with the triggers disabled
by the tables' owner is still found.

Revision ID: 0014_write_once_seats
Revises: 0011_seed_commits
"""

from alembic import op

revision = "0014_write_once_seats"
down_revision = "0011_seed_commits"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE FUNCTION lobby_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND (NEW.game_id, NEW.game, NEW.options, NEW.rated, NEW.seed, NEW.creator_id, NEW.seats, NEW.clock,
            NEW.created_at)
           IS NOT DISTINCT FROM
           (OLD.game_id, OLD.game, OLD.options, OLD.rated, OLD.seed, OLD.creator_id, OLD.seats, OLD.clock,
            OLD.created_at)
       AND (NEW.status = OLD.status AND NEW.started_at IS NOT DISTINCT FROM OLD.started_at
            OR OLD.status = 'waiting' AND NEW.status IN ('starting', 'cancelled')
               AND NEW.started_at IS NOT DISTINCT FROM OLD.started_at
            OR OLD.status = 'starting' AND NEW.status = 'started')
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'ES405',
        MESSAGE = format('%s on %s refused: a lobby game''s set-up is write-once and its status only moves'
                         ' forward', TG_OP, TG_TABLE_NAME);
END
$$
""",
    r"""
CREATE TRIGGER lobby_games_write_once BEFORE UPDATE OR DELETE ON lobby_games
    FOR EACH ROW EXECUTE FUNCTION lobby_refuse_change()
""",
    r"""
CREATE TRIGGER lobby_games_no_truncate BEFORE TRUNCATE ON lobby_games
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE FUNCTION seats_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM lobby_games WHERE game_id = OLD.game_id AND status = 'waiting')
       AND (TG_OP = 'DELETE' OR (NEW.game_id, NEW.seat) IS NOT DISTINCT FROM (OLD.game_id, OLD.seat))
    THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'ES405',
        MESSAGE = format('%s on %s refused: the seats of game %s are fixed once it leaves the lobby',
                         TG_OP, TG_TABLE_NAME, OLD.game_id);
END
$$
""",
    r"""
CREATE TRIGGER game_seats_write_once BEFORE UPDATE OR DELETE ON game_seats
    FOR EACH ROW EXECUTE FUNCTION seats_refuse_change()
""",
    r"""
CREATE TRIGGER game_seats_no_truncate BEFORE TRUNCATE ON game_seats
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
)

DOWNGRADE = (
    "DROP TRIGGER game_seats_no_truncate ON game_seats",
    "DROP TRIGGER game_seats_write_once ON game_seats",
    "DROP FUNCTION seats_refuse_change()",
    "DROP TRIGGER lobby_games_no_truncate ON lobby_games",
    "DROP TRIGGER lobby_games_write_once ON lobby_games",
    "DROP FUNCTION lobby_refuse_change()",
)


def upgrade() -> None:
    """Create the write-once triggers of lobby_games and game_seats."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them."""
    for statement in DOWNGRADE:
        op.execute(statement)
