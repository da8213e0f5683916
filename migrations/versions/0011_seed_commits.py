"""Seed commitments made before a game or tournament exists: commit-reveal seeds
(docs/decisions/0002-commit-reveal-seeds.md).

- ``seed_commits``: the server's secret seed half of a lobby game (or the seed of an account tournament)
  and its public commitment ``SHA-256(secret)``, written once when the game (tournament) is created and
  never changed, deleted or truncated (the service's role is refused by triggers it cannot disable). The
  game's seed is fixed when it starts, from this secret and its players' entropy (service/integrity/seeds.py).
- ``game_listing.seed_commitment`` (and its rebuild twin): the commitment of each listed game, from its
  stream's creation metadata; filled in for the games listed already.

Revision ID: 0011_seed_commits
Revises: 0012_solitaire_results
"""

from alembic import op

revision = "0011_seed_commits"
down_revision = "0012_solitaire_results"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE TABLE seed_commits (
    subject_id  text COLLATE "C" PRIMARY KEY,  -- a game id or a tournament id
    secret      text NOT NULL,                 -- revealed once the game (tournament) is over
    commitment  text NOT NULL,                 -- SHA-256(secret), hex: public from creation
    created_at  timestamptz NOT NULL DEFAULT now()
)
""",
    r"""
COMMENT ON TABLE seed_commits IS 'Write-once: the secret seed (half) of a game or tournament and its commitment.'
""",
    r"""
CREATE TRIGGER seed_commits_no_update_delete BEFORE UPDATE OR DELETE ON seed_commits
    FOR EACH ROW EXECUTE FUNCTION es_refuse_change()
""",
    r"""
CREATE TRIGGER seed_commits_no_truncate BEFORE TRUNCATE ON seed_commits
    FOR EACH STATEMENT EXECUTE FUNCTION es_refuse_change()
""",
    "ALTER TABLE game_listing ADD COLUMN seed_commitment text",
    "ALTER TABLE game_listing_rebuild ADD COLUMN seed_commitment text",
    r"""
UPDATE game_listing g SET seed_commitment = s.metadata ->> 'seed_commitment'
  FROM streams s WHERE s.stream_id = g.game_id
""",
)

DOWNGRADE = (
    "ALTER TABLE game_listing_rebuild DROP COLUMN seed_commitment",
    "ALTER TABLE game_listing DROP COLUMN seed_commitment",
    "DROP TABLE seed_commits",
)


def upgrade() -> None:
    """Create seed_commits and the listing's commitment column."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them."""
    for statement in DOWNGRADE:
        op.execute(statement)
