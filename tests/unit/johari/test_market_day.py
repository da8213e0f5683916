"""The Market Day: replenishing (J-9), secret plays (J-10), order (J-11), costs (J-12), day end (J-14)."""

from __future__ import annotations

from domain.core import Rng
from domain.johari import GAME
from domain.johari.commands import PlayActionCard, Purchase
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    ActionSkipped,
    CardsDealt,
    DayEnded,
    DayStarted,
    DiscardReshuffled,
    GoldChanged,
    NoblesAdvanced,
    RoundStarted,
    TurnStarted,
)
from domain.johari.nobles import action_cost
from domain.johari.state import gold_order
from domain.johari.view import HIDDEN, JohariView
from domain.resign import decisions
from tests.support.scenario import given
from tests.unit.johari.tables import (
    B1,
    R1,
    R2,
    R3,
    act,
    discarded,
    gem,
    gold,
    gold_card,
    hired,
    holding,
    noble,
    now,
    on_trade_card,
    played,
    plays,
    protected,
    table,
    turn,
)

# ---------------------------------------------------------------- J-9


def last_round(**setup: object) -> list[object]:
    """Two seats in round 3 of the day (``setup`` as for ``table``), seat 0 still to play."""
    history = table(2, round=3, **setup)  # type: ignore[arg-type]
    history += [played(s, slot, card) for s in (0, 1) for slot, card in ((1, "sale"), (2, "trade"))]
    return act(history, 1, PlayActionCard(card="baksheesh"))


def test_j9_replenish_moves_nobles_and_a_new_one_enters_on_space_5() -> None:
    """J-9: every Noble moves toward 1, the one on space 1 leaves, the stack's top enters on space 5."""
    history = last_round(track=(11, None, 12, 13, 14), stack=(15, 16), draw=tuple(range(40, 60)))
    events = given(GAME, history).when(0, PlayActionCard(card="baksheesh")).decide()
    start = events.index(DayStarted(day=2))
    assert events[start + 1] == NoblesAdvanced(leaving=11, entering=15)
    state = now([*history, *events])
    assert state.noble_track == (None, 12, 13, 14, 15) and state.noble_stack == (16,)


def test_j9_replenish_every_day_players_cards_to_stores_and_one_per_booth() -> None:
    """J-9: each day n cards go into the Stores by type and one card into every Booth; old cards stay."""
    draw = (R1, gold_card(2), gem("blue", 2), gem("green", 3), *range(42, 48))
    history = last_round(draw=draw, market={"store_red": (R3,)})
    events = given(GAME, history).when(0, PlayActionCard(card="baksheesh")).decide()
    assert [e for e in events if isinstance(e, CardsDealt)] == [
        CardsDealt(
            cards=draw[:6], places=("store_red", "store_gold", "booth_0", "booth_1", "booth_2", "booth_3")
        )
    ]
    assert events[-1] == RoundStarted(round=1)
    state = now([*history, *events])
    assert state.market[0] == (R3, R1) and state.phase == "play"


def test_j9_the_discard_pile_is_reshuffled_by_decides_rng_when_the_draw_pile_runs_out() -> None:
    """J-9/J-7: when the draw pile runs out the discard pile, shuffled by the rng handed to decide, becomes
    the new pile (written into the event)."""
    discard = tuple(range(42, 52))
    history = [*last_round(draw=(R2,)), discarded(*discard)]
    events = given(GAME, history).when(0, PlayActionCard(card="baksheesh")).decide()
    dealt = [e for e in events if isinstance(e, CardsDealt | DiscardReshuffled)]
    assert isinstance(dealt[0], CardsDealt) and dealt[0].cards == (R2,)
    assert dealt[1] == DiscardReshuffled(
        draw_pile=tuple(Rng("scenario", f"v{len(history)}").shuffle(list(discard))), size=10
    )
    state = now([*history, *events])
    assert state.discard == () and len(state.draw) == 10 - 5 and sum(len(m) for m in state.market) == 6


# ---------------------------------------------------------------- J-10


def test_j10_cards_are_played_secretly_into_the_leftmost_slot_and_revealed_together() -> None:
    """J-10: a play fills the leftmost empty slot, is hidden from others, and all reveal together."""
    history = [*table(3, round=2), *(played(s, 1, "sale") for s in range(3))]
    first = (
        given(GAME, history)
        .when(0, PlayActionCard(card="purchase"))
        .then([ActionCardPlayed(seat=0, slot=2, card="purchase")])
    )
    assert GAME.redact(ActionCardPlayed(seat=0, slot=2, card="purchase"), 1).card is None  # type: ignore[attr-defined]
    assert GAME.redact(ActionCardPlayed(seat=0, slot=2, card="purchase"), None).card is None  # type: ignore[attr-defined]
    seen, own = GAME.view(first, 1), GAME.view(first, 0)
    assert isinstance(seen, JohariView) and isinstance(own, JohariView)
    assert seen.players[0].slots == ("sale", HIDDEN, None) and own.players[0].slots == (
        "sale",
        "purchase",
        None,
    )
    assert {p.seat for p in GAME.pending(first)} == {1, 2}
    history = act(act(history, 0, PlayActionCard(card="purchase")), 1, PlayActionCard(card="bribe"))
    last = given(GAME, history).when(2, PlayActionCard(card="baksheesh")).decide()
    assert last[:2] == [
        ActionCardPlayed(seat=2, slot=2, card="baksheesh"),
        ActionCardsRevealed(cards=("purchase", "bribe", "baksheesh")),
    ]


def test_j10_a_card_must_be_in_hand_and_only_one_per_round() -> None:
    """J-10: a card already played is not in hand; a second play in the same round is refused."""
    history = [*table(2, round=2), played(0, 1, "sale"), played(1, 1, "sale")]
    given(GAME, history).when(0, PlayActionCard(card="sale")).rejects("J-10", "card_not_in_hand")
    history = act(history, 0, PlayActionCard(card="trade"))
    given(GAME, history).when(0, PlayActionCard(card="purchase")).rejects("J-10", "not_your_turn")


# ---------------------------------------------------------------- J-11


def test_j11_most_gold_acts_first_and_ties_go_to_the_higher_token() -> None:
    """J-11: most gold first; on equal gold the token higher in the stack (the later arrival) first."""
    history = [*table(3), gold(0, 12), gold(1, 12), gold(2, 20)]
    view = GAME.view(now(history), None)
    assert isinstance(view, JohariView) and view.turn_order == (2, 1, 0)


def test_j11_order_is_re_read_after_every_action() -> None:
    """J-11: after each action the richest player who has not acted goes next (payments reorder)."""
    history = [*table(2, market={"booth_0": (R1,)}), gold(0, 10), gold(1, 11)]
    history = plays(history, {0: "baksheesh", 1: "purchase"})
    assert history[-2:] == [
        TurnStarted(seat=1, card="purchase", action="purchase", cost=4),
        GoldChanged(seat=1, delta=-4, gold=7),
    ]
    events = given(GAME, history).when(1, Purchase(place="booth_0")).decide()
    assert TurnStarted(seat=0, card="baksheesh", action="baksheesh", cost=0) in events


def test_j11_a_token_moving_onto_an_occupied_space_goes_on_top() -> None:
    """J-11/J-12: a Gold Token that moves onto an occupied space is placed on top of the tokens there."""
    history = [*table(2), gold(0, 13)]  # seat 1 alone on 15 skips its Sale; seat 0 joins it with Baksheesh
    history = plays(history, {0: "baksheesh", 1: "sale"})
    view = GAME.view(now(history), None)
    assert isinstance(view, JohariView) and [p.gold for p in view.players] == [15, 15]
    assert view.turn_order == (0, 1)


# ---------------------------------------------------------------- J-12


def test_j12_slot_discounts_and_noble_slot_discount_never_below_zero() -> None:
    """J-12: full cost in slot 1, 2 less in slot 2, free in slot 3, minus Noble slot discounts, >= 0."""
    p = now(table(2)).players[0]
    assert [action_cost(p, "purchase", s) for s in (1, 2, 3)] == [4, 2, 0]
    assert [action_cost(p, "sale", s) for s in (1, 2, 3)] == [2, 0, 0]
    with_noble = now([*table(2), *hired(0, noble("slot_discount_1"), slot=1)]).players[0]
    assert action_cost(with_noble, "trade", 1) == 2 and action_cost(with_noble, "bribe", 1) == 0


def test_j12_a_player_who_cannot_pay_skips_and_pays_nothing() -> None:
    """J-12: not enough gold for the cost: the action is skipped and no gold moves."""
    history, events = turn([*table(2, market={"booth_0": (R2,)}), gold(0, 3)], 0, "purchase")
    assert ActionSkipped(seat=0, card="purchase", action="purchase", cost=4, reason="cannot_pay") in events
    assert not any(isinstance(e, GoldChanged) and e.seat == 0 for e in events)
    assert now(history).players[0].gold == 3 and now(history).market[5] == (R2,)


def test_j12_paying_moves_the_token_on_top_of_the_new_space() -> None:
    """J-12: a payment moves the Gold Token, which goes on top of the tokens on its new space."""
    history = [*table(2, market={"booth_0": (R2,)}), gold(1, 11)]
    history, events = turn(history, 0, "purchase")
    assert GoldChanged(seat=0, delta=-4, gold=11) in events
    assert gold_order(now(history)) == [0, 1]


# ---------------------------------------------------------------- J-14


def test_j14_end_of_day_returns_cards_moves_trade_card_and_ends_protection() -> None:
    """J-14: action cards back to hand, Trade card to display (Gold Cards cashable), Bribe ends."""
    history = [
        *table(2, round=3, draw=tuple(range(42, 80))),
        protected(0),
        on_trade_card(0, R2, gold_card(3)),
        holding(0, B1),
    ]
    history, events = turn(history, 0, "baksheesh", previous="sale")
    assert DayEnded(day=1) in events
    p = now(history).players[0]
    assert p.hand == ("purchase", "sale", "trade", "baksheesh", "bribe", "exchange", "doppelganger")
    assert p.slots == (None, None, None) and not p.protected and p.trade == ()
    assert p.display == (B1, R2, gold_card(3)) and p.cashable == (gold_card(3),)
    assert [x.decision for x in GAME.pending(now(history))] == ["cash_gold_cards"]


# ---------------------------------------------------------------- J-19


def test_j19_purchase_from_an_empty_place_is_not_a_legal_choice() -> None:
    """J-19: an empty Store or Booth is not a legal Purchase target."""
    history, _ = turn(table(2, market={"booth_1": (R2,)}), 0, "purchase")
    assert decisions(GAME.legal(now(history), 0)) == [Purchase(place="booth_1")]
    given(GAME, history).when(0, Purchase(place="booth_0")).rejects("J-19", "empty_target")


def test_j19_no_legal_choice_skips_and_pays_nothing() -> None:
    """J-19: a player with no legal choice (Exchange with nothing to swap) skips and pays nothing."""
    history, events = turn(table(2, market={"booth_1": (R2,)}), 0, "exchange")
    assert events[0] == ActionSkipped(
        seat=0, card="exchange", action="exchange", cost=1, reason="no_legal_choice"
    )
    assert now(history).players[0].gold == 15


def test_j13_doppelganger_repeating_bribe_protects() -> None:
    """J-13 Doppelganger: repeating Bribe also protects (slot 2: cost 1 - 2 -> 0)."""
    history, events = turn(table(2, round=2), 0, "doppelganger", previous="bribe")
    assert events[0] == TurnStarted(seat=0, card="doppelganger", action="bribe", cost=0)
    assert now(history).players[0].protected
