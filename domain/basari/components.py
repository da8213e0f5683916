"""Basari's components: gems (B-2), action cards (B-3) and the 39 bazaar cards (B-4), loaded and validated.

The house card data lives in ``domain/data/basari.json``. It is validated when this module is imported, so a
different edition can be dropped in and is refused with a clear message if it breaks the rulebook's ranges.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal

import msgspec

from domain.data import load_component_data

__all__ = [
    "ACTIONS_BY_PLAYERS",
    "COLOURS",
    "COMPONENTS",
    "NO_GEMS",
    "Action",
    "Card",
    "Colour",
    "ColourPoints",
    "ComponentDataError",
    "Components",
    "Gems",
    "load_components",
    "validate_components",
]

Colour = Literal["red", "yellow", "green", "blue"]
Action = Literal["A", "B", "C", "D"]

# B-2: the value order, highest first; bids and the first-bidder chain compare colours in this order.
COLOURS: Final[tuple[Colour, ...]] = ("red", "yellow", "green", "blue")

# B-3: every player holds A, B, C; with 5 players also D.
ACTIONS_BY_PLAYERS: Final[dict[int, tuple[Action, ...]]] = {
    3: ("A", "B", "C"),
    4: ("A", "B", "C"),
    5: ("A", "B", "C", "D"),
}

Count = Annotated[int, msgspec.Meta(ge=0)]


# forbid_unknown_fields: a bid of {"red": 1, "purple": 5} is malformed, not a bid of one red gem
class Gems(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A handful of gems: how many of each colour (missing colours count 0)."""

    red: Count = 0
    yellow: Count = 0
    green: Count = 0
    blue: Count = 0

    @classmethod
    def of(cls, counts: tuple[int, ...] | list[int]) -> Gems:
        """Gems from four counts in value order (red, yellow, green, blue)."""
        red, yellow, green, blue = counts
        return cls(red=red, yellow=yellow, green=green, blue=blue)

    @classmethod
    def one(cls, colour: Colour) -> Gems:
        """A single gem of ``colour``."""
        return cls(**{colour: 1})

    def counts(self) -> tuple[int, int, int, int]:
        """The four counts in value order (red, yellow, green, blue)."""
        return (self.red, self.yellow, self.green, self.blue)

    def count(self, colour: Colour) -> int:
        """How many gems of ``colour``."""
        value: int = getattr(self, colour)
        return value

    def total(self) -> int:
        """How many gems in all."""
        return self.red + self.yellow + self.green + self.blue

    def plus(self, other: Gems) -> Gems:
        """These gems and ``other`` together."""
        return Gems.of([a + b for a, b in zip(self.counts(), other.counts(), strict=True)])

    def minus(self, other: Gems) -> Gems:
        """These gems without ``other`` (callers make sure ``other`` is contained)."""
        return Gems.of([a - b for a, b in zip(self.counts(), other.counts(), strict=True)])

    def at_most(self, other: Gems) -> Gems:
        """Per colour the smaller count: what can be had of these gems from a supply of ``other``."""
        return Gems.of([min(a, b) for a, b in zip(self.counts(), other.counts(), strict=True)])

    def within(self, other: Gems) -> bool:
        """Whether every colour count is at most ``other``'s (these gems can be paid from ``other``)."""
        return all(a <= b for a, b in zip(self.counts(), other.counts(), strict=True))

    def valid(self) -> bool:
        """Whether no count is negative (decoding checks it too; structs built in Python do not)."""
        return all(isinstance(c, int) and c >= 0 for c in self.counts())


NO_GEMS: Final = Gems()


class ColourPoints(msgspec.Struct, frozen=True, kw_only=True):
    """Victory points per colour majority of one stage (B-9)."""

    red: int = 0
    yellow: int = 0
    green: int = 0
    blue: int = 0

    def total(self) -> int:
        """The sum over the four colours."""
        return self.red + self.yellow + self.green + self.blue


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """A bazaar card (B-4): its workers (1-4), victory points (4-7) and gems (2-4)."""

    id: int
    workers: int
    points: int
    gems: Gems


@dataclass(frozen=True, kw_only=True)
class Components:
    """A validated edition: the numbers the rules use and the bazaar cards by id."""

    edition: str
    gems_per_colour: int
    starting_gems_per_colour: int
    stage_end_workers: int
    stages: int
    majority_points: ColourPoints
    workers_bonus: int
    tie_return: int
    cards: tuple[Card, ...]
    by_id: Mapping[int, Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", MappingProxyType({card.id: card for card in self.cards}))

    def card(self, card_id: int) -> Card:
        """The card with id ``card_id``."""
        return self.by_id[card_id]

    def card_ids(self) -> tuple[int, ...]:
        """Every card id, in the data's order (the order before any shuffle)."""
        return tuple(card.id for card in self.cards)


class ComponentDataError(ValueError):
    """The component data breaks the rulebook (B-2, B-4, B-9): the message says where."""


# The rulebook's fixed numbers and ranges (B-2, B-4, B-9); an edition must keep them.
_CARD_COUNT = 39
_WORKERS = range(1, 5)
_POINTS = range(4, 8)
_GEMS_PER_CARD = range(2, 5)
_GEMS_PER_COLOUR = 22
_STARTING_GEMS = 3
_STAGES = 3
_STAGE_END_WORKERS = 15
_MAX_PLAYERS = 5


def _need(condition: bool, message: str) -> None:
    """Raise ComponentDataError with ``message`` unless ``condition`` holds."""
    if not condition:
        raise ComponentDataError(f"basari component data: {message}")


def _int(raw: Mapping[str, Any], key: str, where: str) -> int:
    """The integer at ``raw[key]`` (booleans are not integers here)."""
    value = raw.get(key)
    _need(isinstance(value, int) and not isinstance(value, bool), f"{where}: {key!r} must be an integer")
    assert isinstance(value, int)
    return value


def _gems(raw: Any, where: str) -> Gems:
    """Gems from a mapping colour -> count with exactly the four colours."""
    _need(isinstance(raw, dict), f"{where}: gems must be an object colour -> count")
    _need(set(raw) == set(COLOURS), f"{where}: gems must name exactly {', '.join(COLOURS)}")
    counts = [_int(raw, colour, where) for colour in COLOURS]
    _need(all(c >= 0 for c in counts), f"{where}: gem counts must not be negative")
    return Gems.of(counts)


def validate_components(raw: Any) -> Components:
    """Check an edition's data against the rulebook (B-2 gems, B-4 cards, B-9 scoring) and build it."""
    _need(isinstance(raw, dict), "the data must be a JSON object")
    _need(raw.get("game") == "basari", "'game' must be 'basari'")
    edition = raw.get("edition")
    _need(isinstance(edition, str) and bool(edition), "'edition' must be a non-empty string")
    assert isinstance(edition, str)
    # B-2: four colours, valued red > yellow > green > blue.
    _need(
        raw.get("colours_by_value") == list(COLOURS),
        f"'colours_by_value' must be {list(COLOURS)} (the value order of B-2)",
    )
    gems_per_colour = _int(raw, "gems_per_colour", "top level")
    _need(gems_per_colour == _GEMS_PER_COLOUR, f"'gems_per_colour' must be {_GEMS_PER_COLOUR} (B-2)")
    starting = _int(raw, "starting_gems_per_colour", "top level")
    _need(starting == _STARTING_GEMS, f"'starting_gems_per_colour' must be {_STARTING_GEMS} (B-2)")
    _need(starting * _MAX_PLAYERS <= gems_per_colour, "not enough gems of a colour to seat five players")
    stage_end_workers = _int(raw, "stage_end_workers", "top level")
    _need(stage_end_workers == _STAGE_END_WORKERS, f"'stage_end_workers' must be {_STAGE_END_WORKERS} (B-9)")
    stages = _int(raw, "stages", "top level")
    _need(stages == _STAGES, f"'stages' must be {_STAGES} (B-10)")
    # B-9: a majority is worth more the more valuable its colour is.
    majority_raw = raw.get("majority_points")
    _need(isinstance(majority_raw, dict), "'majority_points' must be an object colour -> points")
    assert isinstance(majority_raw, dict)
    _need(set(majority_raw) == set(COLOURS), f"'majority_points' must name exactly {', '.join(COLOURS)}")
    majority = [_int(majority_raw, colour, "majority_points") for colour in COLOURS]
    _need(all(p > 0 for p in majority), "'majority_points' must be positive")
    _need(
        all(a > b for a, b in itertools.pairwise(majority)),
        "'majority_points' must fall with the colour's value (red > yellow > green > blue)",
    )
    workers_bonus = _int(raw, "workers_bonus", "top level")
    _need(workers_bonus > 0, "'workers_bonus' must be positive")
    tie_return = _int(raw, "tie_return", "top level")
    _need(tie_return > 0, "'tie_return' must be positive")
    # B-4: 39 cards, each with 1-4 workers, 4-7 points and 2-4 gems.
    cards_raw = raw.get("bazaar_cards")
    _need(isinstance(cards_raw, list), "'bazaar_cards' must be a list")
    assert isinstance(cards_raw, list)
    _need(len(cards_raw) == _CARD_COUNT, f"there must be {_CARD_COUNT} bazaar cards, found {len(cards_raw)}")
    cards: list[Card] = []
    for index, card_raw in enumerate(cards_raw):
        where = f"bazaar_cards[{index}]"
        _need(isinstance(card_raw, dict), f"{where} must be an object")
        card_id = _int(card_raw, "id", where)
        workers = _int(card_raw, "workers", where)
        points = _int(card_raw, "points", where)
        gems = _gems(card_raw.get("gems"), where)
        where = f"card {card_id}"
        _need(workers in _WORKERS, f"{where}: workers must be 1-4, found {workers}")
        _need(points in _POINTS, f"{where}: victory points must be 4-7, found {points}")
        _need(gems.total() in _GEMS_PER_CARD, f"{where}: a card shows 2-4 gems, found {gems.total()}")
        cards.append(Card(id=card_id, workers=workers, points=points, gems=gems))
    ids = [card.id for card in cards]
    _need(len(set(ids)) == len(ids), "card ids must be unique")
    return Components(
        edition=edition,
        gems_per_colour=gems_per_colour,
        starting_gems_per_colour=starting,
        stage_end_workers=stage_end_workers,
        stages=stages,
        majority_points=ColourPoints(
            red=majority[0], yellow=majority[1], green=majority[2], blue=majority[3]
        ),
        workers_bonus=workers_bonus,
        tie_return=tie_return,
        cards=tuple(cards),
    )


def load_components(name: str = "basari") -> Components:
    """Load ``domain/data/<name>.json`` and validate it (raises ComponentDataError)."""
    return validate_components(load_component_data(name))


COMPONENTS: Final[Components] = load_components()
