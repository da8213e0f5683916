"""Z-2..Z-5, Z-9, Z-12: Bazaar's house component data, loaded from ``data/bazaar.json`` and validated once.

Another edition can be dropped in by replacing the JSON file: ``validate_edition`` checks it against the
rulebook's components (ten exchange cards of five equations, 45 wares of five stones, five colours of
twenty stones, a die of the five colours and *choice*, the score table) and raises
``InvalidComponentData`` naming the first thing that is wrong.

Stones are handled internally as a tuple of counts in the edition's colour order (``Stones``); events and
views use ``{colour: count}`` dictionaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from domain.data import load_component_data

__all__ = [
    "CHOICE",
    "EDITION",
    "EXCHANGE_CARDS_IN_PLAY",
    "STALLS_EMPTIED_TO_END",
    "Edition",
    "Equation",
    "InvalidComponentData",
    "Stones",
    "Ware",
    "load_edition",
    "validate_edition",
]

Stones = tuple[int, ...]
"""A multiset of stones: one count per colour, in the edition's colour order."""

CHOICE = "choice"
"""Z-5: the die face on which the player picks the colour."""

EXCHANGE_CARDS_IN_PLAY = 2
"""Z-3: two exchange cards, drawn at random, make the exchange."""

STALLS_EMPTIED_TO_END = 2
"""Z-13: the game ends the moment two stalls are sold out."""

EXCHANGE_CARDS = 10
EQUATIONS_PER_CARD = 5
WARE_CARDS = 45
STONES_PER_WARE = 5
COLOURS = 5
STONES_PER_COLOUR = 20
STALLS = 4
WARES_PER_STALL = 5
SCORE_ROWS = ("0", "1", "2", "3+")
STAR_COLUMNS = 3


class InvalidComponentData(ValueError):
    """The component data file does not describe a playable Bazaar edition."""


@dataclass(frozen=True)
class Equation:
    """Z-3: one rate of exchange; either side may be given for the other."""

    card: int
    left: Stones
    right: Stones


@dataclass(frozen=True)
class Ware:
    """Z-4, Z-9: a ware card: the five stones it costs and whether it carries a star."""

    id: int
    stones: Stones
    star: bool


@dataclass(frozen=True, eq=False)
class Edition:
    """A validated edition of the components (read-only mappings inside)."""

    name: str
    colours: tuple[str, ...]
    stones_per_colour: int
    die_faces: tuple[str, ...]
    hand_limit: int
    solitaire_turn_limit: int
    stalls: int
    wares_per_stall: int
    score_table: tuple[tuple[int, ...], ...]  # row = min(stones left, 3), column = stars (0..2)
    exchange_cards: Mapping[int, tuple[Equation, ...]]
    wares: Mapping[int, Ware]

    def stones(self, counts: Mapping[str, int]) -> Stones:
        """``{colour: count}`` as a ``Stones`` tuple (colours this edition does not know are ignored)."""
        return tuple(int(counts.get(colour, 0)) for colour in self.colours)

    def named(self, stones: Stones) -> dict[str, int]:
        """A ``Stones`` tuple as ``{colour: count}`` with the colours held only, in colour order."""
        return {colour: count for colour, count in zip(self.colours, stones, strict=False) if count}

    def full(self, stones: Stones) -> dict[str, int]:
        """A ``Stones`` tuple as ``{colour: count}`` with every colour, zero counts included."""
        return dict(zip(self.colours, stones, strict=False))

    def none(self) -> Stones:
        """No stones at all."""
        return (0,) * len(self.colours)

    def equations(self, cards: tuple[int, ...]) -> tuple[Equation, ...]:
        """Z-3: the exchange made by ``cards``, equations numbered in card order (0-based)."""
        return _equations(self, cards)


@lru_cache(maxsize=64)
def _equations(edition: Edition, cards: tuple[int, ...]) -> tuple[Equation, ...]:
    """The cached equation list of a pair of exchange cards."""
    return tuple(eq for card in cards for eq in edition.exchange_cards.get(card, ()))


def _fail(message: str) -> InvalidComponentData:
    """The error for an invalid edition, prefixed with where to look."""
    return InvalidComponentData(f"bazaar component data: {message}")


def _int(raw: Any, what: str, minimum: int = 0) -> int:
    """A whole number at least ``minimum``."""
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < minimum:
        raise _fail(f"{what} must be a whole number >= {minimum}, got {raw!r}")
    return raw


def _stones(raw: Any, colours: tuple[str, ...], what: str) -> Stones:
    """A ``{colour: count}`` object of known colours and positive counts."""
    if not isinstance(raw, dict) or not raw:
        raise _fail(f"{what} must be a non-empty {{colour: count}} object, got {raw!r}")
    for colour, count in raw.items():
        if colour not in colours:
            raise _fail(f"{what} names unknown colour {colour!r} (colours are {list(colours)})")
        _int(count, f"{what}[{colour!r}]", minimum=1)
    return tuple(int(raw.get(colour, 0)) for colour in colours)


def validate_edition(raw: Any) -> Edition:
    """Z-2..Z-5, Z-9: check raw component data against the rulebook's components; raise if it does not fit."""
    if not isinstance(raw, dict):
        raise _fail("the top level must be a JSON object")
    for key in (
        "colours",
        "stones_per_colour",
        "die_faces",
        "hand_limit",
        "solitaire_turn_limit",
        "stalls",
        "wares_per_stall",
        "score_table",
        "exchange_cards",
        "ware_cards",
    ):
        if key not in raw:
            raise _fail(f"missing {key!r}")

    # Z-2: five colours of twenty stones each.
    colours_raw = raw["colours"]
    if (
        not isinstance(colours_raw, list)
        or len(colours_raw) != COLOURS
        or not all(isinstance(c, str) and c for c in colours_raw)
        or len(set(colours_raw)) != COLOURS
    ):
        raise _fail(f"'colours' must list {COLOURS} distinct colour names, got {colours_raw!r}")
    colours = tuple(colours_raw)
    if CHOICE in colours:
        raise _fail(f"{CHOICE!r} is the die's wild face and cannot be a colour")
    if _int(raw["stones_per_colour"], "'stones_per_colour'") != STONES_PER_COLOUR:
        raise _fail(
            f"'stones_per_colour' must be {STONES_PER_COLOUR} (Z-2), got {raw['stones_per_colour']!r}"
        )

    # Z-5: the die shows each colour once and *choice* once.
    faces = raw["die_faces"]
    if (
        not isinstance(faces, list)
        or len(faces) != COLOURS + 1
        or sorted(map(str, faces)) != sorted([*colours, CHOICE])
    ):
        raise _fail(f"'die_faces' must be the {COLOURS} colours and {CHOICE!r}, each once; got {faces!r}")

    hand_limit = _int(raw["hand_limit"], "'hand_limit'", minimum=STONES_PER_WARE)
    turn_limit = _int(raw["solitaire_turn_limit"], "'solitaire_turn_limit'", minimum=1)

    # Z-4: four stalls of five.
    if _int(raw["stalls"], "'stalls'") != STALLS:
        raise _fail(f"'stalls' must be {STALLS} (Z-4), got {raw['stalls']!r}")
    if _int(raw["wares_per_stall"], "'wares_per_stall'") != WARES_PER_STALL:
        raise _fail(f"'wares_per_stall' must be {WARES_PER_STALL} (Z-4), got {raw['wares_per_stall']!r}")

    # Z-9: points by stones left (0, 1, 2, 3+) and stars (none, one, two).
    table_raw = raw["score_table"]
    if not isinstance(table_raw, dict) or sorted(table_raw) != sorted(SCORE_ROWS):
        raise _fail(f"'score_table' must have exactly the rows {list(SCORE_ROWS)}, got {table_raw!r}")
    table: list[tuple[int, ...]] = []
    for row in SCORE_ROWS:
        values = table_raw[row]
        if not isinstance(values, list) or len(values) != STAR_COLUMNS:
            raise _fail(f"score_table[{row!r}] must list {STAR_COLUMNS} point values (no star, one, two)")
        table.append(tuple(_int(v, f"score_table[{row!r}]", minimum=1) for v in values))

    # Z-3: ten exchange cards of five equations, no colour on both sides of an equation.
    cards_raw = raw["exchange_cards"]
    if not isinstance(cards_raw, list) or len(cards_raw) != EXCHANGE_CARDS:
        raise _fail(f"'exchange_cards' must hold {EXCHANGE_CARDS} cards")
    cards: dict[int, tuple[Equation, ...]] = {}
    for position, card in enumerate(cards_raw):
        if not isinstance(card, dict):
            raise _fail(f"exchange card #{position} must be an object")
        card_id = _int(card.get("id"), f"exchange card #{position} 'id'", minimum=1)
        if card_id in cards:
            raise _fail(f"exchange card id {card_id} appears twice")
        equations_raw = card.get("equations")
        if not isinstance(equations_raw, list) or len(equations_raw) != EQUATIONS_PER_CARD:
            raise _fail(f"exchange card {card_id} must hold {EQUATIONS_PER_CARD} equations")
        equations: list[Equation] = []
        for index, eq in enumerate(equations_raw):
            what = f"exchange card {card_id} equation {index}"
            if not isinstance(eq, dict):
                raise _fail(f"{what} must be an object with 'left' and 'right'")
            left = _stones(eq.get("left"), colours, f"{what} left")
            right = _stones(eq.get("right"), colours, f"{what} right")
            both = [c for c, a, b in zip(colours, left, right, strict=True) if a and b]
            if both:
                raise _fail(f"{what} has {both} on both sides")
            equations.append(Equation(card=card_id, left=left, right=right))
        cards[card_id] = tuple(equations)

    # Z-4: 45 ware cards of exactly five stones.
    wares_raw = raw["ware_cards"]
    if not isinstance(wares_raw, list) or len(wares_raw) != WARE_CARDS:
        raise _fail(f"'ware_cards' must hold {WARE_CARDS} wares")
    wares: dict[int, Ware] = {}
    for position, ware in enumerate(wares_raw):
        if not isinstance(ware, dict):
            raise _fail(f"ware #{position} must be an object")
        ware_id = _int(ware.get("id"), f"ware #{position} 'id'", minimum=1)
        if ware_id in wares:
            raise _fail(f"ware id {ware_id} appears twice")
        stones = _stones(ware.get("stones"), colours, f"ware {ware_id} stones")
        if sum(stones) != STONES_PER_WARE:
            raise _fail(f"ware {ware_id} costs {sum(stones)} stones, not {STONES_PER_WARE}")
        star = ware.get("star")
        if not isinstance(star, bool):
            raise _fail(f"ware {ware_id} 'star' must be true or false")
        wares[ware_id] = Ware(id=ware_id, stones=stones, star=star)

    return Edition(
        name=str(raw.get("edition", "unnamed")),
        colours=colours,
        stones_per_colour=STONES_PER_COLOUR,
        die_faces=tuple(faces),
        hand_limit=hand_limit,
        solitaire_turn_limit=turn_limit,
        stalls=STALLS,
        wares_per_stall=WARES_PER_STALL,
        score_table=tuple(table),
        exchange_cards=MappingProxyType(cards),
        wares=MappingProxyType(wares),
    )


def load_edition() -> Edition:
    """The house edition from ``domain/data/bazaar.json``, validated."""
    return validate_edition(load_component_data("bazaar"))


EDITION: Edition = load_edition()
"""The edition this service plays, validated at import."""
