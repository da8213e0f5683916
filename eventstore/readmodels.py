"""The SQL of the read models projected from the feed (service/readmodels/projections.py): their tables, the
checkpoints the projectors take turns on, and the statements that write them.

Table names are fixed here, never user input.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass


@dataclass(frozen=True)
class Tables:
    """The tables one projection writes and the name of its checkpoint row (fixed names, never user input)."""

    listing: str
    players: str
    results: str
    ratings: str
    rated: str
    checkpoint: str

    @property
    def data(self) -> tuple[str, ...]:
        """Every table of the projection (not the checkpoint)."""
        return (self.listing, self.players, self.results, self.ratings, self.rated)


LIVE = Tables(
    listing="game_listing",
    players="player_games",
    results="game_results",
    ratings="ratings",
    rated="rated_games",
    checkpoint="games",
)
REBUILD = Tables(*(f"{name}_rebuild" for name in astuple(LIVE)))  # the twins a rebuild projects into

CHECKPOINT = "SELECT tx, position FROM projection_checkpoints WHERE name = $1"
# The projectors of a checkpoint take turns on a transaction-scoped advisory lock named after it, not on
# its row (FOR UPDATE): a row lock takes a transaction id at once, and the feed shows nothing past the
# oldest running transaction, so a whole batch (reads and folds included) would hold the feed back for
# every reader; this way the batch takes its id only with its writes, at the end.
LOCK_CHECKPOINT = "SELECT pg_advisory_xact_lock(1886547818, hashtext($1))"  # 1886547818: b'proj'
SAVE_CHECKPOINT = (
    "UPDATE projection_checkpoints SET tx = $2, position = $3, updated_at = now() WHERE name = $1"
)
# xmax of a snapshot: every transaction that started before it has an id below it.
SNAPSHOT = (
    "SELECT pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint FROM pg_current_snapshot() s"
)
HORIZON = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint"


def upsert_listing(t: Tables) -> str:
    """Insert or move on a game's listing row."""
    # A row never goes back to an older version; the same version is rewritten only if its stream row's
    # time differs (load() may have read the stream row one append behind its events).
    return f"""
INSERT INTO {t.listing} AS l (game_id, game, status, version, players, tournament, created_at, updated_at,
                              seed_commitment)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (game_id) DO UPDATE
   SET status = EXCLUDED.status, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
 WHERE EXCLUDED.version >= l.version
   AND (l.version, l.status, l.updated_at) IS DISTINCT FROM (EXCLUDED.version, EXCLUDED.status, EXCLUDED.updated_at)
"""


def insert_players(t: Tables) -> str:
    """One row per seat of a game, written once."""
    return (
        f"INSERT INTO {t.players} (game_id, seat, player, bot, created_at) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (game_id, seat) DO NOTHING"
    )


def insert_results(t: Tables) -> str:
    """A finished game's score and rank per seat, written once; a solitaire score counts turns, lower is
    better, with ``solved`` (Z-12)."""
    return (
        f"INSERT INTO {t.results} (game_id, seat, score, rank, lower_is_better, solved)"
        " VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (game_id, seat) DO NOTHING"
    )


# The accounts holding the seats of games (a game's seats are fixed once it has started, so a rebuild reads
# the same ones).
SEAT_ACCOUNTS = (
    "SELECT s.game_id, s.seat, a.name FROM game_seats s JOIN accounts a USING (account_id)"
    " WHERE s.game_id = ANY($1::text[])"
)


def read_ratings(t: Tables) -> str:
    """The current ratings of some players in one game."""
    return f"SELECT player, mu, sigma, games FROM {t.ratings} WHERE game = $1 AND player = ANY($2::text[])"


def upsert_ratings(t: Tables) -> str:
    """A player's rating in a game, inserted or replaced."""
    return (
        f"INSERT INTO {t.ratings} (game, player, mu, sigma, ordinal, games) VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (game, player) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma,"
        " ordinal = EXCLUDED.ordinal, games = EXCLUDED.games"
    )


def insert_rated(t: Tables) -> str:
    """A game as rated (each game is rated once)."""
    return f"INSERT INTO {t.rated} (game_id, game, players) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"
