"""The listing's result carries the game's own note.

- ``game_listing.result_note`` (and its rebuild twin): a finished game's ``Result.note`` as the domain gave
  it when the projection folded the finished game: who resigned (a seat out of timeouts resigns too), how
  a tie was broken or shared, whether a solitaire game was solved. NULL while the game runs.

The note is prose the rules compute from the whole game, so the games listed finished before this revision
keep a NULL note (listed as empty) until ``python -m service projections rebuild`` projects them again.

Revision ID: 0017_listing_result_notes
Revises: 0016_signing_keys
"""

from alembic import op

revision = "0017_listing_result_notes"
down_revision = "0016_signing_keys"
branch_labels = None
depends_on = None

TABLES = ("game_listing", "game_listing_rebuild")

UPGRADE = (
    *(f"ALTER TABLE {table} ADD COLUMN result_note text" for table in TABLES),
    r"""
COMMENT ON COLUMN game_listing.result_note IS
    'A finished game''s Result.note (resignations, tie-breaks, solitaire outcome); NULL while it runs.'
""",
)

DOWNGRADE = tuple(f"ALTER TABLE {table} DROP COLUMN IF EXISTS result_note" for table in TABLES)


def upgrade() -> None:
    """Add the column to the listing and its rebuild twin."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop it."""
    for statement in DOWNGRADE:
        op.execute(statement)
