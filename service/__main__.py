"""Command line: ``python -m service serve | migrate | rotate-key | database-url | verify FILE | projections
rebuild | simulate``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.runtime.settings import Settings

# Imports stay inside the commands: ``verify`` must run on the standard library, msgspec and cryptography
# alone (docs/decisions/0004-offline-verifier.md), so it imports nothing of the server (database, web
# framework, logging).


def serve(settings: Settings) -> None:
    """Resolve the database (embedded if DATABASE_URL is unset), migrate it, and serve with uvicorn."""
    from service.integrity.keyring import check_signing_key
    from service.integrity.signing import load_signer
    from service.runtime.database import migrate_urls, resolve_database_urls
    from service.runtime.serving import run_uvicorn

    urls = resolve_database_urls(settings)
    migrate_urls(urls)
    signer = load_signer(settings.signing_key, settings.data_dir)  # made here, before the workers read it
    check_signing_key(urls.service, signer.public_key)  # every host signs with the key the database records
    os.environ["DATABASE_URL"] = urls.service  # every worker process connects to the same database
    run_uvicorn("api.app:create_app", settings)


def verify_command(args: argparse.Namespace) -> int:
    """The offline verifier, on the standard library, msgspec and cryptography alone (docs/audit.md)."""
    from service.integrity.audit import verify_file

    return verify_file(args.file, args.receipts, args.public_key)


def command_line(with_simulate: bool = True) -> argparse.ArgumentParser:
    """The command line; without ``with_simulate`` the simulate command (which imports the bots) is left out."""
    parser = argparse.ArgumentParser(prog="python -m service", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="migrate and serve HTTP on HOST:PORT with WORKERS processes")
    commands.add_parser(
        "migrate", help="run alembic upgrade head as the owner, then grant the service role its rights"
    )
    commands.add_parser(
        "rotate-key",
        help="make SIGNING_KEY's key the one every host must sign with, retiring the recorded one"
        " (docs/operations.md)",
    )
    commands.add_parser(
        "database-url", help="start the embedded database if needed and print the service role's URL"
    )
    verify = commands.add_parser("verify", help="re-verify a game export offline (exit 1 on any mismatch)")
    verify.add_argument("file", type=Path, help="a document from GET /v1/games/{id}/export (- for stdin)")
    verify.add_argument(
        "--receipts", type=Path, help="signed heads you kept (JSON array or lines): the export must agree"
    )
    verify.add_argument(
        "--public-key",
        action="append",
        help="the service's public key (hex, GET /v1/signing-key) to require; again for a key a rotation"
        " retired (docs/operations.md)",
    )
    projections = commands.add_parser("projections", help="maintain the read models")
    projections.add_argument(
        "action", choices=["rebuild"], help="rebuild them from zero (the service may run)"
    )
    if with_simulate:
        from service.workers.simulate import add_arguments

        add_arguments(
            commands.add_parser("simulate", help="play bot games in process and report (no database)")
        )
    return parser


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the chosen command."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["verify"]:  # parsed without the simulate command, which imports the bots
        raise SystemExit(verify_command(command_line(with_simulate=False).parse_args(arguments)))
    args = command_line().parse_args(arguments)
    if args.command == "simulate":
        from service.workers.simulate import run

        run(args)
        return
    from service.runtime.database import migrate_urls, resolve_database_urls
    from service.runtime.settings import Settings

    settings = Settings.from_env()
    if args.command == "serve":
        serve(settings)
    elif args.command == "migrate":
        migrate_urls(resolve_database_urls(settings))
    elif args.command == "rotate-key":
        from service.integrity.keyring import rotate_command
        from service.integrity.signing import load_signer

        urls = resolve_database_urls(settings)
        migrate_urls(urls)
        rotate_command(urls.service, load_signer(settings.signing_key, settings.data_dir).public_key)
    elif args.command == "database-url":
        print(resolve_database_urls(settings).service)
    elif args.command == "projections":
        from service.readmodels.projections import rebuild_command

        asyncio.run(rebuild_command(settings))


def verify_main() -> None:
    """``bazaar-games-verify FILE ...``: the verifier distribution's command, ``python -m service verify``."""
    main(["verify", *sys.argv[1:]])


if __name__ == "__main__":
    main()
