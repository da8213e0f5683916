"""Seating: round 1 at random from the seed, later rounds Swiss-style avoiding repeats; game seeds."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

from domain.core import Rng
from domain.tournament import RoundSeated, SeatNextRound, game_seed, meetings
from domain.tournament.seating import seat_first_round, seat_swiss
from tests.unit.tournament.scenario import Run, create


def pairs_met_twice(run: Run) -> int:
    """How many extra meetings the seated rounds hold (a pair meeting k times counts k - 1)."""
    return sum(count - 1 for count in meetings(run.state).values() if count > 1)


def test_round_one_is_seeded_random() -> None:
    def first_round(seed: str) -> tuple[tuple[str, ...], ...]:
        run = Run(create(12, seed=seed))
        run.seat()
        return tuple(table.players for table in run.state.rounds[0].tables)

    assert first_round("a") == first_round("a")
    assert first_round("a") != first_round("b")
    assert sorted(itertools.chain(*first_round("a"))) == sorted(Run(create(12)).state.players)


def test_round_one_draws_from_the_rng_by_fisher_yates() -> None:
    players = ["A", "B", "C", "D", "E", "F", "G"]
    tables = seat_first_round(players, [4, 3], Rng("s", "round-1"))
    shuffled = Rng("s", "round-1").shuffle(players)
    assert tables == [tuple(shuffled[:4]), tuple(shuffled[4:])]


def test_every_round_seats_everybody_once_at_the_fixed_table_sizes() -> None:
    run = Run(create(11, rounds=4))
    rng = Rng("results", "x")
    for _ in range(4):
        number = run.play_round(rng)
        tables = run.state.rounds[number - 1].tables
        assert tuple(len(t.players) for t in tables) == (4, 4, 3)
        assert sorted(itertools.chain(*(t.players for t in tables))) == sorted(run.state.players)


def test_nine_players_at_tables_of_three_never_meet_twice_in_four_rounds() -> None:
    # 9 players in triples admit four rounds without a repeat (the affine plane of order 3)
    for seed in ("a", "b", "c", "d"):
        run = Run(create(9, rounds=4, min_players=3, max_players=3, seed=seed))
        rng = Rng(seed, "results")
        for _ in range(4):
            run.play_round(rng)
        assert pairs_met_twice(run) == 0, seed
        assert set(meetings(run.state).values()) == {1}
        assert len(meetings(run.state)) == 36  # every pair met exactly once


def partitions(players: list[str], sizes: list[int]) -> Iterator[list[tuple[str, ...]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (tables of equal size unordered)."""
    seen: set[frozenset[frozenset[str]]] = set()

    def fill(rest: list[str], todo: list[int]) -> Iterator[list[tuple[str, ...]]]:
        if not todo:
            yield []
            return
        first, others = rest[0], rest[1:]
        for combo in itertools.combinations(others, todo[0] - 1):
            remaining = [p for p in others if p not in combo]
            for tail in fill(remaining, todo[1:]):
                yield [(first, *combo), *tail]

    for order in set(itertools.permutations(sizes)):
        for seating in fill(players, list(order)):
            key = frozenset(frozenset(table) for table in seating)
            if key not in seen:
                seen.add(key)
                yield seating


def repeat_cost(tables: list[tuple[str, ...]], met: Counter[frozenset[str]]) -> int:
    """The seating rule's measure of repeats: k * k for a pair that met k times before."""
    return sum(met[frozenset(pair)] ** 2 for table in tables for pair in itertools.combinations(table, 2))


def test_eleven_basari_players_get_the_fewest_repeats_possible_each_round() -> None:
    # 4 + 4 + 3: from round 2 some repeats are unavoidable (a table of 4 draws on only 3 earlier tables);
    # each round's seating has the fewest any of the 5775 possible seatings with the same table of 3 could have
    # (fair seating chooses who sits at the table of 3: test_fair_seating.py)
    every = list(partitions([f"P{i:02d}" for i in range(1, 12)], [4, 4, 3]))
    assert len(every) == 5775
    for seed in ("a", "b"):
        run = Run(create(11, rounds=3, seed=seed))
        rng = Rng(seed, "results")
        run.play_round(rng)
        for number in (2, 3):
            before = meetings(run.state)
            run.play_round(rng)
            seated = [t.players for t in run.state.rounds[number - 1].tables]
            small = set(seated[-1])
            fair = [p for p in every if any(len(t) == 3 and set(t) == small for t in p)]
            assert repeat_cost(seated, before) == min(repeat_cost(p, before) for p in fair), (seed, number)
        assert max(meetings(run.state).values()) == 2  # nobody meets anybody a third time in 3 rounds


def test_swiss_fills_tables_from_the_standings_down() -> None:
    # no earlier meetings: the top of the standings sits together at table 1, and so on down
    order = [f"P{i:02d}" for i in range(1, 13)]
    tables = seat_swiss(order, [4, 4, 4], {}, Rng("s", "x"))
    assert [sorted(t) for t in tables] == [order[0:4], order[4:8], order[8:12]]


def test_swiss_skips_an_opponent_already_met() -> None:
    order = ["A", "B", "C", "D", "E", "F"]
    met = {frozenset(("A", "B")): 1}
    tables = seat_swiss(order, [3, 3], met, Rng("s", "x"))
    assert sorted(tables[0]) == ["A", "C", "D"]  # B drops to the second table
    assert sorted(tables[1]) == ["B", "E", "F"]


def test_later_rounds_seat_by_the_standings() -> None:
    run = Run(create(8, rounds=2, min_players=2, max_players=4))
    run.seat()
    # table 1 and table 2 each: a clear winner, second, third, fourth
    for table in (1, 2):
        run.report(1, table, [1, 2, 3, 4])
    run.seat()
    leaders = {t.players[0] for t in run.state.rounds[0].tables}
    seated_first = set(run.state.rounds[1].tables[0].players)
    winners_and_seconds = {t.players[i] for t in run.state.rounds[0].tables for i in (0, 1)}
    assert leaders <= seated_first
    # each winner has met their table's second: the seconds of the *other* table join them
    assert seated_first == winners_and_seconds
    assert len(seated_first & set(run.state.rounds[0].tables[0].players)) == 2


def test_a_single_table_tournament_reseats_the_same_players() -> None:
    run = Run(create(4, rounds=3, min_players=2, max_players=4))
    rng = Rng("r", "x")
    for _ in range(3):
        run.play_round(rng)
    assert run.state.completed
    assert all(sorted(r.tables[0].players) == sorted(run.state.players) for r in run.state.rounds)


def test_seating_is_reproducible_from_the_tournament_seed() -> None:
    def history(seed: str) -> list[tuple[tuple[str, ...], ...]]:
        run = Run(create(13, rounds=3, seed=seed))
        rng = Rng("results", "x")
        for _ in range(3):
            run.play_round(rng)
        return [tuple(t.players for t in r.tables) for r in run.state.rounds]

    assert history("s") == history("s")


def test_game_seeds_differ_per_table_and_round() -> None:
    run = Run(create(15, rounds=2))
    rng = Rng("r", "x")
    run.play_round(rng)
    run.play_round(rng)
    seeds = [t.seed for r in run.state.rounds for t in r.tables]
    assert len(set(seeds)) == len(seeds) == 6
    assert run.state.rounds[1].tables[2].seed == game_seed("tournament-seed", 2, 3)


def test_duplicate_seeds_are_equal_within_a_round_and_differ_across_rounds() -> None:
    run = Run(create(15, rounds=3, duplicate=True))
    rng = Rng("r", "x")
    for _ in range(3):
        run.play_round(rng)
    per_round = [{t.seed for t in r.tables} for r in run.state.rounds]
    assert all(len(seeds) == 1 for seeds in per_round)
    assert len(set().union(*per_round)) == 3
    assert per_round[0] == {game_seed("tournament-seed", 1, None)}


def test_game_seed_is_block_zero_of_the_documented_generator() -> None:
    words = Rng("seed", "game-r2-t3")
    expected = "".join(f"{words.below(2**64):016x}" for _ in range(4))
    # below(2**64) never rejects, so it reads the raw words: block 0 of SHA-256 counter mode
    assert game_seed("seed", 2, 3) == expected


def test_round_seated_carries_tables_with_seats_and_seeds() -> None:
    run = Run(create(10))
    events = run.apply(SeatNextRound())
    assert len(events) == 1 and isinstance(events[0], RoundSeated)
    assert [t.table for t in events[0].tables] == [1, 2]
    assert all(len(t.players) == 5 and len(t.seed) == 64 for t in events[0].tables)
