"""Connecting with a URL that names several hosts (``postgresql://…@db1:5432,db2:5432/games?…``), each host
with a connect timeout of its own.

asyncpg (0.32) tries the hosts of such a URL in turn under one timeout for them all: a first host that went
silent (powered off, its packets dropped) spends the whole timeout, and the connection fails without the
next host being tried. asyncpg has no per-host timeout, so this module splits the URL into one URL per host
and gives each its share of the connect timeout (docs/operations.md, "What every host must share"): a
silent first host costs its share, then the next host answers. A URL with one host connects as before.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

__all__ = ["START_UP_CONNECT_SECONDS", "connect", "host_urls"]

START_UP_CONNECT_SECONDS = 60.0  # one-off connections (migrations, the signing key check): asyncpg's default

# what makes asyncpg itself move on to a URL's next host: the host cannot be reached (or not in time), is
# still starting, or is not what target_session_attrs asks for (a standby when writes are needed)
NEXT_HOST = (OSError, TimeoutError, asyncpg.CannotConnectNowError, asyncpg.TargetServerAttributeNotMatched)


def host_urls(url: str) -> list[str]:
    """``url`` once per host it names, in its order (the URL itself when it names one host)."""
    parts = urlsplit(url)
    credentials, at, hosts = parts.netloc.rpartition("@")
    names = hosts.split(",")
    if len(names) < 2:
        return [url]
    return [urlunsplit(parts._replace(netloc=f"{credentials}{at}{name}")) for name in names]


async def connect(dsn: str, *, timeout: float, **options: Any) -> asyncpg.Connection:
    """``asyncpg.connect``, but each host of ``dsn`` gets ``timeout`` divided by the number of hosts (the
    whole still takes at most ``timeout``); the first host that accepts (and suits target_session_attrs)
    is used, else the last host's error is raised. Usable as an asyncpg pool's ``connect``."""
    urls = host_urls(dsn)
    share = timeout / len(urls)
    last: BaseException | None = None
    for url in urls:
        try:
            connection: asyncpg.Connection = await asyncpg.connect(url, timeout=share, **options)
            return connection
        except NEXT_HOST as failure:
            last = failure
    assert last is not None
    raise last
