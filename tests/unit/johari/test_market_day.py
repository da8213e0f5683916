"""The Market Day: replenishing (J-9), secret plays (J-10), order (J-11), costs (J-12), day end (J-14)."""

from __future__ import annotations

import msgspec

from domain.core import Rng
from domain.johari import GAME
from domain.johari.commands import ExchangeGive, PlayActionCard, Purchase
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
from domain.johari.rules import _deal, _start_day, proceed
from domain.johari.state import gold_order
from domain.johari.view import HIDDEN
from tests.unit.johari.helpers import at, edit, gem, gold_card, noble, run, table, turn_of

# ---------------------------------------------------------------- J-9


def test_j9_replenish_moves_nobles_and_a_new_one_enters_on_space_5() -> None:
    """J-9: every Noble moves toward 1, the one on space 1 leaves, the stack's top enters on space 5."""
    state = table(2, track=(11, None, 12, 13, 14), stack=(15, 16), day=3)
    state = edit(state, 0, gold=15)
    events = _start_day(state, Rng("j9", "x"))
    assert events[0] == DayStarted(day=4)
    assert events[1] == NoblesAdvanced(leaving=11, entering=15)
    after = run(state, events)
    assert after.noble_track == (None, 12, 13, 14, 15) and after.noble_stack == (16,)


def test_j9_replenish_every_day_players_cards_to_stores_and_one_per_booth() -> None:
    """J-9: each day n cards go into the Stores by type and one card into every Booth; old cards stay."""
    draw: tuple[int, ...] = (gem("red", 1, nth=1), gold_card(2), gem("blue", 2), gem("green", 3))
    draw += tuple(range(2, 8))
    state = table(2, draw=draw, market={"store_red": (gem("red", 3),)})
    events = _start_day(state, Rng("j9", "x"))
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert dealt == [
        CardsDealt(
            cards=draw[:6],
            places=("store_red", "store_gold", "booth_0", "booth_1", "booth_2", "booth_3"),
        )
    ]
    after = run(state, events)
    assert after.market[0] == (gem("red", 3), gem("red", 1, nth=1))
    assert isinstance(events[-1], RoundStarted) and after.phase == "play"


def test_j9_discard_pile_is_reshuffled_when_the_draw_pile_runs_out() -> None:
    """J-9/J-7: when the draw pile runs out the discard pile, shuffled by the rng, becomes the new pile."""
    discard = tuple(range(2, 12))
    state = table(2, draw=(gem("red", 2),), discard=discard)
    events = _deal(state, 2, Rng("j9", "reshuffle"))
    assert isinstance(events[0], CardsDealt) and events[0].cards == (gem("red", 2),)
    reshuffled = events[1]
    assert isinstance(reshuffled, DiscardReshuffled)
    assert sorted(reshuffled.draw_pile) == list(discard) and reshuffled.size == 10
    assert reshuffled.draw_pile == tuple(Rng("j9", "reshuffle").shuffle(list(discard)))
    after = run(state, events)
    assert after.discard == () and len(after.draw) == 10 - 5
    assert sum(len(m) for m in after.market) == 6


# ---------------------------------------------------------------- J-10


def test_j10_cards_are_played_secretly_into_the_leftmost_slot_and_revealed_together() -> None:
    """J-10: a play fills the leftmost empty slot, is hidden from others, and all reveal together."""
    state = table(3, round=2)
    state = edit(state, 0, slots=("sale", None, None))
    first = at(state).when(0, PlayActionCard(card="purchase")).decide()
    assert first == [ActionCardPlayed(seat=0, slot=2, card="purchase")]
    assert GAME.redact(first[0], 1) == ActionCardPlayed(seat=0, slot=2, card=None)
    assert GAME.redact(first[0], None) == ActionCardPlayed(seat=0, slot=2, card=None)
    assert GAME.redact(first[0], 0) == first[0]
    state = run(state, first)
    seen = GAME.view(state, 1)
    assert seen.players[0].slots == ("sale", HIDDEN, None)  # type: ignore[attr-defined]
    assert GAME.view(state, 0).players[0].slots == ("sale", "purchase", None)  # type: ignore[attr-defined]
    assert {p.seat for p in GAME.pending(state)} == {1, 2}
    state = run(state, at(state).when(1, PlayActionCard(card="bribe")).decide())
    last = at(state).when(2, PlayActionCard(card="baksheesh")).decide()
    assert last[0] == ActionCardPlayed(seat=2, slot=2, card="baksheesh")
    assert last[1] == ActionCardsRevealed(cards=("purchase", "bribe", "baksheesh"))


def test_j10_a_card_must_be_in_hand_and_only_one_per_round() -> None:
    """J-10: a card already played is not in hand; a second play in the same round is refused."""
    state = edit(table(2, round=2), 0, slots=("sale", None, None), hand=("purchase", "trade"))
    at(state).when(0, PlayActionCard(card="sale")).rejects("J-10", "card_not_in_hand")
    state = run(state, at(state).when(0, PlayActionCard(card="trade")).decide())
    at(state).when(0, PlayActionCard(card="purchase")).rejects("J-10", "not_your_turn")


# ---------------------------------------------------------------- J-11


def test_j11_most_gold_acts_first_and_ties_go_to_the_higher_token() -> None:
    """J-11: most gold first; on equal gold the token higher in the stack (later arrival) first."""
    state = table(3)
    state = edit(state, 0, gold=12, stamp=5)
    state = edit(state, 1, gold=12, stamp=7)
    state = edit(state, 2, gold=20, stamp=0)
    assert gold_order(state) == [2, 1, 0]


def test_j11_order_is_re_read_after_every_action() -> None:
    """J-11: after each action the richest player who has not acted goes next (payments reorder)."""
    state = table(2, market={"booth_0": (gem("red", 1, nth=1),)})
    state = edit(state, 0, gold=10, slots=("baksheesh", None, None))
    state = edit(state, 1, gold=11, slots=("purchase", None, None))
    state = msgspec.structs.replace(state, phase="resolve")
    events = proceed(state, Rng("j11", "x"))
    assert events[0] == TurnStarted(seat=1, card="purchase", action="purchase", cost=4)
    after = run(state, events)
    played = at(after).when(1, Purchase(place="booth_0")).decide()
    assert any(e == TurnStarted(seat=0, card="baksheesh", action="baksheesh", cost=0) for e in played)


def test_j11_a_token_moving_onto_an_occupied_space_goes_on_top() -> None:
    """J-11/J-12: a Gold Token that moves onto an occupied space is placed on top of the stack there."""
    state = table(2)
    state = edit(state, 0, gold=13, stamp=1)
    state = edit(state, 1, gold=15, stamp=0)
    assert gold_order(state) == [1, 0]
    state = run(state, [GoldChanged(seat=0, delta=2, gold=15)])
    assert gold_order(state) == [0, 1]


# ---------------------------------------------------------------- J-12


def test_j12_slot_discounts_and_noble_slot_discount_never_below_zero() -> None:
    """J-12: full cost in slot 1, 2 less in slot 2, free in slot 3, minus Noble slot discounts, >= 0."""
    p = table(2).players[0]
    assert [action_cost(p, "purchase", s) for s in (1, 2, 3)] == [4, 2, 0]
    assert [action_cost(p, "sale", s) for s in (1, 2, 3)] == [2, 0, 0]
    with_noble = edit(
        table(2), 0, nobles=(noble("slot_discount_1"),), noble_slots=((noble("slot_discount_1"), 1),)
    )
    assert action_cost(with_noble.players[0], "trade", 1) == 2
    assert action_cost(with_noble.players[0], "bribe", 1) == 0


def test_j12_a_player_who_cannot_pay_skips_and_pays_nothing() -> None:
    """J-12: not enough gold for the cost: the action is skipped and no gold moves."""
    state = edit(table(2, market={"booth_0": (gem("red", 2),)}), 0, gold=3)
    after, events = turn_of(state, 0, "purchase")
    assert events[0] == ActionSkipped(seat=0, card="purchase", action="purchase", cost=4, reason="cannot_pay")
    assert after.players[0].gold == 3 and after.market[5] == (gem("red", 2),)


def test_j12_paying_moves_the_token_on_top_of_the_new_space() -> None:
    """J-12: a payment moves the Gold Token, which goes on top of the stack on its new space."""
    state = table(2, market={"booth_0": (gem("red", 2),)})
    state = edit(state, 0, gold=15, stamp=0)
    state = edit(state, 1, gold=11, stamp=1)
    after, events = turn_of(state, 0, "purchase")
    assert GoldChanged(seat=0, delta=-4, gold=11) in events
    assert gold_order(after) == [0, 1]


# ---------------------------------------------------------------- J-14


def test_j14_end_of_day_returns_cards_moves_trade_card_and_ends_protection() -> None:
    """J-14: action cards back to hand, Trade card to display (Gold Cards cashable), Bribe ends."""
    state = table(2, round=3, draw=tuple(range(2, 40)))
    state = edit(
        state, 0, protected=True, trade=(gem("red", 2), gold_card(3)), display=(gem("blue", 1, nth=1),)
    )
    after, events = turn_of(state, 0, "baksheesh", previous="sale")
    assert DayEnded(day=1) in events
    p = after.players[0]
    assert p.hand == ("purchase", "sale", "trade", "baksheesh", "bribe", "exchange", "doppelganger")
    assert p.slots == (None, None, None) and not p.protected and p.trade == ()
    assert p.display == (gem("blue", 1, nth=1), gem("red", 2), gold_card(3))
    assert p.cashable == (gold_card(3),)
    assert [x.decision for x in GAME.pending(after)] == ["cash_gold_cards"]


# ---------------------------------------------------------------- J-19


def test_j19_purchase_from_an_empty_place_is_not_a_legal_choice() -> None:
    """J-19: an empty Store or Booth is not a legal Purchase target."""
    state = table(2, market={"booth_1": (gem("red", 2),)})
    after, _ = turn_of(state, 0, "purchase")
    assert GAME.legal(after, 0) == [Purchase(place="booth_1")]
    at(after).when(0, Purchase(place="booth_0")).rejects("J-19", "empty_target")


def test_j19_no_legal_choice_skips_and_pays_nothing() -> None:
    """J-19: a player with no legal choice (Exchange with nothing to swap) skips and pays nothing."""
    state = table(2, market={"booth_1": (gem("red", 2),)})
    after, events = turn_of(state, 0, "exchange")
    assert events[0] == ActionSkipped(
        seat=0, card="exchange", action="exchange", cost=1, reason="no_legal_choice"
    )
    assert after.players[0].gold == 15
    assert ExchangeGive not in {type(c) for c in GAME.legal(after, 0)}


def test_j9_reshuffle_inside_decide_uses_the_rng_passed_to_decide() -> None:
    """J-9/J-7: a reshuffle while a command is decided comes from decide's rng, written into the event."""
    discard = tuple(range(2, 14))
    state = table(2, round=3, discard=discard, market={"booth_0": (gem("red", 3),)})
    state, _ = turn_of(state, 0, "purchase", previous="sale")
    events = GAME.decide(state, 0, Purchase(place="booth_0"), Rng("seed", "v7"))
    assert DayEnded(day=1) in events and DayStarted(day=2) in events
    reshuffled = next(e for e in events if isinstance(e, DiscardReshuffled))
    assert reshuffled.draw_pile == tuple(Rng("seed", "v7").shuffle(list(discard)))


def test_j13_doppelganger_repeating_bribe_protects() -> None:
    """J-13 Doppelganger: repeating Bribe also protects (slot 2: cost 1 - 2 -> 0)."""
    state, events = turn_of(table(2, round=2), 0, "doppelganger", previous="bribe")
    assert events[0] == TurnStarted(seat=0, card="doppelganger", action="bribe", cost=0)
    assert state.players[0].protected
