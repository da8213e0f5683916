"""Z-12: a solitaire result is listed as the turns taken with ``solved``, lower is better.

- ``game_results.lower_is_better`` (and its rebuild twin): true when the score counts turns taken, fewer
  is better (Bazaar solitaire); false for every game scored in points, higher is better.
- ``game_results.solved``: whether such a game met its target; NULL for a game scored in points.

The rows of finished solitaire games already projected are filled from their events (the game ended with
``solitaire_solved``, else unsolved); a rebuild of the projections computes the same.

Revision ID: 0012_solitaire_results
Revises: 0010_clock_deadlines
"""

from alembic import op

revision = "0012_solitaire_results"
down_revision = "0010_clock_deadlines"
branch_labels = None
depends_on = None

TABLES = ("game_results", "game_results_rebuild")

UPGRADE = (
    *(
        f"ALTER TABLE {table} ADD COLUMN lower_is_better boolean NOT NULL DEFAULT false,"
        " ADD COLUMN solved boolean, ADD CONSTRAINT"
        f" {table}_solved_counts_turns CHECK (solved IS NULL OR lower_is_better)"
        for table in TABLES
    ),
    r"""
COMMENT ON COLUMN game_results.lower_is_better IS
    'Z-12: the score counts turns taken, fewer is better (Bazaar solitaire); false: points, higher is better.'
""",
    r"""
COMMENT ON COLUMN game_results.solved IS 'Z-12: whether a solitaire game met its target; NULL for points.'
""",
    # the solitaire games projected before this revision: one seat of a Bazaar game
    r"""
UPDATE game_results r
   SET lower_is_better = true,
       solved = EXISTS (SELECT 1 FROM events e
                         WHERE e.stream_id = r.game_id AND e.type = 'game_ended'
                           AND e.data->>'reason' = 'solitaire_solved')
  FROM game_listing g
 WHERE g.game_id = r.game_id AND g.game = 'bazaar' AND cardinality(g.players) = 1
""",
)

DOWNGRADE = tuple(
    f"ALTER TABLE {table} DROP COLUMN IF EXISTS solved, DROP COLUMN IF EXISTS lower_is_better"
    for table in TABLES
)


def upgrade() -> None:
    """Add the columns and fill them for the solitaire games already listed."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them."""
    for statement in DOWNGRADE:
        op.execute(statement)
