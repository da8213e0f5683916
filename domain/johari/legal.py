"""Who owes which decision now (``decision``, ``pending``) and every command a seat may send (``legal``).

``DECISIONS`` is Johari's one table of decisions: for each, the ruling that governs it, the turn stage
that owes it, the commands that answer it and the function listing its legal choices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

import msgspec

from domain.core import Command, Pending
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

__all__ = ["COMMANDS", "DECISIONS", "DecisionRule", "blocked", "decision", "has_choice", "legal", "pending"]

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


def pending(state: State) -> list[Pending[Decision]]:
    """Every seat that owes a decision now (several at once for secret plays, cashing and discards)."""
    out = []
    for seat in range(len(state.players)):
        owed = decision(state, seat)
        if owed is not None:
            out.append(Pending(seat=seat, decision=owed))
    return out


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


class DecisionRule(msgspec.Struct, frozen=True, kw_only=True):
    """One decision a seat can owe: its ruling, the turn stage owing it, its answers and legal choices."""

    rule: str  # cited when a command is refused
    stage: str | None  # the ``Turn.stage`` that owes it (None: owed outside an action's resolution)
    answers: tuple[type[Command], ...]  # the commands that answer it
    options: Callable[[State, int], list[Command]]  # every legal answer of ``seat`` now


DECISIONS: dict[Decision, DecisionRule] = {
    "setup_pick": DecisionRule(rule="J-8", stage=None, answers=(PickCard,), options=_setup_options),
    "play_action_card": DecisionRule(
        rule="J-10", stage=None, answers=(PlayActionCard,), options=_play_options
    ),
    "cash_gold_cards": DecisionRule(
        rule="J-13", stage=None, answers=(CashGoldCard, KeepGoldCards), options=_cash_options
    ),
    "discard_fake": DecisionRule(rule="J-13", stage=None, answers=(DiscardFake,), options=_fake_options),
    "resolve_purchase": DecisionRule(
        rule="J-13", stage="purchase", answers=(Purchase,), options=actions.purchase_options
    ),
    "resolve_sale": DecisionRule(
        rule="J-13",
        stage="sale",
        answers=(SellToCollector, AddJewelerCard, DiscardForAdvance),
        options=actions.sale_options,
    ),
    "jeweler_pick": DecisionRule(
        rule="J-13", stage=None, answers=(AddJewelerCard,), options=actions.jeweler_add_options
    ),
    "jeweler_choose_gem": DecisionRule(
        rule="J-13", stage=None, answers=(ChooseJewelerGem,), options=actions.jeweler_gem_options
    ),
    "resolve_trade": DecisionRule(
        rule="J-13", stage="trade", answers=(TradeFromStore, HireNoble), options=actions.trade_options
    ),
    "pay_noble": DecisionRule(
        rule="J-13", stage="pay_noble", answers=(PayNobleCard, PayNobleGold), options=actions.pay_options
    ),
    "place_noble": DecisionRule(
        rule="J-16", stage="place_noble", answers=(PlaceNoble,), options=actions.place_options
    ),
    "resolve_exchange": DecisionRule(
        rule="J-13", stage="exchange", answers=(ExchangeGive,), options=actions.exchange_give_options
    ),
    "exchange_take": DecisionRule(
        rule="J-13", stage="exchange_take", answers=(ExchangeTake,), options=actions.exchange_take_options
    ),
}
"""Johari's decisions (``jeweler`` is the one stage owing two: ``decision`` tells which)."""

_BY_STAGE: dict[str, Decision] = {d.stage: name for name, d in DECISIONS.items() if d.stage is not None}
COMMANDS: frozenset[type[Command]] = frozenset(c for d in DECISIONS.values() for c in d.answers)
"""Every Johari command type (any other command is unknown)."""


def legal(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may send now (complete and finite)."""
    owed = decision(state, seat)
    return [] if owed is None else DECISIONS[owed].options(state, seat)


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
