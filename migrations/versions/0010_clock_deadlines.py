"""Clock deadlines: every pending decision of a timed game and when it times out.

``clock_deadlines`` is a read model fed from the global feed (service/workers/timeouts.py ``DeadlineIndex``, under
the ``clock_deadlines`` checkpoint): each ``clock_started`` or ``clock_stamped`` event replaces its game's
rows with the deadlines it carries, and ``version`` is the game's version at that event, which the clock
scheduler of every process sends as the timeout's If-Match so that exactly one of them appends it. The
rows survive restarts; the scheduler reads the earliest first (``clock_deadlines_due_idx``). A lobby game
keeps its clock choice in ``lobby_games.clock`` until it starts (its clock starts with it). Grants: the
service role gets the read-model privileges from ``grant_service_role`` (0009), run after every upgrade.

Revision ID: 0010_clock_deadlines
Revises: 0013_server_bot_accounts
"""

from alembic import op

revision = "0010_clock_deadlines"
down_revision = "0013_server_bot_accounts"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE TABLE clock_deadlines (
    game_id     text COLLATE "C" NOT NULL,
    seat        integer NOT NULL,
    deadline    timestamptz NOT NULL,
    version     bigint NOT NULL,           -- the game's version when the deadline was set
    PRIMARY KEY (game_id, seat)
)
""",
    r"""
COMMENT ON TABLE clock_deadlines IS 'Projection: the deadline of every pending decision of a timed game.'
""",
    "CREATE INDEX clock_deadlines_due_idx ON clock_deadlines (deadline)",
    # a lobby game's clock choice (service/games/schemas.py ClockIn), kept until its seats are filled and it starts
    "ALTER TABLE lobby_games ADD COLUMN clock jsonb",
    # no timed game exists before this migration, but the index reads the feed from its start like the others
    "INSERT INTO projection_checkpoints (name) VALUES ('clock_deadlines') ON CONFLICT DO NOTHING",
)

DOWNGRADE = (
    "DELETE FROM projection_checkpoints WHERE name = 'clock_deadlines'",
    "DROP TABLE IF EXISTS clock_deadlines",
    "ALTER TABLE lobby_games DROP COLUMN IF EXISTS clock",
)


def upgrade() -> None:
    """Create the deadline index and its checkpoint."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them."""
    for statement in DOWNGRADE:
        op.execute(statement)
