"""Z-4, Z-8, Z-9: buying a displayed ware after the turn's roll or trade, and what it scores."""

from __future__ import annotations

import pytest

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, EndTurn, Roll, Trade
from domain.bazaar.components import EDITION, PALETTE
from domain.bazaar.events import DieRolled, PurchaseScored, TurnEnded, TurnStarted, WareBought
from domain.bazaar.view import BazaarView
from domain.core import Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import ONE_OF_EACH, STALLS, act, rolled, table


def nothing_rolled(seat: int) -> DieRolled:
    """This turn's roll is made and brought nothing (its colour was out)."""
    return DieRolled(seat=seat, face="white", stone=None, choose=False)


def test_buy_after_the_roll_pays_the_five_stones_z8() -> None:
    """Z-8: after the roll, a player owning the five stones shown may buy the ware, paying them."""
    history = [*table({0: ONE_OF_EACH}), rolled(0, "red")]
    state = (
        given(GAME, history)
        .when(0, Buy(ware=13))
        .then(
            [
                WareBought(seat=0, ware=13, stall=0, paid=ONE_OF_EACH, stars=0, revealed=1),
                PurchaseScored(seat=0, turn=3, ware=13, stars=0, stones_left=1, points=3),
            ]
        )
    )
    assert state.players[0].hand == PALETTE.of({"red": 1})
    assert state.bank == PALETTE.of({"red": 19, "blue": 20, "green": 20, "yellow": 20, "white": 20})
    assert state.players[0].wares == (13,) and state.players[0].score == 3


def test_buying_turns_up_the_next_card_of_the_stall_z4() -> None:
    """Z-4: when a displayed card is bought, the next card of that stall is turned up."""
    history = act([*table({0: ONE_OF_EACH}), rolled(0, "red")], 0, Buy(ware=13))
    view = GAME.view(given(GAME, history).state, 1)
    assert isinstance(view, BazaarView)
    assert view.stalls[0].size == 4
    assert view.stalls[0].displayed is not None and view.stalls[0].displayed.id == STALLS[0][1]


def test_buy_after_a_trade_z8() -> None:
    """Z-8: "by trading and/or by rolling": a trade also opens the purchase."""
    history = act(
        table({0: {"blue": 1, "green": 1, "yellow": 1, "white": 3}}), 0, Trade(equation=1, give="right")
    )
    given(GAME, history).when(0, Buy(ware=23)).then(
        [
            WareBought(seat=0, ware=23, stall=3, paid=ONE_OF_EACH, stars=0, revealed=15),
            PurchaseScored(seat=0, turn=3, ware=23, stars=0, stones_left=0, points=5),
        ]
    )


def test_no_purchase_before_the_roll_or_trade_z8() -> None:
    """Z-8: a player must roll the die or trade before he may purchase."""
    given(GAME, table({0: ONE_OF_EACH})).when(0, Buy(ware=13)).rejects("Z-8", "roll_or_trade_first")
    assert decisions(GAME.legal(given(GAME, table({0: ONE_OF_EACH})).state, 0))[0] == Roll()
    assert not any(
        isinstance(c, Buy) for c in decisions(GAME.legal(given(GAME, table({0: ONE_OF_EACH})).state, 0))
    )


def test_at_most_one_purchase_per_turn_z8() -> None:
    """Z-8: at most one purchase per turn without the double-purchase option."""
    history = act([*table({0: {c: 2 for c in ONE_OF_EACH}}), rolled(0, "red")], 0, Buy(ware=13))
    given(GAME, history).when(0, Buy(ware=23)).rejects("Z-8", "purchase_limit")
    assert decisions(GAME.legal(given(GAME, history).state, 0)) == [EndTurn()]


def test_buying_is_never_compulsory_z8() -> None:
    """Z-8: a player able to buy is not required to: he may end the turn without buying."""
    history = [*table({0: ONE_OF_EACH}), rolled(0, "red")]
    state = given(GAME, history).state
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]
    assert decisions(GAME.legal(state, 0)) == [Buy(ware=13), Buy(ware=23), EndTurn()]
    state = (
        given(GAME, history)
        .when(0, EndTurn())
        .then([TurnEnded(seat=0, turn=3, stones=6), TurnStarted(turn=4, seat=1)])
    )
    assert state.players[0].wares == () and state.players[0].hand == PALETTE.of({**ONE_OF_EACH, "red": 2})


def test_only_displayed_wares_can_be_bought_z4_z8() -> None:
    """Z-4, Z-8: face-down and set-aside wares are not for sale."""
    history = [*table({0: ONE_OF_EACH}), rolled(0, "red")]
    given(GAME, history).when(0, Buy(ware=1)).rejects("Z-8", "not_on_display")  # face down in stall 0
    given(GAME, history).when(0, Buy(ware=45)).rejects("Z-8", "not_on_display")  # set aside


def test_the_buyer_must_own_the_five_stones_z8() -> None:
    """Z-8: only a player who owns the five stones shown may buy."""
    history = [*table({0: {"blue": 4}}), rolled(0, "red")]
    given(GAME, history).when(0, Buy(ware=40)).rejects("Z-8", "cannot_pay")
    given(GAME, history).when(0, Buy(ware=13)).rejects("Z-8", "cannot_pay")


@pytest.mark.parametrize("left", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("star", [False, True])
@pytest.mark.parametrize("upgraded", [False, True])
def test_score_by_stones_left_and_stars_z9(left: int, star: bool, upgraded: bool) -> None:
    """Z-9: 3+/2/1/0 left: 1/2/3/5, one star 2/3/5/8, two stars 3/5/8/12; upgraded once a stall is empty."""
    ware, price = (40, {"blue": 5}) if star else (13, ONE_OF_EACH)
    stalls = [STALLS[0], STALLS[1], () if upgraded else STALLS[2], STALLS[3]]
    extra = {"yellow": left} if left else {}
    hand = {c: price.get(c, 0) + extra.get(c, 0) for c in EDITION.colours}
    history = [*table({0: hand}, stalls=stalls), nothing_rolled(0)]
    stars = int(star) + int(upgraded)
    expected = {0: (5, 8, 12), 1: (3, 5, 8), 2: (2, 3, 5)}.get(left, (1, 2, 3))[stars]
    state = given(GAME, history).when(0, Buy(ware=ware)).then()
    assert state.sheet[-1].stars == stars
    assert state.sheet[-1].stones_left == left
    assert state.sheet[-1].points == expected == state.players[0].score


def test_upgrade_starts_with_the_purchase_after_a_stall_empties_z9() -> None:
    """Z-9: the purchase that empties a stall is scored as printed; every later purchase one star higher."""
    stalls = [STALLS[0], STALLS[1], (23,), (19, 15, 16, 17, 18)]
    history = [*table({0: ONE_OF_EACH, 1: ONE_OF_EACH}, stalls=stalls), nothing_rolled(0)]
    history = act(history, 0, Buy(ware=23))
    assert history[-2] == WareBought(seat=0, ware=23, stall=2, paid=ONE_OF_EACH, stars=0, revealed=None)
    assert history[-1] == PurchaseScored(seat=0, turn=3, ware=23, stars=0, stones_left=0, points=5)
    history = act(history, 0, EndTurn())
    history = act([*history, nothing_rolled(1)], 1, Buy(ware=13))
    assert history[-2] == WareBought(seat=1, ware=13, stall=0, paid=ONE_OF_EACH, stars=1, revealed=1)
    assert history[-1] == PurchaseScored(seat=1, turn=4, ware=13, stars=1, stones_left=0, points=8)
    view = GAME.view(given(GAME, history).state, None)
    assert isinstance(view, BazaarView) and view.stars_upgraded and view.empty_stalls == 1


def test_a_starred_ware_is_scored_as_two_stars_after_the_upgrade_z9() -> None:
    """Z-9: once a stall is empty, wares with one star are scored as two stars."""
    stalls = [STALLS[0], STALLS[1], (), STALLS[3]]
    history = [*table({0: {"blue": 5}}, stalls=stalls), nothing_rolled(0)]
    given(GAME, history).when(0, Buy(ware=40)).then(
        [
            WareBought(seat=0, ware=40, stall=1, paid={"blue": 5}, stars=2, revealed=6),
            PurchaseScored(seat=0, turn=3, ware=40, stars=2, stones_left=0, points=12),
        ]
    )
