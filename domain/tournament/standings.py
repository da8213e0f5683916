"""Tournament read models: pairwise points, the standings with their tie-breaks, and the results rows.

Points (exact, counted internally in half-points): at every finished table a player earns 1 point for each
opponent ranked below them and 1/2 for each opponent of equal rank (the game's own tie-breaks have already
decided the ranks). Standings order: points, then Buchholz (the points of every opponent met, counted once per
game played together), then first places (rank 1, shared firsts included); players equal on all three share a
rank. A bye (a round that could not seat the player, see ``rules.round_tables``) is worth half the points of
the round's largest table, (size - 1) / 2: the average a player earns there, as if tying with every
opponent; it is no game (``games`` and first places unchanged, no opponent for Buchholz). A late entry earns
nothing for the rounds before it; a withdrawn player keeps what they earned (``withdrawn`` marks them). An
adjudicated game counts as a finished one. In duplicate mode each player's ``relative_score`` is the sum over
rounds of their game score minus the average score of every player at every table of that round that has
finished so far.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import msgspec

from domain.tournament.state import State, TableState

__all__ = [
    "ResultRow",
    "ResultSeat",
    "StandingRow",
    "Tally",
    "finished_tables",
    "pairwise_halves",
    "result_row",
    "results",
    "standings",
    "tallies",
]


class StandingRow(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One line of the standings, best first; ``relative_score`` only in duplicate mode."""

    rank: int
    name: str
    points: float
    buchholz: float
    firsts: int
    games: int
    byes: int
    withdrawn: bool
    relative_score: float | None = None


class ResultSeat(msgspec.Struct, frozen=True, kw_only=True):
    """One seat of a finished game: seat number (from 0), player, game score and rank (1 is best)."""

    seat: int
    name: str
    score: int
    rank: int


class ResultRow(msgspec.Struct, frozen=True, kw_only=True):
    """One finished game of the tournament, with its audit head hash."""

    round: int
    table: int
    game_id: str
    seats: tuple[ResultSeat, ...]
    audit_head: str  # the game's head when its result was recorded
    adjudicated: bool = False  # decided by the organizer from the game as it stood (not played out)


class Tally(msgspec.Struct, frozen=True, kw_only=True):
    """A player's exact totals: half-points, Buchholz in half-points, firsts, games, byes, relative score."""

    name: str
    halves: int = 0
    buchholz_halves: int = 0
    firsts: int = 0
    games: int = 0
    byes: int = 0
    relative: Fraction = Fraction(0)

    def key(self) -> tuple[int, int, int]:
        """The standings order (smaller sorts first): points, Buchholz, first places, all descending."""
        return (-self.halves, -self.buchholz_halves, -self.firsts)


def pairwise_halves(ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Pairwise points in halves per seat: 2 for each opponent ranked below, 1 for each equal rank."""
    return tuple(
        sum(2 if mine < theirs else 1 if mine == theirs else 0 for j, theirs in enumerate(ranks) if j != i)
        for i, mine in enumerate(ranks)
    )


def finished_tables(state: State) -> Iterator[tuple[int, TableState]]:
    """Every table with an outcome, as (round, table), by round then table; in duplicate mode a round's
    tables count once every one of them has its outcome (or the tournament was terminated): they share one
    deal, so a table's score before then would tell the tables still playing it what it holds (B-12, Z-15,
    J-18)."""
    for rnd in state.rounds:
        if state.duplicate and not state.terminated and any(t.outcome is None for t in rnd.tables):
            continue
        for table in rnd.tables:
            if table.outcome is not None:
                yield rnd.round, table


def bye_halves(size: int) -> int:
    """A bye's points in halves: half of what a player can earn at a table of ``size``, (size - 1) / 2."""
    return size - 1


def tallies(state: State) -> dict[str, Tally]:
    """Every player's exact totals from the finished games and byes (players in registration order)."""
    halves = dict.fromkeys(state.players, 0)
    byes = dict.fromkeys(state.players, 0)
    for seated in state.rounds:
        largest = max((len(table.players) for table in seated.tables), default=0)
        for name in seated.byes:
            halves[name] += bye_halves(largest)
            byes[name] += 1
    firsts = dict.fromkeys(state.players, 0)
    games = dict.fromkeys(state.players, 0)
    relative = dict.fromkeys(state.players, Fraction(0))
    opponents: dict[str, list[str]] = {name: [] for name in state.players}
    by_round: dict[int, list[tuple[str, int]]] = {}
    for rnd, table in finished_tables(state):
        assert table.outcome is not None
        earned = pairwise_halves(table.outcome.ranks)
        for seat, name in enumerate(table.players):
            halves[name] += earned[seat]
            firsts[name] += table.outcome.ranks[seat] == 1
            games[name] += 1
            opponents[name].extend(other for other in table.players if other != name)
            by_round.setdefault(rnd, []).append((name, table.outcome.scores[seat]))
    if state.duplicate:
        for seats in by_round.values():
            average = Fraction(sum(score for _, score in seats), len(seats))
            for name, score in seats:
                relative[name] += score - average
    return {
        name: Tally(
            name=name,
            halves=halves[name],
            buchholz_halves=sum(halves[other] for other in opponents[name]),
            firsts=firsts[name],
            games=games[name],
            byes=byes[name],
            relative=relative[name],
        )
        for name in state.players
    }


def standings(state: State) -> list[StandingRow]:
    """The standings, best first: points, Buchholz, first places; equal on all three share a rank."""
    ordered = sorted(tallies(state).values(), key=lambda t: (t.key(), t.name))
    rows: list[StandingRow] = []
    for index, tally in enumerate(ordered):
        shared = index > 0 and tally.key() == ordered[index - 1].key()
        rows.append(
            StandingRow(
                rank=rows[-1].rank if shared else index + 1,
                name=tally.name,
                points=tally.halves / 2,
                buchholz=tally.buchholz_halves / 2,
                firsts=tally.firsts,
                games=tally.games,
                byes=tally.byes,
                withdrawn=tally.name in state.withdrawn,
                relative_score=float(round(tally.relative, 3)) if state.duplicate else None,
            )
        )
    return rows


def results(state: State) -> list[ResultRow]:
    """One row per finished game, by round then table."""
    return [result_row(rnd, table) for rnd, table in finished_tables(state)]


def result_row(rnd: int, table: TableState) -> ResultRow:
    """The result row of a table of round ``rnd`` that has its outcome."""
    assert table.outcome is not None and table.game_id is not None
    seats = tuple(
        ResultSeat(seat=seat, name=name, score=table.outcome.scores[seat], rank=table.outcome.ranks[seat])
        for seat, name in enumerate(table.players)
    )
    return ResultRow(
        round=rnd,
        table=table.table,
        game_id=table.game_id,
        seats=seats,
        audit_head=table.outcome.audit_head,
        adjudicated=table.outcome.adjudicated,
    )
