"""Z-11: the double-purchase option: two wares in one turn, both scored by the stones left after both."""

from __future__ import annotations

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, EndTurn, Roll
from domain.bazaar.events import DieRolled, GameEnded, PurchaseScored, TurnEnded, TurnStarted, WareBought
from domain.core import Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import ONE_OF_EACH, STALLS, act, rolled, table

TWO_OF_EACH = {c: 2 for c in ONE_OF_EACH}


def test_two_purchases_scored_by_the_stones_left_after_both_z11() -> None:
    """Z-11: with the option, two wares in one turn, scored by the stones left after both."""
    history = [*table({0: TWO_OF_EACH}, double=True), rolled(0, "red")]
    history = act(history, 0, Buy(ware=13))
    assert history[-1] == WareBought(seat=0, ware=13, stall=0, paid=ONE_OF_EACH, stars=0, revealed=1)
    state = given(GAME, history).state
    assert state.players[0].score == 0, "the first purchase waits for the second"
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]
    assert decisions(GAME.legal(state, 0)) == [Buy(ware=23), EndTurn()]
    state = (
        given(GAME, history)
        .when(0, Buy(ware=23))
        .then(
            [
                WareBought(seat=0, ware=23, stall=3, paid=ONE_OF_EACH, stars=0, revealed=15),
                PurchaseScored(seat=0, turn=3, ware=13, stars=0, stones_left=1, points=3),
                PurchaseScored(seat=0, turn=3, ware=23, stars=0, stones_left=1, points=3),
            ]
        )
    )
    assert state.players[0].score == 6 and state.players[0].wares == (13, 23)
    assert decisions(GAME.legal(state, 0)) == [EndTurn()]


def test_no_third_purchase_z11() -> None:
    """Z-11: two purchases at most, even with the option."""
    history = [*table({0: {c: 3 for c in ONE_OF_EACH}}, double=True), rolled(0, "red")]
    history = act(act(history, 0, Buy(ware=13)), 0, Buy(ware=23))
    given(GAME, history).when(0, Buy(ware=15)).rejects("Z-11", "purchase_limit")


def test_one_purchase_with_the_option_is_scored_when_the_turn_ends_z11() -> None:
    """Z-11, Z-8: the second purchase is optional; the single purchase is scored as the turn ends."""
    history = act([*table({0: TWO_OF_EACH}, double=True), rolled(0, "red")], 0, Buy(ware=13))
    given(GAME, history).when(0, EndTurn()).then(
        [
            PurchaseScored(seat=0, turn=3, ware=13, stars=0, stones_left=6, points=1),
            TurnEnded(seat=0, turn=3, stones=6),
            TurnStarted(turn=4, seat=1),
        ]
    )


def test_second_purchase_may_be_the_card_just_turned_up_z11_z4() -> None:
    """Z-11, Z-4: the card turned up by the first purchase is on display for the second."""
    stalls = [(13, 23, 3, 4, 5), STALLS[1], STALLS[2], (19, 15, 16, 17, 18)]
    history = act([*table({0: TWO_OF_EACH}, stalls=stalls, double=True), rolled(0, "red")], 0, Buy(ware=13))
    assert history[-1] == WareBought(seat=0, ware=13, stall=0, paid=ONE_OF_EACH, stars=0, revealed=23)
    given(GAME, history).when(0, Buy(ware=23)).then()


def test_first_purchase_empties_a_stall_so_the_second_scores_one_star_higher_z11() -> None:
    """Z-11: the first purchase empties a stall (none empty before): the second scores one star higher."""
    stalls = [STALLS[0], STALLS[1], (23,), (19, 15, 16, 17, 18)]
    history = [*table({0: TWO_OF_EACH}, stalls=stalls, double=True), rolled(0, "red")]
    history = act(history, 0, Buy(ware=23))
    assert history[-1] == WareBought(seat=0, ware=23, stall=2, paid=ONE_OF_EACH, stars=0, revealed=None)
    given(GAME, history).when(0, Buy(ware=13)).then(
        [
            WareBought(seat=0, ware=13, stall=0, paid=ONE_OF_EACH, stars=1, revealed=1),
            PurchaseScored(seat=0, turn=3, ware=23, stars=0, stones_left=1, points=3),
            PurchaseScored(seat=0, turn=3, ware=13, stars=1, stones_left=1, points=5),
        ]
    )


def test_a_one_star_second_ware_scores_as_two_stars_and_the_emptying_purchase_is_not_upgraded_z11() -> None:
    """Z-11 (the ruling on "the second Ware Card purchased is scored in the star column"): Z-9's upgrade applied
    to the second card, a one-star ware scoring as two stars; the purchase that empties the stall is not
    upgraded itself."""
    stalls = [(6, 1, 3, 4, 5), (40, 13, 7, 8, 9), (23,), (2, 10, 11, 12, 14)]
    hand = {"red": 5, "blue": 1, "green": 1, "yellow": 2, "white": 1}
    history = [*table({0: hand}, stalls=stalls, double=True), rolled(0, "red")]
    history = act(history, 0, Buy(ware=23))
    assert history[-1] == WareBought(seat=0, ware=23, stall=2, paid=ONE_OF_EACH, stars=0, revealed=None)
    events = given(GAME, history).when(0, Buy(ware=6)).decide()
    assert events[1:] == [
        PurchaseScored(seat=0, turn=3, ware=23, stars=0, stones_left=1, points=3),
        PurchaseScored(seat=0, turn=3, ware=6, stars=2, stones_left=1, points=8),
    ]
    assert isinstance(events[0], WareBought) and events[0].stars == 2


def test_first_purchase_empties_the_second_stall_so_the_game_ends_z11_z13() -> None:
    """Z-11, Z-13: one stall empty, the first purchase empties a second: game over, no second buy."""
    stalls = [STALLS[0], STALLS[1], (23,), ()]
    history = [*table({0: TWO_OF_EACH}, stalls=stalls, double=True), rolled(0, "red")]
    history = act(history, 0, Buy(ware=23))
    assert history[-3:] == [
        WareBought(seat=0, ware=23, stall=2, paid=ONE_OF_EACH, stars=1, revealed=None),
        PurchaseScored(seat=0, turn=3, ware=23, stars=1, stones_left=6, points=2),
        GameEnded(reason="two_stalls_empty", turn=3),
    ]
    state = given(GAME, history).state
    assert GAME.is_over(state) and GAME.pending(state) == [] and decisions(GAME.legal(state, 0)) == []
    given(GAME, history).when(0, Buy(ware=13)).rejects("Z-13", "game_over")


def test_without_the_option_the_first_purchase_is_scored_at_once_z11_z8() -> None:
    """Z-11 (off by default), Z-8: one purchase, scored straight away."""
    history = [*table({0: TWO_OF_EACH}), rolled(0, "red")]
    events = given(GAME, history).when(0, Buy(ware=13)).decide()
    assert events[-1] == PurchaseScored(seat=0, turn=3, ware=13, stars=0, stones_left=6, points=1)


def test_roll_is_unaffected_by_the_option_z11() -> None:
    """Z-11: the option changes purchases only: the turn still starts with one roll or trade."""
    history = table({0: TWO_OF_EACH}, double=True)
    given(GAME, history).when(0, Buy(ware=13)).rejects("Z-8", "roll_or_trade_first")
    assert isinstance(given(GAME, history).when(0, Roll()).decide()[0], DieRolled)
