"""How uvicorn serves an app, in one place: ``python -m service serve`` and the tests' and bench's servers
(tests/e2e/conftest.py start_server runs ``python -m service.serving APP PORT WORKERS``) use the same options.
"""

from __future__ import annotations

import sys

# HTTP_IMPLEMENTATION: uvicorn's protocol class (both carry the request-head deadline, api/server.py) and its
# event loop. httptools + uvloop is the default: in `make bench`'s HTTP phase the server spends 150-300 us
# less CPU per request with it than with h11 + asyncio (README, "Why these defaults"). h11 + asyncio (pure
# Python) stays selectable for a platform without the compiled packages' wheels, or to rule them out when
# chasing a protocol bug.
HTTP_IMPLEMENTATIONS = {
    "httptools": ("api.server:HttpToolsWithHeadTimeout", "uvloop"),
    "h11": ("api.server:H11WithHeadTimeout", "asyncio"),
}


def run_uvicorn(app: str, host: str, port: int, workers: int, http_implementation: str) -> None:
    """Serve the app factory ``app`` (module:function) with uvicorn: ``workers`` processes, no access log
    (the app logs each request itself), the client address as the socket gives it (no proxy headers)."""
    import uvicorn

    if http_implementation not in HTTP_IMPLEMENTATIONS:
        raise SystemExit(
            f"HTTP_IMPLEMENTATION={http_implementation!r}: choose one of {', '.join(HTTP_IMPLEMENTATIONS)}"
        )
    protocol, loop = HTTP_IMPLEMENTATIONS[http_implementation]
    uvicorn.run(
        app,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=protocol,  # request heads that stop arriving are dropped
        loop=loop,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
    )


def main(arguments: list[str]) -> None:
    """``python -m service.serving APP PORT WORKERS``: serve APP on 127.0.0.1 with the environment's
    HTTP_IMPLEMENTATION (as ``serve`` would, without migrating or making a signing key)."""
    from service.settings import Settings

    app, port, workers = arguments
    run_uvicorn(app, "127.0.0.1", int(port), int(workers), Settings.from_env().http_implementation)


if __name__ == "__main__":
    main(sys.argv[1:])
