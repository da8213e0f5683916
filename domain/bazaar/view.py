"""Z-6..Z-12, Z-15: what a seat may see (``view``, ``redact``), who acts (``pending``) and how (``legal``).

Everything is public except the order of the face-down wares in each stall and the unused wares (Z-15),
so a seat and a spectator see the same view. ``legal`` is complete and finite:

- ``roll_or_trade``: ``Roll``, and (after a seat's first turn) every ``Trade`` of each equation in each
  direction the seat and the bank can both pay;
- ``choose_colour``: ``ChooseColour`` of every colour the bank still has;
- ``buy_or_end``: ``Buy`` of every displayed ware the seat can pay while the turn allows a purchase (with
  the double-purchase option the second purchase is simply a second ``Buy``), and ``EndTurn``;
- ``discard_excess``: if the ways to return the whole excess at once number at most
  ``DISCARD_ENUMERATION_LIMIT``, every such multiset; otherwise one stone of each colour the offender
  holds, one step at a time (``DiscardExcess`` accepts any part of the excess; the decision stays pending
  until the offender is down to the limit).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import msgspec

from domain.bazaar.commands import Buy, ChooseColour, DiscardExcess, EndTurn, Roll, Trade
from domain.bazaar.components import EDITION, Stones
from domain.bazaar.events import BazaarDealt, SolitaireWareDealt
from domain.bazaar.state import UNKNOWN_WARE, BazaarState, Decision
from domain.core import Command, Event, Pending

__all__ = [
    "DISCARD_ENUMERATION_LIMIT",
    "BazaarView",
    "EquationView",
    "HandLimitView",
    "PlayerView",
    "StallView",
    "WareView",
    "legal",
    "pending",
    "redact",
    "view",
]

DISCARD_ENUMERATION_LIMIT = 120
"""Z-10: above this many ways to return the whole excess, ``legal`` offers one stone at a time."""


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
    return WareView(id=ware.id, stones=EDITION.named(ware.stones), star=ware.star)


def view(state: BazaarState, seat: int | None) -> BazaarView:
    """Z-15: everything public: exchange, stall sizes, displayed wares, bank, every seat's stones, score."""
    equations = EDITION.equations(state.exchange)
    limit_view = None
    if state.phase == "discard_excess" and state.offender is not None and state.chooser is not None:
        excess = sum(state.hands[state.offender]) - EDITION.hand_limit
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
            EquationView(index=i, card=eq.card, left=EDITION.named(eq.left), right=EDITION.named(eq.right))
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
        bank=EDITION.full(state.bank),
        players=tuple(
            PlayerView(
                seat=i,
                name=name,
                stones=EDITION.full(state.hands[i]),
                stone_count=sum(state.hands[i]),
                wares=state.wares[i],
                score=state.scores[i],
            )
            for i, name in enumerate(state.players)
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
        over=state.over,
        end_reason=state.end_reason,
    )


def redact(event: Event, seat: int | None) -> msgspec.Struct:
    """Z-15: the event without the stalls' face-down order and the unused wares (same for every seat)."""
    if isinstance(event, BazaarDealt):
        return msgspec.structs.replace(event, face_down=None, set_aside=None)
    if isinstance(event, SolitaireWareDealt):
        return msgspec.structs.replace(event, set_aside=None)
    return event


def pending(state: BazaarState) -> list[Pending[Decision]]:
    """Z-6..Z-10: who acts: roll (first turn), roll_or_trade, choose_colour, buy_or_end, discard_excess."""
    match state.phase:
        case "roll_or_trade":
            return [Pending(seat=state.current, decision="roll" if state.first_turn else "roll_or_trade")]
        case "choose_colour" | "buy_or_end" as phase:
            return [Pending(seat=state.current, decision=phase)]
        case "discard_excess" if state.chooser is not None:
            return [Pending(seat=state.chooser, decision="discard_excess")]
    return []


def legal(state: BazaarState, seat: int) -> list[Command]:
    """Every command ``seat`` may send now (see the module docstring for how each decision is listed)."""
    if not any(p.seat == seat for p in pending(state)):
        return []
    match state.phase:
        case "roll_or_trade":
            return [Roll(), *_trades(state, seat)]
        case "choose_colour":
            return [
                ChooseColour(colour=c) for c, n in zip(EDITION.colours, state.bank, strict=False) if n > 0
            ]
        case "buy_or_end":
            return [*_buys(state, seat), EndTurn()]
        case "discard_excess":
            return list(_discards(state))
    return []


def _covers(have: Stones, need: Stones) -> bool:
    """Whether ``have`` holds every stone of ``need``."""
    return all(h >= n for h, n in zip(have, need, strict=False))


def _trades(state: BazaarState, seat: int) -> list[Command]:
    """Z-6, Z-7: every affordable trade, each equation in each direction; none on a seat's first turn."""
    if state.first_turn:
        return []
    hand = state.hands[seat]
    out: list[Command] = []
    for index, eq in enumerate(EDITION.equations(state.exchange)):
        if _covers(hand, eq.left) and _covers(state.bank, eq.right):
            out.append(Trade(equation=index, give="left"))
        if _covers(hand, eq.right) and _covers(state.bank, eq.left):
            out.append(Trade(equation=index, give="right"))
    return out


def _buys(state: BazaarState, seat: int) -> list[Command]:
    """Z-8, Z-11: every displayed ware the seat can pay for, while the turn allows another purchase."""
    if state.purchases >= state.purchases_allowed:
        return []
    hand = state.hands[seat]
    out: list[Command] = []
    for cards in state.stalls:
        if cards and cards[0] != UNKNOWN_WARE and _covers(hand, EDITION.wares[cards[0]].stones):
            out.append(Buy(ware=cards[0]))
    return out


def _discards(state: BazaarState) -> list[Command]:
    """Z-10: the whole excess in every possible way if few, else one stone of each colour held."""
    if state.offender is None:
        return []
    hand = state.hands[state.offender]
    excess = sum(hand) - EDITION.hand_limit
    if excess <= 0:
        return []
    held = [i for i, n in enumerate(hand) if n > 0]
    options: list[Command] = []
    for combo in combinations_with_replacement(held, excess):
        counts = tuple(combo.count(i) for i in range(len(hand)))
        if _covers(hand, counts):
            options.append(DiscardExcess(stones=EDITION.named(counts)))
            if len(options) > DISCARD_ENUMERATION_LIMIT:
                break
    if len(options) <= DISCARD_ENUMERATION_LIMIT:
        return options
    return [DiscardExcess(stones={EDITION.colours[i]: 1}) for i in held]
