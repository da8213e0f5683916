"""Tournaments as a pure decider: an event stream of their own, standings and results read from it.

``TOURNAMENT`` has the spirit of a game's surface without being one (no seats, no view per seat)::

    state  = fold of TOURNAMENT.evolve over the stream's events, from TOURNAMENT.initial()
    events = TOURNAMENT.decide(state, command, rng)     # raises Rejected(code), never mutates
    state' = TOURNAMENT.evolve(state, event)            # never validates, never fails, never mutates

Every ruling is ``decide``'s: the service only gathers the facts a decision needs from outside the
tournament's stream (a game's result as it stands, whether the game finished by itself or by adjudication)
into the command, so replaying a tournament's commands on its events re-decides it the same way, and every
rule is tested on the decider alone (tests/unit/tournament/).

Service flow (each ``decide`` on the freshly loaded state; append its events with the loaded version as
``expected_version``, so a concurrent organizer request gets a conflict and nothing is written):

1. Create (POST /v1/tournaments). Look the game up, validate and normalize its ``options`` with the game's
   ``options_type``, then ``decide(initial(), CreateTournament(name, game, players=(names...), rounds,
   min_players=game.min_players, max_players=game.max_players, table_size, options=<builtins dict>,
   duplicate, seed=request.seed or new_seed()), Rng(<any seed>, "create"))`` -> ``[TournamentCreated]``
   (the Rng is only drawn from when ``seed`` is None). Refusals: bad_tournament_name, bad_game,
   bad_player_limits, bad_player_name, duplicate_player_name, bad_player_count, bad_rounds, bad_table_size,
   impossible_table_split, duplicate_needs_equal_tables, bad_seed.
2. Seat a round (POST /v1/tournaments/{id}/rounds), in two appends:
   a. ``decide(state, SeatNextRound(), rng)`` -> ``[RoundSeated(round, tables, byes)]``: who sits out,
      who sits at which table and in which seat, every draw from ``seating_rng(state)`` (the Rng handed in
      is not used); each ``SeatedTable`` has ``table`` (from 1), ``players`` in seat order (seat 0 first)
      and the game ``seed``.
      Refusals: round_in_progress (the current round has unfinished or uncreated games),
      tournament_complete. Append it: this claims the round, so only one request creates games.
   b. Create one game per table, in table order: ``{game, players: [{name} in seat order], seed: table.seed,
      options: state.options}``, tagged with the tournament id; then ``decide(state', AttachGames(round,
      game_ids=(ids in table order)), rng)`` -> ``[GamesCreated]``. Refusals: unknown_round,
      games_already_created, wrong_game_count, bad_game_ids.
   Recovery: if a crash fell between (a) and (b), ``awaiting_games(state)`` returns the seated round whose
   games are missing; the next POST should create them and attach instead of seating anew (status
   "seating"). The response body is ``round_view(state.rounds[-1])`` (``{round, closed, tables: [{table,
   game_id, seats: [{seat, name}], finished}]}``).
3. Record a finished game (when a tournament game ends): ``(round, table) = table_of_game(state, game_id)``
   (None: no game of this tournament), then ``decide(state, RecordGame(round, table, game_id,
   ranks=result.ranks, scores=result.scores, audit_head=<hash of the game's last event>,
   adjudicated=<the game was ended by adjudication>), rng)`` -> ``[GameFinished]``, plus ``RoundClosed``
   when it was the round's last game, plus ``TournamentCompleted`` after the last round. Refusals:
   reported_by_adjudication (the organizer's adjudication records that game), unknown_round,
   unknown_table, duplicate_report, wrong_game, wrong_seat_count, bad_ranks. ``duplicate_report`` also
   answers a redelivered report: treat it as done, like reported_by_adjudication.
4. Administer (the organizer's requests, each decided on the loaded state like the rest):
   ``WithdrawPlayer(name)`` -> ``[PlayerWithdrawn]`` (refusals: unknown_player, already_withdrawn; later rounds
   skip the player; the service resigns the seats ``forfeited_seats(state)`` names: theirs in a running
   game of the current round);
   ``EnterPlayer(name)`` -> ``[PlayerEntered]`` (bad_player_name, duplicate_player_name, no_rounds_left,
   too_many_players); ``TerminateTournament()`` -> ``[TournamentTerminated]``; ``AdjudicateGame(round, table,
   game_id, ranks, scores, audit_head, played_out)`` for the table ``table_of_game`` finds, with the game's
   ``result`` as it stands and whether it finished by itself -> ``[GameAdjudicated]`` plus
   ``RoundClosed``/``TournamentCompleted`` as for a report (game_already_decided for a game played out or
   a table with its result, and the report's refusals).
   Every command but the creation and seating is refused once the tournament is over: tournament_complete,
   tournament_terminated. Seating after a withdrawal or entry splits the active players anew and gives byes
   when they cannot be split (``round_tables``; too_few_players when not one table can be seated).
5. Read: ``standings(state)`` (rows ``{rank, name, points, buchholz, firsts, games, byes, withdrawn}`` +
   ``relative_score`` in duplicate mode, best first), ``results(state)`` (one row per finished or adjudicated
   game, by round then table),
   ``overview(state)`` (GET /v1/tournaments/{id}: status, rounds, tables and games, no seeds).

Secrets the service must redact from the tournament's events: ``TournamentCreated.seed`` until the tournament
is completed, and each ``SeatedTable.seed`` until its round is closed (``RoundClosed``) — and in both cases
until every game concerned is over: an adjudicated game, or one still running at termination, may go on
after its round closed; the games themselves reveal their seeds when they end, as usual. ``Rejected.rule`` is
None for every tournament refusal: they are organizer errors, not game rules (the service answers 409 for a
request the tournament's state refuses now, 422 otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from domain.core import Command, Event, Rng
from domain.tournament import evolve, rules
from domain.tournament.commands import (
    AdjudicateGame,
    AttachGames,
    CreateTournament,
    EnterPlayer,
    RecordGame,
    SeatNextRound,
    TerminateTournament,
    TournamentCommand,
    WithdrawPlayer,
)
from domain.tournament.crosstable import Crosstable, CrosstableCell, CrosstableRow, crosstable
from domain.tournament.events import (
    EVENT_TYPE,
    GameAdjudicated,
    GameFinished,
    GamesCreated,
    PlayerEntered,
    PlayerWithdrawn,
    RoundClosed,
    RoundSeated,
    SeatedTable,
    TournamentCompleted,
    TournamentCreated,
    TournamentEvent,
    TournamentTerminated,
)
from domain.tournament.rules import (
    bye_counts,
    forfeited_seats,
    meetings,
    round_tables,
    seating_rng,
    small_table_sittings,
    table_of_game,
)
from domain.tournament.seating import game_seed, split_tables
from domain.tournament.standings import ResultRow, ResultSeat, StandingRow, bye_halves, results, standings
from domain.tournament.state import Outcome, RoundState, State, TableState
from domain.tournament.view import (
    RoundView,
    SeatView,
    TableView,
    TournamentView,
    awaiting_games,
    overview,
    round_view,
    status,
)

__all__ = [
    "COMMAND_TYPE",
    "EVENT_TYPE",
    "TOURNAMENT",
    "AdjudicateGame",
    "AttachGames",
    "CreateTournament",
    "Crosstable",
    "CrosstableCell",
    "CrosstableRow",
    "EnterPlayer",
    "GameAdjudicated",
    "GameFinished",
    "GamesCreated",
    "Outcome",
    "PlayerEntered",
    "PlayerWithdrawn",
    "RecordGame",
    "ResultRow",
    "ResultSeat",
    "RoundClosed",
    "RoundSeated",
    "RoundState",
    "RoundView",
    "SeatNextRound",
    "SeatView",
    "SeatedTable",
    "StandingRow",
    "State",
    "TableState",
    "TableView",
    "TerminateTournament",
    "Tournament",
    "TournamentCommand",
    "TournamentCompleted",
    "TournamentCreated",
    "TournamentEvent",
    "TournamentTerminated",
    "TournamentView",
    "WithdrawPlayer",
    "awaiting_games",
    "bye_counts",
    "bye_halves",
    "crosstable",
    "forfeited_seats",
    "game_seed",
    "meetings",
    "overview",
    "results",
    "round_tables",
    "round_view",
    "seating_rng",
    "small_table_sittings",
    "split_tables",
    "standings",
    "status",
    "table_of_game",
]

COMMAND_TYPE: Any = TournamentCommand


@dataclass(frozen=True, kw_only=True)
class Tournament:
    """The tournament decider declared for the service: its types, initial, decide, evolve and read models."""

    name: str
    command_type: Any
    event_type: Any
    initial: Callable[[], State]
    decide: Callable[[State, Command, Rng], list[Event]]
    evolve: Callable[[State, Event], State]
    standings: Callable[[State], list[StandingRow]]  # best first
    results: Callable[[State], list[ResultRow]]  # one row per finished game, by round then table
    overview: Callable[[State], TournamentView]  # status, rounds, tables and their games
    crosstable: Callable[[State], Crosstable]  # the standings with every player's round by round


TOURNAMENT: Final = Tournament(
    name="tournament",
    command_type=TournamentCommand,
    event_type=TournamentEvent,
    initial=State,
    decide=rules.decide,
    evolve=evolve.evolve,
    standings=standings,
    results=results,
    overview=overview,
    crosstable=crosstable,
)
