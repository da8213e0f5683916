"""The tournament's ``evolve``: one event folded into a new state (never validates, never fails)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from domain.core import Event
from domain.tournament.events import (
    GameAdjudicated,
    GameFinished,
    GamesCreated,
    PlayerEntered,
    PlayerWithdrawn,
    RoundClosed,
    RoundSeated,
    TournamentCompleted,
    TournamentCreated,
    TournamentTerminated,
)
from domain.tournament.state import Outcome, RoundState, State, TableState

__all__ = ["evolve"]

replace = msgspec.structs.replace


def evolve(state: State, event: Event) -> State:
    """Apply one event (never validates, never fails: an event that matches nothing changes nothing)."""
    match event:
        case TournamentCreated():
            return State(
                created=True,
                name=event.name,
                game=event.game,
                players=event.players,
                round_count=event.rounds,
                table_sizes=event.table_sizes,
                min_players=event.min_players,
                max_players=event.max_players,
                options=event.options,
                duplicate=event.duplicate,
                table_size=event.table_size,
                clock=event.clock,
                seed=event.seed,
            )
        case RoundSeated(round=number, tables=tables):
            seated = RoundState(
                round=number,
                tables=tuple(TableState(table=t.table, players=t.players, seed=t.seed) for t in tables),
                byes=event.byes,
            )
            return replace(state, rounds=(*state.rounds, seated))
        case GamesCreated(round=number, game_ids=game_ids):
            return _with_round(
                state,
                number,
                lambda rnd: replace(
                    rnd,
                    tables=tuple(
                        replace(table, game_id=game_id)
                        for table, game_id in zip(rnd.tables, game_ids, strict=False)
                    )
                    + rnd.tables[len(game_ids) :],
                ),
            )
        case (
            GameFinished(round=number, table=table_number) | GameAdjudicated(round=number, table=table_number)
        ):
            outcome = Outcome(
                ranks=event.ranks,
                scores=event.scores,
                audit_head=event.audit_head,
                adjudicated=isinstance(event, GameAdjudicated),
            )
            return _with_round(
                state,
                number,
                lambda rnd: replace(
                    rnd,
                    tables=tuple(
                        replace(table, game_id=event.game_id, outcome=outcome)
                        if table.table == table_number
                        else table
                        for table in rnd.tables
                    ),
                ),
            )
        case RoundClosed(round=number):
            return _with_round(state, number, lambda rnd: replace(rnd, closed=True))
        case TournamentCompleted():
            return replace(state, completed=True)
        case PlayerWithdrawn(name=name):
            return replace(state, withdrawn=(*state.withdrawn, name))
        case PlayerEntered(name=name):
            return replace(state, players=(*state.players, name), entered=(*state.entered, name))
        case TournamentTerminated():
            return replace(state, terminated=True)
    return state


def _with_round(state: State, number: int, change: Callable[[RoundState], RoundState]) -> State:
    """The state with round ``number`` changed (unchanged if there is no such round)."""
    return replace(state, rounds=tuple(change(rnd) if rnd.round == number else rnd for rnd in state.rounds))
