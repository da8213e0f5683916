"""Z-15: what a seat may see (``view``) and the events as it may see them (``redact``).

Everything is public except the order of the face-down wares in each stall and the unused wares (Z-15),
so a seat and a spectator see the same view.
"""

from __future__ import annotations

import msgspec

from domain.bazaar.components import EDITION, PALETTE
from domain.bazaar.events import BazaarDealt, SolitaireWareDealt
from domain.bazaar.state import State
from domain.core import Event, Result

__all__ = [
    "BazaarView",
    "EquationView",
    "HandLimitView",
    "PlayerView",
    "StallView",
    "WareView",
    "redact",
    "view",
]


class WareView(msgspec.Struct, frozen=True, kw_only=True):
    """A ware card: its id, the five stones it costs, and whether it carries a star (Z-4, Z-9)."""

    id: int
    stones: dict[str, int]
    star: bool


class EquationView(msgspec.Struct, frozen=True, kw_only=True):
    """One equation of the exchange, numbered as ``Trade.equation`` expects (Z-3)."""

    index: int
    card: int
    left: dict[str, int]
    right: dict[str, int]


class StallView(msgspec.Struct, frozen=True, kw_only=True):
    """A stall: how many cards it holds and the ware on display; face-down cards stay hidden (Z-4, Z-15)."""

    stall: int
    size: int
    displayed: WareView | None


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's public holdings: stones by colour, wares bought and score (Z-2, Z-9)."""

    seat: int
    name: str
    stones: dict[str, int]
    stone_count: int
    wares: tuple[int, ...]
    score: int


class HandLimitView(msgspec.Struct, frozen=True, kw_only=True):
    """Z-10: ``chooser`` must return ``excess`` more of ``offender``'s stones to the bank."""

    offender: int
    chooser: int
    excess: int


class BazaarView(msgspec.Struct, frozen=True, kw_only=True):
    """The table of a Bazaar game as ``viewer`` (None: a spectator) sees it; everything but Z-15's secrets."""

    game: str
    edition: str
    viewer: int | None
    solitaire: bool
    double_purchase: bool
    hand_limit: int
    exchange_cards: tuple[int, ...]
    exchange: tuple[EquationView, ...]
    stalls: tuple[StallView, ...]
    empty_stalls: int
    stars_upgraded: bool  # Z-9: a stall is sold out, so later purchases score one star higher
    solitaire_ware: WareView | None
    solitaire_turn_limit: int | None
    bank: dict[str, int]
    players: tuple[PlayerView, ...]
    turn: int
    current: int | None  # whose turn is under way (None between turns, e.g. during a hand-limit decision)
    phase: str
    first_turn: bool
    last_roll: str | None
    purchases_this_turn: int
    purchases_allowed: int
    unscored_wares: tuple[int, ...]  # Z-11: bought this turn, scored when the turn's purchases settle
    hand_limit_decision: HandLimitView | None
    over: bool
    end_reason: str | None


def _ware(ware_id: int) -> WareView | None:
    """A ware's public face (None for a card this state does not know)."""
    ware = EDITION.wares.get(ware_id)
    if ware is None:
        return None
    return WareView(id=ware.id, stones=PALETTE.named(ware.stones), star=ware.star)


def view(state: State, seat: int | None, outcome: Result | None) -> BazaarView:
    """Z-15: everything public: exchange, stall sizes, displayed wares, bank, every seat's stones, score;
    ``over`` once there is an ``outcome`` (however the game ended)."""
    equations = EDITION.equations(state.exchange)
    limit_view = None
    if state.phase == "discard_excess" and state.offender is not None and state.chooser is not None:
        excess = sum(state.players[state.offender].hand) - EDITION.hand_limit
        limit_view = HandLimitView(offender=state.offender, chooser=state.chooser, excess=excess)
    return BazaarView(
        game="bazaar",
        edition=EDITION.name,
        viewer=seat,
        solitaire=state.solitaire,
        double_purchase=state.double_purchase,
        hand_limit=EDITION.hand_limit,
        exchange_cards=state.exchange,
        exchange=tuple(
            EquationView(index=i, card=eq.card, left=PALETTE.named(eq.left), right=PALETTE.named(eq.right))
            for i, eq in enumerate(equations)
        ),
        stalls=tuple(
            StallView(stall=i, size=len(cards), displayed=_ware(cards[0]) if cards else None)
            for i, cards in enumerate(state.stalls)
        ),
        empty_stalls=state.empty_stalls,
        stars_upgraded=state.empty_stalls > 0,
        solitaire_ware=_ware(state.solitaire_ware) if state.solitaire_ware is not None else None,
        solitaire_turn_limit=EDITION.solitaire_turn_limit if state.solitaire else None,
        bank=PALETTE.full(state.bank),
        players=tuple(
            PlayerView(
                seat=i,
                name=player.name,
                stones=PALETTE.full(player.hand),
                stone_count=sum(player.hand),
                wares=player.wares,
                score=player.score,
            )
            for i, player in enumerate(state.players)
        ),
        turn=state.turn,
        current=state.current if state.phase in ("roll_or_trade", "choose_colour", "buy_or_end") else None,
        phase=state.phase,
        first_turn=state.first_turn and state.phase == "roll_or_trade",
        last_roll=state.last_roll,
        purchases_this_turn=state.purchases,
        purchases_allowed=state.purchases_allowed,
        unscored_wares=tuple(u.ware for u in state.unscored),
        hand_limit_decision=limit_view,
        over=outcome is not None,
        end_reason=state.end_reason,
    )


def redact(event: Event, seat: int | None) -> msgspec.Struct:
    """Z-15: the event without the stalls' face-down order and the unused wares (same for every seat)."""
    if isinstance(event, BazaarDealt):
        return msgspec.structs.replace(event, face_down=None, set_aside=None)
    if isinstance(event, SolitaireWareDealt):
        return msgspec.structs.replace(event, set_aside=None)
    return event
