"""Z-1..Z-14: the state of a Bazaar game, a frozen struct folded from its events.

The state holds everything, secrets included (the face-down order of each stall); ``view`` decides what a
seat may see. Stalls list their cards from the top (on display, index 0) down; a card this state cannot
know (a fold of redacted events) is ``UNKNOWN_WARE``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.bazaar.components import EDITION, Stones
from domain.clock import Clock

__all__ = ["UNKNOWN_WARE", "Decision", "Phase", "ScoreRow", "State", "Unscored"]

UNKNOWN_WARE = 0
"""A face-down card whose identity was redacted (no ware has id 0)."""

Phase = Literal[
    "setup", "roll_or_trade", "choose_colour", "buy_or_end", "turn_over", "discard_excess", "over"
]
"""Where the game stands:

- ``setup``: before the opening events; ``turn_over``: between a turn's end and the next turn's start
  (only ever seen inside one command's events);
- ``roll_or_trade``: the current seat owes its roll or trade (Z-6);
- ``choose_colour``: the current seat rolled *choice* and picks a colour (Z-7);
- ``buy_or_end``: the roll or trade is done; the seat may buy (Z-8, Z-11) or end the turn;
- ``discard_excess``: the next seat trims the offender's hand to the limit (Z-10);
- ``over``: the game has ended (Z-12, Z-13).
"""


Decision = Literal["roll", "roll_or_trade", "choose_colour", "buy_or_end", "discard_excess"]
"""The decisions a seat can owe (``Pending.decision``): its first roll (Z-6), roll or trade, the colour of a
*choice* roll (Z-7), buy or end the turn (Z-8), trim a hand to the limit (Z-10)."""


class Unscored(msgspec.Struct, frozen=True, kw_only=True):
    """A purchase of this turn waiting to be scored when the turn's purchases are settled (Z-11)."""

    ware: int
    stars: int


class ScoreRow(msgspec.Struct, frozen=True, kw_only=True):
    """One scored purchase (Z-14)."""

    turn: int
    seat: int
    ware: int
    stars: int
    stones_left: int
    points: int


class State(msgspec.Struct, frozen=True, kw_only=True):
    """Everything about one Bazaar game, secrets included."""

    players: tuple[str, ...] = ()
    resigned: tuple[int, ...] = ()  # the seats that resigned, in order; a stand-in plays them
    adjudicated: bool = False  # ended by the tournament organizer as it stands (domain/resign.py)
    clock: Clock | None = None  # a timed game's clock, None if untimed
    double_purchase: bool = False
    exchange: tuple[int, ...] = ()  # the two exchange cards' ids (Z-3)
    stalls: tuple[tuple[int, ...], ...] = ()  # ware ids, top first (Z-4)
    solitaire_ware: int | None = None  # the target ware of solitaire (Z-12)
    bank: Stones = (EDITION.stones_per_colour,) * len(EDITION.colours)
    hands: tuple[Stones, ...] = ()
    wares: tuple[tuple[int, ...], ...] = ()  # wares bought, per seat, in order
    scores: tuple[int, ...] = ()
    turn: int = 0  # the turn under way, counted over all seats from 1
    current: int = 0  # whose turn it is
    turns_played: tuple[int, ...] = ()  # turns begun, per seat (1 during a seat's first turn, Z-6)
    phase: Phase = "setup"
    last_roll: str | None = None  # this turn's die face, if it rolled
    purchases: int = 0  # purchases made this turn (Z-8, Z-11)
    unscored: tuple[Unscored, ...] = ()
    offender: int | None = None  # Z-10: the seat over the hand limit ...
    chooser: int | None = None  # ... and the seat that chooses which stones go back
    end_reason: str | None = None
    sheet: tuple[ScoreRow, ...] = ()

    @property
    def solitaire(self) -> bool:
        """Z-12: one player plays the solitaire variant."""
        return len(self.players) == 1

    @property
    def empty_stalls(self) -> int:
        """Z-9, Z-13: how many stalls are sold out."""
        return sum(1 for stall in self.stalls if not stall)

    @property
    def purchases_allowed(self) -> int:
        """Z-8, Z-11: purchases a turn allows (none in solitaire)."""
        if self.solitaire:
            return 0
        return 2 if self.double_purchase else 1

    @property
    def first_turn(self) -> bool:
        """Z-6: whether the current turn is the current seat's first."""
        return bool(self.turns_played) and self.turns_played[self.current] <= 1

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == "over"
