"""The game service: the units a game is served by, wired together once, for the API and the other services.

- service/games/loading.py: states folded to the latest version (service/runtime/streams.py), keys, seals, seats;
- service/games/commands.py: creating games and deciding and appending commands;
- service/games/queries.py: what a seat may see (detail, history, state at a version, score sheet);
- service/games/export.py: the audit report and the export of a finished game (checks in service/integrity/audit.py).
"""

from __future__ import annotations

from typing import Any

from domain.core import Game
from eventstore import EventStore, KeyStore
from service.accounts.accounts import AccountService
from service.games.clocks import Now, system_now
from service.games.commands import GameCommands
from service.games.export import GameExporter
from service.games.loading import GameLoader
from service.games.queries import GameQueries
from service.integrity.signing import Signer


class GameService:
    """A game's units on one store and key store: ``loader`` (states, seats), ``commands`` (create, decide,
    append), ``queries`` (what a seat may see) and ``exporter`` (audit, export); callers call the unit that
    owns the step."""

    def __init__(
        self,
        store: EventStore,
        keys: KeyStore,
        games: dict[str, Game[Any]],
        cache_size: int = 2048,
        accounts: AccountService | None = None,
        signer: Signer | None = None,
        now: Now = system_now,
    ) -> None:
        self.store, self.keys, self.games = store, keys, games
        self.accounts, self.signer = accounts, signer
        self.loader = loader = GameLoader(store, keys, games, cache_size, accounts)
        self.queries = queries = GameQueries(loader, signer)
        self.commands = GameCommands(loader, queries, now)  # ``now``: timed games' clock
        self.exporter = GameExporter(loader, queries)
