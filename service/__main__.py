"""Command line: ``python -m service serve | migrate | database-url | verify FILE | projections rebuild |
simulate``."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from service.audit import verify_file
from service.database import migrate_urls, resolve_database_urls
from service.settings import Settings
from service.signing import load_signer


def serve(settings: Settings) -> None:
    """Resolve the database (embedded if DATABASE_URL is unset), migrate it, and serve with uvicorn."""
    import uvicorn

    urls = resolve_database_urls(settings)
    migrate_urls(urls)
    load_signer(settings.signing_key, settings.data_dir)  # made once here, before the workers read it
    os.environ["DATABASE_URL"] = urls.service  # every worker process connects to the same database
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
        http="api.server:H11WithHeadTimeout",  # request heads that stop arriving are dropped
    )


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m service", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="migrate and serve HTTP on HOST:PORT with WORKERS processes")
    commands.add_parser(
        "migrate", help="run alembic upgrade head as the owner, then grant the service role its rights"
    )
    commands.add_parser(
        "database-url", help="start the embedded database if needed and print the service role's URL"
    )
    verify = commands.add_parser("verify", help="re-verify a game export offline (exit 1 on any mismatch)")
    verify.add_argument("file", type=Path, help="a document from GET /v1/games/{id}/export (- for stdin)")
    verify.add_argument(
        "--receipts", type=Path, help="signed heads you kept (JSON array or lines): the export must agree"
    )
    verify.add_argument("--public-key", help="the service's public key (hex, GET /v1/signing-key) to require")
    projections = commands.add_parser("projections", help="maintain the read models")
    projections.add_argument(
        "action", choices=["rebuild"], help="rebuild them from zero (the service may run)"
    )
    from service.simulate import add_arguments, run

    add_arguments(commands.add_parser("simulate", help="play bot games in process and report (no database)"))
    args = parser.parse_args(argv)
    if args.command == "simulate":
        run(args)
        return
    if args.command == "verify":
        raise SystemExit(verify_file(args.file, args.receipts, args.public_key))
    settings = Settings.from_env()
    if args.command == "serve":
        serve(settings)
    elif args.command == "migrate":
        migrate_urls(resolve_database_urls(settings))
    elif args.command == "database-url":
        print(resolve_database_urls(settings).service)
    elif args.command == "projections":
        from service.projections import rebuild_command

        asyncio.run(rebuild_command(settings))


if __name__ == "__main__":
    main()
