"""Fair seating: with unequal tables nobody sits at a smaller table a second time before everyone has
sat at one once; checked after every round for every player count from the minimum to 40, for the table
limits of every game (``domain/tournament/seating.py`` states the rule)."""

from __future__ import annotations

import itertools

import pytest

from domain.core import Rng
from domain.registry import all_games
from domain.tournament import small_table_sittings, split_tables
from domain.tournament.seating import MIN_TABLE
from tests.unit.tournament.scenario import Run, create

LIMITS = sorted({(max(MIN_TABLE, game.min_players), game.max_players) for game in all_games().values()})
CASES = [(low, high, n) for low, high in LIMITS for n in range(low, 41)]


@pytest.mark.parametrize(("low", "high", "count"), CASES)
def test_smaller_tables_go_round_before_anybody_sits_at_one_twice(low: int, high: int, count: int) -> None:
    """After every round the players' smaller-table sittings differ by at most one."""
    sizes = split_tables(count, low, high, high)
    small_seats = sum(size for size in sizes if size < sizes[0])
    # enough rounds for everybody to sit at a smaller table once, and then some (at least three)
    rounds = max(3, min(8, -(-count // small_seats) + 1)) if small_seats else 3
    run = Run(create(count, rounds=rounds, min_players=low, max_players=high, seed=f"fair-{count}"))
    rng = Rng(f"fair-{low}-{high}-{count}", "results")
    for number in range(1, rounds + 1):
        run.play_round(rng)
        sat = small_table_sittings(run.state)
        counts = [sat[name] for name in run.state.players]
        assert max(counts) - min(counts) <= 1, (number, sorted(counts))
        assert sum(counts) == small_seats * number
        seated = sorted(itertools.chain(*(table.players for table in run.state.rounds[-1].tables)))
        assert seated == sorted(run.state.players)
