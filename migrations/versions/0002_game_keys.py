"""Game keys: each game's secret seed and the hashes of its seat tokens, outside the event stream.

Revision ID: 0002_game_keys
Revises: 0001_event_store
"""

from alembic import op

revision = "0002_game_keys"
down_revision = "0001_event_store"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the game_keys table (written once at creation; never updated)."""
    op.execute(
        """
        CREATE TABLE game_keys (
            game_id      text PRIMARY KEY,
            seed         text NOT NULL,
            token_hashes text[] NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now()
        )
        """
    )


def downgrade() -> None:
    """Drop the game_keys table."""
    op.execute("DROP TABLE game_keys")
