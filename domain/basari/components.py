"""Basari's components: gems (B-2), action cards (B-3) and the 39 bazaar cards (B-4), loaded and validated.

The house card data lives in ``domain/data/basari.json``; its shape and the rulebook's ranges are declared
below as msgspec structs (``Components``) and checked when this module is imported, so a different edition
can be dropped in and is refused with a message naming the fault if it breaks them.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal

import msgspec

from domain.counts import Palette
from domain.data import ComponentDataError, convert_component_data, load_component_data

__all__ = [
    "ACTIONS_BY_PLAYERS",
    "COLOURS",
    "COMPONENTS",
    "NO_GEMS",
    "PALETTE",
    "Action",
    "Card",
    "Colour",
    "ColourPoints",
    "ComponentDataError",
    "Components",
    "Gems",
    "MajorityPoints",
    "load_components",
    "validate_components",
]

Colour = Literal["red", "yellow", "green", "blue"]
Action = Literal["A", "B", "C", "D"]

# B-2: the value order, highest first; bids and the first-bidder chain compare colours in this order.
COLOURS: Final[tuple[Colour, ...]] = ("red", "yellow", "green", "blue")
# The state holds gems as counts in this order (domain/counts.py); ``Gems`` is their named form on the wire.
PALETTE: Final = Palette(COLOURS)

# B-3: every player holds A, B, C; with 5 players also D.
ACTIONS_BY_PLAYERS: Final[dict[int, tuple[Action, ...]]] = {
    3: ("A", "B", "C"),
    4: ("A", "B", "C"),
    5: ("A", "B", "C", "D"),
}

Count = Annotated[int, msgspec.Meta(ge=0)]


# The named form of gems in events, commands and views; the state holds counts in value order
# (``PALETTE``, domain/counts.py), converted by ``of`` and ``counts``. (The docstring is the API's schema
# description.) forbid_unknown_fields: a bid of {"red": 1, "purple": 5} is malformed, not one red gem.
class Gems(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A handful of gems: how many of each colour (missing colours count 0)."""

    red: Count = 0
    yellow: Count = 0
    green: Count = 0
    blue: Count = 0

    @classmethod
    def of(cls, counts: tuple[int, ...]) -> Gems:
        """Gems from four counts in value order (red, yellow, green, blue)."""
        red, yellow, green, blue = counts
        return cls(red=red, yellow=yellow, green=green, blue=blue)

    def counts(self) -> tuple[int, int, int, int]:
        """The four counts in value order (red, yellow, green, blue)."""
        return (self.red, self.yellow, self.green, self.blue)


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


PositiveInt = Annotated[int, msgspec.Meta(ge=1)]


class Card(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A bazaar card (B-4): its workers (1-4), victory points (4-7) and gems (2-4)."""

    id: int
    workers: Annotated[int, msgspec.Meta(ge=1, le=4)]
    points: Annotated[int, msgspec.Meta(ge=4, le=7)]
    gems: Gems

    def __post_init__(self) -> None:
        shown = sum(self.gems.counts())
        if not 2 <= shown <= 4:
            raise ValueError(f"card {self.id}: a card shows 2-4 gems, found {shown} (B-4)")


class MajorityPoints(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """B-9: the points of a colour majority, falling with the colour's value (red > yellow > green > blue)."""

    red: PositiveInt
    yellow: PositiveInt
    green: PositiveInt
    blue: PositiveInt

    def __post_init__(self) -> None:
        points = (self.red, self.yellow, self.green, self.blue)
        if not all(a > b for a, b in itertools.pairwise(points)):
            raise ValueError("majority points must fall with the colour's value (B-9)")


class Components(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """An edition of ``domain/data/basari.json`` as the rulebook allows it (B-2 gems, B-4 cards, B-9, B-10)."""

    game: Literal["basari"]
    edition: Annotated[str, msgspec.Meta(min_length=1)]
    note: str = ""
    colours_by_value: tuple[Literal["red"], Literal["yellow"], Literal["green"], Literal["blue"]]  # B-2
    gems_per_colour: Literal[22]  # B-2
    starting_gems_per_colour: Literal[3]  # B-2
    stage_end_workers: Literal[15]  # B-9
    stages: Literal[3]  # B-10
    majority_points: MajorityPoints
    workers_bonus: PositiveInt
    tie_return: PositiveInt
    cards: Annotated[tuple[Card, ...], msgspec.Meta(min_length=39, max_length=39)] = msgspec.field(
        name="bazaar_cards"
    )

    def __post_init__(self) -> None:
        if len(self.by_id) != len(self.cards):
            raise ValueError("bazaar card ids must be unique")

    @cached_property
    def by_id(self) -> Mapping[int, Card]:
        """The cards by id."""
        return MappingProxyType({card.id: card for card in self.cards})

    def card(self, card_id: int) -> Card:
        """The card with id ``card_id``."""
        return self.by_id[card_id]

    def card_ids(self) -> tuple[int, ...]:
        """Every card id, in the data's order (the order before any shuffle)."""
        return tuple(card.id for card in self.cards)


def validate_components(raw: Any) -> Components:
    """An edition's data checked against the rulebook (B-2, B-4, B-9, B-10); ComponentDataError otherwise."""
    return convert_component_data("basari", raw, Components)


def load_components(name: str = "basari") -> Components:
    """Load ``domain/data/<name>.json`` and validate it (raises ComponentDataError)."""
    return validate_components(load_component_data(name))


COMPONENTS: Final[Components] = load_components()
