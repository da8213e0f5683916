"""Who owes which decision now (``decision``, ``pending``) and every command a seat may send (``legal``).

``TABLE`` (``domain/decisions.py``) is Johari's one table of decisions, which also guards ``decide``: for
each decision (``DECISIONS``), the ruling that governs it, the commands that answer it and the function
listing its legal choices; ``decision`` tells which one a seat owes.
"""

from __future__ import annotations

from typing import get_args

import msgspec

from domain.core import Command
from domain.decisions import DecisionRule, DecisionTable
from domain.johari import actions
from domain.johari.commands import (
    ActionName,
    AddJewelerCard,
    CashGoldCard,
    ChooseJewelerGem,
    DiscardFake,
    DiscardForAdvance,
    ExchangeGive,
    ExchangeTake,
    HireNoble,
    KeepGoldCards,
    PayNobleCard,
    PayNobleGold,
    PickCard,
    PlaceNoble,
    PlayActionCard,
    Purchase,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.state import Decision, State, card, with_player

__all__ = ["COMMANDS", "DECISIONS", "TABLE", "blocked", "decision", "has_choice", "legal", "pending"]

replace = msgspec.structs.replace


def blocked(state: State) -> bool:
    """J-13/J-14: Gold Card cashing and fake discards are settled before play goes on."""
    return any(p.cashable or p.owes_fake for p in state.players)


def decision(state: State, seat: int) -> Decision | None:
    """The decision ``seat`` owes now, if any."""
    if state.phase in ("new", "over") or not 0 <= seat < len(state.players):
        return None
    player = state.players[seat]
    if blocked(state):
        if player.cashable:
            return "cash_gold_cards"
        if player.owes_fake:
            return "discard_fake"
        return None
    if state.phase == "setup_pick":
        order = state.setup_order
        return "setup_pick" if state.setup_next < len(order) and order[state.setup_next] == seat else None
    if state.phase == "play":
        return "play_action_card" if player.slots[state.round - 1] is None else None
    turn = state.turn
    if state.phase == "resolve" and turn is not None and turn.seat == seat:
        if turn.stage == "jeweler":
            full = len(turn.selection) >= actions.jeweler_need(player)
            return "jeweler_choose_gem" if full else "jeweler_pick"
        return _BY_STAGE.get(turn.stage)
    return None


# The decision owed by the seat whose action is being resolved, by its turn's stage (J-11..J-13, J-16);
# the ``jeweler`` stage owes one of two, which ``decision`` tells.
_BY_STAGE: dict[str, Decision] = {
    "purchase": "resolve_purchase",
    "sale": "resolve_sale",
    "trade": "resolve_trade",
    "pay_noble": "pay_noble",
    "place_noble": "place_noble",
    "exchange": "resolve_exchange",
    "exchange_take": "exchange_take",
}


def _setup_options(state: State, seat: int) -> list[Command]:
    """J-8: any face-up card of a Store or Booth."""
    return [PickCard(card=c) for cards in state.market for c in cards]


def _play_options(state: State, seat: int) -> list[Command]:
    """J-10: any card in hand; J-13: never the Doppelganger in round 1."""
    hand = state.players[seat].hand
    return [PlayActionCard(card=c) for c in _action_names(hand) if c != "doppelganger" or state.round > 1]


def _action_names(hand: tuple[str, ...]) -> list[ActionName]:
    """The action cards in hand, typed for the command."""
    return [a for a in get_args(ActionName) if a in hand]


def _cash_options(state: State, seat: int) -> list[Command]:
    """J-13/J-14: cash any Gold Card just taken, or keep the rest."""
    out: list[Command] = [CashGoldCard(card=c) for c in state.players[seat].cashable]
    return [*out, KeepGoldCards()]


def _fake_options(state: State, seat: int) -> list[Command]:
    """J-13: any fake gem card of the display."""
    display = state.players[seat].display
    return [DiscardFake(card=c) for c in display if card(c).kind == "gem" and card(c).fake]


DECISIONS: dict[Decision, DecisionRule[State]] = {
    "setup_pick": DecisionRule(rule="J-8", answers=(PickCard,), options=_setup_options),
    "play_action_card": DecisionRule(rule="J-10", answers=(PlayActionCard,), options=_play_options),
    "cash_gold_cards": DecisionRule(
        rule="J-13", answers=(CashGoldCard, KeepGoldCards), options=_cash_options
    ),
    "discard_fake": DecisionRule(rule="J-13", answers=(DiscardFake,), options=_fake_options),
    "resolve_purchase": DecisionRule(rule="J-13", answers=(Purchase,), options=actions.purchase_options),
    "resolve_sale": DecisionRule(
        rule="J-13",
        answers=(SellToCollector, AddJewelerCard, DiscardForAdvance),
        options=actions.sale_options,
    ),
    "jeweler_pick": DecisionRule(rule="J-13", answers=(AddJewelerCard,), options=actions.jeweler_add_options),
    "jeweler_choose_gem": DecisionRule(
        rule="J-13", answers=(ChooseJewelerGem,), options=actions.jeweler_gem_options
    ),
    "resolve_trade": DecisionRule(
        rule="J-13", answers=(TradeFromStore, HireNoble), options=actions.trade_options
    ),
    "pay_noble": DecisionRule(rule="J-13", answers=(PayNobleCard, PayNobleGold), options=actions.pay_options),
    "place_noble": DecisionRule(rule="J-16", answers=(PlaceNoble,), options=actions.place_options),
    "resolve_exchange": DecisionRule(
        rule="J-13", answers=(ExchangeGive,), options=actions.exchange_give_options
    ),
    "exchange_take": DecisionRule(
        rule="J-13", answers=(ExchangeTake,), options=actions.exchange_take_options
    ),
}
"""Johari's decisions: each one's ruling, answering commands and legal choices."""

TABLE: DecisionTable[State, Decision] = DecisionTable(owed=decision, rules=DECISIONS)
pending = TABLE.pending
"""Every seat that owes a decision now, in seat order, with the decision it owes."""
legal = TABLE.legal
"""Every command a seat may send now: the legal answers of the decision it owes (complete and finite)."""
COMMANDS: frozenset[type[Command]] = TABLE.commands
"""Every Johari command type (any other command is unknown)."""


def has_choice(state: State, seat: int, action: str, cost: int) -> bool:
    """J-19: whether the action has any legal choice once its cost is paid."""
    paid = with_player(state, seat, replace(state.players[seat], gold=state.players[seat].gold - cost))
    match action:
        case "purchase":
            return bool(actions.purchase_options(paid, seat))
        case "sale":
            return bool(actions.sale_options(paid, seat))
        case "trade":
            return bool(actions.trade_options(paid, seat))
        case "exchange":
            return bool(actions.exchange_give_options(paid, seat))
    return action in ("baksheesh", "bribe")
