"""Basari's state: the fold of its events, frozen and comparable (everything B-1..B-12 needs to decide)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.basari.components import COMPONENTS, NO_GEMS, Action, ColourPoints, Gems
from domain.clock import Clock

__all__ = ["Decision", "Negotiation", "Phase", "Player", "StageRecord", "State"]

# new: nothing yet; setup: players seated, no pile; choose: step II; resolve: automatic steps to run
# (step III, stage end, dealing); negotiate: B-8 under way; d_turns: action D choices owed;
# scored: a stage was just scored; over: B-10.
Phase = Literal["new", "setup", "choose", "resolve", "negotiate", "d_turns", "scored", "over"]
# The decisions a seat can owe (``Pending.decision``): its secret pick (B-6), a bid or acceptance (B-8),
# action D's gems (B-7).
Decision = Literal["choose_action", "open_bid", "bid_or_accept", "accept", "choose_d_gems", "take_d_gem"]


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """One seat: gems, the bazaar cards in front of it this stage, the current card and points."""

    name: str
    gems: Gems = NO_GEMS
    cards: tuple[int, ...] = ()
    current: int | None = None
    points: int = 0
    action_b: int = 0  # points from action B in the running stage (the score sheet's B column, B-11)

    def workers(self) -> int:
        """The workers on this player's bazaar cards (B-7 A, B-9)."""
        return sum(COMPONENTS.card(card).workers for card in self.cards)


class Negotiation(msgspec.Struct, frozen=True, kw_only=True):
    """A negotiation of B-8: the two seats (first bidder first), whose turn it is, each one's latest bid."""

    action: Action
    seats: tuple[int, int]
    to_move: int
    bids: tuple[Gems | None, Gems | None] = (None, None)
    draft: tuple[int, ...] = ()  # counts fixed so far by BidColour steps of ``to_move`` (value order)

    def other(self, seat: int) -> int:
        """The opponent of ``seat``."""
        return self.seats[1] if seat == self.seats[0] else self.seats[0]

    def bid_of(self, seat: int) -> Gems | None:
        """The latest bid of ``seat`` (None before its first bid)."""
        return self.bids[0] if seat == self.seats[0] else self.bids[1]

    def current_bid(self) -> Gems | None:
        """The bid ``to_move`` must beat or accept: the opponent's latest."""
        return self.bid_of(self.other(self.to_move))


class StageRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A scored stage, per seat: action-B points, colour majorities and the workers bonus (B-11)."""

    stage: int
    action_b: tuple[int, ...]
    majority: tuple[ColourPoints, ...]
    workers_bonus: tuple[int, ...]


class State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole game as its events built it, secrets included (``view`` decides who sees what)."""

    phase: Phase = "new"
    players: tuple[Player, ...] = ()
    resigned: tuple[int, ...] = ()  # the seats that resigned, in order; a stand-in plays them
    adjudicated: bool = False  # ended by the tournament organizer as it stands (domain/resign.py)
    clock: Clock | None = None  # a timed game's clock, None if untimed
    actions: tuple[Action, ...] = ()
    stock: Gems = NO_GEMS
    pile: tuple[int, ...] = ()  # the draw pile, top first (secret, B-12)
    stage: int = 0
    round: int = 0
    picked: tuple[bool, ...] = ()
    picks: tuple[Action | None, ...] = ()  # secret until ``revealed`` (B-6)
    revealed: bool = False
    todo: tuple[Action, ...] = ()  # actions of this round still to resolve, in order A, B, C, D (B-7)
    negotiation: Negotiation | None = None
    performer: int | None = None  # the seat that won ``todo[0]`` by negotiation and performs it next (B-8)
    d_turns: tuple[int, ...] = ()  # action D choosers still to act, in first-bidder order (B-7)
    d_single: bool = False
    stages: tuple[StageRecord, ...] = ()
    winners: tuple[int, ...] = ()

    @property
    def seats(self) -> range:
        """Every seat number."""
        return range(len(self.players))
