"""Z-2..Z-5, Z-9, Z-12: Bazaar's house component data, loaded from ``data/bazaar.json`` and validated once.

Another edition can be dropped in by replacing the JSON file: its shape is declared as msgspec structs
(``EditionData``: ten exchange cards of five equations, 45 wares of five stones, five colours of twenty
stones, a die of the five colours and *choice*, the score table) and ``validate_edition`` raises
``ComponentDataError`` naming the first thing that is wrong.

Stones are held as counts in the edition's colour order (``domain/counts.py``); events, commands and views
use ``{colour: count}`` dictionaries, converted by the edition's ``palette``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Annotated, Any, Literal

import msgspec

from domain.counts import Counts, Palette
from domain.data import ComponentDataError, convert_component_data, load_component_data

__all__ = [
    "CHOICE",
    "EDITION",
    "EXCHANGE_CARDS_IN_PLAY",
    "PALETTE",
    "STALLS_EMPTIED_TO_END",
    "ComponentDataError",
    "Edition",
    "Equation",
    "Ware",
    "load_edition",
    "validate_edition",
]

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


@dataclass(frozen=True)
class Equation:
    """Z-3: one rate of exchange; either side may be given for the other."""

    card: int
    left: Counts
    right: Counts


@dataclass(frozen=True)
class Ware:
    """Z-4, Z-9: a ware card: the five stones it costs and whether it carries a star."""

    id: int
    stones: Counts
    star: bool


@dataclass(frozen=True, eq=False)
class Edition:
    """A validated edition of the components (read-only mappings inside)."""

    name: str
    colours: tuple[str, ...]
    palette: Palette  # the colours' order: stones as counts, and as ``{colour: count}`` on the wire
    stones_per_colour: int
    die_faces: tuple[str, ...]
    hand_limit: int
    solitaire_turn_limit: int
    stalls: int
    wares_per_stall: int
    score_table: tuple[tuple[int, ...], ...]  # row = min(stones left, 3), column = stars (0..2)
    exchange_cards: Mapping[int, tuple[Equation, ...]]
    wares: Mapping[int, Ware]

    def equations(self, cards: tuple[int, ...]) -> tuple[Equation, ...]:
        """Z-3: the exchange made by ``cards``, equations numbered in card order (0-based)."""
        return _equations(self, cards)


@lru_cache(maxsize=64)
def _equations(edition: Edition, cards: tuple[int, ...]) -> tuple[Equation, ...]:
    """The cached equation list of a pair of exchange cards."""
    return tuple(eq for card in cards for eq in edition.exchange_cards.get(card, ()))


PositiveInt = Annotated[int, msgspec.Meta(ge=1)]
StonesData = Annotated[dict[str, PositiveInt], msgspec.Meta(min_length=1)]  # {colour: count}
ScoreRow = tuple[PositiveInt, PositiveInt, PositiveInt]  # Z-9: no star, one star, two stars


class EquationData(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Z-3: one equation of an exchange card as the data file writes it."""

    left: StonesData
    right: StonesData

    def __post_init__(self) -> None:
        both = sorted(set(self.left) & set(self.right))
        if both:
            raise ValueError(f"an equation has {both} on both sides (Z-3)")


class ExchangeCardData(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Z-3: an exchange card: five equations."""

    id: PositiveInt
    equations: Annotated[
        tuple[EquationData, ...], msgspec.Meta(min_length=EQUATIONS_PER_CARD, max_length=EQUATIONS_PER_CARD)
    ]


class WareData(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Z-4, Z-9: a ware card: exactly five stones, and a star or not."""

    id: PositiveInt
    stones: StonesData
    star: bool

    def __post_init__(self) -> None:
        if sum(self.stones.values()) != STONES_PER_WARE:
            raise ValueError(
                f"ware {self.id} costs {sum(self.stones.values())} stones, not {STONES_PER_WARE}"
            )


class ScoreTableData(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Z-9: points by stones left (0, 1, 2, 3+), each row by stars (none, one, two)."""

    none_left: ScoreRow = msgspec.field(name="0")
    one_left: ScoreRow = msgspec.field(name="1")
    two_left: ScoreRow = msgspec.field(name="2")
    more_left: ScoreRow = msgspec.field(name="3+")


class EditionData(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``domain/data/bazaar.json`` as the rulebook allows it (Z-2..Z-5, Z-9, Z-12)."""

    game: Literal["bazaar"]
    edition: str = "unnamed"
    note: str = ""
    colours: Annotated[  # Z-2
        tuple[Annotated[str, msgspec.Meta(min_length=1)], ...],
        msgspec.Meta(min_length=COLOURS, max_length=COLOURS),
    ]
    stones_per_colour: Literal[20]  # Z-2
    die_faces: tuple[str, ...]  # Z-5
    hand_limit: Annotated[int, msgspec.Meta(ge=STONES_PER_WARE)]  # Z-10
    solitaire_turn_limit: PositiveInt  # Z-12
    stalls: Literal[4]  # Z-4
    wares_per_stall: Literal[5]  # Z-4
    score_table: ScoreTableData
    exchange_cards: Annotated[
        tuple[ExchangeCardData, ...], msgspec.Meta(min_length=EXCHANGE_CARDS, max_length=EXCHANGE_CARDS)
    ]
    ware_cards: Annotated[tuple[WareData, ...], msgspec.Meta(min_length=WARE_CARDS, max_length=WARE_CARDS)]

    def __post_init__(self) -> None:
        """The checks across fields: distinct colours, the die, stones of known colours, unique ids."""
        if len(set(self.colours)) != COLOURS or CHOICE in self.colours:
            raise ValueError(f"'colours' must be {COLOURS} distinct names, none of them {CHOICE!r} (Z-2)")
        if sorted(self.die_faces) != sorted([*self.colours, CHOICE]):
            raise ValueError(f"'die_faces' must be the {COLOURS} colours and {CHOICE!r}, each once (Z-5)")
        stones = [eq.left for card in self.exchange_cards for eq in card.equations]
        stones += [eq.right for card in self.exchange_cards for eq in card.equations]
        stones += [ware.stones for ware in self.ware_cards]
        unknown = sorted({colour for counts in stones for colour in counts} - set(self.colours))
        if unknown:
            raise ValueError(f"stones of unknown colour {unknown[0]!r} (colours are {list(self.colours)})")
        for what, ids in (
            ("exchange card", [card.id for card in self.exchange_cards]),
            ("ware", [ware.id for ware in self.ware_cards]),
        ):
            if len(set(ids)) != len(ids):
                raise ValueError(f"a {what} id appears twice")


def validate_edition(raw: Any) -> Edition:
    """Z-2..Z-5, Z-9: raw component data as an ``Edition``; ComponentDataError naming the fault otherwise."""
    data = convert_component_data("bazaar", raw, EditionData)
    palette = Palette(data.colours)
    stones = palette.of
    table = data.score_table
    return Edition(
        name=data.edition,
        colours=data.colours,
        palette=palette,
        stones_per_colour=data.stones_per_colour,
        die_faces=data.die_faces,
        hand_limit=data.hand_limit,
        solitaire_turn_limit=data.solitaire_turn_limit,
        stalls=data.stalls,
        wares_per_stall=data.wares_per_stall,
        score_table=(table.none_left, table.one_left, table.two_left, table.more_left),
        exchange_cards=MappingProxyType(
            {
                card.id: tuple(
                    Equation(card=card.id, left=stones(eq.left), right=stones(eq.right))
                    for eq in card.equations
                )
                for card in data.exchange_cards
            }
        ),
        wares=MappingProxyType(
            {
                ware.id: Ware(id=ware.id, stones=stones(ware.stones), star=ware.star)
                for ware in data.ware_cards
            }
        ),
    )


def load_edition() -> Edition:
    """The house edition from ``domain/data/bazaar.json``, validated."""
    return validate_edition(load_component_data("bazaar"))


EDITION: Edition = load_edition()
"""The edition this service plays, validated at import."""
PALETTE: Palette = EDITION.palette
"""The house edition's colours: stones as counts, and as ``{colour: count}`` on the wire."""
