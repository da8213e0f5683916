"""The shared arithmetic of coloured-piece counts (``domain/counts.py``) and a palette's named forms."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.counts import Palette, at_most, covers, minus, non_negative, plus

PALETTE = Palette(("red", "yellow", "green", "blue"))
handfuls = st.tuples(*[st.integers(min_value=0, max_value=30)] * 4)


@given(handfuls, handfuls)
def test_plus_then_minus_gives_back_the_first_handful(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    together = plus(a, b)
    assert sum(together) == sum(a) + sum(b)
    assert minus(together, b) == a
    assert covers(together, a) and covers(together, b)


@given(handfuls, handfuls)
def test_covers_is_every_colour_at_least(have: tuple[int, ...], need: tuple[int, ...]) -> None:
    assert covers(have, need) == all(h >= n for h, n in zip(have, need, strict=True))
    assert non_negative(minus(have, need)) == covers(have, need)


@given(handfuls, handfuls)
def test_at_most_is_what_a_supply_can_give(wanted: tuple[int, ...], supply: tuple[int, ...]) -> None:
    got = at_most(wanted, supply)
    assert covers(supply, got) and covers(wanted, got)
    assert got == wanted or not covers(supply, wanted)


def test_non_negative_refuses_negative_and_non_whole_counts() -> None:
    assert non_negative((0, 1, 2, 3))
    assert not non_negative((0, -1, 2, 3))
    assert not non_negative((0, 1.5, 2, 3))  # type: ignore[arg-type]


@given(handfuls)
def test_a_palette_names_counts_and_reads_them_back(counts: tuple[int, ...]) -> None:
    assert PALETTE.of(PALETTE.full(counts)) == counts
    assert PALETTE.of(PALETTE.named(counts)) == counts
    assert list(PALETTE.full(counts)) == ["red", "yellow", "green", "blue"]
    assert all(PALETTE.named(counts).values())


def test_a_palette_knows_one_piece_and_none() -> None:
    assert PALETTE.one("green") == (0, 0, 1, 0)
    assert PALETTE.one("purple") == PALETTE.none == (0, 0, 0, 0)
    assert PALETTE.of({"blue": 2, "purple": 5}) == (0, 0, 0, 2)
