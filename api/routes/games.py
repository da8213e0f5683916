"""The Games endpoints of API.md: catalog, create, list, get, commands, legal, events, state, score sheet, audit,
export."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from api.http.auth import bearer_token, read_as_reader, readable_game
from api.http.formats import CSV, JSON, NDJSON, OFFERS, accepts, csv_text, ndjson
from service.games.loading import LoadedGame
from service.games.reads import GameReads
from service.games.schemas import (
    Catalog,
    CommandAccepted,
    CreateGame,
    EventOut,
    EventPage,
    GameCreated,
    GameDetail,
    GameInfo,
    StateAt,
)
from service.games.service import GameService
from service.integrity.schemas import AuditReport, GameExport
from service.lobby.lobby import LobbyService
from service.readmodels.projections import GameProjection
from service.readmodels.schemas import GamePage
from service.runtime import errors

T = TypeVar("T")

MAX_VERSION = 2**31 - 1  # versions are 32-bit integers in the store; a larger ``after``/``at`` is a 400

# Read-your-writes on a read replica (docs/api.md "Reading your own writes"): the answer is never older
MinVersion = Annotated[
    int,
    QueryParameter(
        ge=0,
        le=MAX_VERSION,
        description=(
            "The answer is at this version of the game or later (e.g. the version of the caller's own last "
            "command; 0, the default: any): 409 version_not_reached when the game has no such version"
        ),
    ),
]


async def read_game(
    game_reads: GameReads,
    request: Request[Any, Any, Any],
    game_id: str,
    min_version: int,
    read: Callable[[GameService], Awaitable[T]],
) -> T:
    """``read`` of a game the caller may read (``readable_game``), on the database game reads go to, never
    older than ``min_version`` (service/games/reads.py)."""

    async def checked(service: GameService) -> tuple[LoadedGame, T]:
        loaded, _ = await readable_game(service, game_id, request)
        return loaded, await read(service)

    _, answer = await game_reads.read(game_id, min_version, checked)
    return answer


# RFC 9110 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE (a comma is an etagc); our strong tags are
# versions. If-Match is a comma-separated list of them (RFC 9110 5.6.1), read whole, never split on commas.
_TAG = r'(W/)?"([\x21\x23-\x7e]*)"'
_ENTITY_TAG = re.compile(_TAG)
_ENTITY_TAGS = re.compile(rf"\s*{_TAG}(?:\s*,\s*{_TAG})*\s*")
# opaque tags compare byte for byte (RFC 9110 8.8.3.2): only the spelling the service gives out matches, a
# version without leading zeros, followed for a seat's own answers by ".seat<n>" (entity_tag)
_VERSION = re.compile(r"(0|[1-9][0-9]{0,9})(?:\.seat(0|[1-9][0-9]?))?")


def entity_tag(version: int, seat: int | None) -> str:
    """The ETag of a game's answer at ``version`` to ``seat`` (None: a spectator): a seat's view differs
    from a spectator's, so its tag does too (docs/api.md "Caching")."""
    return f'"{version}"' if seat is None else f'"{version}.seat{seat}"'


def parse_if_match(value: str | None, seat: int | None = None) -> tuple[int, ...] | None:
    """The versions an ``If-Match`` header accepts from ``seat`` (RFC 9110 13.1.1): None for no header or
    ``*`` (any current version), else the versions of its strong tags that are a version's tag or that
    seat's (entity_tag); weak tags never match (strong comparison), so a header of weak tags only accepts
    nothing. 400 if it is not a list of entity tags."""
    if value is None or value.strip() == "*":
        return None
    if _ENTITY_TAGS.fullmatch(value) is None:
        raise errors.Malformed("bad_if_match", 'If-Match takes entity tags, e.g. If-Match: "12", or *')
    versions: list[int] = []
    for tag in _ENTITY_TAG.finditer(value):  # no tag holds a quote, so each match is one tag of the list
        weak, opaque = tag.groups()
        named = _VERSION.fullmatch(opaque)
        if weak or named is None or int(named[1]) > MAX_VERSION:
            continue
        if named[2] is None or (seat is not None and int(named[2]) == seat):
            versions.append(int(named[1]))
    return tuple(versions)


async def expected_version(
    service: GameService, game_id: str, accepted: tuple[int, ...] | None
) -> int | None:
    """The version a conditional command must find (None: unconditional). No acceptable tag: 412 at once;
    several: the game's current one if listed (the append's version check still guards the race)."""
    if accepted is None:
        return None
    if not accepted:
        raise errors.PreconditionFailed("version_mismatch", "If-Match names no version of this game")
    if len(accepted) == 1:
        return accepted[0]
    current = (await service.loader.load(game_id)).version
    return current if current in accepted else accepted[0]


class GamesController(Controller):
    """Games: create, look, act, audit."""

    path = "/v1"
    tags = ["games"]

    @get("/catalog", operation_id="getCatalog", summary="The games offered, their player counts and options")
    async def catalog(self, game_service: NamedDependency[GameService]) -> Catalog:
        """List every game with its player counts, options (with defaults) and rule sheet."""
        return Catalog(
            games=[
                GameInfo(
                    game=game.name,
                    title=game.title,
                    min_players=game.min_players,
                    max_players=game.max_players,
                    options=msgspec.to_builtins(game.options_type()),
                    rules=f"/rules/{game.name}",
                )
                for game in game_service.games.values()
            ]
        )

    @post("/games", operation_id="createGame", summary="Create a game", status_code=201)
    async def create(
        self,
        request: Request[Any, Any, Any],
        lobby_service: NamedDependency[LobbyService],
        data: JSONBody[CreateGame],
    ) -> Response[GameCreated]:
        """Create a game; the answer carries each hot-seat seat's secret token (shown only here) and the seed
        commitment. Seats are ``{name}`` (hot-seat), ``{account: "me"}``, ``{invite: "<account>"}`` or
        ``{open: true}``; a game with account seats needs the creator's account token, waits in the lobby
        (``status: waiting``, ``Location`` its lobby entry) and starts when its last seat is filled.
        ``rated: true`` needs account seats only, no ``seed`` and two seats or more (422 otherwise)."""
        created = await lobby_service.create(data, bearer_token(request))
        location = (
            f"/v1/lobby/{created.game_id}" if created.status == "waiting" else f"/v1/games/{created.game_id}"
        )
        return Response(created, status_code=201, headers={"Location": location})

    @get("/games", operation_id="listGames", summary="List games, newest first")
    async def list_games(
        self,
        game_projection: NamedDependency[GameProjection],
        game: Annotated[str | None, QueryParameter()] = None,
        status: Annotated[str | None, QueryParameter()] = None,
        player: Annotated[str | None, QueryParameter()] = None,
        tournament: Annotated[str | None, QueryParameter()] = None,
        cursor: Annotated[str | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> GamePage:
        """Filter by game, status (active/finished), player or tournament; page with ``cursor``. A
        ``player`` that is an account's name matches the seats that account holds (not hot-seat seats
        carrying the same name); any other name matches hot-seat seats of that name.

        Served from the game projection, caught up first with everything committed before the request;
        a finished game carries its ``result`` (per seat score and rank)."""
        return await game_projection.list_games(game, status, player, tournament, cursor, limit)

    @get("/games/{game_id:str}", operation_id="getGame", summary="A game as the caller may see it")
    async def get_game(
        self,
        request: Request[Any, Any, Any],
        game_service: NamedDependency[GameService],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        min_version: MinVersion = 0,
    ) -> Response[GameDetail]:
        """The caller's view, who must act (``pending``) and the caller's ``legal`` commands; ETag is the version."""
        loaded, seat = await game_reads.read(
            game_id, min_version, lambda service: readable_game(service, game_id, request)
        )
        detail = game_service.queries.detail(loaded, seat)
        return Response(detail, headers={"ETag": entity_tag(loaded.version, seat)})

    @post(
        "/games/{game_id:str}/commands",
        operation_id="postCommand",
        summary="Send one command from the caller's seat",
        status_code=200,
    )
    async def post_command(
        self,
        request: Request[Any, Any, Any],
        game_service: NamedDependency[GameService],
        game_id: FromPath[str],
        data: JSONBody[dict[str, Any]],
        if_match: Annotated[str | None, HeaderParameter(name="If-Match")] = None,
        idempotency_key: Annotated[
            str | None, HeaderParameter(name="Idempotency-Key", max_length=200)
        ] = None,
    ) -> Response[CommandAccepted]:
        """Body: one of the game's commands, ``{"type": ..., ...}`` (entries of ``legal`` are ready to post).

        ``If-Match: "<version>"`` makes it conditional (412 if the game moved on); without it a command that
        loses a race is decided again on the new state. ``Idempotency-Key`` makes a retry safe.
        """
        await game_service.loader.game_keys(game_id)  # 404 for an unknown game (cached: no round trip)
        token = bearer_token(request)
        if token is None:
            raise errors.Unauthorized(
                "token_required", 'commands need an "Authorization: Bearer <seat token>" header'
            )
        seat = await game_service.loader.seat_of(game_id, token)
        assert seat is not None
        expected = await expected_version(game_service, game_id, parse_if_match(if_match, seat))
        accepted = await game_service.commands.execute(
            game_id, seat, data, if_match=expected, idempotency_key=idempotency_key
        )
        return Response(accepted, headers={"ETag": f'"{accepted.version}"'})

    @get(
        "/games/{game_id:str}/legal", operation_id="getLegal", summary="Every command the caller may send now"
    )
    async def legal(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        min_version: MinVersion = 0,
    ) -> list[Any]:
        """Each entry is a complete body ready to POST to ``/commands``; empty for spectators."""
        loaded, seat = await game_reads.read(
            game_id, min_version, lambda service: readable_game(service, game_id, request)
        )
        return loaded.legal(seat)

    @get(
        "/games/{game_id:str}/events",
        operation_id="getEvents",
        summary="The history, redacted while running",
        opt={OFFERS: (JSON, NDJSON)},
    )
    async def events(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        after: Annotated[int, QueryParameter(ge=0, le=MAX_VERSION)] = 0,
        limit: Annotated[int | None, QueryParameter(ge=1, le=10000)] = None,
        min_version: MinVersion = 0,
    ) -> Response[Any]:
        """Events after version ``after``; whole (with hashes) once finished. ``Accept: application/x-ndjson``
        gives one JSON event per line."""

        async def history(service: GameService) -> tuple[LoadedGame, list[EventOut]]:
            return await read_as_reader(
                service,
                game_id,
                request,
                lambda seat: service.queries.history(game_id, seat, after=after, limit=limit),
            )

        loaded, events = await game_reads.read(game_id, min_version, history)
        if accepts(request, NDJSON):
            return Response(ndjson(events), media_type=NDJSON)
        return Response(
            EventPage(game_id=game_id, version=loaded.version, redacted=not loaded.public, events=events)
        )

    @get(
        "/games/{game_id:str}/state",
        operation_id="getStateAt",
        summary="The caller's view right after version N",
    )
    async def state_at(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        at: Annotated[int, QueryParameter(ge=1, le=MAX_VERSION)],
        min_version: MinVersion = 0,
    ) -> StateAt:
        """Time travel: the view the caller had right after version ``at``."""

        async def view_at(service: GameService) -> tuple[LoadedGame, Any]:
            return await read_as_reader(
                service, game_id, request, lambda seat: service.queries.state_at(game_id, seat, at)
            )

        loaded, view = await game_reads.read(game_id, min_version, view_at)
        return StateAt(game_id=game_id, game=loaded.game.name, version=at, view=view)

    @get(
        "/games/{game_id:str}/scoresheet",
        operation_id="getScoreSheet",
        summary="The score sheet (JSON or CSV)",
        opt={OFFERS: (JSON, CSV)},
    )
    async def scoresheet(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        min_version: MinVersion = 0,
    ) -> Response[Any]:
        """The rule page's score sheet; ``Accept: text/csv`` gives the same rows as CSV (the game's final row
        names the winners)."""
        sheet = await read_game(
            game_reads, request, game_id, min_version, lambda service: service.queries.scoresheet(game_id)
        )
        if accepts(request, CSV):
            return Response(csv_text(sheet.columns, sheet.rows), media_type=CSV)
        return Response(sheet)

    @get(
        "/games/{game_id:str}/export",
        operation_id="exportGame",
        summary="A finished game as one self-contained document for offline verification",
    )
    async def export(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        min_version: MinVersion = 0,
    ) -> GameExport:
        """Seats, options, the revealed seed and its commitment, every event as stored with its chained hash,
        the result and the score sheet; ``python -m service verify FILE`` re-checks it without a database.
        409 ``game_not_finished`` while the game runs (its seed is secret until the end)."""
        return await read_game(
            game_reads, request, game_id, min_version, lambda service: service.exporter.export(game_id)
        )

    @get("/games/{game_id:str}/audit", operation_id="getAudit", summary="Hash chain, replay and seed checks")
    async def audit(
        self,
        request: Request[Any, Any, Any],
        game_reads: NamedDependency[GameReads],
        game_id: FromPath[str],
        min_version: MinVersion = 0,
    ) -> AuditReport:
        """Recompute the hash chain and the replay; for a finished game reveal the seed and re-derive set-up."""
        return await read_game(
            game_reads, request, game_id, min_version, lambda service: service.exporter.audit(game_id)
        )
