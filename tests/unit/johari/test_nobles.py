"""The 24 Noble abilities (J-16), one test each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.core import Event
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
from domain.resign import decisions
from tests.support.scenario import given
from tests.unit.johari.tables import (
    B1,
    B2,
    B3,
    G1,
    G2,
    G3,
    R1,
    R2,
    R3,
    RF,
    W1,
    W2,
    act,
    gem,
    gold_card,
    hired,
    holding,
    noble,
    now,
    plays,
    prestige_card,
    table,
    tokens,
    turn,
)


def owning(
    history: Sequence[Event],
    seat: int,
    ability: str,
    display: tuple[int, ...] = (),
    prestige: tuple[int, ...] = (),
    tokens_at: Mapping[str, int] | None = None,
) -> list[Event]:
    """``history``, then the player has hired the Noble with ``ability`` and holds these cards and tokens."""
    return [
        *history,
        *hired(seat, noble(ability)),
        holding(seat, *display, *prestige),
        *tokens(seat, **(tokens_at or {})),
    ]


def half_paid(noble_id: int) -> list[Event]:
    """Seat 0 trades for this Noble on space 1 (4 gems) and has paid a red 3; a second red 3 is left."""
    history = [*table(2, track=(noble_id, None, None, None, None)), holding(0, R3, gem("red", 3, nth=1))]
    history, _ = turn(history, 0, "trade")
    return act(act(history, 0, HireNoble(noble=noble_id)), 0, PayNobleCard(card=R3))


# ---------------------------------------------------------------- back 1


def test_j16_baksheesh_plus_one_gives_three_gold() -> None:
    """J-16 baksheesh_plus_one: Baksheesh gives 3 gold instead of 2."""
    _, events = turn(owning(table(2), 0, "baksheesh_plus_one"), 0, "baksheesh")
    assert events[1] == GoldChanged(seat=0, delta=3, gold=18)


def test_j16_baksheesh_protects_from_fake_discards_for_the_day() -> None:
    """J-16 baksheesh_protects: after Baksheesh the owner loses no fakes for the rest of the day."""
    history = [*owning(table(2), 0, "baksheesh_protects", display=(RF,)), holding(1, R2, B2, G2, W2)]
    history, events = turn(history, 0, "baksheesh")
    assert ProtectionGained(seat=0) in events and now(history).players[0].protected
    history = plays(history, {0: "purchase", 1: "sale"})  # round 2: seat 1 sells
    for cid in (R2, B2, G2, W2):
        history = act(history, 1, AddJewelerCard(card=cid))
    history = act(history, 1, ChooseJewelerGem(card=R2))
    assert now(history).players[0].display == (RF,)


def test_j16_bribe_plus_gold_also_gives_two_gold() -> None:
    """J-16 bribe_plus_gold: Bribe also gives 2 gold."""
    _, events = turn(owning(table(2), 0, "bribe_plus_gold"), 0, "bribe")
    assert events[1:5] == [
        GoldChanged(seat=0, delta=-1, gold=14),
        ProtectionGained(seat=0),
        GoldChanged(seat=0, delta=2, gold=16),
        TurnEnded(seat=0),
    ]


def test_j16_purchase_discount_costs_two_less() -> None:
    """J-16 purchase_discount: Purchase costs 2 fewer gold from now on."""
    history = owning(table(2, market={"booth_0": (R2,)}), 0, "purchase_discount")
    _, events = turn(history, 0, "purchase")
    assert events[0] == TurnStarted(seat=0, card="purchase", action="purchase", cost=2)


def test_j16_slot_discount_1_is_placed_on_a_chosen_slot_when_hired() -> None:
    """J-16 slot_discount_1: immediately placed on a slot of the owner's choice; 1 fewer gold there."""
    hired = noble("slot_discount_1")
    history = half_paid(hired)
    history = act(history, 0, PayNobleCard(card=gem("red", 3, nth=1)))
    assert GAME.pending(now(history))[0].decision == "place_noble"
    assert decisions(GAME.legal(now(history), 0)) == [
        PlaceNoble(slot=1),
        PlaceNoble(slot=2),
        PlaceNoble(slot=3),
    ]
    placed = given(GAME, history).when(0, PlaceNoble(slot=1)).decide()
    assert placed[:2] == [NoblePlaced(seat=0, noble=hired, slot=1), TurnEnded(seat=0)]
    history = [*history, *placed]
    assert action_cost(now(history).players[0], "purchase", 1) == 3
    assert action_cost(now(history).players[0], "purchase", 2) == 2


def test_j16_gold_seven_moves_the_gold_token_seven_spaces_at_once() -> None:
    """J-16 gold_seven: immediately +7 gold on hiring."""
    hired = noble("gold_seven")
    history = half_paid(hired)
    paid = given(GAME, history).when(0, PayNobleCard(card=gem("red", 3, nth=1))).decide()
    assert GoldChanged(seat=0, delta=7, gold=12 + 7) in paid


def test_j16_trade_immediate_adds_traded_cards_to_the_display_at_once() -> None:
    """J-16 trade_immediate: the traded cards may go straight into the display (Gold Cards cashable)."""
    history = owning(table(2, market={"store_gold": (gold_card(3),)}), 0, "trade_immediate")
    history, _ = turn(history, 0, "trade")
    assert TradeFromStore(place="store_gold", to_display=True) in decisions(GAME.legal(now(history), 0))
    traded = given(GAME, history).when(0, TradeFromStore(place="store_gold", to_display=True)).decide()
    assert traded[0] == CardsTaken(
        seat=0, place="store_gold", to="display", cards=(gold_card(3),), prestige_cards=()
    )
    history = [*history, *traded]
    assert now(history).players[0].display == (gold_card(3),) and now(history).players[0].cashable == (
        gold_card(3),
    )


def test_j16_trade_immediate_is_refused_without_the_noble() -> None:
    """J-16 trade_immediate: without the Noble the cards must go onto the Trade card."""
    history, _ = turn(table(2, market={"store_gold": (gold_card(3),)}), 0, "trade")
    given(GAME, history).when(0, TradeFromStore(place="store_gold", to_display=True)).rejects(
        "J-16", "needs_noble"
    )


def test_j16_exchange_any_type_swaps_different_types() -> None:
    """J-16 exchange_any_type: the exchanged cards need not match; the given card goes to its own Store."""
    history = owning(table(2, market={"store_blue": (B3,)}), 0, "exchange_any_type", display=(R1,))
    history, _ = turn(history, 0, "exchange")
    history = act(history, 0, ExchangeGive(card=R1))
    swapped = given(GAME, history).when(0, ExchangeTake(card=B3)).decide()
    assert swapped[0] == CardsExchanged(seat=0, given=R1, given_to="store_red", place="store_blue", taken=B3)


# ---------------------------------------------------------------- back 2


def test_j16_jeweler_three_types_needs_only_three_cards() -> None:
    """J-16 jeweler_three_types: a Jeweler sale of 3 different colours."""
    history = owning(table(2), 0, "jeweler_three_types", display=(R2, B3, G1))
    history, _ = turn(history, 0, "sale")
    for cid in (R2, B3, G1):
        history = act(history, 0, AddJewelerCard(card=cid))
    assert GAME.pending(now(history))[0].decision == "jeweler_choose_gem"
    sold = given(GAME, history).when(0, ChooseJewelerGem(card=B3)).decide()
    assert sold[1] == GemTokenAdvanced(seat=0, colour="blue", steps=3, position=3)


def _collector(ability: str) -> list[object]:
    history = owning(table(2), 0, ability, display=(R3, R2))
    history = [*history, holding(1, R1)]
    history, _ = turn(history, 0, "sale")
    return list(given(GAME, history).when(0, SellToCollector(colour="red")).decide())


def test_j16_collector_plus_one_advances_one_more() -> None:
    """J-16 collector_plus_one: a Collector sale advances 1 more space (5 - 1 + 1)."""
    assert _collector("collector_plus_one")[1] == GemTokenAdvanced(seat=0, colour="red", steps=5, position=5)


def test_j16_collector_plus_two_advances_two_more() -> None:
    """J-16 collector_plus_two: a Collector sale advances 2 more spaces (5 - 1 + 2)."""
    assert _collector("collector_plus_two")[1] == GemTokenAdvanced(seat=0, colour="red", steps=6, position=6)


def test_j16_sale_wild_card_counts_one_card_as_another_colour() -> None:
    """J-16 sale_wild_card: one card per sale as another colour (Jeweler; Collector: toward the colour)."""
    history = owning(table(2), 0, "sale_wild_card", display=(R2, B3, G1, gem("red", 3, nth=1)))
    history = [*history, holding(1, W1, gem("red", 2, nth=1), gem("red", 3, nth=2))]
    history, _ = turn(history, 0, "sale")
    options = decisions(GAME.legal(now(history), 0))
    assert AddJewelerCard(card=R2, as_colour="white") in options
    assert SellToCollector(colour="red", wild_card=B3) in options  # 5 + 3 > 5
    assert SellToCollector(colour="red") not in options  # 5 is not more than 5
    for command in (
        AddJewelerCard(card=R2, as_colour="white"),
        AddJewelerCard(card=B3),
        AddJewelerCard(card=G1),
        AddJewelerCard(card=gem("red", 3, nth=1)),
    ):
        history = act(history, 0, command)
    sold = given(GAME, history).when(0, ChooseJewelerGem(card=R2)).decide()
    assert sold[1] == GemTokenAdvanced(seat=0, colour="white", steps=2, position=2)
    # only one wild card per sale
    history2 = owning(table(2), 0, "sale_wild_card", display=(R2, B3, G1, gem("red", 3, nth=1)))
    history2, _ = turn(history2, 0, "sale")
    history2 = act(history2, 0, AddJewelerCard(card=R2, as_colour="white"))
    assert all(
        c.as_colour is None for c in decisions(GAME.legal(now(history2), 0)) if isinstance(c, AddJewelerCard)
    )


def test_j16_sale_wild_card_refused_without_the_noble() -> None:
    """J-16 sale_wild_card: without the Noble a card cannot change colour."""
    history = table(2)
    history = [*history, holding(0, R2, B3, G1, W1, gem("red", 3, nth=1))]
    history, _ = turn(history, 0, "sale")
    given(GAME, history).when(0, AddJewelerCard(card=R2, as_colour="white")).rejects("J-16", "needs_noble")


def test_j16_sale_discard_instead_replaces_the_sale_without_supervisor_discards() -> None:
    """J-16 sale_discard_instead: discard a gem card, its token +1; cost paid; nobody discards fakes."""
    history = owning(table(2), 0, "sale_discard_instead", display=(G3,))
    history = [*history, holding(1, RF)]
    history, events = turn(history, 0, "sale")
    assert events[1] == GoldChanged(seat=0, delta=-2, gold=13)
    assert decisions(GAME.legal(now(history), 0)) == [DiscardForAdvance(card=G3)]
    done = given(GAME, history).when(0, DiscardForAdvance(card=G3)).decide()
    assert done[:3] == [
        CardDiscardedForAdvance(seat=0, card=G3),
        GemTokenAdvanced(seat=0, colour="green", steps=1, position=1),
        TurnEnded(seat=0),
    ]
    assert now([*history, *done]).players[1].display == (RF,)


def test_j16_hire_two_fewer_lowers_the_noble_cost_by_two() -> None:
    """J-16 hire_two_fewer: hiring a Noble costs 2 fewer gems (space 1: 4 - 2 = 2)."""
    hired = noble("prestige_6")
    history = owning(table(2, track=(hired, None, None, None, None)), 0, "hire_two_fewer", display=(R2,))
    history, _ = turn(history, 0, "trade")
    history = act(history, 0, HireNoble(noble=hired))
    assert now(history).turn is not None and now(history).turn.remaining == 2
    paid = given(GAME, history).when(0, PayNobleCard(card=R2)).decide()
    assert now([*history, *paid]).players[0].nobles == (noble("hire_two_fewer"), hired)


def test_j16_hire_with_gold_pays_with_track_gold_and_gold_cards() -> None:
    """J-16 hire_with_gold: each gold (track or Gold Card) counts as one gem, combinable with gems."""
    hired = noble("prestige_7")
    history = table(2, track=(hired, None, None, None, None))
    history = owning(history, 0, "hire_with_gold", display=(R1, gold_card(2)))
    history, _ = turn(history, 0, "trade")
    history = act(history, 0, HireNoble(noble=hired))
    options = decisions(GAME.legal(now(history), 0))
    assert PayNobleCard(card=gold_card(2)) in options and PayNobleGold(amount=4) in options
    history = act(history, 0, PayNobleCard(card=R1))
    history = act(history, 0, PayNobleCard(card=gold_card(2)))
    paid = given(GAME, history).when(0, PayNobleGold(amount=1)).decide()
    assert paid[:2] == [
        GoldChanged(seat=0, delta=-1, gold=11),
        NoblePaid(seat=0, card=None, gold=1, remaining=0),
    ]
    assert hired in now([*history, *paid]).players[0].nobles


def test_j16_hire_with_gold_refused_without_the_noble() -> None:
    """J-16 hire_with_gold: without the Noble gold cannot pay for a Noble."""
    hired = noble("prestige_7")
    history = table(2, track=(hired, None, None, None, None))
    history = [*history, holding(0, R3, R2)]
    history, _ = turn(history, 0, "trade")
    history = act(history, 0, HireNoble(noble=hired))
    given(GAME, history).when(0, PayNobleGold(amount=1)).rejects("J-16", "needs_noble")


def test_j16_slot_discount_2_makes_slot_cards_two_cheaper() -> None:
    """J-16 slot_discount_2: actions played on its slot cost 2 fewer gold (never below 0)."""
    hired = noble("slot_discount_2")
    history = half_paid(hired)
    history = act(history, 0, PayNobleCard(card=gem("red", 3, nth=1)))
    history = act(history, 0, PlaceNoble(slot=2))
    assert action_cost(now(history).players[0], "purchase", 2) == 0
    assert action_cost(now(history).players[0], "purchase", 1) == 4


# ---------------------------------------------------------------- back 3 (end of game)


def _final(
    ability: str,
    display: tuple[int, ...] = (),
    prestige: tuple[int, ...] = (),
    tokens_at: Mapping[str, int] | None = None,
) -> int:
    """The final score of a player who hired the Noble with ``ability`` and holds these cards and tokens."""
    return score(now(owning(table(2), 0, ability, display, prestige, tokens_at)).players[0]).total


def test_j16_prestige_5_to_8_are_worth_their_points() -> None:
    """J-16 prestige_5..prestige_8: worth 5, 6, 7 and 8 points at the end."""
    for points in (5, 6, 7, 8):
        assert _final(f"prestige_{points}") == points


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
    assert _final("advance_tokens", tokens_at={"red": 3}) == 3 + 3 + 2
    top = COMPONENTS.track_max
    # red at the end of the track: two tokens +1 (blue at the end too: green +2 is still best)
    assert _final("advance_tokens", tokens_at={"red": top, "blue": top}) == 3 + 2 * top + 2
    almost = {"red": top, "blue": top, "green": top, "white": top - 1}
    assert _final("advance_tokens", tokens_at=almost) == 3 + 4 * top - 1 + 1


def test_j16_one_per_noble_counts_every_noble_itself_included() -> None:
    """J-16 one_per_noble: 1 point per Noble the player has, itself included."""
    history = [
        *table(2),
        *(e for a in ("one_per_noble", "gold_seven", "prestige_5") for e in hired(0, noble(a))),
    ]
    assert score(now(history).players[0]).total == 3 + 1 + 5 + 3


def test_j16_sold_cards_event_for_collector_includes_wild() -> None:
    """J-16 sale_wild_card: the wild card is sold with the colour in a Collector sale."""
    history = owning(table(2), 0, "sale_wild_card", display=(R2, B3))
    history = [*history, holding(1, R1)]
    history, _ = turn(history, 0, "sale")
    sold = given(GAME, history).when(0, SellToCollector(colour="red", wild_card=B3)).decide()
    assert sold[0] == CardsSold(seat=0, buyer="collector", cards=(R2, B3), wild_card=B3)
    assert sold[1] == GemTokenAdvanced(seat=0, colour="red", steps=4, position=4)


def test_j16_gold_seven_paid_with_track_gold_counts_from_the_gold_left() -> None:
    """J-16 gold_seven with hire_with_gold: the +7 applies after the gold paid for the Noble."""
    hired = noble("gold_seven")
    history = owning(table(2, track=(hired, None, None, None, None)), 0, "hire_with_gold")
    history, _ = turn(history, 0, "trade")  # 15 - 3 = 12
    history = act(history, 0, HireNoble(noble=hired))
    paid = given(GAME, history).when(0, PayNobleGold(amount=4)).decide()
    assert paid[0] == GoldChanged(seat=0, delta=-4, gold=8)
    assert GoldChanged(seat=0, delta=7, gold=15) in paid
