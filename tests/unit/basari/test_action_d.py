"""B-7, action D (5 players): never negotiated nor forfeited; alone: give 1, take 2; several: take 1 each."""

from __future__ import annotations

from domain.basari import GAME
from domain.basari.commands import ChooseAction, ExchangeGems, TakeGem
from domain.basari.components import COLOURS, Gems
from domain.basari.events import (
    ActionChosen,
    ActionDOpened,
    ActionForfeited,
    ActionsRevealed,
    CardsDealt,
    GemsExchanged,
    PointsScored,
)
from domain.core import Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import EACH, gems, held, of_type, picks, play, started, state_of

TOM, ULI = 3, 4


def test_one_player_alone_on_d_returns_one_gem_and_takes_two_b7() -> None:
    """B-7: alone on D, Uli returns one gem of his choice to the stock, then takes two gems of his choice."""
    history = play(started(5), *picks("AAAB"))
    state = (
        given(GAME, history)
        .when(ULI, ChooseAction(action="D"))
        .then(
            [
                ActionChosen(seat=ULI, action="D"),
                ActionsRevealed(picks=("A", "A", "A", "B", "D")),
                ActionForfeited(action="A", seats=(0, 1, 2)),
                PointsScored(seat=TOM, card=4, points=7),
                ActionDOpened(seats=(ULI,)),  # D last, and never negotiated
            ]
        )
    )
    assert GAME.pending(state) == [Pending(seat=ULI, decision="choose_d_gems")]
    listed = decisions(GAME.legal(state, ULI))
    assert len(listed) == 4 * 10  # 4 colours to return, 10 pairs to take
    assert ExchangeGems(give="blue", take=gems(red=2)) in listed
    history = play(history, (ULI, ChooseAction(action="D")))
    state = (
        given(GAME, history)
        .when(ULI, ExchangeGems(give="blue", take=gems(red=2)))
        .then(
            [
                GemsExchanged(seat=ULI, returned=gems(blue=1), taken=gems(red=2)),
                CardsDealt(stage=1, round=2, cards=(6, 7, 8, 9, 10)),
            ]
        )
    )
    assert state.players[ULI].gems == held(red=5, yellow=3, green=3, blue=2)
    assert state.stock == held(red=5, yellow=7, green=7, blue=8)


def test_alone_on_d_the_choices_are_checked_b7() -> None:
    """B-7: a gem must be returned if owned, exactly two taken, from what the stock holds; only Uli acts."""
    history = play(started(5), *picks("AAABD"))
    scenario = given(GAME, history)
    scenario.when(ULI, ExchangeGems(give=None, take=gems(red=2))).rejects("B-7", "must_return_gem")
    scenario.when(ULI, ExchangeGems(give="red", take=gems(red=3))).rejects("B-7", "take_two")
    scenario.when(ULI, ExchangeGems(give="red", take=gems(red=1))).rejects("B-7", "take_two")
    scenario.when(ULI, ExchangeGems(give="red", take=Gems(red=3, blue=-1))).rejects("B-7", "bad_gems")
    scenario.when(ULI, TakeGem(colour="red")).rejects("B-7", "exchange_gems")
    scenario.when(TOM, ExchangeGems(give="red", take=gems(red=2))).rejects("B-7", "not_your_turn")
    scenario.when(TOM, ChooseAction(action="A")).rejects("B-6", "not_choosing")


def test_the_returned_gem_may_be_taken_back_from_an_empty_stock_b7() -> None:
    """B-7: the return comes first, so with an empty stock Uli takes back the one gem he returned."""
    holdings = [EACH, EACH, EACH, EACH, gems(red=10, yellow=10, green=10, blue=10)]
    history = play(started(5, holdings=holdings), *picks("AAABD"))
    state = state_of(history)
    assert state.stock == held()
    assert decisions(GAME.legal(state, ULI)) == [ExchangeGems(give=c, take=gems(**{c: 1})) for c in COLOURS]
    scenario = given(GAME, history)
    scenario.when(ULI, ExchangeGems(give="red", take=gems(blue=1))).rejects("B-7", "not_in_stock")
    scenario.when(ULI, ExchangeGems(give="red", take=gems(red=2))).rejects("B-7", "take_two")
    scenario.when(ULI, ExchangeGems(give="green", take=gems(green=1))).then()


def test_alone_on_d_without_gems_returns_nothing_b7() -> None:
    """B-7: a player who owns no gem returns nothing ("if they have any") and still takes two."""
    holdings = [EACH, EACH, EACH, EACH, Gems()]
    history = play(started(5, holdings=holdings), *picks("AAABD"))
    listed = decisions(GAME.legal(state_of(history), ULI))
    assert len(listed) == 10 and all(isinstance(c, ExchangeGems) and c.give is None for c in listed)
    given(GAME, history).when(ULI, ExchangeGems(give="red", take=gems(red=2))).rejects("B-7", "not_your_gems")
    given(GAME, history).when(ULI, ExchangeGems(give=None, take=gems(yellow=1, blue=1))).then()


def test_several_on_d_take_one_gem_each_in_first_bidder_order_b7() -> None:
    """B-7: several chose D: each takes one gem, in first-bidder order (Uli owns more red: he goes first)."""
    holdings = [EACH, EACH, EACH, EACH, gems(red=10, yellow=3, green=3, blue=3)]
    history = play(started(5, holdings=holdings), *picks("AAADD"))
    assert of_type(history, ActionDOpened) == [ActionDOpened(seats=(ULI, TOM))]
    state = state_of(history)
    assert GAME.pending(state) == [Pending(seat=ULI, decision="take_d_gem")]
    # the stock has run out of red: it cannot be taken
    assert decisions(GAME.legal(state, ULI)) == [TakeGem(colour=c) for c in ("yellow", "green", "blue")]
    scenario = given(GAME, history)
    scenario.when(ULI, TakeGem(colour="red")).rejects("B-7", "not_in_stock")
    scenario.when(TOM, TakeGem(colour="blue")).rejects("B-7", "not_your_turn")
    scenario.when(ULI, ExchangeGems(give="red", take=gems(blue=2))).rejects("B-7", "take_one_gem")
    history = play(history, (ULI, TakeGem(colour="yellow")))
    assert GAME.pending(state_of(history)) == [Pending(seat=TOM, decision="take_d_gem")]
    state = (
        given(GAME, history)
        .when(TOM, TakeGem(colour="blue"))
        .then(
            [
                GemsExchanged(seat=TOM, returned=Gems(), taken=gems(blue=1)),
                CardsDealt(stage=1, round=2, cards=(6, 7, 8, 9, 10)),
            ]
        )
    )
    assert state.players[ULI].gems == held(red=10, yellow=4, green=3, blue=3)
    assert state.players[TOM].gems == held(red=3, yellow=3, green=3, blue=4)


def test_d_is_never_forfeited_b7() -> None:
    """B-7: D cannot be forfeited: three players on D each take a gem (all equal: the eldest first)."""
    history = play(started(5), *picks("ABDDD"))
    assert of_type(history, ActionForfeited) == []
    assert of_type(history, ActionDOpened) == [ActionDOpened(seats=(2, 3, 4))]


def test_several_on_d_with_an_empty_stock_take_nothing_b7() -> None:
    """B-7: with nothing in the stock there is nothing to take; the D turns pass by themselves."""
    five, four = gems(red=5, yellow=5, green=5, blue=5), gems(red=4, yellow=4, green=4, blue=4)
    history = play(started(5, holdings=[five, five, four, four, four]), *picks("AAAD"))
    events = given(GAME, history).when(ULI, ChooseAction(action="D")).decide()
    assert of_type(events, GemsExchanged) == [
        GemsExchanged(seat=TOM, returned=Gems(), taken=Gems()),
        GemsExchanged(seat=ULI, returned=Gems(), taken=Gems()),
    ]
    assert isinstance(events[-1], CardsDealt)


def test_alone_on_d_with_nothing_to_return_or_take_b7() -> None:
    """B-7: alone on D without gems and with an empty stock, the D turn passes by itself."""
    six, five = gems(red=6, yellow=6, green=6, blue=6), gems(red=5, yellow=5, green=5, blue=5)
    history = play(started(5, holdings=[six, six, five, five, Gems()]), *picks("AAABD"))
    assert of_type(history, GemsExchanged) == [GemsExchanged(seat=ULI, returned=Gems(), taken=Gems())]
    assert state_of(history).phase == "choose"


def test_only_the_four_colours_exist_b2() -> None:
    """B-2: a colour that is not red, yellow, green or blue is refused (decoding refuses it too)."""
    several = play(started(5), *picks("AAADD"))
    given(GAME, several).when(TOM, TakeGem(colour="purple")).rejects("B-2", "no_such_colour")  # type: ignore[arg-type]
    alone = play(started(5), *picks("AAABD"))
    given(GAME, alone).when(ULI, ExchangeGems(give="white", take=gems(red=2))).rejects(
        "B-2", "no_such_colour"
    )  # type: ignore[arg-type]


def test_d_is_resolved_after_c_b7() -> None:
    """B-7 (house reading where the rulebook is silent): D is resolved after C, so the gems C takes from the
    stock are gone before the D player chooses."""
    history = play(started(5), *picks("AAAC"))
    events = given(GAME, history).when(ULI, ChooseAction(action="D")).decide()
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("GemsTaken") < kinds.index("ActionDOpened") == len(kinds) - 1, kinds
