"""Table sizes: every table within the game's range, summing to the field, closest to the preferred size."""

from __future__ import annotations

from functools import cache

import pytest

from domain.core import Rejected
from domain.tournament import split_tables

# (min, max) of Basari (3-5), Bazaar (2-6), Johari (2-4), and a 1-6 game; every preferred size in range
COMBOS = [
    (lo, hi, preferred) for lo, hi in [(3, 5), (2, 6), (2, 4), (1, 6)] for preferred in range(lo, hi + 1)
]


@cache
def least_difference(n: int, lo: int, hi: int, preferred: int) -> int | None:
    """Brute force over every multiset of sizes: the least total difference from ``preferred`` (or None)."""

    def best(remaining: int, largest: int) -> int | None:
        if remaining == 0:
            return 0
        found: int | None = None
        for size in range(min(largest, remaining), lo - 1, -1):
            rest = best(remaining - size, size)
            if rest is not None and (found is None or rest + abs(size - preferred) < found):
                found = rest + abs(size - preferred)
        return found

    return best(n, hi)


@pytest.mark.parametrize(("lo", "hi", "preferred"), COMBOS)
def test_every_field_size_from_the_minimum_to_forty(lo: int, hi: int, preferred: int) -> None:
    for n in range(lo, 41):
        optimum = least_difference(n, lo, hi, preferred)
        if optimum is None:
            with pytest.raises(Rejected) as refusal:
                split_tables(n, lo, hi, preferred)
            assert refusal.value.code == "impossible_table_split"
            continue
        sizes = split_tables(n, lo, hi, preferred)
        assert sum(sizes) == n
        assert all(lo <= size <= hi for size in sizes), (n, sizes)
        assert sizes == sorted(sizes, reverse=True)
        assert max(sizes) - min(sizes) <= 1
        assert sum(abs(size - preferred) for size in sizes) == optimum, (n, sizes)


def test_ten_basari_players_sit_at_two_tables_of_five() -> None:
    assert split_tables(10, 3, 5, 5) == [5, 5]
    assert split_tables(10, 3, 5, 4) == [5, 5]  # 5 + 5 and 4 + 3 + 3 are as close to 4: equal tables win


def test_examples() -> None:
    assert split_tables(11, 3, 5, 5) == [4, 4, 3]
    assert split_tables(13, 3, 5, 4) == [5, 4, 4]
    assert split_tables(12, 2, 4, 4) == [4, 4, 4]
    assert split_tables(9, 2, 6, 4) == [5, 4]
    assert split_tables(1, 1, 6, 6) == [1]


@pytest.mark.parametrize(("n", "lo", "hi"), [(2, 3, 5), (7, 4, 4), (1, 2, 4), (9, 4, 4), (0, 1, 6)])
def test_impossible_splits_are_refused(n: int, lo: int, hi: int) -> None:
    with pytest.raises(Rejected) as refusal:
        split_tables(n, lo, hi, hi)
    assert refusal.value.code == "impossible_table_split"


def test_only_splits_that_exist_are_refused() -> None:
    # a split exists exactly when some table count k has k * min <= n <= k * max
    for lo, hi, preferred in [*COMBOS, (4, 4, 4), (5, 6, 6)]:
        for n in range(1, 41):
            exists = any(k * lo <= n <= k * hi for k in range(1, n + 1))
            try:
                split_tables(n, lo, hi, preferred)
            except Rejected:
                assert not exists, (n, lo, hi)
            else:
                assert exists, (n, lo, hi)


def test_equal_splits_for_duplicate_mode() -> None:
    for lo, hi, preferred in COMBOS:
        for n in range(lo, 41):
            try:
                sizes = split_tables(n, lo, hi, preferred, equal=True)
            except Rejected as refusal:
                assert refusal.code in {"duplicate_needs_equal_tables", "impossible_table_split"}
                assert not any(n % k == 0 and lo <= n // k <= hi for k in range(1, n + 1))
            else:
                assert len(set(sizes)) == 1 and sum(sizes) == n and lo <= sizes[0] <= hi
