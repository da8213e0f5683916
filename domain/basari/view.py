"""What each seat may see: the table (``view``) and the events with their secrets removed (``redact``), B-12."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.basari.components import COMPONENTS, Action, Card, Gems
from domain.basari.events import ActionChosen, PileShuffled
from domain.basari.state import State
from domain.core import Event, Result
from domain.counts import Counts

__all__ = ["BasariView", "BidView", "NegotiationView", "PlayerView", "redact", "view"]


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


def _named(gems: Counts | None) -> Gems | None:
    """Gems held as counts, in the view's named form (None stays None: no bid yet)."""
    return None if gems is None else Gems.of(gems)


def view(state: State, seat: int | None, outcome: Result | None) -> BasariView:
    """B-12: everything public, the seat's own pick before the reveal, and only the draw pile's size; once
    over, the winner(s) of ``outcome`` (B-10)."""
    players = []
    for index, player in enumerate(state.players):
        # B-6: a pick stays hidden from everybody else until all picks are revealed at once
        visible = state.revealed or index == seat
        players.append(
            PlayerView(
                seat=index,
                name=player.name,
                gems=Gems.of(player.gems),
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
            bids=tuple(BidView(seat=s, gems=_named(talks.bid_of(s))) for s in talks.seats),
            current_bid=_named(current),
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
        stock=Gems.of(state.stock),
        draw_pile=len(state.pile),
        actions=state.actions,
        picks_revealed=state.revealed,
        to_resolve=state.todo,
        negotiation=negotiation,
        d_turns=state.d_turns,
        d_single=state.d_single,
        over=outcome is not None,
        winners=() if outcome is None else outcome.winners,
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
