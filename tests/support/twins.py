"""The services of one process wired on the in-memory twins, as service/bootstrap.py wires them on PostgreSQL
(docs/decisions/0008-sql-in-repositories.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from domain.registry import all_games
from eventstore.keys import InMemoryKeyStore, KeyStore
from eventstore.memory import InMemoryEventStore
from eventstore.protocol import EventStore
from service.accounts.accounts import AccountService
from service.accounts.repository import InMemoryAccounts
from service.games.service import GameService
from service.integrity.signing import Signer
from service.lobby.lobby import LobbyService
from service.lobby.repository import InMemoryLobby


@dataclass
class World:
    """The lobby, the games and the accounts of one process, on the twins."""

    lobby: LobbyService
    accounts: AccountService
    games: GameService


def twins(
    bot_games_per_account: int = 3,
    invitations_per_inviter: int = 2,
    invitations_per_invitee: int = 1,
    signer: Signer | None = None,
) -> World:
    """The lobby, the games and the accounts on their twins, with these lobby limits (0: any number), the
    games' exports signed by ``signer`` (None: unsigned)."""
    repository = InMemoryAccounts()
    accounts = AccountService(repository)
    keys = InMemoryKeyStore()
    games = GameService(InMemoryEventStore(), keys, all_games(), accounts=accounts, signer=signer)
    lobby = LobbyService(
        InMemoryLobby(accounts, keys, seats=repository),
        games,
        accounts,
        bot_games_per_account,
        invitations_per_inviter,
        invitations_per_invitee,
    )
    return World(lobby, accounts, games)


class Processes(Protocol):
    """Game services on one store: each call is one more server process, with its own cache."""

    def __call__(self, cache_size: int = 2048) -> GameService: ...


def processes_on(store: Callable[[], EventStore], keys: Callable[[], KeyStore]) -> Processes:
    """Server processes on one database, each with its own state and keys caches and its own handles
    (``store()``, ``keys()``) on the database."""

    def process(cache_size: int = 2048) -> GameService:
        return GameService(store(), keys(), all_games(), cache_size=cache_size)

    return process
