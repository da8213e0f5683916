"""The service's public signing keys: every host signs with one key, the one recorded here.

- ``signing_keys``: the Ed25519 public key (raw, hex) the service signs heads with, recorded by the first
  ``python -m service serve`` (service/integrity/keyring.py); a host started with another key refuses to serve. A
  rotation (``python -m service rotate-key``, docs/operations.md) retires the current key (``retired_at``)
  and records the new one, so the keys that signed older receipts stay listed. At most one key is current.

Revision ID: 0016_signing_keys
Revises: 0015_account_skeletons
"""

from alembic import op

revision = "0016_signing_keys"
down_revision = "0015_account_skeletons"
branch_labels = None
depends_on = None

UPGRADE = (
    r"""
CREATE TABLE signing_keys (
    public_key   text PRIMARY KEY,            -- Ed25519, the 32 raw bytes as hex (GET /v1/signing-key)
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    retired_at   timestamptz                  -- NULL: the key every host signs with now
)
""",
    r"""
CREATE UNIQUE INDEX signing_keys_current ON signing_keys ((true)) WHERE retired_at IS NULL
""",
    r"""
COMMENT ON TABLE signing_keys IS 'The public keys the service signed heads with; the current one has no retired_at.'
""",
)


def upgrade() -> None:
    """Create the table of signing keys."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop it."""
    op.execute("DROP TABLE signing_keys")
