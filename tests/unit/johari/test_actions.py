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
from domain.resign import decisions
from tests.support.scenario import given
from tests.unit.johari.tables import (
    B1,
    B2,
    B3,
    BF,
    G1,
    G2,
    G3,
    GF,
    R1,
    R2,
    R3,
    RF,
    W1,
    W2,
    W3,
    act,
    gem,
    gold_card,
    holding,
    noble,
    now,
    on_trade_card,
    protected,
    table,
    turn,
)

# ---------------------------------------------------------------- Purchase


def test_j13_purchase_takes_all_cards_and_gold_cards_are_cashed_or_kept() -> None:
    """J-13 Purchase: all cards of one place; each Gold Card is cashed at once or kept as a wild card."""
    history = table(2, market={"booth_2": (R2, gold_card(2), gold_card(4))})
    history, events = turn(history, 0, "purchase")
    assert events[:2] == [
        TurnStarted(seat=0, card="purchase", action="purchase", cost=4),
        GoldChanged(seat=0, delta=-4, gold=11),
    ]
    taken = given(GAME, history).when(0, Purchase(place="booth_2")).decide()
    assert taken == [
        CardsTaken(
            seat=0, place="booth_2", to="display", cards=(R2, gold_card(2), gold_card(4)), prestige_cards=()
        ),
        TurnEnded(seat=0),
    ]
    history = [*history, *taken]
    assert [(p.seat, p.decision) for p in GAME.pending(now(history))] == [(0, "cash_gold_cards")]
    assert decisions(GAME.legal(now(history), 0)) == [
        CashGoldCard(card=gold_card(2)),
        CashGoldCard(card=gold_card(4)),
        KeepGoldCards(),
    ]
    cashed = given(GAME, history).when(0, CashGoldCard(card=gold_card(4))).decide()
    assert cashed == [GoldCardCashed(seat=0, card=gold_card(4)), GoldChanged(seat=0, delta=4, gold=15)]
    history = [*history, *cashed]
    history = act(history, 0, KeepGoldCards())
    assert now(history).players[0].display == (R2, gold_card(2)) and now(history).discard == (gold_card(4),)
    assert now(history).players[0].cashable == ()


# ---------------------------------------------------------------- Sale: Jeweler


def test_j13_jeweler_sale_four_colours_step_by_step() -> None:
    """J-13 Jeweler: 4 cards of 4 colours picked one by one; a chosen gem card's gems advance its token."""
    history = table(2)
    history = [*history, holding(0, R2, R3, B1, G3, W1)]
    history = [*history, holding(1, R1)]
    history, _ = turn(history, 0, "sale")
    assert GAME.pending(now(history))[0].decision == "resolve_sale"
    history = act(history, 0, AddJewelerCard(card=R3))
    assert GAME.pending(now(history))[0].decision == "jeweler_pick"
    assert AddJewelerCard(card=R2) not in decisions(
        GAME.legal(now(history), 0)
    )  # a second red can never complete
    given(GAME, history).when(0, AddJewelerCard(card=R2)).rejects("J-13", "jeweler_impossible")
    for cid in (B1, G3, W1):
        history = act(history, 0, AddJewelerCard(card=cid))
    assert GAME.pending(now(history))[0].decision == "jeweler_choose_gem"
    sold = given(GAME, history).when(0, ChooseJewelerGem(card=G3)).decide()
    assert sold[:3] == [
        CardsSold(seat=0, buyer="jeweler", cards=(R3, B1, G3, W1)),
        GemTokenAdvanced(seat=0, colour="green", steps=3, position=3),
        TurnEnded(seat=0),
    ]
    history = [*history, *sold]
    assert now(history).players[0].display == (R2,) and set(now(history).discard) == {R3, B1, G3, W1}


def test_j13_jeweler_sale_three_colours_and_a_gold_card() -> None:
    """J-13 Jeweler: 3 different colours plus 1 Gold Card is also a sale."""
    history = table(2)
    history = [*history, holding(0, R2, B1, W3, gold_card(2))]
    history, _ = turn(history, 0, "sale")
    for cid in (gold_card(2), R2, B1, W3):
        history = act(history, 0, AddJewelerCard(card=cid))
    sold = given(GAME, history).when(0, ChooseJewelerGem(card=W3)).decide()
    assert sold[0] == CardsSold(seat=0, buyer="jeweler", cards=(gold_card(2), R2, B1, W3))
    assert sold[1] == GemTokenAdvanced(seat=0, colour="white", steps=3, position=3)


def test_j13_sale_is_followed_by_supervisor_discards_chosen_out_of_turn() -> None:
    """J-13 Sale: each other unprotected player discards a fake of their choice; several may owe at once."""
    history = table(4)
    history = [*history, holding(0, R2, B2, G2, W2)]
    history = [*history, holding(1, RF, R3)]  # one fake: discarded for them
    history = [*history, holding(2, BF, GF, B1)]  # two fakes: their choice
    history = [*history, holding(3, RF, GF), protected(3)]  # Bribe: safe
    history, _ = turn(history, 0, "sale")
    for cid in (R2, B2, G2, W2):
        history = act(history, 0, AddJewelerCard(card=cid))
    sold = given(GAME, history).when(0, ChooseJewelerGem(card=R2)).decide()
    assert sold[2:5] == [FakeDiscarded(seat=1, card=RF), FakeDiscardsOwed(seats=(2,)), TurnEnded(seat=0)]
    history = [*history, *sold]
    assert [(p.seat, p.decision) for p in GAME.pending(now(history))] == [(2, "discard_fake")]
    assert decisions(GAME.legal(now(history), 2)) == [DiscardFake(card=BF), DiscardFake(card=GF)]
    given(GAME, history).when(2, DiscardFake(card=B1)).rejects("J-13", "not_a_fake")
    history = act(history, 2, DiscardFake(card=GF))
    assert now(history).players[2].display == (BF, B1) and now(history).players[3].display == (RF, GF)


def test_j13_several_seats_owe_fake_discards_at_once() -> None:
    """J-13 Sale: all opponents with a choice of fakes are pending together; play waits for all."""
    history = table(3)
    history = [*history, holding(0, R2, B2, G2, W2)]
    history = [*history, holding(1, RF, gem("red", 2, fake=True))]
    history = [*history, holding(2, BF, GF)]
    history, _ = turn(history, 0, "sale")
    for cid in (R2, B2, G2, W2):
        history = act(history, 0, AddJewelerCard(card=cid))
    history = act(history, 0, ChooseJewelerGem(card=R2))
    assert {(p.seat, p.decision) for p in GAME.pending(now(history))} == {
        (1, "discard_fake"),
        (2, "discard_fake"),
    }
    history = act(history, 2, DiscardFake(card=BF))
    assert [(p.seat, p.decision) for p in GAME.pending(now(history))] == [(1, "discard_fake")]


# ---------------------------------------------------------------- Sale: Collector


def test_j13_collector_advances_by_own_gems_minus_the_second_most() -> None:
    """J-13 Collector: sell all cards of a colour you lead in; advance by your gems minus the second most."""
    history = table(3)
    history = [*history, holding(0, R3, gem("red", 2, nth=1), R1, B1)]  # 6 red gems
    history = [*history, holding(1, R2)]  # 2
    history = [*history, holding(2, gem("red", 1, nth=2))]  # 1
    history, _ = turn(history, 0, "sale")
    assert SellToCollector(colour="red") in decisions(GAME.legal(now(history), 0))
    sold = given(GAME, history).when(0, SellToCollector(colour="red")).decide()
    assert sold[0] == CardsSold(seat=0, buyer="collector", cards=(R3, gem("red", 2, nth=1), R1))
    assert sold[1] == GemTokenAdvanced(seat=0, colour="red", steps=4, position=4)


def test_j13_collector_needs_the_most_gems_and_another_owner() -> None:
    """J-13 Collector: refused without strictly most gems, or when no other player owns that colour."""
    history = table(2)
    history = [*history, holding(0, R2, B2, G2, W2)]  # a Jeweler sale keeps the Sale possible
    history = [*history, holding(1, gem("red", 2, nth=1))]
    history, _ = turn(history, 0, "sale")
    given(GAME, history).when(0, SellToCollector(colour="red")).rejects("J-13", "collector_refuses")
    given(GAME, history).when(0, SellToCollector(colour="blue")).rejects("J-13", "collector_refuses")


def test_j13_impossible_sale_is_skipped_without_payment_or_discards() -> None:
    """J-13 Sale: if no sale is possible the player pays nothing and nobody discards."""
    history = table(2)
    history = [*history, holding(0, R2, B2)]
    history = [*history, holding(1, RF, R3)]
    history, events = turn(history, 0, "sale")
    assert events[0] == ActionSkipped(seat=0, card="sale", action="sale", cost=2, reason="no_legal_choice")
    assert now(history).players[0].gold == 15 and now(history).players[1].display == (RF, R3)


# ---------------------------------------------------------------- Trade


def test_j13_trade_onto_the_trade_card_is_safe_and_not_sellable() -> None:
    """J-13 Trade: a Store's cards go onto the Trade card, safe from fakes and not sellable until day end."""
    history = table(2, market={"store_blue": (BF, B3), "booth_0": (B2,)})
    history, _ = turn(history, 1, "trade")
    given(GAME, history).when(1, TradeFromStore(place="booth_0")).rejects("J-13", "trade_needs_store")
    traded = given(GAME, history).when(1, TradeFromStore(place="store_blue")).decide()
    assert traded[0] == CardsTaken(seat=1, place="store_blue", to="trade", cards=(BF, B3), prestige_cards=())
    history = [*history, *traded]
    assert now(history).players[1].trade == (BF, B3) and now(history).players[1].display == ()


def test_j13_trade_hires_a_noble_paying_gems_of_one_colour_without_change() -> None:
    """J-13 Trade: hire a Noble with gem cards of one colour showing at least its cost; no change."""
    hired = noble("gold_seven")
    history = table(2, track=(hired, None, None, None, None))  # space 1 costs 4
    history = [*history, holding(0, R3, gem("red", 2, nth=1), B3, B2)]
    history, _ = turn(history, 0, "trade")
    assert HireNoble(noble=hired) in decisions(GAME.legal(now(history), 0))
    history = act(history, 0, HireNoble(noble=hired))
    assert GAME.pending(now(history))[0].decision == "pay_noble"
    history = act(history, 0, PayNobleCard(card=R3))
    given(GAME, history).when(0, PayNobleCard(card=B3)).rejects("J-13", "wrong_payment")
    paid = given(GAME, history).when(0, PayNobleCard(card=gem("red", 2, nth=1))).decide()
    assert paid[:2] == [
        NoblePaid(seat=0, card=gem("red", 2, nth=1), gold=0, remaining=0),
        NobleHired(seat=0, noble=hired, space=1),
    ]
    history = [*history, *paid]
    assert now(history).players[0].nobles == (hired,) and now(history).noble_track[0] is None
    assert now(history).players[0].display == (B3, B2)


def test_j13_trade_cannot_hire_an_unaffordable_noble() -> None:
    """J-13 Trade: a Noble whose cost no single colour covers is not a legal choice."""
    hired = noble("prestige_5")
    history = table(2, track=(None, None, None, None, hired), market={"store_red": (R1,)})  # space 5: 8
    history = [*history, holding(0, R3, R2, B3, B2, G3)]
    history, _ = turn(history, 0, "trade")
    given(GAME, history).when(0, HireNoble(noble=hired)).rejects("J-13", "cannot_afford_noble")
    given(GAME, history).when(0, HireNoble(noble=999)).rejects("J-4", "no_such_noble")
    assert HireNoble(noble=hired) not in decisions(GAME.legal(now(history), 0))


# ---------------------------------------------------------------- Baksheesh, Bribe


def test_j13_baksheesh_gains_two_gold() -> None:
    """J-13 Baksheesh: free, +2 gold, resolved at once."""
    _, events = turn(table(2), 0, "baksheesh")
    assert events[:3] == [
        TurnStarted(seat=0, card="baksheesh", action="baksheesh", cost=0),
        GoldChanged(seat=0, delta=2, gold=17),
        TurnEnded(seat=0),
    ]


def test_j13_bribe_costs_one_and_protects_for_the_day() -> None:
    """J-13 Bribe: pay 1 gold; lose no fake gems for the rest of the Market Day."""
    history, events = turn(table(2), 0, "bribe")
    assert events[:4] == [
        TurnStarted(seat=0, card="bribe", action="bribe", cost=1),
        GoldChanged(seat=0, delta=-1, gold=14),
        ProtectionGained(seat=0),
        TurnEnded(seat=0),
    ]
    assert now(history).players[0].protected


# ---------------------------------------------------------------- Exchange


def test_j13_exchange_swaps_a_display_card_for_one_of_the_same_type() -> None:
    """J-13 Exchange: swap a display card for a same-type market card, in two steps."""
    history = table(2, market={"booth_0": (R3, B3), "store_red": (R2,)})
    history = [*history, holding(0, RF, G1), on_trade_card(0, R1)]
    history, _ = turn(history, 0, "exchange")
    assert decisions(GAME.legal(now(history), 0)) == [
        ExchangeGive(card=RF)
    ]  # no green in the market, Trade card excluded
    given(GAME, history).when(0, ExchangeGive(card=R1)).rejects("J-13", "trade_card_locked")
    history = act(history, 0, ExchangeGive(card=RF))
    assert decisions(GAME.legal(now(history), 0)) == [ExchangeTake(card=R2), ExchangeTake(card=R3)]
    given(GAME, history).when(0, ExchangeTake(card=B3)).rejects("J-13", "exchange_type_mismatch")
    swapped = given(GAME, history).when(0, ExchangeTake(card=R3)).decide()
    assert swapped[0] == CardsExchanged(seat=0, given=RF, given_to="booth_0", place="booth_0", taken=R3)
    history = [*history, *swapped]
    assert now(history).players[0].display == (G1, R3) and now(history).market[5] == (B3, RF)


# ---------------------------------------------------------------- Doppelganger


def test_j13_doppelganger_repeats_the_previous_slot_at_its_base_cost_less_its_slot() -> None:
    """J-13 Doppelganger: repeats the previous card's action at that card's base cost, slot-discounted."""
    history = table(2, round=2, market={"booth_0": (R2,)})
    history, events = turn(history, 0, "doppelganger", previous="purchase")
    assert events[0] == TurnStarted(seat=0, card="doppelganger", action="purchase", cost=2)
    assert GAME.pending(now(history))[0].decision == "resolve_purchase"
    history = act(history, 0, Purchase(place="booth_0"))
    assert now(history).players[0].display == (R2,)


def test_j13_doppelganger_is_not_playable_in_round_one() -> None:
    """J-13 Doppelganger: not playable in the first Market Round."""
    history = table(2, round=1)
    assert PlayActionCard(card="doppelganger") not in decisions(GAME.legal(now(history), 0))
    given(GAME, history).when(0, PlayActionCard(card="doppelganger")).rejects(
        "J-13", "doppelganger_in_first_round"
    )


def test_j13_jeweler_selected_event_shape() -> None:
    """J-13 Jeweler step: each pick is recorded as JewelerCardSelected."""
    history = table(2)
    history = [*history, holding(0, R2, B2, G2, W2)]
    history, _ = turn(history, 0, "sale")
    assert given(GAME, history).when(0, AddJewelerCard(card=B2)).decide() == [
        JewelerCardSelected(seat=0, card=B2)
    ]
