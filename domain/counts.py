"""Coloured-piece counts: one count per colour, in a game's fixed colour order, as a plain tuple.

Every game holds its coloured pieces this way in its state (Basari's gems, Bazaar's stones, Johari's Gem
Token positions) and does its arithmetic with the functions below. The named forms (``{colour: count}``,
Basari's ``Gems`` struct) exist only on the wire: events, commands and views convert at the edge with the
game's ``Palette``. Plain tuples, not a class of their own: they are compared, hashed and built by the C
code of ``tuple`` and ``map``, which keeps a long game's fold fast (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import add, sub
from typing import Final

__all__ = ["Counts", "Palette", "at_most", "covers", "minus", "non_negative", "plus"]

Counts = tuple[int, ...]
"""How many pieces of each colour, in the game's colour order (its total is ``sum(counts)``)."""


def plus(a: Counts, b: Counts) -> Counts:
    """Two handfuls together."""
    return tuple(map(add, a, b))  # map stops at the shorter, as zip does; a third of a generator's cost


def minus(a: Counts, b: Counts) -> Counts:
    """``b`` taken out of ``a`` (callers make sure ``a`` covers ``b``)."""
    return tuple(map(sub, a, b))


def at_most(a: Counts, b: Counts) -> Counts:
    """Per colour the smaller count: what can be had of ``a`` from a supply of ``b``."""
    return tuple(map(min, a, b))


def covers(have: Counts, need: Counts) -> bool:
    """Whether ``have`` holds every piece of ``need`` (``need`` can be paid from ``have``)."""
    return all(h >= n for h, n in zip(have, need, strict=False))


def non_negative(counts: Counts) -> bool:
    """Whether every count is a whole number of at least 0 (decoding checks it; values built in Python not)."""
    return all(isinstance(count, int) and count >= 0 for count in counts)


class Palette:
    """A game's colours in their fixed order: converts counts to and from the named forms of the wire."""

    __slots__ = ("_ones", "colours", "none")

    def __init__(self, colours: tuple[str, ...]) -> None:
        self.colours: Final = colours
        self.none: Final[Counts] = (0,) * len(colours)
        """No piece at all."""
        self._ones: Final[dict[str, Counts]] = {
            colour: tuple(int(other == colour) for other in colours) for colour in colours
        }

    def one(self, colour: str) -> Counts:
        """A single piece of ``colour`` (a colour this palette does not know: no piece)."""
        return self._ones.get(colour, self.none)

    def of(self, named: Mapping[str, int]) -> Counts:
        """``{colour: count}`` as counts (colours this palette does not know are ignored)."""
        return tuple([int(named.get(colour, 0)) for colour in self.colours])

    def named(self, counts: Counts) -> dict[str, int]:
        """Counts as ``{colour: count}`` with the colours held only, in colour order."""
        return {colour: count for colour, count in zip(self.colours, counts, strict=False) if count}

    def full(self, counts: Counts) -> dict[str, int]:
        """Counts as ``{colour: count}`` with every colour, zero counts included."""
        return dict(zip(self.colours, counts, strict=False))
