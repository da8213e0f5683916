"""The crosstable: every player's line of the standings with what they did in each seated round.

One row per player in standings order (the same rank, points and tie-breaks as ``standings``), and in each
row one cell per seated round, round 1 first: the table they sat at, their place there (``place`` of
``size``), their game score, the pairwise points it earned and their opponents; a bye with its points; a
game still being played (``playing``: no place or score yet, nor for a duplicate round until all its tables
have finished, see ``finished_tables``); or ``absent`` (not seated: withdrawn before it, or entered after).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.tournament.standings import StandingRow, bye_halves, finished_tables, pairwise_halves, standings
from domain.tournament.state import State, TableState
from domain.tournament.view import Status, status

__all__ = ["CROSSTABLE_FORMAT", "Crosstable", "CrosstableCell", "CrosstableRow", "crosstable"]

CROSSTABLE_FORMAT = "bazaar-games/crosstable"
CROSSTABLE_VERSION = 1

CellKind = Literal["game", "bye", "playing", "absent"]


class CrosstableCell(msgspec.Struct, frozen=True, kw_only=True):
    """What one player did in one round: ``game`` (a decided game: table, place of size, score, points,
    opponents, game id, adjudicated), ``bye`` (its points), ``playing`` (seated, not decided yet: table,
    size, opponents, game id) or ``absent``."""

    round: int
    kind: CellKind
    table: int | None = None
    place: int | None = None  # rank at the table, 1 is best; equal places tie
    size: int | None = None  # players at the table
    score: int | None = None  # the game's own score
    points: float | None = None  # pairwise points earned (a bye's worth for a bye)
    opponents: tuple[str, ...] = ()
    game_id: str | None = None
    adjudicated: bool = False


class CrosstableRow(StandingRow, frozen=True, kw_only=True):
    """A player's line: the standings' figures and one cell per seated round."""

    rounds: tuple[CrosstableCell, ...]


class Crosstable(msgspec.Struct, frozen=True, kw_only=True):
    """The tournament's crosstable (``format`` and ``format_version`` name its shape, docs/api.md)."""

    format: str = CROSSTABLE_FORMAT
    format_version: int = CROSSTABLE_VERSION
    name: str
    game: str
    status: Status
    rounds: int  # rounds to play
    rounds_seated: int
    players: tuple[CrosstableRow, ...]


def _seated_cell(rnd: int, table: TableState, seat: int, decided: bool) -> CrosstableCell:
    """The cell of the player in ``seat`` of ``table``: a decided game's place and points, else playing."""
    opponents = tuple(other for i, other in enumerate(table.players) if i != seat)
    if not decided or table.outcome is None:
        return CrosstableCell(
            round=rnd,
            kind="playing",
            table=table.table,
            size=len(table.players),
            opponents=opponents,
            game_id=table.game_id,
        )
    return CrosstableCell(
        round=rnd,
        kind="game",
        table=table.table,
        place=table.outcome.ranks[seat],
        size=len(table.players),
        score=table.outcome.scores[seat],
        points=pairwise_halves(table.outcome.ranks)[seat] / 2,
        opponents=opponents,
        game_id=table.game_id,
        adjudicated=table.outcome.adjudicated,
    )


def crosstable(state: State) -> Crosstable:
    """Every player's standings line with a cell per seated round (no seed: only names, places, scores)."""
    decided = {(rnd, table.table) for rnd, table in finished_tables(state)}
    cells: dict[str, list[CrosstableCell]] = {name: [] for name in state.players}
    for seated in state.rounds:
        largest = max((len(table.players) for table in seated.tables), default=0)
        met: set[str] = set()
        for table in seated.tables:
            for seat, name in enumerate(table.players):
                met.add(name)
                cells[name].append(
                    _seated_cell(seated.round, table, seat, (seated.round, table.table) in decided)
                )
        for name in seated.byes:
            met.add(name)
            cells[name].append(CrosstableCell(round=seated.round, kind="bye", points=bye_halves(largest) / 2))
        for name in state.players:
            if name not in met:
                cells[name].append(CrosstableCell(round=seated.round, kind="absent"))
    rows = tuple(
        CrosstableRow(**msgspec.structs.asdict(row), rounds=tuple(cells[row.name]))
        for row in standings(state)
    )
    return Crosstable(
        name=state.name,
        game=state.game,
        status=status(state),
        rounds=state.round_count,
        rounds_seated=len(state.rounds),
        players=rows,
    )
