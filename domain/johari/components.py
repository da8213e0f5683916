"""Johari components (J-1..J-5): the 96 cards, the 24 Nobles and the house constants, declared and checked.

The shape of ``domain/data/johari.json`` and the rulebook's ranges are declared as msgspec structs
(``DataFile``, ``Card``, ``Noble``, ``ActionCosts``); ``load`` checks the file against them at import.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from domain.counts import Palette
from domain.data import ComponentDataError, convert_component_data, load_component_data

__all__ = [
    "ACTIONS",
    "ALL_ABILITIES",
    "COLOURS",
    "COMPONENTS",
    "PALETTE",
    "STORES",
    "Ability",
    "ActionCosts",
    "Card",
    "ComponentDataError",
    "Components",
    "DataFile",
    "Noble",
    "card_type",
    "load",
    "parse_place",
    "place_name",
    "store_of",
]

# J-5: the seven action cards of every player, in hand order.
ACTIONS: tuple[str, ...] = ("purchase", "sale", "trade", "baksheesh", "bribe", "exchange", "doppelganger")
# J-2: the four gem colours.
COLOURS: tuple[str, ...] = ("red", "blue", "green", "white")
# The state holds per-colour numbers (Gem Token positions) as counts in this order (domain/counts.py); views
# name them ``{colour: count}``.
PALETTE = Palette(COLOURS)
# J-3: five Stores, one per colour and one ("gold") for Gold and Prestige Cards.
STORES: tuple[str, ...] = (*COLOURS, "gold")

# J-16: every Noble ability this code implements (the data file must name only these).
Ability = Literal[
    "baksheesh_plus_one",
    "baksheesh_protects",
    "bribe_plus_gold",
    "purchase_discount",
    "slot_discount_1",
    "gold_seven",
    "trade_immediate",
    "exchange_any_type",
    "jeweler_three_types",
    "collector_plus_one",
    "collector_plus_two",
    "sale_wild_card",
    "sale_discard_instead",
    "hire_two_fewer",
    "hire_with_gold",
    "slot_discount_2",
    "prestige_5",
    "prestige_6",
    "prestige_7",
    "prestige_8",
    "prestige_cards_plus_one",
    "two_per_type",
    "advance_tokens",
    "one_per_noble",
]
ALL_ABILITIES: frozenset[str] = frozenset(get_args(Ability))

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
Positive = Annotated[int, msgspec.Meta(ge=1)]


class Card(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One of the 96 cards (J-2): a gem card (colour, 1-3 gems, fake or not), a Gold Card or a Prestige Card."""

    id: int
    kind: Literal["gem", "gold", "prestige"]
    colour: Literal["red", "blue", "green", "white"] | None = None
    gems: Annotated[int, msgspec.Meta(ge=0, le=3)] = 0
    fake: bool = False
    gold: NonNegative = 0
    prestige: NonNegative = 0

    def __post_init__(self) -> None:
        """J-2: a gem card has a colour and 1-3 gems; a Gold or Prestige Card its positive value only."""
        shape = {
            "gem": self.colour is not None and self.gems >= 1 and not self.gold and not self.prestige,
            "gold": self.colour is None
            and not self.gems
            and not self.fake
            and self.gold >= 1
            and not self.prestige,
            "prestige": self.colour is None
            and not self.gems
            and not self.fake
            and not self.gold
            and self.prestige >= 1,
        }
        if not shape[self.kind]:
            raise ValueError(f"card {self.id}: a {self.kind} card has the wrong fields (J-2)")


class Noble(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One of the 24 Nobles (J-4, J-16): back 1..3, an ability name, its prestige points."""

    id: int
    back: Literal[1, 2, 3]
    ability: Ability
    text: str = ""
    prestige: NonNegative


class Components(msgspec.Struct, frozen=True, kw_only=True):
    """Johari's components as the rules use them: cards and Nobles by id, the tracks, costs and discounts."""

    cards: dict[int, Card]
    nobles: dict[int, Noble]
    market_days: int
    rounds_per_day: int
    gold_start: int
    gold_max: int
    track_max: int
    noble_space_costs: dict[int, int]  # space 1..5 -> gems of one type
    nobles_per_back: int
    slot_discounts: tuple[int | None, ...]  # per slot 1..3; None: the slot makes the action free
    action_costs: dict[str, int | None]  # None: doppelganger (cost of the previous card)


def card_type(card: Card) -> str:
    """The "type" of a card (J-2): its colour, or "gold", or "prestige"."""
    return card.colour if card.kind == "gem" and card.colour else card.kind


def store_of(card: Card) -> int:
    """The index of the Store a card belongs to (J-3): its colour's Store, else the Gold Store."""
    return COLOURS.index(card.colour) if card.kind == "gem" and card.colour else len(COLOURS)


def place_name(index: int) -> str:
    """The public name of a market place: ``store_<type>`` (0..4) or ``booth_<n>`` (5..)."""
    return f"store_{STORES[index]}" if index < len(STORES) else f"booth_{index - len(STORES)}"


def parse_place(name: str, booths: int) -> int | None:
    """The index of a place name, or None if there is no such Store or Booth."""
    if name.startswith("store_") and name[6:] in STORES:
        return STORES.index(name[6:])
    if name.startswith("booth_") and name[6:].isdigit():
        n = int(name[6:])
        if 0 <= n < booths and name == f"booth_{n}":
            return len(STORES) + n
    return None


class ActionCosts(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """J-13: the cost of each action card; the Doppelganger has none of its own (it costs the previous card)."""

    purchase: NonNegative
    sale: NonNegative
    trade: NonNegative
    baksheesh: NonNegative
    bribe: NonNegative
    exchange: NonNegative
    doppelganger: None


class DataFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``domain/data/johari.json`` as the rulebook allows it (J-2 cards, J-4 Nobles, J-5 tracks, J-10)."""

    game: Literal["johari"]
    edition: str = ""
    note: str = ""
    colours: tuple[
        Literal["red"], Literal["blue"], Literal["green"], Literal["white"]
    ]  # J-2, in COLOURS order
    market_days: Positive
    rounds_per_day: Literal[3]  # J-10
    gold_start: NonNegative
    gold_max: NonNegative
    prestige_track_max: Positive
    noble_space_costs: Annotated[
        dict[Literal["1", "2", "3", "4", "5"], NonNegative], msgspec.Meta(min_length=5)
    ]
    nobles_per_back_in_play: Annotated[int, msgspec.Meta(ge=1, le=8)]
    slot_discounts: tuple[NonNegative | None, NonNegative | None, NonNegative | None]  # J-12
    action_costs: ActionCosts
    gem_cards: Annotated[tuple[Card, ...], msgspec.Meta(min_length=96, max_length=96)]  # J-2
    nobles: Annotated[tuple[Noble, ...], msgspec.Meta(min_length=24, max_length=24)]  # J-4

    def __post_init__(self) -> None:
        """The checks across fields: unique ids, eight Nobles a back, every ability once, the gold track."""
        for what, ids in (("card", [c.id for c in self.gem_cards]), ("noble", [n.id for n in self.nobles])):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            if twice:
                raise ValueError(f"{what} id {twice[0]} is not unique")
        for back in (1, 2, 3):
            if sum(1 for n in self.nobles if n.back == back) != 8:
                raise ValueError(f"there must be eight Nobles with back {back} (J-4)")
        if {n.ability for n in self.nobles} != ALL_ABILITIES:
            raise ValueError("every one of the 24 Noble abilities must appear exactly once (J-16)")
        if not self.gold_start <= self.gold_max:
            raise ValueError("gold_start must lie on the gold track (J-5)")
        if 3 * self.nobles_per_back_in_play != self.market_days + 2:
            raise ValueError("nobles in play must be two on the track plus one per Market Day (J-6, J-15)")


def load(raw: Any = None) -> Components:
    """The house data (default: ``domain/data/johari.json``) checked against ``DataFile``; ComponentDataError."""
    data = convert_component_data("johari", load_component_data("johari") if raw is None else raw, DataFile)
    return Components(
        cards={c.id: c for c in data.gem_cards},
        nobles={n.id: n for n in data.nobles},
        market_days=data.market_days,
        rounds_per_day=data.rounds_per_day,
        gold_start=data.gold_start,
        gold_max=data.gold_max,
        track_max=data.prestige_track_max,
        noble_space_costs={int(space): cost for space, cost in data.noble_space_costs.items()},
        nobles_per_back=data.nobles_per_back_in_play,
        slot_discounts=data.slot_discounts,
        action_costs=msgspec.structs.asdict(data.action_costs),
    )


COMPONENTS: Components = load()
