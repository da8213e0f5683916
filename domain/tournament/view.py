"""The tournament overview read model: status, rounds, tables and their games, for anybody: no seed before
its time, only the commitments to them (the tournament's seed is revealed once it is completed)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.core import commitment
from domain.tournament.state import RoundState, State

__all__ = [
    "RoundView",
    "SeatView",
    "Status",
    "TableView",
    "TournamentView",
    "awaiting_games",
    "overview",
    "round_view",
    "status",
]

# new: not created; ready: the next round may be seated; seating: a round is seated but its games are not
# created yet; playing: games of the current round are running; completed: the last round closed;
# terminated: the organizer ended it early.
Status = Literal["new", "ready", "seating", "playing", "completed", "terminated"]


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """A seat at a table: seat number (from 0, the game's seat) and player name."""

    seat: int
    name: str


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    """A table of a round: its game (null until created), seats, whether its game has a result, whether
    that result was adjudicated by the organizer, and the commitment to its game's seed (the game's
    ``seed_commitment``; one per round in duplicate mode)."""

    table: int
    game_id: str | None
    seats: tuple[SeatView, ...]
    finished: bool
    adjudicated: bool
    seed_commitment: str


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    """A seated round, its tables and the players it could not seat (byes)."""

    round: int
    closed: bool
    tables: tuple[TableView, ...]
    byes: tuple[str, ...]


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    """The public face of a tournament: what it is, where it stands, every seated round."""

    name: str
    game: str
    status: Status
    rounds: int
    current_round: int  # 0 before round 1 is seated
    duplicate: bool
    table_sizes: tuple[int, ...]
    players: tuple[str, ...]  # every player ever entered, late entries last
    withdrawn: tuple[str, ...]  # in order of withdrawal
    entered: tuple[str, ...]  # the late entries
    options: dict[str, Any] | None
    clock: dict[str, Any] | None  # the clock of every game (null: untimed)
    schedule: tuple[RoundView, ...]
    seed_commitment: str  # SHA-256 of the tournament's seed, hex: public from creation
    seed: str | None  # the seed itself once the tournament is completed (every seating re-derivable)


def status(state: State) -> Status:
    """Where the tournament stands (see ``Status``)."""
    current = state.current()
    if not state.created:
        return "new"
    if state.completed:
        return "completed"
    if state.terminated:
        return "terminated"
    if current is None or current.closed:
        return "ready"
    return "playing" if current.games_created() else "seating"


def awaiting_games(state: State) -> RoundState | None:
    """The seated round whose games the service has still to create (None if there is none)."""
    current = state.current()
    if current is None or current.closed or current.games_created() or state.terminated:
        return None
    return current


def round_view(rnd: RoundState) -> RoundView:
    """One round as the public sees it (no seeds)."""
    return RoundView(
        round=rnd.round,
        closed=rnd.closed,
        tables=tuple(
            TableView(
                table=table.table,
                game_id=table.game_id,
                seats=tuple(SeatView(seat=seat, name=name) for seat, name in enumerate(table.players)),
                finished=table.outcome is not None,
                adjudicated=table.outcome is not None and table.outcome.adjudicated,
                seed_commitment=commitment(table.seed),
            )
            for table in rnd.tables
        ),
        byes=rnd.byes,
    )


def overview(state: State) -> TournamentView:
    """The tournament as anybody may see it: status, rounds, tables and their games."""
    return TournamentView(
        name=state.name,
        game=state.game,
        status=status(state),
        rounds=state.round_count,
        current_round=len(state.rounds),
        duplicate=state.duplicate,
        table_sizes=state.table_sizes,
        players=state.players,
        withdrawn=state.withdrawn,
        entered=state.entered,
        options=state.options,
        clock=state.clock,
        schedule=tuple(round_view(rnd) for rnd in state.rounds),
        seed_commitment=commitment(state.seed),
        seed=state.seed if state.completed else None,
    )
