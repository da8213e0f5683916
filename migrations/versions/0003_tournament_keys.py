"""Tournament keys: the hashes of each tournament's organizer token and player tokens, outside its stream.

Revision ID: 0003_tournament_keys
Revises: 0002_game_keys
"""

from alembic import op

revision = "0003_tournament_keys"
down_revision = "0002_game_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tournament_keys table (written once at creation; never updated)."""
    op.execute(
        """
        CREATE TABLE tournament_keys (
            tournament_id  text PRIMARY KEY,
            organizer_hash text NOT NULL,
            player_names   text[] NOT NULL,
            player_hashes  text[] NOT NULL,
            created_at     timestamptz NOT NULL DEFAULT now()
        )
        """
    )


def downgrade() -> None:
    """Drop the tournament_keys table."""
    op.execute("DROP TABLE tournament_keys")
