"""Read models fed from the global feed: ratings, and the tournament-results recorder's checkpoint.

``ratings`` holds each rated identity's OpenSkill rating per game and ``rated_games`` the games that
went into them; both are written by the game projector in the same transaction as its checkpoint
(service/readmodels/projections.py), so a rating is the fold of the rated games in feed order, and a rebuild from
zero (into the ``*_rebuild`` twins) computes the same numbers. The ``tournament_results`` checkpoint is
the background worker's that records finished tournament games in their tournament's stream.

Revision ID: 0006_read_models
Revises: 0004_game_projections
"""

from alembic import op

revision = "0006_read_models"
down_revision = "0004_game_projections"
branch_labels = None
depends_on = None

LIVE_TABLES = ("ratings", "rated_games")

UPGRADE = (
    r"""
CREATE TABLE ratings (
    game        text NOT NULL,
    player      text NOT NULL,             -- the rated identity of a seat
    mu          double precision NOT NULL,
    sigma       double precision NOT NULL,
    ordinal     double precision NOT NULL, -- mu - 3 sigma: the order of the rating list
    games       integer NOT NULL,
    PRIMARY KEY (game, player)
)
""",
    r"""
COMMENT ON TABLE ratings IS 'Projection: OpenSkill rating per rated identity and game, fed from the feed.'
""",
    # GET /v1/ratings/{game}: best ordinal first, pages by (ordinal, player).
    "CREATE INDEX ratings_board_idx ON ratings (game, ordinal DESC, player)",
    "CREATE INDEX ratings_player_idx ON ratings (player)",
    r"""
CREATE TABLE rated_games (
    game_id     text COLLATE "C" PRIMARY KEY,
    game        text NOT NULL,
    players     text[] NOT NULL            -- the rated identities by seat
)
""",
    r"""
COMMENT ON TABLE rated_games IS 'Projection: every finished game that went into the ratings.'
""",
    "CREATE INDEX rated_games_game_idx ON rated_games (game)",
    *(f"CREATE TABLE {table}_rebuild (LIKE {table} INCLUDING ALL)" for table in LIVE_TABLES),
    r"""
INSERT INTO projection_checkpoints (name) VALUES ('tournament_results') ON CONFLICT DO NOTHING
""",
    # The game projector reads the feed again from the start, so the games finished before this migration
    # are rated too (its other rows are idempotent upserts: replaying changes none of them).
    "UPDATE projection_checkpoints SET tx = 0, position = 0 WHERE name = 'games'",
)

DOWNGRADE = (
    "DELETE FROM projection_checkpoints WHERE name = 'tournament_results'",
    *(f"DROP TABLE IF EXISTS {table}_rebuild" for table in LIVE_TABLES),
    *(f"DROP TABLE IF EXISTS {table}" for table in LIVE_TABLES),
)


def upgrade() -> None:
    """Create the rating tables, their rebuild twins and the tournament recorder's checkpoint."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them (the ratings can always be rebuilt from the events)."""
    for statement in DOWNGRADE:
        op.execute(statement)
