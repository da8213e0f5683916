"""What each seat may see (``view``, ``redact``: B-12) and do (``pending``, ``legal``: B-6..B-8)."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.basari.bids import beating_bids, can_beat, step_counts
from domain.basari.commands import Accept, Bid, BidColour, ChooseAction, ExchangeGems, TakeGem
from domain.basari.components import COLOURS, COMPONENTS, Action, Card, Colour, Gems
from domain.basari.events import ActionChosen, PileShuffled
from domain.basari.state import Decision, State
from domain.core import Command, Event, Pending

__all__ = ["BasariView", "BidView", "NegotiationView", "PlayerView", "legal", "pending", "redact", "view"]


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One seat as everybody sees it; ``action`` is its pick once revealed (before that: to itself only)."""

    seat: int
    name: str
    gems: Gems
    cards: tuple[Card, ...]
    workers: int
    current_card: Card | None
    points: int
    action_b_this_stage: int
    picked: bool
    action: Action | None


class BidView(msgspec.Struct, frozen=True, kw_only=True):
    """A negotiator's latest bid (null before their first)."""

    seat: int
    gems: Gems | None


class NegotiationView(msgspec.Struct, frozen=True, kw_only=True):
    """The negotiation under way (B-8): who bids or accepts now, the bid to beat and a step-wise draft."""

    action: Action
    first_bidder: int
    opponent: int
    to_move: int
    bids: tuple[BidView, ...]
    current_bid: Gems | None
    current_bidder: int | None
    draft: tuple[int, ...]


class BasariView(msgspec.Struct, frozen=True, kw_only=True):
    """The table as a seat (a spectator: ``viewer`` null) sees it: all but the pile order and hidden picks."""

    viewer: int | None
    phase: str
    stage: int
    stages: int
    round: int
    players: tuple[PlayerView, ...]
    stock: Gems
    draw_pile: int
    actions: tuple[Action, ...]
    picks_revealed: bool
    to_resolve: tuple[Action, ...]
    negotiation: NegotiationView | None
    d_turns: tuple[int, ...]
    d_single: bool
    over: bool
    winners: tuple[int, ...]


def view(state: State, seat: int | None) -> BasariView:
    """B-12: everything public, the seat's own pick before the reveal, and only the draw pile's size."""
    players = []
    for index, player in enumerate(state.players):
        # B-6: a pick stays hidden from everybody else until all picks are revealed at once
        visible = state.revealed or index == seat
        players.append(
            PlayerView(
                seat=index,
                name=player.name,
                gems=player.gems,
                cards=tuple(COMPONENTS.card(card) for card in player.cards),
                workers=player.workers(),
                current_card=COMPONENTS.card(player.current) if player.current is not None else None,
                points=player.points,
                action_b_this_stage=player.action_b,
                picked=state.picked[index] if index < len(state.picked) else False,
                action=state.picks[index] if visible and index < len(state.picks) else None,
            )
        )
    negotiation = None
    if state.negotiation is not None:
        talks = state.negotiation
        current = talks.current_bid()
        negotiation = NegotiationView(
            action=talks.action,
            first_bidder=talks.seats[0],
            opponent=talks.seats[1],
            to_move=talks.to_move,
            bids=tuple(BidView(seat=s, gems=talks.bid_of(s)) for s in talks.seats),
            current_bid=current,
            current_bidder=talks.other(talks.to_move) if current is not None else None,
            draft=talks.draft,
        )
    return BasariView(
        viewer=seat,
        phase=state.phase,
        stage=state.stage,
        stages=COMPONENTS.stages,
        round=state.round,
        players=tuple(players),
        stock=state.stock,
        draw_pile=len(state.pile),
        actions=state.actions,
        picks_revealed=state.revealed,
        to_resolve=state.todo,
        negotiation=negotiation,
        d_turns=state.d_turns,
        d_single=state.d_single,
        over=state.phase == "over",
        winners=state.winners,
    )


def redact(event: Event, seat: int | None) -> Event:
    """B-12 while the game runs: the pile order becomes just its size; a pick reaches only its picker."""
    match event:
        case PileShuffled():
            return replace(event, order=None)
        case ActionChosen(seat=picker) if picker != seat:
            return ActionChosen(seat=picker)
        case _:
            return event


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
