"""Z-6..Z-12: who owes a decision now (``pending``) and every command a seat may send (``legal``).

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
from domain.bazaar.components import EDITION, covers
from domain.bazaar.state import UNKNOWN_WARE, Decision, State
from domain.core import Command, Pending

__all__ = ["DISCARD_ENUMERATION_LIMIT", "legal", "pending"]


DISCARD_ENUMERATION_LIMIT = 120
"""Z-10: above this many ways to return the whole excess, ``legal`` offers one stone at a time."""


def pending(state: State) -> list[Pending[Decision]]:
    """Z-6..Z-10: who acts: roll (first turn), roll_or_trade, choose_colour, buy_or_end, discard_excess."""
    match state.phase:
        case "roll_or_trade":
            return [Pending(seat=state.current, decision="roll" if state.first_turn else "roll_or_trade")]
        case "choose_colour" | "buy_or_end" as phase:
            return [Pending(seat=state.current, decision=phase)]
        case "discard_excess" if state.chooser is not None:
            return [Pending(seat=state.chooser, decision="discard_excess")]
    return []


def legal(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may send now (see the module docstring for how each decision is listed)."""
    if not any(p.seat == seat for p in pending(state)):
        return []
    match state.phase:
        case "roll_or_trade":
            return [Roll(), *_trades(state, seat)]
        case "choose_colour":
            return [
                ChooseColour(colour=c) for c, n in zip(EDITION.colours, state.bank, strict=False) if n > 0
            ]
        case "buy_or_end":
            return [*_buys(state, seat), EndTurn()]
        case "discard_excess":
            return list(_discards(state))
    return []


def _trades(state: State, seat: int) -> list[Command]:
    """Z-6, Z-7: every affordable trade, each equation in each direction; none on a seat's first turn."""
    if state.first_turn:
        return []
    hand = state.hands[seat]
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
    hand = state.hands[seat]
    out: list[Command] = []
    for cards in state.stalls:
        if cards and cards[0] != UNKNOWN_WARE and covers(hand, EDITION.wares[cards[0]].stones):
            out.append(Buy(ware=cards[0]))
    return out


def _discards(state: State) -> list[Command]:
    """Z-10: the whole excess in every possible way if few, else one stone of each colour held."""
    if state.offender is None:
        return []
    hand = state.hands[state.offender]
    excess = sum(hand) - EDITION.hand_limit
    if excess <= 0:
        return []
    held = [i for i, n in enumerate(hand) if n > 0]
    options: list[Command] = []
    for combo in combinations_with_replacement(held, excess):
        counts = tuple(combo.count(i) for i in range(len(hand)))
        if covers(hand, counts):
            options.append(DiscardExcess(stones=EDITION.named(counts)))
            if len(options) > DISCARD_ENUMERATION_LIMIT:
                break
    if len(options) <= DISCARD_ENUMERATION_LIMIT:
        return options
    return [DiscardExcess(stones={EDITION.colours[i]: 1}) for i in held]
