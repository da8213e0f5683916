"""Points and tie-breaks: pairwise points with ties, Buchholz, first places, shared ranks, duplicate."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.core import Event
from domain.tournament import (
    GameFinished,
    GamesCreated,
    ResultRow,
    ResultSeat,
    RoundSeated,
    SeatedTable,
    StandingRow,
    TournamentCreated,
    results,
    standings,
)
from domain.tournament.standings import pairwise_halves
from tests.unit.tournament.scenario import fold


def opened(
    players: str, sizes: tuple[int, ...], *, rounds: int = 2, duplicate: bool = False
) -> TournamentCreated:
    """A tournament of single-letter players."""
    return TournamentCreated(
        name="Cup",
        game="bazaar",
        players=tuple(players),
        rounds=rounds,
        table_sizes=sizes,
        min_players=2,
        max_players=6,
        duplicate=duplicate,
        seed="s",
    )


def played(
    number: int,
    tables: Sequence[str],
    ranks: Sequence[Sequence[int]],
    scores: Sequence[Sequence[int]] | None = None,
) -> list[Event]:
    """A round seated at ``tables`` (strings of player letters), its games created and finished."""
    seated = tuple(
        SeatedTable(table=i, players=tuple(players), seed=f"seed-{number}")
        for i, players in enumerate(tables, 1)
    )
    events: list[Event] = [
        RoundSeated(round=number, tables=seated),
        GamesCreated(round=number, game_ids=tuple(f"g{number}.{i}" for i in range(1, len(tables) + 1))),
    ]
    for i, table_ranks in enumerate(ranks, 1):
        events.append(
            GameFinished(
                round=number,
                table=i,
                game_id=f"g{number}.{i}",
                ranks=tuple(table_ranks),
                scores=tuple(scores[i - 1]) if scores else tuple(0 for _ in table_ranks),
                audit_head=f"h{number}.{i}",
            )
        )
    return events


def rows(events: Sequence[Event]) -> list[tuple[int, str, float, float, int]]:
    """The standings as (rank, name, points, buchholz, firsts)."""
    return [(r.rank, r.name, r.points, r.buchholz, r.firsts) for r in standings(fold(events))]


def test_a_player_earns_a_point_per_opponent_below_and_a_half_per_tie() -> None:
    assert pairwise_halves((1, 2, 2, 4)) == (6, 3, 3, 0)  # in half-points: 3, 1.5, 1.5, 0
    assert pairwise_halves((1, 1, 1)) == (2, 2, 2)
    assert pairwise_halves((2, 1)) == (0, 2)
    state = fold([opened("ABCD", (4,)), *played(1, ["ABCD"], [[1, 2, 2, 4]])])
    assert [(r.name, r.points) for r in standings(state)] == [("A", 3.0), ("B", 1.5), ("C", 1.5), ("D", 0.0)]


def test_buchholz_breaks_a_tie_on_points() -> None:
    # round 1: A > B > C and D > E > F; round 2: A > D > C and E > B > F
    # points A 4, D 3, E 3, B 2, C 0, F 0; Buchholz sums the points of every opponent of every game:
    # D met E 3, F 0, A 4, C 0 = 7 and E met D 3, F 0, B 2, F 0 = 5, so D ranks above E
    events = [
        opened("ABCDEF", (3, 3)),
        *played(1, ["ABC", "DEF"], [[1, 2, 3], [1, 2, 3]]),
        *played(2, ["ADC", "EBF"], [[1, 2, 3], [1, 2, 3]]),
    ]
    assert rows(events) == [
        (1, "A", 4.0, 5.0, 2),  # B 2 + C 0 + D 3 + C 0
        (2, "D", 3.0, 7.0, 1),
        (3, "E", 3.0, 5.0, 1),
        (4, "B", 2.0, 7.0, 0),  # A 4 + C 0 + E 3 + F 0
        (5, "C", 0.0, 13.0, 0),  # A 4 + B 2 + A 4 + D 3: equal points, C's opponents were stronger
        (6, "F", 0.0, 11.0, 0),  # D 3 + E 3 + E 3 + B 2
    ]


def test_an_opponent_met_twice_counts_twice() -> None:
    events = [
        opened("ABCD", (2, 2)),
        *played(1, ["AB", "CD"], [[1, 2], [1, 2]]),
        *played(2, ["AB", "CD"], [[2, 1], [1, 2]]),
    ]
    # A 1, B 1, C 2, D 0: A met B twice (1 + 1), C met D twice (0 + 0)
    assert rows(events) == [
        (1, "C", 2.0, 0.0, 2),
        (2, "A", 1.0, 2.0, 1),
        (2, "B", 1.0, 2.0, 1),
        (4, "D", 0.0, 4.0, 0),
    ]


def test_first_places_break_a_tie_on_points_and_buchholz_and_equal_players_share_a_rank() -> None:
    # ABCD finish 1-2-3-4; E, F and G share first place ahead of H: E, F, G have 2 points each, as B
    # has, and each table holds 6 points, so Buchholz (6 - own points) is 4 for all four: firsts decide
    events = [
        opened("ABCDEFGH", (4, 4), rounds=1),
        *played(1, ["ABCD", "EFGH"], [[1, 2, 3, 4], [1, 1, 1, 4]]),
    ]
    assert rows(events) == [
        (1, "A", 3.0, 3.0, 1),
        (2, "E", 2.0, 4.0, 1),
        (2, "F", 2.0, 4.0, 1),
        (2, "G", 2.0, 4.0, 1),
        (5, "B", 2.0, 4.0, 0),
        (6, "C", 1.0, 5.0, 0),
        (7, "D", 0.0, 6.0, 0),
        (7, "H", 0.0, 6.0, 0),
    ]


def test_before_any_game_everybody_shares_first_place() -> None:
    state = fold([opened("BCA", (3,))])
    assert [(r.rank, r.name, r.games) for r in standings(state)] == [(1, "A", 0), (1, "B", 0), (1, "C", 0)]


def test_games_counts_finished_games_only() -> None:
    events = [opened("ABCDEF", (3, 3)), *played(1, ["ABC", "DEF"], [[1, 2, 3]])]  # table 2 still playing
    by_name = {r.name: r for r in standings(fold(events))}
    assert [by_name[n].games for n in "ABCDEF"] == [1, 1, 1, 0, 0, 0]


def test_relative_score_compares_with_the_average_of_every_table_of_the_round() -> None:
    # duplicate: both tables play the same deal; round 1 average (10+20+30+15+25+35) / 6 = 22.5,
    # round 2 average (30+30+30+0+0+0) / 6 = 15
    events = [
        opened("ABCDEF", (3, 3), duplicate=True),
        *played(1, ["ABC", "DEF"], [[3, 2, 1], [3, 2, 1]], [[10, 20, 30], [15, 25, 35]]),
        *played(2, ["ADB", "CEF"], [[1, 1, 1], [1, 1, 1]], [[30, 30, 30], [0, 0, 0]]),
    ]
    relative = {r.name: r.relative_score for r in standings(fold(events))}
    assert relative == {
        "A": -12.5 + 15,
        "B": -2.5 + 15,
        "C": 7.5 - 15,
        "D": -7.5 + 15,
        "E": 2.5 - 15,
        "F": 12.5 - 15,
    }


def test_relative_score_is_exact_and_rounded_only_for_display() -> None:
    events = [opened("ABC", (3,), duplicate=True), *played(1, ["ABC"], [[1, 2, 3]], [[1, 0, 0]])]
    relative = {r.name: r.relative_score for r in standings(fold(events))}
    assert relative == {"A": 0.667, "B": -0.333, "C": -0.333}


def test_relative_score_only_in_duplicate_mode() -> None:
    events = [opened("ABC", (3,)), *played(1, ["ABC"], [[1, 2, 3]], [[5, 3, 1]])]
    row = standings(fold(events))[0]
    assert row.relative_score is None
    assert msgspec.json.decode(msgspec.json.encode(row)) == {
        "rank": 1,
        "name": "A",
        "points": 2.0,
        "buchholz": 1.0,
        "firsts": 1,
        "games": 1,
        "byes": 0,
        "withdrawn": False,
    }
    assert isinstance(row, StandingRow)


def test_results_one_row_per_finished_game_by_round_then_table() -> None:
    events = [
        opened("ABCDEF", (3, 3)),
        *played(1, ["ABC", "DEF"], [[1, 2, 3], [2, 1, 1]], [[9, 5, 1], [4, 7, 7]]),
    ]
    # the second round's table 2 finishes before its table 1
    seated = played(2, ["ADE", "BCF"], [[1, 2, 3], [3, 2, 1]])
    events += [seated[0], seated[1], seated[3]]
    assert [(r.round, r.table) for r in results(fold(events))] == [(1, 1), (1, 2), (2, 2)]
    events.append(seated[2])
    rows_ = results(fold(events))
    assert [(r.round, r.table) for r in rows_] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert rows_[1] == ResultRow(
        round=1,
        table=2,
        game_id="g1.2",
        seats=(
            ResultSeat(seat=0, name="D", score=4, rank=2),
            ResultSeat(seat=1, name="E", score=7, rank=1),
            ResultSeat(seat=2, name="F", score=7, rank=1),
        ),
        audit_head="h1.2",
    )


def test_a_duplicate_rounds_finished_table_counts_only_once_every_table_has_finished() -> None:
    """J-18: the tables share one deal, so a finished table's score and rank stay out of the standings and
    results while another table of the round still plays it."""
    opening = [opened("ABCDEF", (3, 3), duplicate=True)]
    one_done = [*opening, *played(1, ["ABC", "DEF"], [[3, 2, 1]], [[10, 20, 30]])]
    assert results(fold(one_done)) == []
    assert {
        r.name: (r.points, r.games, r.relative_score) for r in standings(fold(one_done))
    } == dict.fromkeys("ABCDEF", (0, 0, 0.0))
    both_done = [*opening, *played(1, ["ABC", "DEF"], [[3, 2, 1], [3, 2, 1]], [[10, 20, 30], [15, 25, 35]])]
    assert [row.table for row in results(fold(both_done))] == [1, 2]
