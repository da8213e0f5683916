"""The 24 Noble abilities (J-16), one test each."""

from __future__ import annotations

from pathlib import Path

from domain.johari import GAME
from domain.johari.commands import (
    AddJewelerCard,
    ChooseJewelerGem,
    DiscardForAdvance,
    ExchangeGive,
    ExchangeTake,
    HireNoble,
    PayNobleCard,
    PayNobleGold,
    PlaceNoble,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.components import COMPONENTS
from domain.johari.events import (
    CardDiscardedForAdvance,
    CardsExchanged,
    CardsSold,
    CardsTaken,
    GemTokenAdvanced,
    GoldChanged,
    NoblePaid,
    NoblePlaced,
    ProtectionGained,
    TurnEnded,
    TurnStarted,
)
from domain.johari.nobles import action_cost
from domain.johari.scoring import score
from domain.johari.state import State
from tests.unit.johari.helpers import (
    at,
    edit,
    gem,
    gold_card,
    noble,
    prestige_card,
    run,
    table,
    tokens,
    turn_of,
)

R1, R2, R3 = gem("red", 1, nth=1), gem("red", 2), gem("red", 3)
B1, B2, B3 = gem("blue", 1, nth=1), gem("blue", 2), gem("blue", 3)
G1, G2, G3 = gem("green", 1, nth=1), gem("green", 2), gem("green", 3)
W1, W2, W3 = gem("white", 1, nth=1), gem("white", 2), gem("white", 3)
RF = gem("red", 1, fake=True)


def owning(state: State, seat: int, ability: str, **changes: object) -> State:
    """The player has hired the Noble with ``ability``."""
    return edit(state, seat, nobles=(*state.players[seat].nobles, noble(ability)), **changes)


# ---------------------------------------------------------------- back 1


def test_j16_baksheesh_plus_one_gives_three_gold() -> None:
    """J-16 baksheesh_plus_one: Baksheesh gives 3 gold instead of 2."""
    _, events = turn_of(owning(table(2), 0, "baksheesh_plus_one"), 0, "baksheesh")
    assert events[1] == GoldChanged(seat=0, delta=3, gold=18)


def test_j16_baksheesh_protects_from_fake_discards_for_the_day() -> None:
    """J-16 baksheesh_protects: after Baksheesh the owner loses no fakes for the rest of the day."""
    state, events = turn_of(owning(table(2), 0, "baksheesh_protects"), 0, "baksheesh")
    assert ProtectionGained(seat=0) in events and state.players[0].protected
    state = edit(state, 0, display=(RF,), acted=False)
    state = edit(state, 1, display=(R2, B2, G2, W2))
    state, _ = turn_of(state, 1, "sale")
    for cid in (R2, B2, G2, W2):
        state = run(state, at(state).when(1, AddJewelerCard(card=cid)).decide())
    state = run(state, at(state).when(1, ChooseJewelerGem(card=R2)).decide())
    assert state.players[0].display == (RF,)


def test_j16_bribe_plus_gold_also_gives_two_gold() -> None:
    """J-16 bribe_plus_gold: Bribe also gives 2 gold."""
    _, events = turn_of(owning(table(2), 0, "bribe_plus_gold"), 0, "bribe")
    assert events[1:5] == [
        GoldChanged(seat=0, delta=-1, gold=14),
        ProtectionGained(seat=0),
        GoldChanged(seat=0, delta=2, gold=16),
        TurnEnded(seat=0),
    ]


def test_j16_purchase_discount_costs_two_less() -> None:
    """J-16 purchase_discount: Purchase costs 2 fewer gold from now on."""
    state = owning(table(2, market={"booth_0": (R2,)}), 0, "purchase_discount")
    _, events = turn_of(state, 0, "purchase")
    assert events[0] == TurnStarted(seat=0, card="purchase", action="purchase", cost=2)


def test_j16_slot_discount_1_is_placed_on_a_chosen_slot_when_hired() -> None:
    """J-16 slot_discount_1: immediately placed on a slot of the owner's choice; 1 fewer gold there."""
    hired = noble("slot_discount_1")
    state = edit(table(2, track=(hired, None, None, None, None)), 0, display=(R3, gem("red", 3, nth=1)))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=R3)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=gem("red", 3, nth=1))).decide())
    assert GAME.pending(state)[0].decision == "place_noble"
    assert GAME.legal(state, 0) == [PlaceNoble(slot=1), PlaceNoble(slot=2), PlaceNoble(slot=3)]
    placed = at(state).when(0, PlaceNoble(slot=1)).decide()
    assert placed[:2] == [NoblePlaced(seat=0, noble=hired, slot=1), TurnEnded(seat=0)]
    state = run(state, placed)
    assert action_cost(state.players[0], "purchase", 1) == 3
    assert action_cost(state.players[0], "purchase", 2) == 2


def test_j16_gold_seven_moves_the_gold_token_seven_spaces_at_once() -> None:
    """J-16 gold_seven: immediately +7 gold on hiring."""
    hired = noble("gold_seven")
    state = edit(table(2, track=(hired, None, None, None, None)), 0, display=(R3, gem("red", 3, nth=1)))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=R3)).decide())
    paid = at(state).when(0, PayNobleCard(card=gem("red", 3, nth=1))).decide()
    assert GoldChanged(seat=0, delta=7, gold=12 + 7) in paid


def test_j16_trade_immediate_adds_traded_cards_to_the_display_at_once() -> None:
    """J-16 trade_immediate: the traded cards may go straight into the display (Gold Cards cashable)."""
    state = owning(table(2, market={"store_gold": (gold_card(3),)}), 0, "trade_immediate")
    state, _ = turn_of(state, 0, "trade")
    assert TradeFromStore(place="store_gold", to_display=True) in GAME.legal(state, 0)
    traded = at(state).when(0, TradeFromStore(place="store_gold", to_display=True)).decide()
    assert traded[0] == CardsTaken(
        seat=0, place="store_gold", to="display", cards=(gold_card(3),), prestige_cards=()
    )
    state = run(state, traded)
    assert state.players[0].display == (gold_card(3),) and state.players[0].cashable == (gold_card(3),)


def test_j16_trade_immediate_is_refused_without_the_noble() -> None:
    """J-16 trade_immediate: without the Noble the cards must go onto the Trade card."""
    state, _ = turn_of(table(2, market={"store_gold": (gold_card(3),)}), 0, "trade")
    at(state).when(0, TradeFromStore(place="store_gold", to_display=True)).rejects("J-16", "needs_noble")


def test_j16_exchange_any_type_swaps_different_types() -> None:
    """J-16 exchange_any_type: the exchanged cards need not match; the given card goes to its own Store."""
    state = owning(table(2, market={"store_blue": (B3,)}), 0, "exchange_any_type", display=(R1,))
    state, _ = turn_of(state, 0, "exchange")
    state = run(state, at(state).when(0, ExchangeGive(card=R1)).decide())
    swapped = at(state).when(0, ExchangeTake(card=B3)).decide()
    assert swapped[0] == CardsExchanged(seat=0, given=R1, given_to="store_red", place="store_blue", taken=B3)


# ---------------------------------------------------------------- back 2


def test_j16_jeweler_three_types_needs_only_three_cards() -> None:
    """J-16 jeweler_three_types: a Jeweler sale of 3 different colours."""
    state = owning(table(2), 0, "jeweler_three_types", display=(R2, B3, G1))
    state, _ = turn_of(state, 0, "sale")
    for cid in (R2, B3, G1):
        state = run(state, at(state).when(0, AddJewelerCard(card=cid)).decide())
    assert GAME.pending(state)[0].decision == "jeweler_choose_gem"
    sold = at(state).when(0, ChooseJewelerGem(card=B3)).decide()
    assert sold[1] == GemTokenAdvanced(seat=0, colour="blue", steps=3, position=3)


def _collector(ability: str) -> list[object]:
    state = owning(table(2), 0, ability, display=(R3, R2))
    state = edit(state, 1, display=(R1,))
    state, _ = turn_of(state, 0, "sale")
    return list(at(state).when(0, SellToCollector(colour="red")).decide())


def test_j16_collector_plus_one_advances_one_more() -> None:
    """J-16 collector_plus_one: a Collector sale advances 1 more space (5 - 1 + 1)."""
    assert _collector("collector_plus_one")[1] == GemTokenAdvanced(seat=0, colour="red", steps=5, position=5)


def test_j16_collector_plus_two_advances_two_more() -> None:
    """J-16 collector_plus_two: a Collector sale advances 2 more spaces (5 - 1 + 2)."""
    assert _collector("collector_plus_two")[1] == GemTokenAdvanced(seat=0, colour="red", steps=6, position=6)


def test_j16_sale_wild_card_counts_one_card_as_another_colour() -> None:
    """J-16 sale_wild_card: one card per sale as another colour (Jeweler; Collector: toward the colour)."""
    state = owning(table(2), 0, "sale_wild_card", display=(R2, B3, G1, gem("red", 3, nth=1)))
    state = edit(state, 1, display=(W1, gem("red", 2, nth=1), gem("red", 3, nth=2)))
    state, _ = turn_of(state, 0, "sale")
    options = GAME.legal(state, 0)
    assert AddJewelerCard(card=R2, as_colour="white") in options
    assert SellToCollector(colour="red", wild_card=B3) in options  # 5 + 3 > 5
    assert SellToCollector(colour="red") not in options  # 5 is not more than 5
    for command in (
        AddJewelerCard(card=R2, as_colour="white"),
        AddJewelerCard(card=B3),
        AddJewelerCard(card=G1),
        AddJewelerCard(card=gem("red", 3, nth=1)),
    ):
        state = run(state, at(state).when(0, command).decide())
    sold = at(state).when(0, ChooseJewelerGem(card=R2)).decide()
    assert sold[1] == GemTokenAdvanced(seat=0, colour="white", steps=2, position=2)
    # only one wild card per sale
    state2 = owning(table(2), 0, "sale_wild_card", display=(R2, B3, G1, gem("red", 3, nth=1)))
    state2, _ = turn_of(state2, 0, "sale")
    state2 = run(state2, at(state2).when(0, AddJewelerCard(card=R2, as_colour="white")).decide())
    assert all(c.as_colour is None for c in GAME.legal(state2, 0) if isinstance(c, AddJewelerCard))


def test_j16_sale_wild_card_refused_without_the_noble() -> None:
    """J-16 sale_wild_card: without the Noble a card cannot change colour."""
    state = edit(table(2), 0, display=(R2, B3, G1, W1, gem("red", 3, nth=1)))
    state, _ = turn_of(state, 0, "sale")
    at(state).when(0, AddJewelerCard(card=R2, as_colour="white")).rejects("J-16", "needs_noble")


def test_j16_sale_discard_instead_replaces_the_sale_without_supervisor_discards() -> None:
    """J-16 sale_discard_instead: discard a gem card, its token +1; cost paid; nobody discards fakes."""
    state = owning(table(2), 0, "sale_discard_instead", display=(G3,))
    state = edit(state, 1, display=(RF,))
    state, events = turn_of(state, 0, "sale")
    assert events[1] == GoldChanged(seat=0, delta=-2, gold=13)
    assert GAME.legal(state, 0) == [DiscardForAdvance(card=G3)]
    done = at(state).when(0, DiscardForAdvance(card=G3)).decide()
    assert done[:3] == [
        CardDiscardedForAdvance(seat=0, card=G3),
        GemTokenAdvanced(seat=0, colour="green", steps=1, position=1),
        TurnEnded(seat=0),
    ]
    assert run(state, done).players[1].display == (RF,)


def test_j16_hire_two_fewer_lowers_the_noble_cost_by_two() -> None:
    """J-16 hire_two_fewer: hiring a Noble costs 2 fewer gems (space 1: 4 - 2 = 2)."""
    hired = noble("prestige_6")
    state = owning(table(2, track=(hired, None, None, None, None)), 0, "hire_two_fewer", display=(R2,))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    assert state.turn is not None and state.turn.remaining == 2
    paid = at(state).when(0, PayNobleCard(card=R2)).decide()
    assert run(state, paid).players[0].nobles == (noble("hire_two_fewer"), hired)


def test_j16_hire_with_gold_pays_with_track_gold_and_gold_cards() -> None:
    """J-16 hire_with_gold: each gold (track or Gold Card) counts as one gem, combinable with gems."""
    hired = noble("prestige_7")
    state = table(2, track=(hired, None, None, None, None))
    state = owning(state, 0, "hire_with_gold", display=(R1, gold_card(2)))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    options = GAME.legal(state, 0)
    assert PayNobleCard(card=gold_card(2)) in options and PayNobleGold(amount=4) in options
    state = run(state, at(state).when(0, PayNobleCard(card=R1)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=gold_card(2))).decide())
    paid = at(state).when(0, PayNobleGold(amount=1)).decide()
    assert paid[:2] == [
        GoldChanged(seat=0, delta=-1, gold=11),
        NoblePaid(seat=0, card=None, gold=1, remaining=0),
    ]
    assert hired in run(state, paid).players[0].nobles


def test_j16_hire_with_gold_refused_without_the_noble() -> None:
    """J-16 hire_with_gold: without the Noble gold cannot pay for a Noble."""
    hired = noble("prestige_7")
    state = edit(table(2, track=(hired, None, None, None, None)), 0, display=(R3, R2))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    at(state).when(0, PayNobleGold(amount=1)).rejects("J-16", "needs_noble")


def test_j16_slot_discount_2_makes_slot_cards_two_cheaper() -> None:
    """J-16 slot_discount_2: actions played on its slot cost 2 fewer gold (never below 0)."""
    hired = noble("slot_discount_2")
    state = edit(table(2, track=(hired, None, None, None, None)), 0, display=(R3, gem("red", 3, nth=1)))
    state, _ = turn_of(state, 0, "trade")
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=R3)).decide())
    state = run(state, at(state).when(0, PayNobleCard(card=gem("red", 3, nth=1))).decide())
    state = run(state, at(state).when(0, PlaceNoble(slot=2)).decide())
    assert action_cost(state.players[0], "purchase", 2) == 0
    assert action_cost(state.players[0], "purchase", 1) == 4


# ---------------------------------------------------------------- back 3 (end of game)


def _final(ability: str, **changes: object) -> int:
    state = owning(table(2), 0, ability, **changes)
    return score(state.players[0]).total


def test_j16_prestige_5_to_8_are_worth_their_points() -> None:
    """J-16 prestige_5..prestige_8: worth 5, 6, 7 and 8 points at the end."""
    for points in (5, 6, 7, 8):
        assert _final(f"prestige_{points}") == points


def test_j16_prestige_5_worth_5() -> None:
    """J-16 prestige_5: 5 points."""
    assert _final("prestige_5") == 5


def test_j16_prestige_6_worth_6() -> None:
    """J-16 prestige_6: 6 points."""
    assert _final("prestige_6") == 6


def test_j16_prestige_7_worth_7() -> None:
    """J-16 prestige_7: 7 points."""
    assert _final("prestige_7") == 7


def test_j16_prestige_8_worth_8() -> None:
    """J-16 prestige_8: 8 points."""
    assert _final("prestige_8") == 8


def test_j16_prestige_cards_plus_one_adds_one_per_prestige_card() -> None:
    """J-16 prestige_cards_plus_one: each Prestige Card is worth 1 more (3 + (1+1) + (3+1))."""
    held = (prestige_card(1), prestige_card(3))
    assert _final("prestige_cards_plus_one", prestige=held) == 3 + 2 + 4


def test_j16_two_per_type_counts_gem_colours_in_the_display() -> None:
    """J-16 two_per_type: 2 points per gem colour present; Gold and Prestige Cards do not count."""
    display = (R1, R2, B1, gold_card(2))
    assert _final("two_per_type", display=display, prestige=(prestige_card(1),)) == 3 + 1 + 2 * 2


def test_j16_advance_tokens_chooses_the_owners_best_total() -> None:
    """J-16 advance_tokens: one token +2 or two tokens +1 each, whichever scores more within the track."""
    assert _final("advance_tokens", tokens=tokens(red=3)) == 3 + 3 + 2
    top = COMPONENTS.track_max
    # red at the end of the track: two tokens +1 (blue at the end too: green +2 is still best)
    assert _final("advance_tokens", tokens=tokens(red=top, blue=top)) == 3 + 2 * top + 2
    assert _final("advance_tokens", tokens=(top, top, top, top - 1)) == 3 + 4 * top - 1 + 1


def test_j16_one_per_noble_counts_every_noble_itself_included() -> None:
    """J-16 one_per_noble: 1 point per Noble the player has, itself included."""
    state = edit(table(2), 0, nobles=(noble("one_per_noble"), noble("gold_seven"), noble("prestige_5")))
    assert score(state.players[0]).total == 3 + 1 + 5 + 3


def test_j16_every_ability_is_tested_here() -> None:
    """J-16: the 24 abilities of the data file each have a test in this module."""
    source = Path(__file__).read_text(encoding="utf-8")
    for n in COMPONENTS.nobles.values():
        assert f"test_j16_{n.ability}" in source or n.ability.startswith("prestige_"), n.ability


def test_j16_sold_cards_event_for_collector_includes_wild() -> None:
    """J-16 sale_wild_card: the wild card is sold with the colour in a Collector sale."""
    state = owning(table(2), 0, "sale_wild_card", display=(R2, B3))
    state = edit(state, 1, display=(R1,))
    state, _ = turn_of(state, 0, "sale")
    sold = at(state).when(0, SellToCollector(colour="red", wild_card=B3)).decide()
    assert sold[0] == CardsSold(seat=0, buyer="collector", cards=(R2, B3), wild_card=B3)
    assert sold[1] == GemTokenAdvanced(seat=0, colour="red", steps=4, position=4)


def test_j16_gold_seven_paid_with_track_gold_counts_from_the_gold_left() -> None:
    """J-16 gold_seven with hire_with_gold: the +7 applies after the gold paid for the Noble."""
    hired = noble("gold_seven")
    state = owning(table(2, track=(hired, None, None, None, None)), 0, "hire_with_gold")
    state, _ = turn_of(state, 0, "trade")  # 15 - 3 = 12
    state = run(state, at(state).when(0, HireNoble(noble=hired)).decide())
    paid = at(state).when(0, PayNobleGold(amount=4)).decide()
    assert paid[0] == GoldChanged(seat=0, delta=-4, gold=8)
    assert GoldChanged(seat=0, delta=7, gold=15) in paid
