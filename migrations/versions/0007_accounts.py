"""Accounts, seats held by accounts, the lobby, and tournament registration.

- ``accounts``: one row per player or bot; ``name_key`` (NFKC + case-folded name) is unique; only the
  SHA-256 of the current bearer token is kept (NULL once revoked).
- ``game_seats``: who holds each seat of a game that involves accounts (lobby games, account games,
  tournament games with accounts): the account, or an open / invited seat while the game waits, or a
  hot-seat name with its token hash. One account holds at most one seat of a game.
- ``lobby_games``: games waiting for players (``waiting``), being started (``starting``: every seat
  filled, opening events being appended), ``started`` or ``cancelled``.
- ``tournament_registrations`` / ``tournament_entries``: a tournament open for registration and the
  accounts invited to it or registered for it, until its first round is seated.

Every table but ``accounts`` is keyed by game or tournament id (docs/decisions/0007-keyed-by-game.md).

Revision ID: 0007_accounts
Revises: 0006_read_models
"""

from alembic import op

revision = "0007_accounts"
down_revision = "0006_read_models"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE TABLE accounts (
    account_id        text COLLATE "C" PRIMARY KEY,
    name              text NOT NULL,
    name_key          text NOT NULL UNIQUE,
    kind              text NOT NULL CHECK (kind IN ('human', 'bot')),
    token_hash        text UNIQUE,
    created_at        timestamptz NOT NULL DEFAULT now(),
    token_changed_at  timestamptz NOT NULL DEFAULT now()
)
""",
    r"""
CREATE TABLE lobby_games (
    game_id     text COLLATE "C" PRIMARY KEY,
    game        text NOT NULL,
    options     jsonb NOT NULL,
    rated       boolean NOT NULL,
    seed        text,
    creator_id  text COLLATE "C" REFERENCES accounts (account_id),
    status      text NOT NULL CHECK (status IN ('waiting', 'starting', 'started', 'cancelled')),
    seats       int NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    started_at  timestamptz
)
""",
    r"""
CREATE INDEX lobby_games_waiting ON lobby_games (created_at DESC, game_id DESC) WHERE status = 'waiting'
""",
    r"""
CREATE TABLE game_seats (
    game_id     text COLLATE "C" NOT NULL,
    seat        int NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('account', 'open', 'invite', 'hotseat')),
    account_id  text COLLATE "C" REFERENCES accounts (account_id),
    invited_id  text COLLATE "C" REFERENCES accounts (account_id),
    name        text,
    token_hash  text,
    entropy     text,
    joined_at   timestamptz,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, account_id)
)
""",
    r"""
CREATE INDEX game_seats_account ON game_seats (account_id, game_id) WHERE account_id IS NOT NULL
""",
    r"""
CREATE INDEX game_seats_invited ON game_seats (invited_id, game_id) WHERE invited_id IS NOT NULL
""",
    r"""
CREATE TABLE tournament_registrations (
    tournament_id   text COLLATE "C" PRIMARY KEY,
    request         jsonb NOT NULL,
    organizer_hash  text NOT NULL,
    organizer_id    text COLLATE "C" REFERENCES accounts (account_id),
    open            boolean NOT NULL,
    status          text NOT NULL CHECK (status IN ('registering', 'started')),
    created_at      timestamptz NOT NULL DEFAULT now()
)
""",
    r"""
CREATE TABLE tournament_entries (
    tournament_id  text COLLATE "C" NOT NULL,
    account_id     text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    status         text NOT NULL CHECK (status IN ('invited', 'joined', 'declined')),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, account_id)
)
""",
    r"""
CREATE INDEX tournament_entries_account ON tournament_entries (account_id, tournament_id)
""",
)


def upgrade() -> None:
    """Create the account, seat, lobby and registration tables."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop them."""
    for table in (
        "tournament_entries",
        "tournament_registrations",
        "game_seats",
        "lobby_games",
        "accounts",
    ):
        op.execute(f"DROP TABLE {table}")
