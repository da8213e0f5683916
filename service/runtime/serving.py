"""How uvicorn serves an app, in one place: ``python -m service serve`` and the tests' and bench's servers
(tests/e2e/conftest.py start_server runs ``python -m service.runtime.serving APP PORT WORKERS``) use the same options.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.runtime.settings import Settings

# HTTP_IMPLEMENTATION: uvicorn's protocol class (both carry the request-head deadline, api/http/server.py) and its
# event loop. httptools + uvloop is the default: in `make bench`'s HTTP phase the server spends 150-300 us
# less CPU per request with it than with h11 + asyncio (README, "Why these defaults"). h11 + asyncio (pure
# Python) stays selectable for a platform without the compiled packages' wheels, or to rule them out when
# chasing a protocol bug.
HTTP_IMPLEMENTATIONS = {
    "httptools": ("api.http.server:HttpToolsWithHeadTimeout", "uvloop"),
    "h11": ("api.http.server:H11WithHeadTimeout", "asyncio"),
}


class ServingLog(logging.Filter):
    """uvicorn's own log, kept to what a person running the server needs: where it serves ("Serving on
    http://HOST:PORT", said once uvicorn listens), that it is stopping, and warnings and errors; its other
    start-up and shut-down lines are dropped, and a request cut when SHUTDOWN_GRACE_SECONDS run out (a live
    stream never ends by itself) is counted in one line instead of a traceback each."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the records a person reads, drop the rest (see the class)."""
        message = record.getMessage()
        if message.startswith("Uvicorn running on "):
            where = message.removeprefix("Uvicorn running on ").removesuffix(" (Press CTRL+C to quit)")
            return self._say(record, f"Serving on {where} (Ctrl-C to stop)")
        if message.startswith("Waiting for connections to close"):
            return self._say(record, "Stopping: waiting for open requests (Ctrl-C again to stop at once)")
        if message.startswith("Cancel ") and "timeout graceful shutdown exceeded" in message:
            cut = message.removeprefix("Cancel ").split(" ", 1)[0]
            return self._say(
                record, f"Stopped: cut {cut} open request(s) (live streams resume with Last-Event-ID)"
            )
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            return False  # a request cut at the end of the grace, counted above
        return record.levelno >= logging.WARNING

    @staticmethod
    def _say(record: logging.LogRecord, words: str) -> bool:
        """Let ``record`` through as ``words``."""
        record.msg, record.args = words, None
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging: its server log through ``ServingLog``, plain lines on stderr (the app's own log is
    structlog's, service/runtime/logging.py)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"serving": {"()": ServingLog}},
        "formatters": {"plain": {"format": "%(message)s"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["serving"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {"uvicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False}},
    }


def run_uvicorn(app: str, settings: Settings) -> None:
    """Serve the app factory ``app`` (module:function) with uvicorn on the settings' host, port, workers and
    HTTP implementation: no access log (the app logs each request itself); the client's address and scheme
    as the socket gives them, or as X-Forwarded-For/-Proto say when the peer is a proxy FORWARDED_ALLOW_IPS
    names (default 127.0.0.1: a TLS proxy on this machine; the session cookie is Secure over HTTPS); and a
    stop that waits at most SHUTDOWN_GRACE_SECONDS for open requests. A live stream never ends by itself, so
    without that bound a server watched by anyone would not stop on SIGTERM; cut, a stream's client resumes
    with Last-Event-ID on another process."""
    import uvicorn

    http_implementation = settings.http_implementation
    if http_implementation not in HTTP_IMPLEMENTATIONS:
        raise SystemExit(
            f"HTTP_IMPLEMENTATION={http_implementation!r}: choose one of {', '.join(HTTP_IMPLEMENTATIONS)}"
        )
    protocol, loop = HTTP_IMPLEMENTATIONS[http_implementation]
    uvicorn.run(
        app,
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        http=protocol,  # request heads that stop arriving are dropped
        loop=loop,
        log_config=log_config(),
        log_level="info",  # ServingLog keeps the lines above and warnings
        access_log=False,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_grace_seconds,
    )


def main(arguments: list[str]) -> None:
    """``python -m service.runtime.serving APP PORT WORKERS``: serve APP on 127.0.0.1 with the environment's
    HTTP_IMPLEMENTATION (as ``serve`` would, without migrating or making a signing key)."""
    import dataclasses

    from service.runtime.settings import Settings

    app, port, workers = arguments
    settings = dataclasses.replace(
        Settings.from_env(), host="127.0.0.1", port=int(port), workers=int(workers)
    )
    run_uvicorn(app, settings)


if __name__ == "__main__":
    main(sys.argv[1:])
