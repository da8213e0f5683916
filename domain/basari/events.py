"""Basari's events: everything that happened, in past tense, with every random outcome written in (B-1..B-10).

Secrets (B-12) live in two events only, ``PileShuffled.order`` and ``ActionChosen.action``; ``redact`` blanks
them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.basari.components import Action, Colour, ColourPoints, Gems
from domain.core import Event
from domain.resign import Adjudicated, SeatResigned

__all__ = [
    "ActionChosen",
    "ActionDOpened",
    "ActionForfeited",
    "ActionsRevealed",
    "BasariEvent",
    "BidAccepted",
    "BidDrafted",
    "BidPlaced",
    "CardDrawn",
    "CardsDealt",
    "GameEnded",
    "GameStarted",
    "GemsExchanged",
    "GemsTaken",
    "NegotiationOpened",
    "NothingDrawn",
    "PileShuffled",
    "PointsScored",
    "StageLine",
    "StageScored",
    "WonForFree",
]


class GameStarted(Event, frozen=True, kw_only=True, tag="game_started"):
    """The table is set (B-1..B-3): the seated players, each one's gems (3 of each colour) and the stock."""

    players: tuple[str, ...]
    edition: str
    gems: tuple[Gems, ...]
    stock: Gems


class PileShuffled(Event, frozen=True, kw_only=True, tag="pile_shuffled"):
    """A stage's face-down draw pile, all cards shuffled (B-4, B-9); ``order`` (top first) is secret."""

    stage: int
    size: int
    order: tuple[int, ...] | None = None


class CardsDealt(Event, frozen=True, kw_only=True, tag="cards_dealt"):
    """Step I (B-5): in seat order each player took the top card of the pile as their current card."""

    stage: int
    round: int
    cards: tuple[int, ...]


class ActionChosen(Event, frozen=True, kw_only=True, tag="action_chosen"):
    """Step II (B-6): a player picked an action card; ``action`` is null for the others until the reveal."""

    seat: int
    action: Action | None = None


class ActionsRevealed(Event, frozen=True, kw_only=True, tag="actions_revealed"):
    """Step II ends (B-6): every pick, by seat, turned face up at once."""

    picks: tuple[Action, ...]


class ActionForfeited(Event, frozen=True, kw_only=True, tag="action_forfeited"):
    """Step III (B-7): three or more players chose this action, so nobody performs it."""

    action: Action
    seats: tuple[int, ...]


class NegotiationOpened(Event, frozen=True, kw_only=True, tag="negotiation_opened"):
    """Step III (B-8): exactly two players chose this action; the first bidder by the tie-breaks opens."""

    action: Action
    first_bidder: int
    opponent: int


class BidDrafted(Event, frozen=True, kw_only=True, tag="bid_drafted"):
    """Negotiation (B-8): one step of a step-wise bid, the count of the next colour in value order."""

    seat: int
    colour: Colour
    count: int


class BidPlaced(Event, frozen=True, kw_only=True, tag="bid_placed"):
    """Negotiation (B-8): a bid beating the current one; it replaces the bidder's earlier bid entirely."""

    seat: int
    action: Action
    gems: Gems


class BidAccepted(Event, frozen=True, kw_only=True, tag="bid_accepted"):
    """Negotiation (B-8): ``seat`` accepted and received the bid's gems from ``bidder``, who wins."""

    seat: int
    bidder: int
    action: Action
    gems: Gems


class WonForFree(Event, frozen=True, kw_only=True, tag="won_for_free"):
    """Negotiation (B-8): the first bidder owned no gem at all, so ``seat`` won the action for free."""

    action: Action
    seat: int
    opponent: int


class CardDrawn(Event, frozen=True, kw_only=True, tag="card_drawn"):
    """Action A (B-7): the top card of the pile joined the player's cards (its workers count)."""

    seat: int
    card: int


class NothingDrawn(Event, frozen=True, kw_only=True, tag="nothing_drawn"):
    """Action A (B-7): the draw pile was empty, so the action did nothing."""

    seat: int


class PointsScored(Event, frozen=True, kw_only=True, tag="points_scored"):
    """Action B (B-7): the player scored the points printed on their current card."""

    seat: int
    card: int
    points: int


class GemsTaken(Event, frozen=True, kw_only=True, tag="gems_taken"):
    """Action C (B-7): the player took the current card's gems from the stock, as far as it had them."""

    seat: int
    card: int
    shown: Gems
    received: Gems


class ActionDOpened(Event, frozen=True, kw_only=True, tag="action_d_opened"):
    """Action D (B-7, five players): its choosers act in this order, the first-bidder order of B-8."""

    seats: tuple[int, ...]


class GemsExchanged(Event, frozen=True, kw_only=True, tag="gems_exchanged"):
    """Action D (B-7): the player returned ``returned`` to the stock, then took ``taken`` from it."""

    seat: int
    returned: Gems
    taken: Gems


class StageLine(msgspec.Struct, frozen=True, kw_only=True):
    """One player's stage scoring (B-9, B-11): action-B points, majorities, returns and the workers bonus."""

    seat: int
    action_b: int
    majority: ColourPoints
    returned: Gems
    workers: int
    workers_bonus: int
    stage_total: int
    running_total: int


class StageScored(Event, frozen=True, kw_only=True, tag="stage_scored"):
    """End of a stage (B-9): colour majorities and workers bonus scored, gems returned, cards gathered."""

    stage: int
    reason: Literal["workers", "pile"]
    lines: tuple[StageLine, ...]


class GameEnded(Event, frozen=True, kw_only=True, tag="game_ended"):
    """The third stage is scored (B-10): final scores; the most points wins, ties give several winners."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


BasariEvent = (
    GameStarted
    | PileShuffled
    | CardsDealt
    | ActionChosen
    | ActionsRevealed
    | ActionForfeited
    | NegotiationOpened
    | BidDrafted
    | BidPlaced
    | BidAccepted
    | WonForFree
    | CardDrawn
    | NothingDrawn
    | PointsScored
    | GemsTaken
    | ActionDOpened
    | GemsExchanged
    | StageScored
    | GameEnded
    | SeatResigned
    | Adjudicated
)
