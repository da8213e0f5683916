"""The one place that wires concrete parts together: settings, database pool, store, service, Litestar app."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from litestar import Litestar, Request
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.enums import RequestEncodingType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Server
from litestar.plugins.prometheus import PrometheusConfig, PrometheusController

from api.contract.document import publish
from api.contract.responses import describe_responses
from api.http.allow import options_allow_every_method
from api.http.dependencies import service_dependencies
from api.http.formats import refuse_unacceptable, vary_on_accept
from api.http.head import head_without_body
from api.http.metrics import LabelledOncePrometheusMiddleware
from api.http.middleware import (
    GuardedRequest,
    body_media_type,
    check_form_text,
    input_guard,
    rate_limit,
    refuse_unsupported_body,
    request_context_middleware,
)
from api.http.personal import personal_answers
from api.http.problems import problem_details_plugin
from api.http.resolved import resolve_exception_handlers_once
from api.http.secure_headers import secure_headers
from api.routes.accounts import AccountsController, signup_router
from api.routes.games import GamesController
from api.routes.lobby import LobbyController
from api.routes.me_stream import MeStreamController
from api.routes.players import PlayersController
from api.routes.ratings import RatingsController
from api.routes.reference import ReferenceController
from api.routes.sessions import SessionController, csrf_middleware
from api.routes.streams import GameStreamController, StreamLimiter
from api.routes.system import SystemController
from api.routes.tournaments import TournamentsController
from api.web.error_pages import HtmlErrorPages
from api.web.pages import (
    OfflineSwaggerUI,
    PagesController,
    documentation_router,
    static_files,
    template_config,
)
from api.web.tournament_pages import TournamentPagesController
from domain.registry import all_games
from eventstore import PostgresEventStore
from eventstore.replica import ReplicaStore
from service.accounts.accounts import VerifiedClients
from service.bootstrap import bootstrap, running
from service.integrity.signing import load_signer
from service.integrity.tokens import StreamTickets
from service.runtime.database import create_pool, head_revision, listen_connector, resolve_database_url
from service.runtime.logging import configure_logging
from service.runtime.settings import Settings
from service.workers.claims import claims_of

API_VERSION = "1.0.0"


def openapi_config() -> OpenAPIConfig:
    """The OpenAPI document (committed as openapi/openapi.json) and the interactive docs at /schema."""
    return OpenAPIConfig(
        title="Bazaar games",
        version=API_VERSION,
        description=(
            "Event-sourced reference server for Basari, Sid Sackson's Bazaar and Johari. Every move is an "
            "immutable event; views, legal moves, histories, score sheets and audits for any HTTP client. "
            "`Authorization: Bearer <seat token>` acts as a seat; no token is a spectator. Every GET operation "
            "also answers HEAD: the same status and headers, no body (not listed as operations of its own). "
            # Swagger UI renders the description as Markdown: the way back from /schema to the site (a
            # top-level externalDocs would be the tidier field, but Swagger UI 5 does not show a relative one)
            "The site itself, with its games, lobby, replays and rules: [the home page](/)."
        ),
        path="/schema",
        openapi_router=documentation_router(),  # unknown paths under it: 404 problems
        render_plugins=[OfflineSwaggerUI()],  # pinned assets shipped in api/web/static: renders offline
        servers=[Server(url="/")],
        use_handler_docstrings=True,
    )


async def before_handler(request: Request[Any, Any, Any]) -> None:
    """Before every handler reads its request: 406 when ``Accept`` takes nothing the operation answers in,
    415 when the body is of a type the operation does not take, 400 when a form field is not text (a JSON
    body is checked as it is decoded: ``GuardedRequest``)."""
    refuse_unacceptable(request)
    expected = body_media_type(request.route_handler)  # read once: the body type the handler takes
    refuse_unsupported_body(request, expected)
    if expected == RequestEncodingType.URL_ENCODED.value:
        await check_form_text(request)


async def replica_store(
    settings: Settings, store: PostgresEventStore, acquire_timeout: float
) -> ReplicaStore | None:
    """READ_DATABASE_URL's store: reads on the standby, writes and LISTEN on ``store``, the primary's
    (eventstore/replica.py); None without it."""
    if not settings.read_database_url:
        return None
    # no connection at start-up: a standby that is down must not keep the service from serving
    read_pool = await create_pool(
        settings.read_database_url, dataclasses.replace(settings, pool_min=0), "bazaar-games-reads"
    )
    return ReplicaStore(
        store,
        PostgresEventStore(read_pool, acquire_timeout=acquire_timeout),
        fence_seconds=settings.read_replica_wait_ms / 1000,
    )


@contextmanager
def frozen_at_startup() -> Iterator[None]:
    """While the app serves, what it built to start (modules, routes, services) is left out of the garbage
    collector's full passes (``gc.freeze``; docs/performance.md, "Where the time goes"): it lives as long as
    the app, and walking it again on every full pass cost a share of each request's CPU. Given back to the
    collector when the app stops."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def create_app(
    settings: Settings | None = None,
    projection_wake: Callable[[], Awaitable[object]] | None = None,
) -> Litestar:
    """The Litestar app: the lifespan connects to DATABASE_URL (or the embedded database), builds the
    PostgreSQL-backed services (service/bootstrap.py) and runs the loops of the read models fed from the
    feed (the game projection, the tournament results recorder), woken by ``projection_wake`` (default:
    any process's next append, heard through the store's LISTEN connection, or the poll interval), and
    of the workers (bots, clocks)."""
    settings = settings or Settings.from_env()
    configure_logging(settings.log_format, settings.log_level)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        url = resolve_database_url(settings.database_url, settings.data_dir)
        app.state.signer = signer
        pool = await create_pool(url, settings)
        app.state.pool = pool
        app.state.head_revision = head_revision()
        wait = app.state.acquire_timeout = settings.pool_acquire_timeout_ms / 1000
        store = PostgresEventStore(pool, acquire_timeout=wait, listen_connect=listen_connector(url, settings))
        replica = await replica_store(settings, store, wait)
        services = app.state.services = bootstrap(
            pool,
            store,
            settings,
            signer=signer,
            clients=app.state.clients,
            acquire_timeout=wait,
            replica=replica,
        )
        await store.start()  # one LISTEN connection per process: live readers hear other processes
        try:
            leader_connect = listen_connector(url, settings, "bazaar-games-leader")
            async with running(services, store, settings, projection_wake, leader_connect):
                with frozen_at_startup():
                    yield
        finally:
            await store.stop()
            await claims_of(store).close()  # its connection back: the pool closes once all are
            if replica is not None:
                await replica.stop()
                await replica.replica.pool.close()
            await pool.close()

    signer = load_signer(settings.signing_key, settings.data_dir)  # here: the CSRF secret derives from it
    plugins: list[Any] = [problem_details_plugin(), HtmlErrorPages()]  # in this order: pages wrap problems
    # group_path: label metrics by route template, not by game id (bounded cardinality)
    metrics = PrometheusConfig(
        app_name="bazaar_games",
        group_path=True,
        exclude=["/metrics"],
        middleware_class=LabelledOncePrometheusMiddleware,  # Litestar's metrics, less work a request
    )
    middleware: list[Any] = [
        request_context_middleware,
        input_guard(settings.request_body_timeout_seconds),
        metrics.middleware,
        csrf_middleware(signer.secret_for("csrf")),  # api/routes/sessions.py: where a cookie could act
        personal_answers,  # Vary and Cache-Control of the answers that depend on the caller
    ]
    if settings.rate_limit_per_minute > 0:  # off by default: throughput tests and benchmarks run unthrottled
        middleware.append(rate_limit(settings.rate_limit_per_minute))
    route_handlers: list[Any] = [
        GamesController,
        GameStreamController,
        MeStreamController,
        signup_router(settings.account_signups_per_hour),
        AccountsController,
        SessionController,
        LobbyController,
        TournamentsController,
        RatingsController,
        PlayersController,
        SystemController,
        ReferenceController,
        PrometheusController,
        PagesController,
        TournamentPagesController,
        static_files(),
    ]
    state = State(
        {
            "clients": VerifiedClients(),
            # keyed by this app's signing key: no client can forge a stream ticket
            "stream_tickets": StreamTickets(signer.secret_for("stream-ticket")),
            "streams": StreamLimiter(
                settings.streams_per_client,
                settings.stream_keepalive_seconds,
                settings.stream_poll_seconds,
                settings.streams_per_address,
            ),
        }
    )
    app = Litestar(
        route_handlers=route_handlers,
        lifespan=[lifespan],
        dependencies=service_dependencies(
            state
        ),  # the services, by parameter name (api/http/dependencies.py)
        state=state,
        plugins=plugins,
        middleware=middleware,
        openapi_config=openapi_config(),
        template_config=template_config(),
        # off unless CORS_ORIGINS names origins: the pages are served from this app, so they need none
        cors_config=CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "Last-Event-ID"],
            allow_methods=["GET", "HEAD", "POST", "DELETE", "OPTIONS"],  # every method a route has
            expose_headers=["ETag", "Location", "Retry-After", "X-Request-ID"],
        )
        if settings.cors_origins
        else None,
        request_max_body_size=settings.max_body_bytes,
        request_class=GuardedRequest,
        before_request=before_handler,
        after_request=vary_on_accept,
        debug=False,
    )
    # around Litestar's router: a HEAD is routed as the GET of its path (api/http/head.py)
    app.asgi_handler = head_without_body(app.asgi_handler)
    app.asgi_handler = options_allow_every_method(app.asgi_handler, app)
    app.asgi_handler = secure_headers(app.asgi_handler)  # every answer, errors and unrouted paths too
    resolve_exception_handlers_once(app)
    describe_responses(app)
    publish(app, all_games())
    return app
