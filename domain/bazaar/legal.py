"""Z-6..Z-12: who owes a decision now (``pending``) and every command a seat may send (``legal``), both
from the decision table ``TABLE`` (``domain/decisions.py``), which also guards ``decide``.

``legal`` is complete and finite:

- ``roll_or_trade``: ``Roll``, and (after a seat's first turn) every ``Trade`` of each equation in each
  direction the seat and the bank can both pay;
- ``choose_colour``: ``ChooseColour`` of every colour the bank still has;
- ``buy_or_end``: ``Buy`` of every displayed ware the seat can pay while the turn allows a purchase (with
  the double-purchase option the second purchase is simply a second ``Buy``), and ``EndTurn``;
- ``discard_excess``: if the ways to return the whole excess at once number at most
  ``DISCARD_ENUMERATION_LIMIT``, every such multiset; otherwise one stone of each colour the offender
  holds, one step at a time (``DiscardExcess`` accepts any part of the excess; the decision stays pending
  until the offender is down to the limit).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from domain.bazaar.commands import Buy, ChooseColour, DiscardExcess, EndTurn, Roll, Trade
from domain.bazaar.components import EDITION, PALETTE
from domain.bazaar.state import UNKNOWN_WARE, Decision, State
from domain.core import Command
from domain.counts import covers
from domain.decisions import DecisionRule, DecisionTable

__all__ = ["DECISIONS", "DISCARD_ENUMERATION_LIMIT", "TABLE", "decision", "legal", "pending"]


DISCARD_ENUMERATION_LIMIT = 120
"""Z-10: above this many ways to return the whole excess, ``legal`` offers one stone at a time."""


def decision(state: State, seat: int) -> Decision | None:
    """Z-6..Z-10: the decision ``seat`` owes now: the current seat's roll (its first turn) or roll or trade,
    its colour after *choice*, its purchases or the turn's end; the chooser's discard of an excess."""
    match state.phase:
        case "roll_or_trade" if seat == state.current:
            return "roll" if state.first_turn else "roll_or_trade"
        case "choose_colour" | "buy_or_end" as phase if seat == state.current:
            return phase
        case "discard_excess" if seat == state.chooser and state.offender is not None:
            return "discard_excess"
    return None


def _roll_or_trade_options(state: State, seat: int) -> list[Command]:
    """Z-6, Z-7: the roll, and every affordable trade (none on the seat's first turn)."""
    return [Roll(), *_trades(state, seat)]


def _colour_options(state: State, _seat: int) -> list[Command]:
    """Z-7: every colour the bank still has."""
    return [ChooseColour(colour=c) for c, n in zip(EDITION.colours, state.bank, strict=False) if n > 0]


def _buy_or_end_options(state: State, seat: int) -> list[Command]:
    """Z-8, Z-11: every affordable displayed ware while the turn allows a purchase, and the turn's end."""
    return [*_buys(state, seat), EndTurn()]


def _discard_options(state: State, _seat: int) -> list[Command]:
    """Z-10: the ways to return the offender's excess (see the module docstring)."""
    return _discards(state)


DECISIONS: dict[Decision, DecisionRule[State]] = {
    "roll": DecisionRule(rule="Z-6", answers=(Roll,), options=_roll_or_trade_options),
    "roll_or_trade": DecisionRule(rule="Z-6", answers=(Roll, Trade), options=_roll_or_trade_options),
    "choose_colour": DecisionRule(rule="Z-7", answers=(ChooseColour,), options=_colour_options),
    "buy_or_end": DecisionRule(rule="Z-8", answers=(Buy, EndTurn), options=_buy_or_end_options),
    "discard_excess": DecisionRule(rule="Z-10", answers=(DiscardExcess,), options=_discard_options),
}
"""Bazaar's decisions: each one's ruling, answering commands and legal choices."""

TABLE: DecisionTable[State, Decision] = DecisionTable(owed=decision, rules=DECISIONS)
pending = TABLE.pending
"""Every seat that owes a decision now, in seat order, with the decision it owes."""
legal = TABLE.legal
"""Every command a seat may send now: the legal answers of the decision it owes (complete and finite)."""


def _trades(state: State, seat: int) -> list[Command]:
    """Z-6, Z-7: every affordable trade, each equation in each direction; none on a seat's first turn."""
    if state.first_turn:
        return []
    hand = state.players[seat].hand
    out: list[Command] = []
    for index, eq in enumerate(EDITION.equations(state.exchange)):
        if covers(hand, eq.left) and covers(state.bank, eq.right):
            out.append(Trade(equation=index, give="left"))
        if covers(hand, eq.right) and covers(state.bank, eq.left):
            out.append(Trade(equation=index, give="right"))
    return out


def _buys(state: State, seat: int) -> list[Command]:
    """Z-8, Z-11: every displayed ware the seat can pay for, while the turn allows another purchase."""
    if state.purchases >= state.purchases_allowed:
        return []
    hand = state.players[seat].hand
    out: list[Command] = []
    for cards in state.stalls:
        if cards and cards[0] != UNKNOWN_WARE and covers(hand, EDITION.wares[cards[0]].stones):
            out.append(Buy(ware=cards[0]))
    return out


def _discards(state: State) -> list[Command]:
    """Z-10: the whole excess in every possible way if few, else one stone of each colour held."""
    if state.offender is None:
        return []
    hand = state.players[state.offender].hand
    excess = sum(hand) - EDITION.hand_limit
    if excess <= 0:
        return []
    held = [i for i, n in enumerate(hand) if n > 0]
    options: list[Command] = []
    for combo in combinations_with_replacement(held, excess):
        counts = tuple(combo.count(i) for i in range(len(hand)))
        if covers(hand, counts):
            options.append(DiscardExcess(stones=PALETTE.named(counts)))
            if len(options) > DISCARD_ENUMERATION_LIMIT:
                break
    if len(options) <= DISCARD_ENUMERATION_LIMIT:
        return options
    return [DiscardExcess(stones={EDITION.colours[i]: 1}) for i in held]
