"""Z-2..Z-5, Z-9: the house component data is validated at load, so another edition can be dropped in."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from domain.bazaar.components import CHOICE, EDITION, PALETTE, ComponentDataError, validate_edition
from domain.data import load_component_data


def raw() -> Any:
    """A fresh copy of the house data."""
    return copy.deepcopy(load_component_data("bazaar"))


def test_house_edition_is_valid_z2_z3_z4_z5() -> None:
    """Z-2..Z-5: ten exchange cards of five equations, 45 wares of five stones, 5 colours of 20, die."""
    edition = validate_edition(raw())
    assert len(edition.exchange_cards) == 10
    assert all(len(eqs) == 5 for eqs in edition.exchange_cards.values())
    assert len(edition.wares) == 45
    assert all(sum(w.stones) == 5 for w in edition.wares.values())
    assert edition.colours == ("red", "blue", "green", "yellow", "white")
    assert edition.stones_per_colour == 20
    assert sorted(edition.die_faces) == sorted([*edition.colours, CHOICE])
    assert edition.hand_limit == 10 and edition.solitaire_turn_limit == 100


def test_exchange_card_1_is_the_rulebooks_z3() -> None:
    """Z-3: card 1 holds the rulebook's example: red = blue+green+yellow+white, and red = 2 white."""
    first, second = EDITION.exchange_cards[1][:2]
    assert PALETTE.named(first.left) == {"red": 1}
    assert PALETTE.named(first.right) == {"blue": 1, "green": 1, "yellow": 1, "white": 1}
    assert PALETTE.named(second.right) == {"white": 2}


def test_score_table_is_the_rulebooks_z9() -> None:
    """Z-9: 3+/2/1/0 stones left: 1/2/3/5, one star 2/3/5/8, two stars 3/5/8/12."""
    assert EDITION.score_table == ((5, 8, 12), (3, 5, 8), (2, 3, 5), (1, 2, 3))


def _drop_card(d: Any) -> None:
    d["exchange_cards"].pop()


def _short_card(d: Any) -> None:
    d["exchange_cards"][3]["equations"].pop()


def _both_sides(d: Any) -> None:
    d["exchange_cards"][0]["equations"][1]["right"]["red"] = 1


def _unknown_colour(d: Any) -> None:
    d["exchange_cards"][0]["equations"][0]["left"] = {"purple": 1}


def _drop_ware(d: Any) -> None:
    d["ware_cards"].pop()


def _four_stone_ware(d: Any) -> None:
    d["ware_cards"][0]["stones"] = {"red": 4}


def _duplicate_ware(d: Any) -> None:
    d["ware_cards"][1]["id"] = d["ware_cards"][0]["id"]


def _star_not_bool(d: Any) -> None:
    d["ware_cards"][0]["star"] = 1


def _nineteen_stones(d: Any) -> None:
    d["stones_per_colour"] = 19


def _six_colours(d: Any) -> None:
    d["colours"].append("black")


def _no_choice(d: Any) -> None:
    d["die_faces"][-1] = "red"


def _score_row_missing(d: Any) -> None:
    del d["score_table"]["3+"]


def _score_row_short(d: Any) -> None:
    d["score_table"]["0"] = [5, 8]


def _three_stalls(d: Any) -> None:
    d["stalls"] = 3


def _no_hand_limit(d: Any) -> None:
    del d["hand_limit"]


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_drop_card, "length >= 10 - at `$.exchange_cards`"),
        (_short_card, "length >= 5 - at `$.exchange_cards[3].equations`"),
        (_both_sides, "on both sides"),
        (_unknown_colour, "unknown colour 'purple'"),
        (_drop_ware, "length >= 45 - at `$.ware_cards`"),
        (_four_stone_ware, "costs 4 stones, not 5"),
        (_duplicate_ware, "appears twice"),
        (_star_not_bool, "Expected `bool`, got `int` - at `$.ware_cards[0].star`"),
        (_nineteen_stones, "`$.stones_per_colour`"),
        (_six_colours, "length <= 5 - at `$.colours`"),
        (_no_choice, "'die_faces' must be the 5 colours and 'choice'"),
        (_score_row_missing, "missing required field `3+` - at `$.score_table`"),
        (_score_row_short, "length 3, got 2 - at `$.score_table.0`"),
        (_three_stalls, "`$.stalls`"),
        (_no_hand_limit, "missing required field `hand_limit`"),
    ],
)
def test_invalid_edition_is_refused_with_a_clear_error_z2_z3_z4_z5_z9(
    spoil: Callable[[Any], None], message: str
) -> None:
    """Z-2..Z-5, Z-9: a data file that breaks the components is refused at load, naming the fault."""
    data = raw()
    spoil(data)
    with pytest.raises(ComponentDataError, match="bazaar component data") as error:
        validate_edition(data)
    assert message in str(error.value)
