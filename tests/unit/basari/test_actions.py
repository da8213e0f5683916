"""B-7: step III resolves A, B, C in order; alone you act at once, three or more forfeit the action."""

from __future__ import annotations

from domain.basari import GAME
from domain.basari.commands import ChooseAction
from domain.basari.components import PALETTE
from domain.basari.events import (
    ActionChosen,
    ActionForfeited,
    ActionsRevealed,
    CardDrawn,
    CardsDealt,
    GemsTaken,
    NothingDrawn,
    PointsScored,
    StageScored,
)
from domain.basari.rules import first_bidder_order
from tests.support.scenario import given

from .tables import EACH, HANNA, MAX, SARAH, gems, held, of_type, picks, play, stacked, started, state_of


def test_the_rulebook_round_a_b_c_b7() -> None:
    """B-7, the rulebook's picture: Sarah (A) draws and has 5 workers, Hanna (B) scores 5, Max (C) takes gems.

    Seats: Hanna, Max, Sarah. Hanna's current card (15) shows 5 points, Max's (1) shows 2 red + green + blue,
    Sarah's (22) 3 workers; the next card on the pile (11) has 2 workers.
    """
    history = play(
        started(3, pile=stacked(15, 1, 22, 11)),
        (HANNA, ChooseAction(action="B")),
        (MAX, ChooseAction(action="C")),
    )
    state = (
        given(GAME, history)
        .when(SARAH, ChooseAction(action="A"))
        .then(
            [
                ActionChosen(seat=SARAH, action="A"),
                ActionsRevealed(picks=("B", "C", "A")),
                CardDrawn(seat=SARAH, card=11),  # A first ...
                PointsScored(seat=HANNA, card=15, points=5),  # ... then B ...
                GemsTaken(
                    seat=MAX,
                    card=1,
                    shown=gems(red=2, green=1, blue=1),
                    received=gems(red=2, green=1, blue=1),
                ),
                CardsDealt(stage=1, round=2, cards=(2, 3, 4)),  # ... then C; the next round begins
            ]
        )
    )
    assert state.players[SARAH].workers() == 5 + 1  # 3 + 2 from A, + 1 from round 2's card
    assert state.players[SARAH].cards == (22, 11, 4)
    assert state.players[SARAH].current == 4  # a card drawn with A is never the current card
    assert state.players[HANNA].points == 5
    assert state.players[MAX].gems == held(red=5, yellow=3, green=4, blue=4)
    assert state.stock == held(red=11, yellow=13, green=12, blue=12)


def test_three_or_more_forfeit_the_action_b7() -> None:
    """B-7: if three or more players chose the same action, nobody performs it."""
    history = play(started(3), (HANNA, ChooseAction(action="C")), (MAX, ChooseAction(action="C")))
    state = (
        given(GAME, history)
        .when(SARAH, ChooseAction(action="C"))
        .then(
            [
                ActionChosen(seat=SARAH, action="C"),
                ActionsRevealed(picks=("C", "C", "C")),
                ActionForfeited(action="C", seats=(HANNA, MAX, SARAH)),
                CardsDealt(stage=1, round=2, cards=(4, 5, 6)),
            ]
        )
    )
    assert [p.gems for p in state.players] == [EACH.counts()] * 3


def test_action_b_scores_the_current_card_b7() -> None:
    """B-7: B scores the points printed on the player's current card (this round's card), at once."""
    history = play(started(3, pile=stacked(32, 1, 2, 3, 33, 7, 34)), *picks("ABC"))
    assert state_of(history).players[MAX].points == 7  # card 1
    assert state_of(history).players[MAX].current == 7
    again = play(history, *picks("CBA"))
    assert of_type(again[len(history) :], PointsScored) == [PointsScored(seat=MAX, card=7, points=6)]
    assert state_of(again).players[MAX].points == 13


def test_action_a_with_an_empty_pile_does_nothing_b7() -> None:
    """B-7: with an empty draw pile, A does nothing (here the pile held just the three dealt cards)."""
    history = play(
        started(3, pile=(1, 2, 3)), (MAX, ChooseAction(action="B")), (SARAH, ChooseAction(action="C"))
    )
    events = given(GAME, history).when(HANNA, ChooseAction(action="A")).decide()
    assert events[2] == NothingDrawn(seat=HANNA)
    assert events[3] == PointsScored(seat=MAX, card=2, points=7)
    assert isinstance(events[5], StageScored) and events[5].reason == "pile"  # B-9: too few cards for step I


def test_action_c_takes_only_what_the_stock_has_b7() -> None:
    """B-7: a colour the stock has run out of is simply not received."""
    holdings = [gems(red=10, yellow=3, green=3, blue=3), gems(red=9, yellow=3, green=3, blue=3), EACH]
    history = play(
        started(3, holdings=holdings, pile=stacked(2, 1, 3)),
        (HANNA, ChooseAction(action="A")),
        (SARAH, ChooseAction(action="B")),
    )
    assert PALETTE.full(state_of(history).stock)["red"] == 0
    events = given(GAME, history).when(MAX, ChooseAction(action="C")).decide()
    taken = of_type(events, GemsTaken)
    assert taken == [
        GemsTaken(seat=MAX, card=1, shown=gems(red=2, green=1, blue=1), received=gems(green=1, blue=1))
    ]


def test_action_c_with_a_partial_shortage_b7() -> None:
    """B-7: the stock gives what it has of a colour: one red left, the card shows two, one is received."""
    holdings = [gems(red=10, yellow=3, green=3, blue=3), gems(red=8, yellow=3, green=3, blue=3), EACH]
    history = play(started(3, holdings=holdings, pile=stacked(2, 1, 3)), *picks("ACB"))
    state = state_of(history)
    assert state.players[MAX].gems == held(red=9, yellow=3, green=4, blue=4)
    assert PALETTE.full(state.stock)["red"] == 0


def test_the_first_bidder_order_b7_b8() -> None:
    """B-7, B-8: the turn order of action D and of negotiations is the first-bidder order."""
    holdings = [gems(red=2), gems(red=3), gems(red=3, yellow=1)]
    state = state_of(started(3, holdings=holdings))
    assert first_bidder_order(state, [0, 1, 2]) == (SARAH, MAX, HANNA)
