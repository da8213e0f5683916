"""The Tournaments endpoints of API.md: create, overview, seat a round, standings (JSON/CSV), results (JSON/NDJSON),
and the organizer's administration (withdraw, late entry, terminate, adjudicate)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath, JSONBody, QueryParameter

from api.http.auth import bearer_token
from api.http.dependencies import services_of
from api.http.formats import CSV, JSON, NDJSON, OFFERS, accepts, csv_text, ndjson
from domain.tournament import Crosstable, CrosstableRow, ResultRow, RoundView, StandingRow, TournamentView
from service.tournaments.registrations import Registration
from service.tournaments.schemas import (
    AdjudicationIn,
    CreateTournamentIn,
    PlayerNameIn,
    PlayerToken,
    TournamentCreatedOut,
)
from service.tournaments.tournaments import TournamentService


async def organizer_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard of the organizer's operations: 404 for an unknown tournament, 401 without a token, 403 with a
    token that is neither its organizer token nor its organizer's account token, nor a signed-in session of
    that account (``TournamentService.require_organizer``)."""
    tournaments = services_of(connection.app.state).tournaments
    await tournaments.require_organizer(connection.path_params["tournament_id"], bearer_token(connection))


STANDING_COLUMNS = ("rank", "name", "points", "buchholz", "firsts", "games", "byes", "withdrawn")


def standings_csv(rows: list[StandingRow]) -> str:
    """The standings as CSV (header line first; ``relative_score`` added in duplicate mode)."""
    columns = list(STANDING_COLUMNS)
    if any(row.relative_score is not None for row in rows):
        columns.append("relative_score")
    cells = [msgspec.to_builtins(row) for row in rows]
    return csv_text(columns, ([data.get(column) for column in columns] for data in cells))


def crosstable_csv(table: Crosstable) -> str:
    """The crosstable as CSV: a header line, then a player a line in standings order with the standings'
    columns (``relative_score`` in duplicate mode) and two columns per seated round, ``round_<n>_place``
    (``<place>/<table size>``, ``bye``, ``playing`` or empty when absent) and ``round_<n>_points``."""
    standing = list(STANDING_COLUMNS)
    if any(row.relative_score is not None for row in table.players):
        standing.append("relative_score")
    rounds = [f"round_{n}_{part}" for n in range(1, table.rounds_seated + 1) for part in ("place", "points")]

    def line(row: CrosstableRow) -> list[Any]:
        data = msgspec.to_builtins(row)
        cells: list[Any] = [data.get(column) for column in standing]
        for cell in row.rounds:
            place = {"game": f"{cell.place}/{cell.size}", "bye": "bye", "playing": "playing"}.get(
                cell.kind, ""
            )
            cells += [place, cell.points]
        return cells

    return csv_text(standing + rounds, (line(row) for row in table.players))


class TournamentsController(Controller):
    """Tournaments: create, seat rounds, standings and results."""

    path = "/v1/tournaments"
    tags = ["tournaments"]

    @post("/", operation_id="createTournament", summary="Create a tournament", status_code=201)
    async def create(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        data: JSONBody[CreateTournamentIn],
    ) -> Response[TournamentCreatedOut]:
        """Create a tournament; the answer carries the organizer's token and, for a tournament of
        ``{name}`` players, each player's token (shown only here), which acts as their seat in every game
        of the tournament. A tournament of accounts (players ``{account: "me"}`` / ``{invite}``, or
        ``open: true``) needs the organizer's account token and registers players
        (``registering: true``) until its first round is seated; its players act with their account
        tokens, and its games are rated unless a ``seed`` was given."""
        created = await tournament_service.create(data, bearer_token(request))
        return Response(
            created, status_code=201, headers={"Location": f"/v1/tournaments/{created.tournament_id}"}
        )

    @get("/{tournament_id:str}", operation_id="getTournament", summary="A tournament: status, rounds, games")
    async def get_tournament(
        self, tournament_service: NamedDependency[TournamentService], tournament_id: FromPath[str]
    ) -> TournamentView:
        """Status, rounds, tables and their games (never a seed)."""
        return await tournament_service.overview(tournament_id)

    @post(
        "/{tournament_id:str}/rounds",
        operation_id="seatNextRound",
        summary="Seat the next round and create its games (organizer)",
        status_code=201,
        guards=[organizer_only],
    )
    async def seat_round(
        self,
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> RoundView:
        """Needs the organizer: ``Authorization: Bearer <organizer token>``, or the organizer's account token
        (or signed-in session); 409 while the current round is still running or
        once the tournament is complete."""
        return await tournament_service.seat_next_round(tournament_id)

    @post(
        "/{tournament_id:str}/withdrawals",
        operation_id="withdrawTournamentPlayer",
        summary="Withdraw a player (organizer)",
        status_code=200,
        guards=[organizer_only],
    )
    async def withdraw(
        self,
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
        data: JSONBody[PlayerNameIn],
    ) -> TournamentView:
        """The organizer (organizer token, or the organizer's account).
        Later rounds skip the player; a game of theirs still running goes on, their seat
        played by a stand-in (as on resignation). 422 ``unknown_player``; 409 ``already_withdrawn``,
        ``tournament_complete``, ``tournament_terminated``."""
        return await tournament_service.withdraw(tournament_id, data.name)

    @post(
        "/{tournament_id:str}/entries",
        operation_id="enterTournamentPlayer",
        summary="Late entry of a player (organizer)",
        status_code=201,
        guards=[organizer_only],
    )
    async def enter(
        self,
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
        data: JSONBody[PlayerNameIn],
    ) -> PlayerToken:
        """The organizer (organizer token, or the organizer's account).
        The player plays from the next round seated on (nothing for the rounds missed);
        the answer carries their player token (shown only here). 422 ``bad_player_name``,
        ``duplicate_player_name``, ``too_many_players``; 409 ``no_rounds_left``, ``late_entry_closed`` (an
        account tournament), ``tournament_complete``, ``tournament_terminated``."""
        return await tournament_service.enter(tournament_id, data.name)

    @post(
        "/{tournament_id:str}/terminate",
        operation_id="terminateTournament",
        summary="End the tournament now (organizer)",
        status_code=200,
        guards=[organizer_only],
    )
    async def terminate(
        self,
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> TournamentView:
        """The organizer (organizer token, or the organizer's account).
        No more rounds; the standings are final as they stand (status ``terminated``);
        games still running no longer count. 409 ``tournament_complete``, ``tournament_terminated``."""
        return await tournament_service.terminate(tournament_id)

    @post(
        "/{tournament_id:str}/adjudications",
        operation_id="adjudicateTournamentGame",
        summary="Adjudicate a game that cannot finish (organizer)",
        status_code=200,
        guards=[organizer_only],
    )
    async def adjudicate(
        self,
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
        data: JSONBody[AdjudicationIn],
    ) -> ResultRow:
        """The organizer (organizer token, or the organizer's account).
        Records the game's result as it stands now (its own scoring and tie-breaks on the
        current state, resigned seats last) as the table's result, ``adjudicated: true``; the last open
        table closes the round. 422 ``wrong_game``; 409 ``game_already_decided``, ``tournament_complete``,
        ``tournament_terminated``."""
        return await tournament_service.adjudicate(tournament_id, data.game_id)

    @get(
        "/{tournament_id:str}/registration",
        operation_id="getTournamentRegistration",
        summary="An account tournament's registration",
    )
    async def registration(
        self, tournament_service: NamedDependency[TournamentService], tournament_id: FromPath[str]
    ) -> Registration:
        """Its entries (``invited``, ``joined``, ``declined``) and status (``registering`` until the first
        round is seated, then ``started``)."""
        return await tournament_service.registration(tournament_id)

    @post(
        "/{tournament_id:str}/join",
        operation_id="joinTournament",
        summary="Register (accept an invitation, or join an open tournament)",
        status_code=200,
    )
    async def join(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Registration:
        """Account token. 403 ``not_invited`` for a tournament that is not open; 409 ``already_registered``,
        ``registration_closed``."""
        return await tournament_service.join(tournament_id, bearer_token(request))

    @post(
        "/{tournament_id:str}/decline",
        operation_id="declineTournament",
        summary="Decline an invitation",
        status_code=200,
    )
    async def decline(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Registration:
        """Account token; 409 ``not_invited`` without an open invitation."""
        return await tournament_service.decline(tournament_id, bearer_token(request))

    @post(
        "/{tournament_id:str}/leave",
        operation_id="leaveTournament",
        summary="Withdraw a registration before the first round",
        status_code=200,
    )
    async def leave(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Registration:
        """Account token; 409 ``not_registered``, ``registration_closed``."""
        return await tournament_service.leave(tournament_id, bearer_token(request))

    @get(
        "/{tournament_id:str}/standings",
        operation_id="getTournamentStandings",
        summary="Standings, best first (JSON or CSV)",
        opt={OFFERS: (JSON, CSV)},
    )
    async def standings(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Response[Any]:
        """Rows ``{rank, name, points, buchholz, firsts, games, byes, withdrawn}``; ``Accept: text/csv`` for
        CSV."""
        rows = await tournament_service.standings(tournament_id)
        if accepts(request, CSV):
            return Response(standings_csv(rows), media_type=CSV)
        return Response(rows)

    @get(
        "/{tournament_id:str}/crosstable",
        operation_id="getTournamentCrosstable",
        summary="The crosstable: standings with every round's place and points (JSON or CSV)",
        opt={OFFERS: (JSON, CSV)},
    )
    async def crosstable(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
        download: Annotated[Literal["csv", "json"] | None, QueryParameter()] = None,
    ) -> Response[Any]:
        """``{format: "bazaar-games/crosstable", format_version: 1, name, game, status, rounds, rounds_seated,
        players}``: the standings' rows, best first, each with ``rounds``, one cell per seated round
        ``{round, kind (game/bye/playing/absent), table, place, size, score, points, opponents, game_id,
        adjudicated}``. ``Accept: text/csv`` gives one line per player; ``download=csv`` or ``download=json``
        (a link has no ``Accept``) gives that form as a file to save (``Content-Disposition: attachment``)."""
        table = await tournament_service.crosstable(tournament_id)
        as_csv = download == "csv" or (download is None and accepts(request, CSV))
        headers = {}
        if download is not None:
            headers["Content-Disposition"] = f'attachment; filename="crosstable-{tournament_id}.{download}"'
        if as_csv:
            return Response(crosstable_csv(table), media_type=CSV, headers=headers)
        return Response(table, media_type=JSON, headers=headers)

    @get(
        "/{tournament_id:str}/results",
        operation_id="getTournamentResults",
        summary="One row per finished game (JSON or NDJSON)",
        opt={OFFERS: (JSON, NDJSON)},
    )
    async def results(
        self,
        request: Request[Any, Any, Any],
        tournament_service: NamedDependency[TournamentService],
        tournament_id: FromPath[str],
    ) -> Response[Any]:
        """Rows ``{round, table, game_id, seats: [{seat, name, score, rank}], audit_head, adjudicated}``;
        ``Accept: application/x-ndjson`` for one JSON line per game."""
        rows = await tournament_service.results(tournament_id)
        if accepts(request, NDJSON):
            return Response(ndjson(rows), media_type=NDJSON)
        return Response(rows)
