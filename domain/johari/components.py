"""Johari components (J-1..J-5): the 96 cards, the 24 Nobles and the house constants, validated at load."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.data import load_component_data

__all__ = [
    "ACTIONS",
    "ALL_ABILITIES",
    "COLOURS",
    "DATA",
    "STORES",
    "Card",
    "ComponentDataError",
    "Data",
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
# J-3: five Stores, one per colour and one ("gold") for Gold and Prestige Cards.
STORES: tuple[str, ...] = (*COLOURS, "gold")

# J-16: every Noble ability this code implements (the data file must name only these).
ALL_ABILITIES: frozenset[str] = frozenset(
    {
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
    }
)


class ComponentDataError(ValueError):
    """The house data file breaks the component rules (J-2, J-4, J-5)."""


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """One of the 96 cards (J-2): a gem card (colour, gems, fake), a Gold Card or a Prestige Card."""

    id: int
    kind: str  # "gem", "gold" or "prestige"
    colour: str | None = None
    gems: int = 0
    fake: bool = False
    gold: int = 0
    prestige: int = 0


class Noble(msgspec.Struct, frozen=True, kw_only=True):
    """One of the 24 Nobles (J-4, J-16): back 1..3, an ability name, its prestige points."""

    id: int
    back: int
    ability: str
    text: str
    prestige: int


class Data(msgspec.Struct, frozen=True, kw_only=True):
    """The validated house data."""

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


def _fail(detail: str) -> ComponentDataError:
    return ComponentDataError(f"johari.json: {detail}")


def _int(raw: Any, what: str) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise _fail(f"{what} must be an integer, got {raw!r}")
    return raw


def load(raw: Any = None) -> Data:
    """Load and validate the house data (J-2 cards, J-4 Nobles, J-5 tracks); raise ComponentDataError."""
    raw = load_component_data("johari") if raw is None else raw
    if not isinstance(raw, dict):
        raise _fail("top level must be an object")
    if list(raw.get("colours", [])) != list(COLOURS):
        raise _fail(f"colours must be {list(COLOURS)}")
    cards: dict[int, Card] = {}
    raw_cards = raw.get("gem_cards")
    if not isinstance(raw_cards, list) or len(raw_cards) != 96:
        raise _fail("gem_cards must list exactly 96 cards (J-2)")
    for entry in raw_cards:
        if not isinstance(entry, dict):
            raise _fail(f"card entry {entry!r} is not an object")
        cid = _int(entry.get("id"), "card id")
        if cid in cards:
            raise _fail(f"card id {cid} is not unique")
        kind = entry.get("kind")
        if kind == "gem":
            colour = entry.get("colour")
            if colour not in COLOURS:
                raise _fail(f"card {cid}: unknown colour {colour!r}")
            gems = _int(entry.get("gems"), f"card {cid} gems")
            if not 1 <= gems <= 3:
                raise _fail(f"card {cid}: gems must be 1..3")
            fake = entry.get("fake")
            if not isinstance(fake, bool):
                raise _fail(f"card {cid}: fake must be a boolean")
            cards[cid] = Card(id=cid, kind="gem", colour=colour, gems=gems, fake=fake)
        elif kind == "gold":
            amount = _int(entry.get("gold"), f"card {cid} gold")
            if amount < 1:
                raise _fail(f"card {cid}: gold must be positive")
            cards[cid] = Card(id=cid, kind="gold", gold=amount)
        elif kind == "prestige":
            points = _int(entry.get("prestige"), f"card {cid} prestige")
            if points < 1:
                raise _fail(f"card {cid}: prestige must be positive")
            cards[cid] = Card(id=cid, kind="prestige", prestige=points)
        else:
            raise _fail(f"card {cid}: kind must be gem, gold or prestige, got {kind!r}")
    nobles: dict[int, Noble] = {}
    raw_nobles = raw.get("nobles")
    if not isinstance(raw_nobles, list) or len(raw_nobles) != 24:
        raise _fail("nobles must list exactly 24 Nobles (J-4)")
    for entry in raw_nobles:
        if not isinstance(entry, dict):
            raise _fail(f"noble entry {entry!r} is not an object")
        nid = _int(entry.get("id"), "noble id")
        if nid in nobles:
            raise _fail(f"noble id {nid} is not unique")
        ability = entry.get("ability")
        if ability not in ALL_ABILITIES:
            raise _fail(f"noble {nid}: unknown ability {ability!r}")
        back = _int(entry.get("back"), f"noble {nid} back")
        nobles[nid] = Noble(
            id=nid,
            back=back,
            ability=str(ability),
            text=str(entry.get("text", "")),
            prestige=_int(entry.get("prestige"), f"noble {nid} prestige"),
        )
    for back in (1, 2, 3):
        if sum(1 for n in nobles.values() if n.back == back) != 8:
            raise _fail(f"there must be eight Nobles with back {back} (J-4)")
    if {n.ability for n in nobles.values()} != ALL_ABILITIES:
        raise _fail("every one of the 24 Noble abilities must appear exactly once (J-16)")
    raw_costs = raw.get("noble_space_costs")
    if not isinstance(raw_costs, dict) or sorted(raw_costs) != ["1", "2", "3", "4", "5"]:
        raise _fail("noble_space_costs must give a cost for spaces 1..5 (J-4)")
    space_costs = {int(k): _int(v, f"noble_space_costs[{k}]") for k, v in raw_costs.items()}
    raw_actions = raw.get("action_costs")
    if not isinstance(raw_actions, dict) or sorted(raw_actions) != sorted(ACTIONS):
        raise _fail(f"action_costs must name exactly {list(ACTIONS)} (J-13)")
    action_costs: dict[str, int | None] = {}
    for name, value in raw_actions.items():
        if name == "doppelganger":
            if value is not None:
                raise _fail("the doppelganger has no cost of its own (J-13)")
            action_costs[name] = None
        else:
            action_costs[name] = _int(value, f"action_costs[{name}]")
    raw_slots = raw.get("slot_discounts")
    if not isinstance(raw_slots, list) or len(raw_slots) != 3:
        raise _fail("slot_discounts must have three entries (J-12)")
    slots = tuple(None if s is None else _int(s, "slot discount") for s in raw_slots)
    data = Data(
        cards=cards,
        nobles=nobles,
        market_days=_int(raw.get("market_days"), "market_days"),
        rounds_per_day=_int(raw.get("rounds_per_day"), "rounds_per_day"),
        gold_start=_int(raw.get("gold_start"), "gold_start"),
        gold_max=_int(raw.get("gold_max"), "gold_max"),
        track_max=_int(raw.get("prestige_track_max"), "prestige_track_max"),
        noble_space_costs=space_costs,
        nobles_per_back=_int(raw.get("nobles_per_back_in_play"), "nobles_per_back_in_play"),
        slot_discounts=slots,
        action_costs=action_costs,
    )
    if not 0 <= data.gold_start <= data.gold_max:
        raise _fail("gold_start must lie on the gold track (J-5)")
    if data.track_max < 1 or data.rounds_per_day != 3 or data.market_days < 1:
        raise _fail("prestige_track_max, rounds_per_day (3) or market_days out of range (J-5, J-10)")
    if not 1 <= data.nobles_per_back <= 8 or 3 * data.nobles_per_back != data.market_days + 2:
        raise _fail("nobles in play must be two on the track plus one per Market Day (J-6, J-15)")
    return data


DATA: Data = load()
