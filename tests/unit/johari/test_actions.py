"""The seven actions and their choices (J-13), resolved when the player's turn comes."""

from __future__ import annotations

from domain.johari import GAME
from domain.johari.commands import (
    AddJewelerCard,
    CashGoldCard,
    ChooseJewelerGem,
    DiscardFake,
    ExchangeGive,
    ExchangeTake,
    HireNoble,
    KeepGoldCards,
    PayNobleCard,
    PlayActionCard,
    Purchase,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.events import (
    ActionSkipped,
    CardsExchanged,
    CardsSold,
    CardsTaken,
    FakeDiscarded,
    FakeDiscardsOwed,
    GemTokenAdvanced,
    GoldCardCashed,
    GoldChanged,
    JewelerCardSelected,
    NobleHired,
    NoblePaid,
    ProtectionGained,
    TurnEnded,
    TurnStarted,
)
from tests.unit.johari.helpers import at, edit, gem, gold_card, noble, run, table, turn_of

R1, R2, R3 = gem("red", 1, nth=1), gem("red", 2), gem("red", 3)
B1, B2, B3 = gem("blue", 1, nth=1), gem("blue", 2), gem("blue", 3)
G1, G2, G3 = gem("green", 1, nth=1), gem("green", 2), gem("green", 3)
W1, W2, W3 = gem("white", 1, nth=1), gem("white", 2), gem("white", 3)
RF, BF, GF = gem("red", 1, fake=True), gem("blue", 2, fake=True), gem("green", 3, fake=True)

# ---------------------------------------------------------------- Purchase


def test_j13_purchase_takes_all_cards_and_gold_cards_are_cashed_or_kept() -> None:
    """J-13 Purchase: all cards of one place; each Gold Card is cashed at once or kept as a wild card."""
    state = table(2, market={"booth_2": (R2, gold_card(2), gold_card(4))})
    state, events = turn_of(state, 0, "purchase")
    assert events[:2] == [
        TurnStarted(seat=0, card="purchase", action="purchase", cost=4),
        GoldChanged(seat=0, delta=-4, gold=11),
    ]
    taken = at(state).when(0, Purchase(place="booth_2")).decide()
    assert taken == [
        CardsTaken(
            seat=0, place="booth_2", to="display", cards=(R2, gold_card(2), gold_card(4)), prestige_cards=()
        ),
        TurnEnded(seat=0),
    ]
    state = run(state, taken)
    assert [(p.seat, p.decision) for p in GAME.pending(state)] == [(0, "cash_gold_cards")]
    assert GAME.legal(state, 0) == [
        CashGoldCard(card=gold_card(2)),
        CashGoldCard(card=gold_card(4)),
        KeepGoldCards(),
    ]
    cashed = at(state).when(0, CashGoldCard(card=gold_card(4))).decide()
    assert cashed == [GoldCardCashed(seat=0, card=gold_card(4)), GoldChanged(seat=0, delta=4, gold=15)]
    state = run(state, cashed)
    state = run(state, at(state).when(0, KeepGoldCards()).decide())
    assert state.players[0].display == (R2, gold_card(2)) and state.discard == (gold_card(4),)
    assert state.players[0].cashable == ()


# ---------------------------------------------------------------- Sale: Jeweler


def test_j13_jeweler_sale_four_colours_step_by_step() -> None:
    """J-13 Jeweler: 4 cards of 4 colours picked one by one; a chosen gem card's gems advance its token."""
    state = table(2)
    state = edit(state, 0, display=(R2, R3, B1, G3, W1))
    state = edit(state, 1, display=(R1,))
    state, _ = turn_of(state, 0, "sale")
    assert GAME.pending(state)[0].decision == "resolve_sale"
    state = run(state, at(state).when(0, AddJewelerCard(card=R3)).decide())
    assert GAME.pending(state)[0].decision == "jeweler_pick"
    assert AddJewelerCard(card=R2) not in GAME.legal(state, 0)  # a second red can never complete
    at(state).when(0, AddJewelerCard(card=R2)).rejects("J-13", "jeweler_impossible")
    for cid in (B1, G3, W1):
        state = run(state, at(state).when(0, AddJewelerCard(card=cid)).decide())
    assert GAME.pending(state)[0].decision == "jeweler_choose_gem"
    sold = at(state).when(0, ChooseJewelerGem(card=G3)).decide()
    assert sold[:3] == [
        CardsSold(seat=0, buyer="jeweler", cards=(R3, B1, G3, W1)),
        GemTokenAdvanced(seat=0, colour="green", steps=3, position=3),
        TurnEnded(seat=0),
    ]
    state = run(state, sold)
    assert state.players[0].display == (R2,) and set(state.discard) == {R3, B1, G3, W1}


def test_j13_jeweler_sale_three_colours_and_a_gold_card() -> None:
    """J-13 Jeweler: 3 different colours plus 1 Gold Card is also a sale."""
    state = edit(table(2), 0, display=(R2, B1, W3, gold_card(2)))
    state, _ = turn_of(state, 0, "sale")
    for cid in (gold_card(2), R2, B1, W3):
        state = run(state, at(state).when(0, AddJewelerCard(card=cid)).decide())
    sold = at(state).when(0, ChooseJewelerGem(card=W3)).decide()
    assert sold[0] == CardsSold(seat=0, buyer="jeweler", cards=(gold_card(2), R2, B1, W3))
    assert sold[1] == GemTokenAdvanced(seat=0, colour="white", steps=3, position=3)


def test_j13_sale_is_followed_by_supervisor_discards_chosen_out_of_turn() -> None:
    """J-13 Sale: each other unprotected player discards a fake of their choice; several may owe at once."""
    state = table(4)
    state = edit(state, 0, display=(R2, B2, G2, W2))
    state = edit(state, 1, display=(RF, R3))  # one fake: discarded for them
    state = edit(state, 2, display=(BF, GF, B1))  # two fakes: their choice
    state = edit(state, 3, display=(RF, GF), protected=True)  # Bribe: safe
    state, _ = turn_of(state, 0, "sale")
    for cid in (R2, B2, G2, W2):
        state = run(state, at(state).when(0, AddJewelerCard(card=cid)).decide())
    sold = at(state).when(0, ChooseJewelerGem(card=R2)).decide()
    assert sold[2:5] == [FakeDiscarded(seat=1, card=RF), FakeDiscardsOwed(seats=(2,)), TurnEnded(seat=0)]
    state = run(state, sold)
    assert [(p.seat, p.decision) for p in GAME.pending(state)] == [(2, "discard_fake")]
    assert GAME.legal(state, 2) == [DiscardFake(card=BF), DiscardFake(card=GF)]
    at(state).when(2, DiscardFake(card=B1)).rejects("J-13", "not_a_fake")
    state = run(state, at(state).when(2, DiscardFake(card=GF)).decide())
    assert state.players[2].display == (BF, B1) and state.players[3].display == (RF, GF)


def test_j13_several_seats_owe_fake_discards_at_once() -> None:
    """J-13 Sale: all opponents with a choice of fakes are pending together; play waits for all."""
    state = table(3)
    state = edit(state, 0, display=(R2, B2, G2, W2))
    state = edit(state, 1, display=(RF, gem("red", 2, fake=True)))
    state = edit(state, 2, display=(BF, GF))
    state, _ = turn_of(state, 0, "sale")
    for cid in (R2, B2, G2, W2):
        state = run(state, at(state).when(0, AddJewelerCard(card=cid)).decide())
    state = run(state, at(state).when(0, ChooseJewelerGem(card=R2)).decide())
    assert {(p.seat, p.decision) for p in GAME.pending(state)} == {(1, "discard_fake"), (2, "discard_fake")}
    state = run(state, at(state).when(2, DiscardFake(card=BF)).decide())
    assert [(p.seat, p.decision) for p in GAME.pending(state)] == [(1, "discard_fake")]


# ---------------------------------------------------------------- Sale: Collector


def test_j13_collector_advances_by_own_gems_minus_the_second_most() -> None:
    """J-13 Collector: sell all cards of a colour you lead in; advance by your gems minus the second most."""
    state = table(3)
    state = edit(state, 0, display=(R3, gem("red", 2, nth=1), R1, B1))  # 6 red gems
    state = edit(state, 1, display=(R2,))  # 2
    state = edit(state, 2, display=(gem("red", 1, nth=2),))  # 1
    state, _ = turn_of(state, 0, "sale")
    assert SellToCollector(colour="red") in GAME.legal(state, 0)
    sold = at(state).when(0, SellToCollector(colour="red")).decide()
    assert sold[0] == CardsSold(seat=0, buyer="collector", cards=(R3, gem("red", 2, nth=1), R1))
    assert sold[1] == GemTokenAdvanced(seat=0, colour="red", steps=4, position=4)


def test_j13_collector_needs_the_most_gems_and_another_owner() -> None:
    """J-13 Collector: refused without strictly most gems, or when no other player owns that colour."""
    state = table(2)
    state = edit(state, 0, display=(R2, B2, G2, W2))  # a Jeweler sale keeps the Sale possible
    state = edit(state, 1, display=(gem("red", 2, nth=1),))
    state, _ = turn_of(state, 0, "sale")
    at(state).when(0, SellToCollector(colour="red")).rejects("J-13", "collector_refuses")
    at(state).when(0, SellToCollector(colour="blue")).rejects("J-13", "collector_refuses")


def test_j13_impossible_sale_is_skipped_without_payment_or_discards() -> None:
    """J-13 Sale: if no sale is possible the player pays nothing and nobody discards."""
    state = table(2)
    state = edit(state, 0, display=(R2, B2))
    state = edit(state, 1, display=(RF, R3))
    state, events = turn_of(state, 0, "sale")
    assert events[0] == ActionSkipped(seat=0, card="sale", action="sale", cost=2, reason="no_legal_choice")
    assert state.players[0].gold == 15 and state.players[1].display == (RF, R3)


# ---------------------------------------------------------------- Trade


def test_j13_trade_onto_the_trade_card_is_safe_and_not_sellable() -> None:
    """J-13 Trade: a Store's cards go onto the Trade card, safe from fakes and not sellable until day end."""
    state = table(2, market={"store_blue": (BF, B3), "booth_0": (B2,)})
    state, _ = turn_of(state, 1, "trade")
    at(state).when(1, TradeFromStore(place="booth_0")).rejects("J-13", "trade_needs_store")
    traded = at(state).when(1, TradeFromStore(place="store_blue")).decide()
    assert traded[0] == CardsTaken(seat=1, place="store_blue", to="trade", cards=(BF, B3), prestige_cards=())
    state = run(state, traded)
    assert state.players[1].trade == (BF, B3) and state.players[1].display == ()


def test_j13_trade_hires_a_noble_paying_gems_of_one_colour_without_change() -> None:
    """J-13 Trade: hire a Noble with gem cards of one colour showing at least its cost; no change."""
    hired = noble("gold_seven")
    state = table(2, track=(hired, None, None, None, None))  # space 1 costs 4
    state = edit(state, 0, display=(R3, gem("red", 2, nth=1), B3, B2))
    state, _ = turn_of(state, 0, "trade")
    assert HireNoble(noble=hired) in GAME.legal(state, 0)
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    assert GAME.pending(state)[0].decision == "pay_noble"
    state = run(state, at(state).when(0, PayNobleCard(card=R3)).decide())
    at(state).when(0, PayNobleCard(card=B3)).rejects("J-13", "wrong_payment")
    paid = at(state).when(0, PayNobleCard(card=gem("red", 2, nth=1))).decide()
    assert paid[:2] == [
        NoblePaid(seat=0, card=gem("red", 2, nth=1), gold=0, remaining=0),
        NobleHired(seat=0, noble=hired, space=1),
    ]
    state = run(state, paid)
    assert state.players[0].nobles == (hired,) and state.noble_track[0] is None
    assert state.players[0].display == (B3, B2)


def test_j13_trade_cannot_hire_an_unaffordable_noble() -> None:
    """J-13 Trade: a Noble whose cost no single colour covers is not a legal choice."""
    hired = noble("prestige_5")
    state = table(2, track=(None, None, None, None, hired), market={"store_red": (R1,)})  # space 5: 8
    state = edit(state, 0, display=(R3, R2, B3, B2, G3))
    state, _ = turn_of(state, 0, "trade")
    at(state).when(0, HireNoble(noble=hired)).rejects("J-13", "cannot_afford_noble")
    at(state).when(0, HireNoble(noble=999)).rejects("J-4", "no_such_noble")
    assert HireNoble(noble=hired) not in GAME.legal(state, 0)


# ---------------------------------------------------------------- Baksheesh, Bribe


def test_j13_baksheesh_gains_two_gold() -> None:
    """J-13 Baksheesh: free, +2 gold, resolved at once."""
    _, events = turn_of(table(2), 0, "baksheesh")
    assert events[:3] == [
        TurnStarted(seat=0, card="baksheesh", action="baksheesh", cost=0),
        GoldChanged(seat=0, delta=2, gold=17),
        TurnEnded(seat=0),
    ]


def test_j13_bribe_costs_one_and_protects_for_the_day() -> None:
    """J-13 Bribe: pay 1 gold; lose no fake gems for the rest of the Market Day."""
    state, events = turn_of(table(2), 0, "bribe")
    assert events[:4] == [
        TurnStarted(seat=0, card="bribe", action="bribe", cost=1),
        GoldChanged(seat=0, delta=-1, gold=14),
        ProtectionGained(seat=0),
        TurnEnded(seat=0),
    ]
    assert state.players[0].protected


# ---------------------------------------------------------------- Exchange


def test_j13_exchange_swaps_a_display_card_for_one_of_the_same_type() -> None:
    """J-13 Exchange: swap a display card for a same-type market card, in two steps."""
    state = table(2, market={"booth_0": (R3, B3), "store_red": (R2,)})
    state = edit(state, 0, display=(RF, G1), trade=(R1,))
    state, _ = turn_of(state, 0, "exchange")
    assert GAME.legal(state, 0) == [ExchangeGive(card=RF)]  # no green in the market, Trade card excluded
    at(state).when(0, ExchangeGive(card=R1)).rejects("J-13", "trade_card_locked")
    state = run(state, at(state).when(0, ExchangeGive(card=RF)).decide())
    assert GAME.legal(state, 0) == [ExchangeTake(card=R2), ExchangeTake(card=R3)]
    at(state).when(0, ExchangeTake(card=B3)).rejects("J-13", "exchange_type_mismatch")
    swapped = at(state).when(0, ExchangeTake(card=R3)).decide()
    assert swapped[0] == CardsExchanged(seat=0, given=RF, given_to="booth_0", place="booth_0", taken=R3)
    state = run(state, swapped)
    assert state.players[0].display == (G1, R3) and state.market[5] == (B3, RF)


# ---------------------------------------------------------------- Doppelganger


def test_j13_doppelganger_repeats_the_previous_slot_at_its_base_cost_less_its_slot() -> None:
    """J-13 Doppelganger: repeats the previous card's action at that card's base cost, slot-discounted."""
    state = table(2, round=2, market={"booth_0": (R2,)})
    state, events = turn_of(state, 0, "doppelganger", previous="purchase")
    assert events[0] == TurnStarted(seat=0, card="doppelganger", action="purchase", cost=2)
    assert GAME.pending(state)[0].decision == "resolve_purchase"
    state = run(state, at(state).when(0, Purchase(place="booth_0")).decide())
    assert state.players[0].display == (R2,)


def test_j13_doppelganger_is_not_playable_in_round_one() -> None:
    """J-13 Doppelganger: not playable in the first Market Round."""
    state = table(2, round=1)
    assert PlayActionCard(card="doppelganger") not in GAME.legal(state, 0)
    at(state).when(0, PlayActionCard(card="doppelganger")).rejects("J-13", "doppelganger_in_first_round")


def test_j13_jeweler_selected_event_shape() -> None:
    """J-13 Jeweler step: each pick is recorded as JewelerCardSelected."""
    state = edit(table(2), 0, display=(R2, B2, G2, W2))
    state, _ = turn_of(state, 0, "sale")
    assert at(state).when(0, AddJewelerCard(card=B2)).decide() == [JewelerCardSelected(seat=0, card=B2)]
