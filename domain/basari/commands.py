"""Basari's commands: the choices a seat can send (B-6 picks, B-8 bids, B-7 action D)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.basari.components import Action, Colour, Gems
from domain.core import Command
from domain.resign import Adjudicate, Resign

__all__ = [
    "Accept",
    "BasariCommand",
    "Bid",
    "BidColour",
    "ChooseAction",
    "ExchangeGems",
    "TakeGem",
]


class ChooseAction(Command, frozen=True, kw_only=True, tag="choose_action"):
    """Step II: secretly pick one of your action cards (B-6); A, B, C, and D with five players (B-3)."""

    action: Action


class Bid(Command, frozen=True, kw_only=True, tag="bid"):
    """Negotiation (B-8): offer these gems you own; it must beat the current bid and replaces your own."""

    gems: Gems


class BidColour(Command, frozen=True, kw_only=True, tag="bid_colour"):
    """Negotiation (B-8), step-wise bid: fix the count of the next colour in value order; the blue step bids.

    ``legal`` lists whole ``bid`` commands while at most 256 bids beat the current one, and these steps
    beyond that (red first, then yellow, green, blue; only counts that can still win), so the list stays
    short and every bid stays reachable. ``decide`` accepts either command at any time.
    """

    colour: Colour
    count: Annotated[int, msgspec.Meta(ge=0)]


class Accept(Command, frozen=True, kw_only=True, tag="accept"):
    """Negotiation (B-8): accept the current bid; you receive its gems and the bidder performs the action."""


class ExchangeGems(Command, frozen=True, kw_only=True, tag="exchange_gems"):
    """Action D alone (B-7): return ``give`` (null only if you own no gem), then take two gems (``take``)."""

    give: Colour | None = None
    take: Gems


class TakeGem(Command, frozen=True, kw_only=True, tag="take_gem"):
    """Action D, several choosers (B-7): on your turn take one gem of this colour from the stock."""

    colour: Colour


BasariCommand = ChooseAction | Bid | BidColour | Accept | ExchangeGems | TakeGem | Resign | Adjudicate
