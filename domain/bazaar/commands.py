"""Z-6..Z-12: the commands of a Bazaar seat: roll, choose a colour, trade, buy, end the turn, trim a hand.

Turn structure (multiplayer): ``Roll`` or ``Trade`` (Z-6; after rolling *choice*, ``ChooseColour``), then
any ``Buy`` the turn allows (Z-8, Z-11), then ``EndTurn``. The turn ends only by ``EndTurn``; it never
ends by itself, even when nothing can be bought. In solitaire (Z-12) there are no purchases, so the turn
ends by itself right after its roll or trade. ``DiscardExcess`` is the hand-limit decision (Z-10) owed by
the seat after a player who ended a turn holding more than the hand limit.
"""

from __future__ import annotations

from typing import Literal

from domain.core import Command
from domain.resign import Adjudicate, Resign

__all__ = ["BazaarCommand", "Buy", "ChooseColour", "DiscardExcess", "EndTurn", "Roll", "Trade"]


class Roll(Command, tag="roll", frozen=True, kw_only=True):
    """Roll the die and take one stone of the colour rolled (Z-6, Z-7)."""


class ChooseColour(Command, tag="choose_colour", frozen=True, kw_only=True):
    """After rolling *choice*, take one stone of a colour the bank still has (Z-7)."""

    colour: str


class Trade(Command, tag="trade", frozen=True, kw_only=True):
    """Use one equation of the exchange: give the stones of side ``give``, take the other side's (Z-7)."""

    equation: int  # 0-based index into the exchange's ten equations, as listed in the view
    give: Literal["left", "right"]


class Buy(Command, tag="buy", frozen=True, kw_only=True):
    """Buy the displayed ware ``ware`` (by ware id), paying its five stones to the bank (Z-8)."""

    ware: int


class EndTurn(Command, tag="end_turn", frozen=True, kw_only=True):
    """End this turn after its roll or trade, with or without a purchase (Z-8)."""


class DiscardExcess(Command, tag="discard_excess", frozen=True, kw_only=True):
    """Return these stones of the player over the hand limit to the bank (Z-10); may be done in steps."""

    stones: dict[str, int]


BazaarCommand = Roll | ChooseColour | Trade | Buy | EndTurn | DiscardExcess | Resign | Adjudicate
"""The tagged union of Bazaar's commands (``type`` names the command)."""
