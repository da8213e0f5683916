"""Accounts whose names look alike: ``accounts.name_skeleton``, each name's skeleton (domain/names.py
``skeleton``: NFKC, look-alike Latin, Greek and Cyrillic letters folded together, case-folded), indexed, so a
sign-up whose name looks like an existing account's is refused (service/accounts/accounts.py). Filled in here for
the accounts that exist; two that already look alike both keep their names.

Revision ID: 0015_account_skeletons
Revises: 0014_write_once_seats
"""

from alembic import op
from sqlalchemy import text

from domain.names import skeleton

revision = "0015_account_skeletons"
down_revision = "0014_write_once_seats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column, fill it in, index it."""
    op.execute("ALTER TABLE accounts ADD COLUMN name_skeleton text")
    connection = op.get_bind()
    for account_id, name in connection.execute(text("SELECT account_id, name FROM accounts")).all():
        connection.execute(
            text("UPDATE accounts SET name_skeleton = :skeleton WHERE account_id = :account_id"),
            {"skeleton": skeleton(name), "account_id": account_id},
        )
    op.execute("CREATE INDEX accounts_name_skeleton ON accounts (name_skeleton)")


def downgrade() -> None:
    """Drop the column (and its index)."""
    op.execute("ALTER TABLE accounts DROP COLUMN name_skeleton")
