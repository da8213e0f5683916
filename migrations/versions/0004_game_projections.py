"""Game projections: the listing, per-player rows and finished results, fed from the global feed.

Each projection batch is one transaction: it locks its checkpoint, applies the feed after it and
writes the new checkpoint, so every event is applied exactly once (service/readmodels/projections.py). The
``*_rebuild`` twins hold a projection being rebuilt from zero while the live one keeps serving; the
rebuild copies them over the live tables holding the live checkpoint's lock.

Every table is keyed by game id (docs/decisions/0007-keyed-by-game.md); only the listing's and the per-player
indexes span games, by nature.

Revision ID: 0004_game_projections
Revises: 0003_tournament_keys
"""

from alembic import op

revision = "0004_game_projections"
down_revision = "0003_tournament_keys"
branch_labels = None
depends_on = None

LIVE_TABLES = ("game_listing", "player_games", "game_results")

UPGRADE = (
    r"""
CREATE TABLE projection_checkpoints (
    name        text PRIMARY KEY,
    tx          bigint NOT NULL DEFAULT 0,  -- FeedPosition of the last event applied
    position    bigint NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
)
""",
    r"""
INSERT INTO projection_checkpoints (name) VALUES ('games'), ('games_rebuild')
""",
    r"""
CREATE TABLE game_listing (
    game_id     text COLLATE "C" PRIMARY KEY,
    game        text NOT NULL,
    status      text NOT NULL,
    version     integer NOT NULL,
    players     text[] NOT NULL,
    tournament  text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
) WITH (fillfactor = 80)  -- room for HOT updates: every move rewrites its game's row
""",
    r"""
COMMENT ON TABLE game_listing IS 'Projection: one row per game for GET /v1/games (newest first).'
""",
    # GET /v1/games: newest first, optionally by game and/or status; a btree scans backwards for DESC.
    "CREATE INDEX game_listing_created_idx ON game_listing (created_at, game_id)",
    "CREATE INDEX game_listing_game_created_idx ON game_listing (game, created_at, game_id)",
    "CREATE INDEX game_listing_game_status_created_idx ON game_listing (game, status, created_at, game_id)",
    "CREATE INDEX game_listing_status_created_idx ON game_listing (status, created_at, game_id)",
    r"""
CREATE INDEX game_listing_tournament_idx ON game_listing (tournament, created_at, game_id)
    WHERE tournament IS NOT NULL
""",
    r"""
CREATE TABLE player_games (
    game_id     text COLLATE "C" NOT NULL,
    seat        integer NOT NULL,
    player      text NOT NULL,
    bot         boolean NOT NULL,
    created_at  timestamptz NOT NULL,  -- the game's, so a player's games page newest first
    PRIMARY KEY (game_id, seat)
)
""",
    r"""
COMMENT ON TABLE player_games IS 'Projection: one row per seat of every game, for a player''s history.'
""",
    "CREATE INDEX player_games_player_idx ON player_games (player, created_at, game_id)",
    r"""
CREATE TABLE game_results (
    game_id     text COLLATE "C" NOT NULL,
    seat        integer NOT NULL,
    score       integer NOT NULL,
    rank        integer NOT NULL,  -- 1 is best; equal ranks tie
    PRIMARY KEY (game_id, seat)
)
""",
    r"""
COMMENT ON TABLE game_results IS 'Projection: per seat of every finished game its final score and rank.'
""",
    # The rebuild twins: the same columns, keys and indexes.
    *(f"CREATE TABLE {table}_rebuild (LIKE {table} INCLUDING ALL)" for table in LIVE_TABLES),
)

DOWNGRADE = (
    *(f"DROP TABLE IF EXISTS {table}_rebuild" for table in LIVE_TABLES),
    *(f"DROP TABLE IF EXISTS {table}" for table in LIVE_TABLES),
    "DROP TABLE IF EXISTS projection_checkpoints",
)


def upgrade() -> None:
    """Create the projection tables, their rebuild twins and the checkpoints."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them (a projection can always be rebuilt from the events)."""
    for statement in DOWNGRADE:
        op.execute(statement)
