"""Bots for every game: levels random, greedy and strong, deciding from a seat's redacted history.

``kit(name)`` is a game's bot kit (``domain.bots.<game>``); ``Knowledge`` folds what a seat sees; ``choose``
decides. ``play`` runs a whole game through the deciders with one bot per seat (the simulator's loop).
"""

from __future__ import annotations

from typing import Any

from domain.bots.core import LEVELS, Budget, Kit, Knowledge, Level, choose

__all__ = ["LEVELS", "Budget", "Kit", "Knowledge", "Level", "choose", "kit"]


def kit(game: str) -> Kit[Any, Any]:
    """The bot kit of a registered game, by name."""
    if game == "basari":
        from domain.bots.basari import KIT as BASARI

        return BASARI
    if game == "bazaar":
        from domain.bots.bazaar import KIT as BAZAAR

        return BAZAAR
    if game == "johari":
        from domain.bots.johari import KIT as JOHARI

        return JOHARI
    raise KeyError(game)
