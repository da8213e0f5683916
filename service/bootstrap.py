"""The composition root (cosmicpython's ``bootstrap``): every service of a process built once, on the stores
and settings it is given, so the app's lifespan, the CLI and the tests wire one and the same graph.

Nothing here runs anything: the app's lifespan (api/app.py) starts the store's LISTEN connection and the
loops of the read models and workers, and stops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from domain.core import Game
from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore, PostgresTournamentKeyStore
from service.accounts.accounts import AccountService, VerifiedClients
from service.games.service import GameService
from service.integrity.signing import Signer
from service.lobby.lobby import LobbyService
from service.readmodels.live import LiveGames
from service.readmodels.notifications import Notifications
from service.readmodels.projections import GameProjection
from service.readmodels.ratings import RatingService
from service.runtime.settings import Settings
from service.tournaments.tournaments import TournamentService
from service.workers.bots import BotRunner
from service.workers.timeouts import ClockScheduler, DeadlineIndex


@dataclass(frozen=True)
class Services:
    """The services of one process, each built once and shared by every request and loop."""

    accounts: AccountService
    games: GameService
    lobby: LobbyService
    tournaments: TournamentService
    projection: GameProjection  # the listing, histories and results (fed from the feed)
    ratings: RatingService
    notifications: Notifications
    live: LiveGames  # the games followed live in this process (one feed per game with open streams)
    bots: BotRunner
    clocks: ClockScheduler


def bootstrap(
    pool: asyncpg.Pool,
    store: PostgresEventStore,
    settings: Settings,
    *,
    signer: Signer,
    clients: VerifiedClients | None = None,
    acquire_timeout: float | None = None,
    games: dict[str, Game[Any]] | None = None,
) -> Services:
    """The services on PostgreSQL: ``pool`` for the read models and keys, ``store`` for the streams,
    ``games`` the games offered (every registered game unless given)."""
    wait = acquire_timeout
    accounts = AccountService(pool, acquire_timeout=wait, clients=clients)
    game_service = GameService(
        store,
        PostgresKeyStore(pool, acquire_timeout=wait),
        all_games() if games is None else games,
        accounts=accounts,
        signer=signer,
    )
    lobby = LobbyService(
        game_service,
        accounts,
        settings.bot_games_per_account,
        settings.invitations_per_inviter,
        settings.invitations_per_invitee,
    )
    tournaments = TournamentService(
        store, PostgresTournamentKeyStore(pool, acquire_timeout=wait), game_service, pool, wait, accounts
    )
    projection = GameProjection(pool, game_service, acquire_timeout=wait)
    return Services(
        accounts=accounts,
        games=game_service,
        lobby=lobby,
        tournaments=tournaments,
        projection=projection,
        ratings=RatingService(
            pool, frozenset(game_service.games), caught_up=projection.read_your_writes, acquire_timeout=wait
        ),
        notifications=Notifications(
            pool, game_service, caught_up=projection.read_your_writes, acquire_timeout=wait
        ),
        live=LiveGames(game_service),
        bots=BotRunner(game_service, settings.bot_think_seconds, settings.bot_iterations),
        clocks=ClockScheduler(game_service, DeadlineIndex(pool, store, acquire_timeout=wait)),
    )
