"""Who owes a decision now (``pending``) and every command a seat may send (``legal``): B-6..B-8."""

from __future__ import annotations

from domain.basari.bids import beating_bids, can_beat, step_counts
from domain.basari.commands import Accept, Bid, BidColour, ChooseAction, ExchangeGems, TakeGem
from domain.basari.components import COLOURS, Colour, Gems
from domain.basari.state import Decision, State
from domain.core import Command, Pending

__all__ = ["legal", "pending"]


def pending(state: State) -> list[Pending[Decision]]:
    """Who owes a decision: every seat yet to pick (B-6), the negotiator to move (B-8), the D player (B-7)."""
    match state.phase:
        case "choose":
            return [
                Pending(seat=seat, decision="choose_action") for seat in state.seats if not state.picked[seat]
            ]
        case "negotiate" if state.negotiation is not None:
            talks = state.negotiation
            current = talks.current_bid()
            decision: Decision
            if current is None:
                decision = "open_bid"
            elif can_beat(state.players[talks.to_move].gems, current):
                decision = "bid_or_accept"
            else:
                decision = "accept"  # B-8: cannot beat the bid with the gems owned, so only accepting is left
            return [Pending(seat=talks.to_move, decision=decision)]
        case "d_turns" if state.d_turns:
            return [
                Pending(seat=state.d_turns[0], decision="choose_d_gems" if state.d_single else "take_d_gem")
            ]
        case _:
            return []


def legal(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may send now, each complete (bids: whole while few, else step-wise; B-8)."""
    match state.phase:
        case "choose" if seat in state.seats and not state.picked[seat]:
            return [ChooseAction(action=action) for action in state.actions]
        case "negotiate" if state.negotiation is not None and state.negotiation.to_move == seat:
            return _legal_in_negotiation(state, seat)
        case "d_turns" if state.d_turns and state.d_turns[0] == seat:
            return _legal_d(state, seat)
        case _:
            return []


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
    return commands + [Bid(gems=bid) for bid in bids]


def _takes(stock: Gems, count: int) -> list[Gems]:
    """B-7 action D: every way to take ``count`` (at most 2) gems from ``stock``."""
    if count == 0:
        return [Gems()]
    options: list[Gems] = []
    for i, first in enumerate(COLOURS):
        if stock.count(first) == 0:
            continue
        if count == 1:
            options.append(Gems.one(first))
            continue
        rest = stock.minus(Gems.one(first))
        options.extend(Gems.one(first).plus(Gems.one(second)) for second in COLOURS[i:] if rest.count(second))
    return options


def _legal_d(state: State, seat: int) -> list[Command]:
    """B-7 action D: alone, each gem to return with each pair to take; several, each colour in stock."""
    if not state.d_single:
        return [TakeGem(colour=colour) for colour in COLOURS if state.stock.count(colour)]
    owned = state.players[seat].gems
    gives: list[Colour | None] = [colour for colour in COLOURS if owned.count(colour)] or [None]
    commands: list[Command] = []
    for give in gives:
        stock = state.stock.plus(Gems.one(give)) if give is not None else state.stock
        commands.extend(ExchangeGems(give=give, take=take) for take in _takes(stock, min(2, stock.total())))
    return commands
