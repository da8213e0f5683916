"""Who owes a decision now (``pending``) and every command a seat may send (``legal``): B-6..B-8, both from
the decision table ``TABLE`` (``domain/decisions.py``), which also guards ``decide``."""

from __future__ import annotations

from domain.basari.bids import beating_bids, can_beat, step_counts
from domain.basari.commands import Accept, Bid, BidColour, ChooseAction, ExchangeGems, TakeGem
from domain.basari.components import COLOURS, PALETTE, Colour, Gems
from domain.basari.state import Decision, State
from domain.core import Command
from domain.counts import Counts, minus, plus
from domain.decisions import DecisionRule, DecisionTable

__all__ = ["DECISIONS", "TABLE", "decision", "legal", "pending"]


def _legal_in_negotiation(state: State, seat: int) -> list[Command]:
    """B-8: accept (if there is a bid) and every beating bid, listed whole or as the next bid step."""
    talks = state.negotiation
    assert talks is not None
    current = talks.current_bid()
    owned = state.players[seat].gems
    commands: list[Command] = [Accept()] if current is not None else []
    if talks.draft:
        colour = COLOURS[len(talks.draft)]
        return commands + [
            BidColour(colour=colour, count=count) for count in step_counts(talks.draft, owned, current)
        ]
    bids = beating_bids(owned, current)
    if bids is None:
        # too many to list whole: the first step of a step-wise bid (red), counts that can still win
        return commands + [BidColour(colour="red", count=count) for count in step_counts((), owned, current)]
    return commands + [Bid(gems=Gems.of(bid)) for bid in bids]


def _takes(stock: Counts, count: int) -> list[Counts]:
    """B-7 action D: every way to take ``count`` (at most 2) gems from ``stock``."""
    if count == 0:
        return [PALETTE.none]
    options: list[Counts] = []
    for i, first in enumerate(COLOURS):
        if stock[i] == 0:
            continue
        one = PALETTE.one(first)
        if count == 1:
            options.append(one)
            continue
        rest = minus(stock, one)
        options.extend(plus(one, PALETTE.one(second)) for j, second in enumerate(COLOURS[i:], i) if rest[j])
    return options


def _legal_d(state: State, seat: int) -> list[Command]:
    """B-7 action D: alone, each gem to return with each pair to take; several, each colour in stock."""
    if not state.d_single:
        return [TakeGem(colour=colour) for colour, count in zip(COLOURS, state.stock, strict=True) if count]
    owned = state.players[seat].gems
    gives: list[Colour | None] = [colour for colour, count in zip(COLOURS, owned, strict=True) if count]
    commands: list[Command] = []
    for give in gives or [None]:
        stock = plus(state.stock, PALETTE.one(give)) if give is not None else state.stock
        takes = _takes(stock, min(2, sum(stock)))
        commands.extend(ExchangeGems(give=give, take=Gems.of(take)) for take in takes)
    return commands


def decision(state: State, seat: int) -> Decision | None:
    """The decision ``seat`` owes now: its secret pick (B-6), its move in a negotiation (B-8: an opening
    bid, a raise or acceptance, or only acceptance when it cannot beat the bid), its action D choice (B-7)."""
    match state.phase:
        case "choose" if seat in state.seats and not state.picked[seat]:
            return "choose_action"
        case "negotiate" if state.negotiation is not None and state.negotiation.to_move == seat:
            current = state.negotiation.current_bid()
            if current is None:
                return "open_bid"
            # B-8: a seat that cannot beat the bid with the gems it owns can only accept
            return "bid_or_accept" if can_beat(state.players[seat].gems, current) else "accept"
        case "d_turns" if state.d_turns and state.d_turns[0] == seat:
            return "choose_d_gems" if state.d_single else "take_d_gem"
    return None


def _pick_options(state: State, _seat: int) -> list[Command]:
    """B-6: any action card of the game (B-3)."""
    return [ChooseAction(action=action) for action in state.actions]


# B-8: every move of a negotiation is answered by a bid (whole or step-wise) or an acceptance; ``decide``
# refuses one the seat cannot make (nothing to accept, a bid it cannot beat) by its content.
_NEGOTIATING = (Bid, BidColour, Accept)

DECISIONS: dict[Decision, DecisionRule[State]] = {
    "choose_action": DecisionRule(rule="B-6", answers=(ChooseAction,), options=_pick_options),
    "open_bid": DecisionRule(rule="B-8", answers=_NEGOTIATING, options=_legal_in_negotiation),
    "bid_or_accept": DecisionRule(rule="B-8", answers=_NEGOTIATING, options=_legal_in_negotiation),
    "accept": DecisionRule(rule="B-8", answers=_NEGOTIATING, options=_legal_in_negotiation),
    "choose_d_gems": DecisionRule(rule="B-7", answers=(ExchangeGems,), options=_legal_d),
    "take_d_gem": DecisionRule(rule="B-7", answers=(TakeGem,), options=_legal_d),
}
"""Basari's decisions: each one's ruling, answering commands and legal choices."""

TABLE: DecisionTable[State, Decision] = DecisionTable(owed=decision, rules=DECISIONS)
pending = TABLE.pending
"""Every seat that owes a decision now, in seat order, with the decision it owes."""
legal = TABLE.legal
"""Every command a seat may send now: the legal answers of the decision it owes (complete and finite)."""
