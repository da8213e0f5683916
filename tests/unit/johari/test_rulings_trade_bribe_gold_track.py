"""The rulings of the rule page's last revision: J-13 Trade card and Bribe, J-11 two-row Gold Track, J-18."""

from __future__ import annotations

from domain.core import Event
from domain.johari import GAME
from domain.johari.commands import (
    CashGoldCard,
    ExchangeGive,
    ExchangeTake,
    KeepGoldCards,
    PlayActionCard,
    Purchase,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    ActionSkipped,
    CardsSold,
    CardsTaken,
    FakeDiscarded,
    GemTokenAdvanced,
    GoldChanged,
    ProtectionGained,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from domain.johari.view import JohariView
from domain.resign import decisions
from tests.support.scenario import given

from .tables import (
    B2,
    B3,
    BF,
    R1,
    R2,
    R3,
    RF,
    W2,
    act,
    gold,
    gold_card,
    hired,
    holding,
    noble,
    played,
    plays,
    prestige_card,
    since,
    table,
)

P1, P2, P3 = prestige_card(1), prestige_card(2), prestige_card(3)
GOLD2 = gold_card(2)

# ---------------------------------------------------------------- J-13 Trade: the Trade card holds everything


def traded() -> list[Event]:
    """Seat 0 (on top) has traded the Gold Store (a Prestige and a Gold Card) in round 1; seat 1 took gold."""
    history = table(2, top=0, market={"store_gold": (P3, GOLD2), "booth_0": (P1,)})
    history = plays(history, {0: "trade", 1: "baksheesh"})
    return act(history, 0, TradeFromStore(place="store_gold"))


def test_j13_trade_puts_prestige_and_gold_cards_on_the_trade_card() -> None:
    """J-13 Trade: every card taken, Prestige and Gold Cards included, goes onto the Trade card; nothing is
    cashed now and the Prestige Card is not yet among the player's Prestige Cards."""
    history = plays(table(2, top=0, market={"store_gold": (P3, GOLD2)}), {0: "trade", 1: "baksheesh"})
    state = (
        given(GAME, history)
        .when(0, TradeFromStore(place="store_gold"))
        .then(
            [
                CardsTaken(seat=0, place="store_gold", to="trade", cards=(GOLD2,), prestige_cards=(P3,)),
                TurnEnded(seat=0),
                TurnStarted(seat=1, card="baksheesh", action="baksheesh", cost=0),
                GoldChanged(seat=1, delta=2, gold=17),
                TurnEnded(seat=1),
                RoundStarted(round=2),
            ]
        )
    )
    player = state.players[0]
    assert player.trade == (GOLD2, P3) and player.prestige == () and player.cashable == ()


def test_j13_exchange_never_offers_the_trade_cards_prestige_card_so_it_is_skipped_unpaid() -> None:
    """J-13 Exchange: a Prestige Card on the Trade card cannot be exchanged the same day (here for the one in
    Booth 0); with nothing else to give, the Exchange has no legal choice and is skipped, nothing paid."""
    history = act(traded(), 0, PlayActionCard(card="exchange"))  # round 2: Exchange in slot 2
    given(GAME, history).when(1, PlayActionCard(card="bribe")).then(
        [
            ActionCardPlayed(seat=1, slot=2, card="bribe"),
            ActionCardsRevealed(cards=("exchange", "bribe")),
            TurnStarted(seat=1, card="bribe", action="bribe", cost=0),
            ProtectionGained(seat=1),
            TurnEnded(seat=1),
            ActionSkipped(seat=0, card="exchange", action="exchange", cost=0, reason="no_legal_choice"),
            RoundStarted(round=3),
        ]
    )


def test_j13_exchange_offers_the_display_prestige_card_only() -> None:
    """J-13 Exchange: a Prestige Card held from before may be exchanged; the one on the Trade card may not."""
    history = [*table(2, top=0, market={"store_gold": (P3, GOLD2), "booth_0": (P1,)}), holding(0, P2)]
    history = plays(history, {0: "trade", 1: "baksheesh"})
    history = act(history, 0, TradeFromStore(place="store_gold"))
    history = plays(history, {0: "exchange", 1: "bribe"})
    state = given(GAME, history).state
    assert decisions(GAME.legal(state, 0)) == [ExchangeGive(card=P2)]
    given(GAME, history).when(0, ExchangeGive(card=P3)).rejects("J-13", "trade_card_locked")


def test_j14_the_trade_card_goes_to_the_display_and_prestige_cards_at_the_end_of_the_day_j13() -> None:
    """J-13/J-14: at the end of the day the Prestige Card joins the Prestige Cards, the Gold Card the display,
    where it may be cashed at once."""
    history = plays(traded(), {0: "baksheesh", 1: "bribe"})
    history = plays(history, {0: "sale", 1: "sale"})
    state = given(GAME, history).state
    assert state.players[0].prestige == (P3,) and state.players[0].display == (GOLD2,)
    assert state.players[0].trade == () and GAME.pending(state)[0].decision == "cash_gold_cards"
    assert decisions(GAME.legal(state, 0)) == [CashGoldCard(card=GOLD2), KeepGoldCards()]


# ---------------------------------------------------------------- J-13 Bribe: safe from the reveal


def sale_table(bribe_gold: int = 15) -> list[Event]:
    """Three seats: seat 0 (on top) sells red to the Collector; seat 1 holds a fake red and plays Bribe; seat 2
    holds a fake blue and takes gold. Seat 1 has ``bribe_gold`` gold."""
    history = [
        *table(3, top=0),
        holding(0, R3, R2),
        holding(1, RF, R1),
        holding(2, BF, W2),
        gold(1, bribe_gold),
    ]
    return plays(history, {0: "sale", 1: "bribe", 2: "baksheesh"})


def test_j13_bribe_protects_from_the_reveal_against_an_earlier_sale() -> None:
    """J-13 Bribe: played this round, it protects from the reveal, so a sale resolved before the Bribe's own
    turn takes no fake gem from its player; the unprotected seat 2 loses its only fake."""
    history = sale_table()
    view = GAME.view(given(GAME, history).state, 2)
    assert isinstance(view, JohariView) and [p.protected for p in view.players] == [False, True, False]
    given(GAME, history).when(0, SellToCollector(colour="red")).then(
        [
            CardsSold(seat=0, buyer="collector", cards=(R3, R2)),
            GemTokenAdvanced(seat=0, colour="red", steps=3, position=3),
            FakeDiscarded(seat=2, card=BF),
            TurnEnded(seat=0),
            TurnStarted(seat=2, card="baksheesh", action="baksheesh", cost=0),
            GoldChanged(seat=2, delta=2, gold=17),
            TurnEnded(seat=2),
            TurnStarted(seat=1, card="bribe", action="bribe", cost=1),
            GoldChanged(seat=1, delta=-1, gold=14),
            ProtectionGained(seat=1),
            TurnEnded(seat=1),
            RoundStarted(round=2),
        ]
    )


def test_j13_a_bribe_that_cannot_be_paid_does_not_protect() -> None:
    """J-12/J-13: a Bribe its player cannot pay is skipped, so it never protected: the fake is lost."""
    history = sale_table(bribe_gold=0)
    events = given(GAME, history).when(0, SellToCollector(colour="red")).decide()
    assert events[2:4] == [FakeDiscarded(seat=1, card=RF), FakeDiscarded(seat=2, card=BF)]
    assert ActionSkipped(seat=1, card="bribe", action="bribe", cost=1, reason="cannot_pay") in events


def test_j13_the_baksheesh_protects_noble_protects_from_the_reveal_of_its_round_j16() -> None:
    """J-13/J-16 baksheesh_protects: the Baksheesh played this round protects from the reveal, also against
    a sale resolved before it."""
    history = [
        *table(3, top=0),
        holding(0, R3, R2),
        holding(1, RF, R1),
        holding(2, BF, W2),
        *hired(1, noble("baksheesh_protects")),
    ]
    history = plays(history, {0: "sale", 1: "baksheesh", 2: "baksheesh"})
    events = given(GAME, history).when(0, SellToCollector(colour="red")).decide()
    assert [e for e in events if isinstance(e, FakeDiscarded)] == [FakeDiscarded(seat=2, card=BF)]


# ---------------------------------------------------------------- J-11: the two-row Gold Track


def test_j11_a_skipped_turn_changes_row_and_puts_the_token_on_top() -> None:
    """J-11: both seats on 15, seat 1 on top; both skip their Sale (nothing to sell). Each skip changes the
    token's row, so seat 0, skipped last, is on top and acts first in round 2."""
    history = plays(table(2, top=1), {0: "sale", 1: "sale"})
    assert history[-3:] == [
        ActionSkipped(seat=1, card="sale", action="sale", cost=2, reason="no_legal_choice"),
        ActionSkipped(seat=0, card="sale", action="sale", cost=2, reason="no_legal_choice"),
        RoundStarted(round=2),
    ]
    state = given(GAME, history).state
    view = GAME.view(state, None)
    assert isinstance(view, JohariView) and view.turn_order == (0, 1)
    assert [p.gold_row for p in view.players] == ["bottom", "bottom"]  # both started in the top row (J-8)
    events = since(plays(history, {0: "baksheesh", 1: "baksheesh"}), history)
    assert [e.seat for e in events if isinstance(e, TurnStarted)] == [0, 1]


def test_j11_a_free_action_changes_row_and_puts_the_token_on_top() -> None:
    """J-11, the rulebook's example: an Exchange in slot 2 costs nothing, the token stays on its value but
    changes row, so it lands on top of the tokens there. Seat 1 starts on top; both exchange for free; seat 0,
    who acted last, is on top for round 3."""
    history = [
        *table(2, top=1, round=2, market={"booth_0": (R3, B3)}),
        holding(0, R2),
        holding(1, B2),
        played(0, 1, "baksheesh"),
        played(1, 1, "baksheesh"),
    ]
    history = plays(history, {0: "exchange", 1: "exchange"})
    view = GAME.view(given(GAME, history).state, None)
    assert isinstance(view, JohariView) and [p.gold_row for p in view.players] == ["top", "bottom"]
    history = act(act(history, 1, ExchangeGive(card=B2)), 1, ExchangeTake(card=B3))
    history = act(act(history, 0, ExchangeGive(card=R2)), 0, ExchangeTake(card=R3))
    assert history[-1] == RoundStarted(round=3)
    state = given(GAME, history).state
    assert [p.gold for p in state.players] == [15, 15]
    view = GAME.view(state, None)
    assert isinstance(view, JohariView) and view.turn_order == (0, 1)


# ---------------------------------------------------------------- J-18: Prestige Cards are public


def test_j18_prestige_cards_are_public_in_views_events_and_the_score_sheet() -> None:
    """J-18: every seat and spectators see a player's Prestige Cards; events carry them unredacted; the
    running score sheet counts them."""
    history = plays(table(2, top=0, market={"store_gold": (P3,)}), {0: "purchase", 1: "baksheesh"})
    history = act(history, 0, Purchase(place="store_gold"))
    state = given(GAME, history).state
    for viewer in (None, 0, 1):
        view = GAME.view(state, viewer)
        assert isinstance(view, JohariView) and view.players[0].prestige_cards == (P3,)
    taken = next(e for e in history if isinstance(e, CardsTaken))
    assert taken.prestige_cards == (P3,) and all(GAME.redact(taken, s) == taken for s in (None, 0, 1))
    sheet = GAME.scoresheet(state)
    row = dict(zip(sheet.columns, sheet.rows[0], strict=True))
    assert not sheet.final and row["prestige_cards"] == 3 and row["total"] == 3
