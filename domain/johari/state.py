"""Johari state (J-3..J-5, J-10..J-14): frozen structs folded from events, with small read helpers."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.clock import Clock
from domain.johari.components import ACTIONS, COMPONENTS, STORES, Card, parse_place

# new: before GameStarted; setup_pick: J-8; play: secret action cards (J-10); resolve: J-11..J-13;
# day_end: J-14; over: J-15.
Phase = Literal["new", "setup_pick", "play", "resolve", "day_end", "over"]
# The decisions a seat can owe (``Pending.decision``), each answered by its own commands.
Decision = Literal[
    "setup_pick",
    "play_action_card",
    "resolve_purchase",
    "resolve_sale",
    "jeweler_pick",
    "jeweler_choose_gem",
    "resolve_trade",
    "pay_noble",
    "place_noble",
    "resolve_exchange",
    "exchange_take",
    "cash_gold_cards",
    "discard_fake",
]


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """One player's board (J-5): gold token, Gem Tokens, display, hand, slots, Nobles, day flags."""

    name: str
    gold: int
    stamp: int  # height on the gold track: on equal gold the higher stamp is higher in the stack (J-11)
    bottom_row: bool = False  # J-11: the Gold Track row (all start in the top row, J-8); a turn changes it
    tokens: tuple[int, ...] = (0, 0, 0, 0)  # Gem Token positions by COLOURS
    display: tuple[int, ...] = ()  # gem and Gold Cards
    prestige: tuple[int, ...] = ()  # Prestige Cards, kept beside the display (public, J-13/J-18)
    trade: tuple[
        int, ...
    ] = ()  # every card on the Trade card, Prestige Cards included, until the day ends (J-13)
    hand: tuple[str, ...] = ACTIONS
    slots: tuple[str | None, ...] = (None, None, None)
    nobles: tuple[int, ...] = ()
    noble_slots: tuple[tuple[int, int], ...] = ()  # (noble id, slot 1..3) for slot-discount Nobles
    protected: bool = False  # Bribe / baksheesh_protects carried out: safe until the end of the day (J-13)
    acted: bool = False  # acted (or skipped) in this Market Round
    cashable: tuple[int, ...] = ()  # Gold Cards just taken that may still be cashed
    owes_fake: bool = False  # must choose a fake gem card to discard


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """The action being resolved (J-11..J-13) and the progress of its steps."""

    seat: int
    card: str  # the played card (may be the Doppelganger)
    action: str  # the action resolved
    cost: int
    stage: str  # purchase, sale, jeweler, trade, pay_noble, place_noble, exchange, exchange_take
    selection: tuple[int, ...] = ()  # Jeweler sale cards chosen so far
    wild_card: int | None = None
    wild_colour: str | None = None
    noble: int | None = None
    remaining: int = 0
    pay_colour: str | None = None
    give: int | None = None


class State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole game, at its ``phase``."""

    phase: Phase = "new"
    players: tuple[Player, ...] = ()
    resigned: tuple[int, ...] = ()  # the seats that resigned, in order; a stand-in plays them
    adjudicated: bool = False  # ended by the tournament organizer as it stands (domain/resign.py)
    clock: Clock | None = None  # a timed game's clock, None if untimed
    day: int = 0
    round: int = 0
    draw: tuple[int, ...] = ()  # top first
    discard: tuple[int, ...] = ()
    market: tuple[tuple[int, ...], ...] = ()  # five Stores, then the Booths
    noble_track: tuple[int | None, ...] = (None, None, None, None, None)  # index 0 = space 1
    noble_stack: tuple[int, ...] = ()  # top first
    stamp_counter: int = 0
    setup_order: tuple[int, ...] = ()  # bottom of the gold stack first (J-8)
    setup_next: int = 0
    turn: Turn | None = None
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()


def card(cid: int) -> Card:
    """The card with this id."""
    return COMPONENTS.cards[cid]


def abilities(player: Player) -> frozenset[str]:
    """The abilities of the player's hired Nobles (J-16)."""
    return frozenset(COMPONENTS.nobles[n].ability for n in player.nobles)


def booths(state: State) -> int:
    """How many Bazaar Booths there are (J-3: players + 2)."""
    return len(state.market) - len(STORES)


def with_player(state: State, seat: int, player: Player) -> State:
    """The state with one player replaced."""
    players = list(state.players)
    players[seat] = player
    return msgspec.structs.replace(state, players=tuple(players))


def gold_order(state: State) -> list[int]:
    """Seats by gold, most first; on equal gold the token higher in the stack first (J-11)."""
    return sorted(range(len(state.players)), key=lambda s: (-state.players[s].gold, -state.players[s].stamp))


def place_index(state: State, name: str) -> int:
    """The market index of a place name (stored events always name a real place)."""
    index = parse_place(name, booths(state))
    return 0 if index is None else index
