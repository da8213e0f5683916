"""B-2, B-4, B-9: the house component data is validated at load, so another edition can be dropped in."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from domain.basari.components import (
    COLOURS,
    COMPONENTS,
    PALETTE,
    ComponentDataError,
    Gems,
    validate_components,
)
from domain.data import load_component_data


def raw() -> Any:
    """A fresh copy of the house data."""
    return copy.deepcopy(load_component_data("basari"))


def test_house_edition_is_valid_b2_b4() -> None:
    """B-4: 39 bazaar cards of 1-4 workers, 4-7 points and 2-4 gems; B-2: 22 gems a colour."""
    components = validate_components(raw())
    assert len(components.cards) == 39
    assert len(set(components.card_ids())) == 39
    assert all(1 <= card.workers <= 4 for card in components.cards)
    assert all(4 <= card.points <= 7 for card in components.cards)
    assert all(2 <= sum(card.gems.counts()) <= 4 for card in components.cards)
    assert components.gems_per_colour == 22
    assert components.starting_gems_per_colour == 3
    assert components == COMPONENTS


def test_majority_points_follow_the_value_order_b9() -> None:
    """B-9: red 14, yellow 12, green 10, blue 8; 12 for the workers bonus, 2 gems back on a tie."""
    points = COMPONENTS.majority_points
    assert (points.red, points.yellow, points.green, points.blue) == (14, 12, 10, 8)
    assert COMPONENTS.workers_bonus == 12
    assert COMPONENTS.tie_return == 2
    assert COLOURS == ("red", "yellow", "green", "blue")


def _drop_card(data: Any) -> None:
    data["bazaar_cards"].pop()


def _five_workers(data: Any) -> None:
    data["bazaar_cards"][0]["workers"] = 5


def _three_points(data: Any) -> None:
    data["bazaar_cards"][0]["points"] = 3


def _one_gem(data: Any) -> None:
    data["bazaar_cards"][0]["gems"] = {"red": 1, "yellow": 0, "green": 0, "blue": 0}


def _five_gems(data: Any) -> None:
    data["bazaar_cards"][0]["gems"] = {"red": 2, "yellow": 2, "green": 1, "blue": 0}


def _purple_gem(data: Any) -> None:
    data["bazaar_cards"][0]["gems"]["purple"] = 1


def _negative_gem(data: Any) -> None:
    data["bazaar_cards"][0]["gems"] = {"red": 3, "yellow": -1, "green": 0, "blue": 0}


def _duplicate_id(data: Any) -> None:
    data["bazaar_cards"][1]["id"] = data["bazaar_cards"][0]["id"]


def _gems_per_colour(data: Any) -> None:
    data["gems_per_colour"] = 21


def _colour_order(data: Any) -> None:
    data["colours_by_value"] = ["yellow", "red", "green", "blue"]


def _points_against_value(data: Any) -> None:
    data["majority_points"]["blue"] = 16


def _missing_colour_points(data: Any) -> None:
    del data["majority_points"]["green"]


def _text_workers(data: Any) -> None:
    data["bazaar_cards"][0]["workers"] = "2"


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (_drop_card, "length >= 39 - at `$.bazaar_cards`"),
        (_five_workers, "<= 4 - at `$.bazaar_cards[0].workers`"),
        (_three_points, ">= 4 - at `$.bazaar_cards[0].points`"),
        (_one_gem, "2-4 gems, found 1"),
        (_five_gems, "2-4 gems, found 5"),
        (_purple_gem, "unknown field `purple`"),
        (_negative_gem, ">= 0 - at `$.bazaar_cards[0].gems.yellow`"),
        (_duplicate_id, "unique"),
        (_gems_per_colour, "`$.gems_per_colour`"),
        (_colour_order, "`$.colours_by_value[0]`"),
        (_points_against_value, "fall with the colour's value"),
        (_missing_colour_points, "missing required field `green` - at `$.majority_points`"),
        (_text_workers, "Expected `int`, got `str`"),
    ],
)
def test_an_edition_that_breaks_the_rulebook_is_refused_b2_b4(
    breakage: Callable[[Any], None], message: str
) -> None:
    """B-2, B-4, B-9: a broken edition raises ComponentDataError naming what is wrong."""
    data = raw()
    breakage(data)
    with pytest.raises(ComponentDataError, match="basari component data") as error:
        validate_components(data)
    assert message in str(error.value)


def test_gems_are_counted_per_colour_in_value_order_b2() -> None:
    """B-2: the named gems of the wire and the counts a state holds are the same handful, in value order."""
    hand = Gems(red=1, blue=3)
    assert hand.counts() == (1, 0, 0, 3) == PALETTE.of({"red": 1, "blue": 3})
    assert Gems.of(hand.counts()) == hand
    assert PALETTE.colours == COLOURS == ("red", "yellow", "green", "blue")
