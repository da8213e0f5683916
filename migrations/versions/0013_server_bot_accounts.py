"""The server's bots as accounts of kind ``bot``, one built-in account per game and level.

- ``accounts.bot_game`` / ``accounts.bot_level``: set only on a built-in server bot's account (the game it
  plays and its level: ``random``, ``greedy``, ``strong``); NULL for every account that signed up. A game
  and level have at most one such account.
- The nine accounts ``random-basari`` ... ``strong-johari`` are inserted with no token (``token_hash``
  NULL): no client can act for them; the server's bot runner plays their seats. Should a name already be
  taken by an account that signed up, the bot's account is called ``<level>-<game> bot`` instead.

Revision ID: 0013_server_bot_accounts
Revises: 0009_least_privilege
"""

from alembic import op

revision = "0013_server_bot_accounts"
down_revision = "0009_least_privilege"
branch_labels = None
depends_on = None

GAMES = ("basari", "bazaar", "johari")
LEVELS = ("random", "greedy", "strong")

UPGRADE = (
    "ALTER TABLE accounts ADD COLUMN bot_game text, ADD COLUMN bot_level text",
    "ALTER TABLE accounts ADD CONSTRAINT accounts_server_bot CHECK ((bot_game IS NULL) = (bot_level IS NULL)"
    " AND (bot_game IS NULL OR kind = 'bot'))",
    "CREATE UNIQUE INDEX accounts_server_bot_key ON accounts (bot_game, bot_level) WHERE bot_game IS NOT NULL",
)

# the names are ASCII: their name_key (NFKC of the case-folded NFKC form) is their lower-case form
INSERT = """
INSERT INTO accounts (account_id, name, name_key, kind, token_hash, bot_game, bot_level)
SELECT 'server-bot-' || n.name, chosen.name, lower(chosen.name), 'bot', NULL, '{game}', '{level}'
FROM (VALUES ('{level}-{game}')) AS n (name),
LATERAL (SELECT CASE WHEN EXISTS (SELECT 1 FROM accounts WHERE name_key = lower(n.name))
                     THEN n.name || ' bot' ELSE n.name END AS name) AS chosen
"""


def upgrade() -> None:
    """Add the columns and the nine built-in bot accounts."""
    for statement in UPGRADE:
        op.execute(statement)
    for game in GAMES:
        for level in LEVELS:
            op.execute(INSERT.format(game=game, level=level))


def downgrade() -> None:
    """Drop the built-in bot accounts (and the seats they hold) and the columns."""
    op.execute(
        "DELETE FROM game_seats WHERE account_id IN (SELECT account_id FROM accounts WHERE bot_game IS NOT NULL)"
    )
    op.execute("DELETE FROM accounts WHERE bot_game IS NOT NULL")
    op.execute("ALTER TABLE accounts DROP COLUMN bot_game, DROP COLUMN bot_level")
