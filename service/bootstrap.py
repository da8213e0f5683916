"""The composition root (cosmicpython's ``bootstrap``): every service of a process built once, on the stores
and settings it is given, so the app's lifespan, the CLI and the tests wire one and the same graph.

``bootstrap`` runs nothing; ``running`` runs the loops of the read models and workers while the app's
lifespan (api/app.py) serves, between starting and stopping the store's LISTEN connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg

from domain.core import Game
from domain.registry import all_games
from eventstore import ChangeWatch, PostgresEventStore, PostgresKeyStore, PostgresTournamentKeyStore
from eventstore.replica import ReplicaStore
from service.accounts.accounts import AccountService, VerifiedClients
from service.accounts.repository import PostgresAccounts
from service.games.reads import GameReads, reads_over
from service.games.service import GameService
from service.integrity.signing import Signer
from service.lobby.lobby import LobbyService
from service.lobby.repository import PostgresLobby
from service.readmodels.live import LiveGames
from service.readmodels.notifications import Notifications
from service.readmodels.projections import GameProjection
from service.readmodels.ratings import RatingService
from service.readmodels.repository.leadership import Leadership
from service.runtime.settings import Settings
from service.tournaments.registrations import Registrations
from service.tournaments.repository import PostgresRegistrations
from service.tournaments.tournaments import TournamentService
from service.workers.bots import BotRunner
from service.workers.timeouts import ClockScheduler, DeadlineIndex, woken_by


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
    reads: GameReads  # where reads of games go: the primary's service, or a read replica's beside it


def bootstrap(
    pool: asyncpg.Pool,
    store: PostgresEventStore,
    settings: Settings,
    *,
    signer: Signer,
    clients: VerifiedClients | None = None,
    acquire_timeout: float | None = None,
    games: dict[str, Game[Any]] | None = None,
    replica: ReplicaStore | None = None,
) -> Services:
    """The services on PostgreSQL: ``pool`` for the read models and keys, ``store`` for the streams,
    ``games`` the games offered (every registered game unless given), ``replica`` the read replica's store
    game reads and live streams read (READ_DATABASE_URL; None: the primary's)."""
    wait = acquire_timeout
    accounts = AccountService(PostgresAccounts(pool, wait), clients=clients)
    game_service = GameService(
        store,
        PostgresKeyStore(pool, acquire_timeout=wait),
        all_games() if games is None else games,
        accounts=accounts,
        signer=signer,
    )
    lobby = LobbyService(
        PostgresLobby(pool, acquire_timeout=wait),
        game_service,
        accounts,
        settings.bot_games_per_account,
        settings.invitations_per_inviter,
        settings.invitations_per_invitee,
    )
    registrations = Registrations(accounts, PostgresRegistrations(pool, wait))
    tournaments = TournamentService(
        store,
        PostgresTournamentKeyStore(pool, acquire_timeout=wait),
        game_service,
        pool,
        wait,
        accounts,
        registrations,
    )
    projection = GameProjection(pool, game_service, acquire_timeout=wait)
    reads = reads_over(game_service, replica)
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
        live=LiveGames(reads.live),  # live streams follow the database reads go to (fenced by LSN)
        bots=BotRunner(game_service, settings.bot_think_seconds, settings.bot_iterations),
        clocks=ClockScheduler(game_service, DeadlineIndex(pool, store, acquire_timeout=wait)),
        reads=reads,
    )


PROJECTION_DEBOUNCE_SECONDS = 0.2  # appends arriving within this window share one projection batch


def _after_changes(watch: ChangeWatch, poll_seconds: float) -> Callable[[], Awaitable[object]]:
    """The projector's wake-up: the next append in any process (or the poll interval), then a short pause
    so a burst of appends is projected in one batch rather than one transaction per append."""

    async def wake() -> None:
        await watch.wait(poll_seconds)
        await asyncio.sleep(PROJECTION_DEBOUNCE_SECONDS)

    return wake


@asynccontextmanager
async def running(
    services: Services,
    store: PostgresEventStore,
    settings: Settings,
    projection_wake: Callable[[], Awaitable[object]] | None = None,
    leader_connect: Callable[[], Awaitable[Any]] | None = None,
) -> AsyncIterator[None]:
    """The loops of one process while it serves, cancelled on exit: the read models fed from the feed (the
    game projection, the tournament results recorder), woken by ``projection_wake`` (default: any
    process's next append, heard through the store's LISTEN connection, or the poll interval), this
    process's bot runner and its clock scheduler, each woken by any process's append.

    With ``leader_connect`` (a dedicated connection's opener), the processes on one database elect one
    leader per feed follower (the deadline index included): only the leader runs its passes
    (service/readmodels/repository/leadership.py); without it, this process runs every pass itself."""
    followers = {"game-projection": services.projection, "tournament-results": services.tournaments.recorder}
    leadership = None
    if leader_connect is not None:
        leadership = Leadership(leader_connect, connect_timeout=settings.pool_acquire_timeout_ms / 1000)
        for follower in (*followers.values(), services.clocks.index):
            assert follower is not None
            follower.lead_with(leadership)
        await leadership.start()
    with ExitStack() as watches:
        loops = []
        for name, follower in followers.items():
            assert follower is not None
            any_change = watches.enter_context(store.watch())  # each loop its own wake-ups
            wake = projection_wake or _after_changes(any_change, settings.stream_poll_seconds)
            loops.append(asyncio.create_task(follower.run(wake), name=name))
        # this process's bot runner, woken by any process's append to a game not known to be without bots
        # (service/workers/bots.py)
        bots_woken = watches.enter_context(store.watch(ignoring=services.bots.without_bots))
        start = await services.notifications.now()
        bots = services.bots.run(lambda: bots_woken.wait(settings.stream_poll_seconds), start)
        loops.append(asyncio.create_task(bots, name="bots"))
        # this process's clock scheduler, woken by any process's append to a game not known to be untimed
        # (service/workers/timeouts.py)
        clocks_woken = watches.enter_context(store.watch(ignoring=services.clocks.untimed))
        loops.append(asyncio.create_task(services.clocks.run(woken_by(clocks_woken.wait)), name="clocks"))
        try:
            yield
        finally:
            for loop in loops:
                loop.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
            if leadership is not None:
                await leadership.stop()
