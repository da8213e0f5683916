"""Z-1..Z-15: the events of a Bazaar game; every random outcome (cards drawn, deal, die face) is written in.

Secrets (Z-15) live only in ``BazaarDealt.face_down``/``set_aside`` and ``SolitaireWareDealt.set_aside``;
``redact`` replaces them with ``None``. A face-down ware becomes public when it is turned up, through
``WareBought.revealed``.
"""

from __future__ import annotations

from typing import Literal

from domain.core import Event
from domain.resign import Adjudicated, SeatResigned

__all__ = [
    "BazaarDealt",
    "BazaarEvent",
    "ColourChosen",
    "DieRolled",
    "ExcessReturned",
    "ExchangeDrawn",
    "GameEnded",
    "GameStarted",
    "HandLimitBroken",
    "PurchaseScored",
    "SolitaireWareDealt",
    "Traded",
    "TurnEnded",
    "TurnStarted",
    "WareBought",
]

EndReason = Literal["two_stalls_empty", "solitaire_solved", "solitaire_unsolved"]


class GameStarted(Event, tag="game_started", frozen=True, kw_only=True):
    """The players sit down (seat = index; one player is solitaire, Z-12) with the chosen options (Z-1)."""

    players: tuple[str, ...]
    double_purchase: bool = False
    edition: str = ""


class ExchangeDrawn(Event, tag="exchange_drawn", frozen=True, kw_only=True):
    """Two exchange cards drawn at random make the exchange for the whole game (Z-3)."""

    cards: tuple[int, ...]


class BazaarDealt(Event, tag="bazaar_dealt", frozen=True, kw_only=True):
    """The wares are shuffled and dealt into four stalls of five, top card face up (Z-4)."""

    displayed: tuple[int, ...]  # the top (face-up) ware of each stall
    sizes: tuple[int, ...]  # cards in each stall
    # Secret (Z-15), None in the redacted event: each stall's face-down cards from the top down, and
    # the unused wares.
    face_down: tuple[tuple[int, ...], ...] | None = None
    set_aside: tuple[int, ...] | None = None


class SolitaireWareDealt(Event, tag="solitaire_ware_dealt", frozen=True, kw_only=True):
    """Solitaire: one ware card is turned face up as the target; there are no stalls (Z-12)."""

    ware: int
    set_aside: tuple[int, ...] | None = None  # secret (Z-15): the unused wares; None when redacted


class TurnStarted(Event, tag="turn_started", frozen=True, kw_only=True):
    """Turn ``turn`` (counted over all seats from 1) of seat ``seat`` begins (Z-1, Z-6)."""

    turn: int
    seat: int


class DieRolled(Event, tag="die_rolled", frozen=True, kw_only=True):
    """The die showed ``face``; ``stone`` is the colour taken (None: none left, or *choice*; Z-5, Z-7)."""

    seat: int
    face: str
    stone: str | None = None
    choose: bool = False  # *choice* with stones left in the bank: the seat now picks a colour


class ColourChosen(Event, tag="colour_chosen", frozen=True, kw_only=True):
    """After *choice*, the seat took one stone of ``colour`` from the bank (Z-7)."""

    seat: int
    colour: str


class Traded(Event, tag="traded", frozen=True, kw_only=True):
    """The seat used equation ``equation``: gave ``gave`` to the bank and took ``took`` from it (Z-7)."""

    seat: int
    equation: int
    gave: dict[str, int]
    took: dict[str, int]


class WareBought(Event, tag="ware_bought", frozen=True, kw_only=True):
    """The seat bought the ware on display at ``stall``, paying ``paid``; ``revealed`` was turned up (Z-8)."""

    seat: int
    ware: int
    stall: int
    paid: dict[str, int]
    stars: int  # the ware's stars after the one-star upgrade once any stall was empty (Z-9, Z-11)
    revealed: int | None = None  # the stall's next card, now on display (None: the stall is sold out)


class PurchaseScored(Event, tag="purchase_scored", frozen=True, kw_only=True):
    """The purchase of ``ware`` scored ``points`` by the stones left after the turn's buys (Z-9, Z-11)."""

    seat: int
    turn: int
    ware: int
    stars: int
    stones_left: int
    points: int


class TurnEnded(Event, tag="turn_ended", frozen=True, kw_only=True):
    """Seat ``seat`` ended turn ``turn`` holding ``stones`` stones (Z-6, Z-10)."""

    seat: int
    turn: int
    stones: int


class HandLimitBroken(Event, tag="hand_limit_broken", frozen=True, kw_only=True):
    """``offender`` ended a turn over the hand limit; ``chooser`` must return ``excess`` stones (Z-10)."""

    offender: int
    chooser: int
    excess: int


class ExcessReturned(Event, tag="excess_returned", frozen=True, kw_only=True):
    """``chooser`` returned these of ``offender``'s stones to the bank (Z-10)."""

    chooser: int
    offender: int
    stones: dict[str, int]


class GameEnded(Event, tag="game_ended", frozen=True, kw_only=True):
    """The game is over: two stalls sold out (Z-13), or the solitaire target met or out of turns (Z-12)."""

    reason: EndReason
    turn: int


BazaarEvent = (
    GameStarted
    | ExchangeDrawn
    | BazaarDealt
    | SolitaireWareDealt
    | TurnStarted
    | DieRolled
    | ColourChosen
    | Traded
    | WareBought
    | PurchaseScored
    | TurnEnded
    | HandLimitBroken
    | ExcessReturned
    | GameEnded
    | SeatResigned
    | Adjudicated
)
"""The tagged union of Bazaar's events (``type`` names the event)."""
